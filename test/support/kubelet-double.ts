// A kubelet the tests start: HTTPS on a loopback port (the node's kubelet endpoint), serving what
// kube-apiserver forwards to a kubelet — containerLogs (follow streams), exec and attach over
// WebSocket (v5.channel.k8s.io: one byte of channel, then the bytes; channel 3 the Status at the
// end, 255 a closed stream) and port-forward upgrades, whose requests it records. Its "containers"
// run a few commands: echo, cat (stdin back until closed) and false (exit code 1). Port-forward
// over SPDY/3.1 (./spdy-port-forward.ts) echoes what each forwarded port is sent; WebSocket
// port-forward is the plain portforward.k8s.io tunnel, echoed (kubectl's SPDY-over-WebSocket
// subprotocol never reaches it: kapi, as kube-apiserver 1.34, turns it into a SPDY upgrade).
import { createServer, type Server } from "node:https";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { createCA, createLeaf } from "../../src/authn/certs.js";
import { servePortForward, type SpdyStreams } from "./spdy-port-forward.js";

export interface KubeletRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  clientCN?: string;
}

export interface KubeletDouble {
  port: number;
  /** The requests it was sent, in order. */
  requests: KubeletRequest[];
  /** The log lines it writes, then (with follow) `followLines` one by one, then it ends. */
  logLines: string[];
  followLines: string[];
  /** The serving CA (for --kubelet-certificate-authority). */
  ca: string;
  /** The SPDY streams port-forward clients opened (headers by stream id). */
  portForwardStreams: SpdyStreams;
  close(): Promise<void>;
}

const successStatus = JSON.stringify({ metadata: {}, status: "Success" });

function exitStatus(command: string[], code: number): string {
  return JSON.stringify({
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${command.join(" ")}], exit code ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  });
}

function send(ws: WebSocket, channel: number, data: string | Buffer): void {
  ws.send(Buffer.concat([Buffer.from([channel]), Buffer.isBuffer(data) ? data : Buffer.from(data)]));
}

/** One exec: the command's output on channel 1, its Status on channel 3, then the close. */
function runExec(ws: WebSocket, command: string[]): void {
  const finish = (status: string) => {
    send(ws, 3, status);
    ws.close(1000);
  };
  const [program, ...args] = command;
  if (program === "echo") {
    send(ws, 1, `${args.join(" ")}\n`);
    return finish(successStatus);
  }
  if (program === "false") return finish(exitStatus(command, 1));
  if (program === "cat") {
    ws.on("message", (m: Buffer) => {
      if (m[0] === 0) send(ws, 1, m.subarray(1));
      // v5: [255, 0] closes stdin.
      if (m[0] === 255 && m[1] === 0) finish(successStatus);
    });
    return;
  }
  send(ws, 2, `exec: ${program}: not found\n`);
  finish(exitStatus(command, 127));
}

export async function startKubeletDouble(): Promise<KubeletDouble> {
  const ca = await createCA("kubelet-ca");
  const serving = await createLeaf(ca, { commonName: "kubelet", ips: ["127.0.0.1"], usage: "server" });
  const requests: KubeletRequest[] = [];
  const double: KubeletDouble = { port: 0, requests, logLines: [], followLines: [], ca: ca.certPem, portForwardStreams: new Map(), close: async () => undefined };
  const record = (req: IncomingMessage) => {
    const peer = (req.socket as { getPeerCertificate?: () => { subject?: { CN?: string } } }).getPeerCertificate?.();
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, clientCN: peer?.subject?.CN });
  };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    record(req);
    const url = new URL(req.url ?? "/", "https://kubelet");
    if (!url.pathname.startsWith("/containerLogs/")) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404 page not found");
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" });
    for (const l of double.logLines) res.write(`${l}\n`);
    if (url.searchParams.get("follow") !== "true") return void res.end();
    const more = [...double.followLines];
    const next = () => {
      const line = more.shift();
      if (line === undefined) return void res.end();
      res.write(`${line}\n`);
      setTimeout(next, 100);
    };
    setTimeout(next, 100);
  });
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => ["v5.channel.k8s.io", "portforward.k8s.io"].find((p) => protocols.has(p)) ?? false,
  });
  server.on("upgrade", (req: IncomingMessage, socket, head) => {
    record(req);
    if (String(req.headers.upgrade).toLowerCase() === "spdy/3.1") {
      // Port-forward as a kubelet serves it to SPDY clients.
      socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n");
      if (head.length > 0) socket.unshift(head);
      servePortForward(socket, double.portForwardStreams);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const url = new URL(req.url ?? "/", "https://kubelet");
      if (url.pathname.startsWith("/exec/")) runExec(ws, url.searchParams.getAll("command"));
      else if (url.pathname.startsWith("/attach/")) runExec(ws, ["cat"]);
      // Port-forward: the tunnel's bytes come back as they went (the test speaks to it itself).
      else ws.on("message", (m: Buffer) => ws.send(m));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  double.port = (server.address() as AddressInfo).port;
  double.close = () =>
    new Promise<void>((r) => {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections?.();
      server.close(() => r());
    });
  return double;
}
