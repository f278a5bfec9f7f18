// SPDY tunnelled through a WebSocket (upstream: apiserver's util/proxy TunnelingHandler, which
// kube-apiserver 1.34 puts in front of pods/portforward under PortForwardWebsockets, on by
// default). kubectl ≥ 1.31 opens port-forward as a WebSocket asking for the subprotocol
// "SPDY/3.1+portforward.k8s.io" and speaks SPDY inside its binary messages. The backend (the
// kubelet) is asked for a plain SPDY/3.1 upgrade with the unprefixed protocols; once it switches,
// the client's handshake is completed with the protocol the backend chose, prefixed again, and
// the bytes flow: each binary message's payload to the backend, each chunk the backend sends as
// one binary message. A backend that does not switch has its answer passed back as it is.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { closeTogether } from "./close-together.js";
import { acceptKey, closeFrame, encodeFrame, FrameError, FrameReader, opcodes } from "./websocket-frames.js";

const tunnelingPrefix = "SPDY/3.1+";
const kubernetesSuffix = ".k8s.io";

type Headers = Record<string, string | string[] | undefined>;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const all = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const tunnels = (p: string) => p.startsWith(tunnelingPrefix) && p.endsWith(kubernetesSuffix);

/** Upstream's IsWebSocketRequestWithTunnelingProtocol: a WebSocket upgrade asking for a tunnelling subprotocol. */
export function isTunnelingRequest(headers: Headers): boolean {
  if (first(headers["upgrade"])?.toLowerCase() !== "websocket") return false;
  return (first(headers["sec-websocket-protocol"]) ?? "").split(",").some((p) => tunnels(p.trim()));
}

/** Every subprotocol the client asks for, in its order (gorilla's Subprotocols). */
const requestedProtocols = (headers: Headers): string[] => all(headers["sec-websocket-protocol"]).flatMap((v) => v.split(",").map((p) => p.trim()));

/** The SPDY protocols the client tunnels, unprefixed, in its order (upstream's spdyProtocolsFromWebsocketProtocols). */
export function tunneledProtocols(headers: Headers): string[] {
  return requestedProtocols(headers).filter(tunnels).map((p) => p.slice(tunnelingPrefix.length));
}

/**
 * The request headers the backend is sent (upstream's createSPDYRequest): the WebSocket handshake's
 * own headers dropped, an upgrade to SPDY/3.1 asked with the tunnelled protocols.
 */
export function spdyRequestHeaders(raw: readonly string[], protocols: readonly string[]): string[] {
  const dropped = new Set(["sec-websocket-protocol", "sec-websocket-key", "sec-websocket-version", "upgrade", "x-stream-protocol-version", "content-length", "transfer-encoding"]);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!dropped.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  out.push("Upgrade", "SPDY/3.1");
  for (const p of protocols) out.push("X-Stream-Protocol-Version", p);
  // A POST without a body, as Go sends one (Node would otherwise chunk it and end the chunks on
  // the connection that is about to carry SPDY).
  out.push("Content-Length", "0");
  return out;
}

/** Why the backend's 101 cannot be tunnelled, or undefined when it switched to SPDY/3.1. */
export function backendSwitchError(res: IncomingMessage): string | undefined {
  const connection = all(res.headers["connection"]).join(",").toLowerCase();
  const upgrade = all(res.headers["upgrade"]).join(",").toLowerCase();
  return connection.includes("upgrade") && upgrade.includes("spdy/3.1") ? undefined : "unable to upgrade: missing upgrade headers in response";
}

/**
 * Completes the client's WebSocket handshake for a backend that switched to SPDY, then joins the
 * two: resolves when either side is done (both are then closed, as upstream).
 */
export function joinTunnel(clientHeaders: Headers, client: Duplex, clientHead: Buffer, res: IncomingMessage, backend: Duplex, backendHead: Buffer): Promise<void> {
  const chosen = first(res.headers["x-stream-protocol-version"])?.trim();
  const protocol = chosen ? `${tunnelingPrefix}${chosen}` : undefined;
  // As gorilla's Upgrader: the chosen protocol only when the client asked for it.
  const asked = requestedProtocols(clientHeaders);
  const head = [
    "HTTP/1.1 101 Switching Protocols",
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Accept: ${acceptKey(first(clientHeaders["sec-websocket-key"]) ?? "")}`,
    ...(protocol && asked.includes(protocol) ? [`Sec-WebSocket-Protocol: ${protocol}`] : []),
  ];
  client.write(`${head.join("\r\n")}\r\n\r\n`);
  return new Promise((resolve) => {
    // The backend finished: the client is told with a normal closure.
    const close = closeTogether(client, backend, resolve, () => client.write(closeFrame()));
    const reader = new FrameReader();
    const fromClient = (chunk: Buffer): void => {
      let frames;
      try {
        frames = reader.push(chunk);
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
        client.write(closeFrame(1002));
        return close();
      }
      for (const f of frames) {
        if (f.opcode === opcodes.binary || f.opcode === opcodes.continuation) {
          if (f.payload.length > 0) backend.write(f.payload);
        } else if (f.opcode === opcodes.ping) client.write(encodeFrame(opcodes.pong, f.payload));
        else if (f.opcode === opcodes.close) {
          client.write(closeFrame());
          return close();
        } else if (f.opcode !== opcodes.pong) {
          // A text message has no place in the tunnel (upstream's TunnelingConnection refuses it).
          client.write(closeFrame(1003));
          return close();
        }
      }
    };
    backend.on("data", (chunk: Buffer) => {
      if (!client.write(encodeFrame(opcodes.binary, chunk))) {
        backend.pause();
        client.once("drain", () => backend.resume());
      }
    });
    client.on("data", fromClient);
    // Either may have been paused by its HTTP parser: a 'data' listener alone does not resume it.
    backend.resume();
    client.resume();
    if (backendHead.length > 0) client.write(encodeFrame(opcodes.binary, backendHead));
    if (clientHead.length > 0) fromClient(clientHead);
  });
}
