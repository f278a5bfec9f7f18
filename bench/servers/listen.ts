// The anchors' listener: the same TLS and HTTP/2 settings as kapi's own listener
// (src/server/listener.ts), with raw h2 streams and HTTP/1.1 requests handed to one callback.
import { createSecureServer, type Http2SecureServer, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServingCreds } from "../core/tls.js";

/** One request, whichever protocol it came in on. */
export interface BareExchange {
  method: string;
  path: string;
  body(): Promise<Buffer>;
  head(status: number, headers: Record<string, string | number>): void;
  write(b: Buffer): void;
  end(b?: Buffer): void;
  /** Bytes queued but not yet sent (the watch anchor cuts off slow readers like kapi does). */
  pending(): number;
  onClose(f: () => void): void;
}

function readAll(s: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    s.on("data", (c: Buffer) => chunks.push(c));
    s.on("end", () => resolve(Buffer.concat(chunks)));
    s.on("error", reject);
  });
}

function h2(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): BareExchange {
  return {
    method: String(headers[":method"]),
    path: String(headers[":path"]),
    body: () => readAll(stream),
    head: (status, h) => stream.respond({ ":status": status, ...h }),
    write: (b) => void stream.write(b),
    end: (b) => void (b ? stream.end(b) : stream.end()),
    pending: () => stream.writableLength,
    onClose: (f) => void stream.once("close", f),
  };
}

function h1(req: IncomingMessage, res: ServerResponse): BareExchange {
  return {
    method: req.method ?? "GET",
    path: req.url ?? "/",
    body: () => readAll(req),
    head: (status, h) => void res.writeHead(status, h),
    write: (b) => void res.write(b),
    end: (b) => void (b ? res.end(b) : res.end()),
    pending: () => res.writableLength,
    onClose: (f) => void res.once("close", f),
  };
}

export async function listenBare(creds: ServingCreds, handle: (ex: BareExchange) => void): Promise<{ server: Http2SecureServer; url: string }> {
  const server = createSecureServer({
    cert: creds.cert,
    key: creds.key,
    ca: creds.clientCA,
    requestCert: true,
    rejectUnauthorized: false,
    allowHTTP1: true,
    minVersion: "TLSv1.2",
    ALPNProtocols: ["h2", "http/1.1"],
    settings: { maxConcurrentStreams: 1000 },
  } as Parameters<typeof createSecureServer>[0]);
  server.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on("error", () => undefined);
    handle(h2(stream, headers));
  });
  // As in kapi: take HTTP/1.1 from 'request' and drop the compatibility 'stream' listener Node adds.
  const own = server.listeners("stream");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.httpVersionMajor === 2) return;
    handle(h1(req, res));
  });
  for (const l of server.listeners("stream")) if (!own.includes(l)) server.removeListener("stream", l as (...a: unknown[]) => void);
  server.on("sessionError", () => undefined);
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
