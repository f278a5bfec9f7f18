// The kubelet double's side of port-forward over SPDY/3.1 (what kubectl falls back to when the
// WebSocket tunnel is refused): enough of the framing for kubectl's streams — SYN_STREAM answered
// with SYN_REPLY, DATA on a "data" stream echoed back as the forwarded port's answer, PING
// returned, FIN and RST_STREAM honoured. Header blocks are zlib streams (one per direction per
// connection) primed with SPDY/3's dictionary: 65 length-prefixed words, then a run of status
// codes, reason phrases, dates and media types (draft 3, section 2.6.10.1).
import type { Duplex } from "node:stream";
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from "node:zlib";

const dictionaryWords = [
  "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding", "accept-language", "accept-ranges", "age",
  "allow", "authorization", "cache-control", "connection", "content-base", "content-encoding", "content-language", "content-length",
  "content-location", "content-md5", "content-range", "content-type", "date", "etag", "expect", "expires", "from", "host", "if-match",
  "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "last-modified", "location", "max-forwards", "pragma",
  "proxy-authenticate", "proxy-authorization", "range", "referer", "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade",
  "user-agent", "vary", "via", "warning", "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1", "url", "public",
  "set-cookie", "keep-alive", "origin",
];
const dictionaryTail =
  "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505" +
  "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found" +
  "500 Internal Server Error501 Not Implemented503 Service Unavailable" +
  "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT" +
  "chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript," +
  "publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

function lengthPrefixed(s: string): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(Buffer.byteLength(s, "latin1"));
  return Buffer.concat([len, Buffer.from(s, "latin1")]);
}

/** Its Adler-32 is 0xe3c6a7c2, the DICTID every SPDY/3 header stream names. */
export const spdyDictionary = Buffer.concat([...dictionaryWords.map(lengthPrefixed), Buffer.from(dictionaryTail, "latin1")]);

const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
const PING = 6;
const FLAG_FIN = 1;

/** What a zlib stream gives back for `input`, flushed (the header streams never end). */
function pass(z: Inflate | Deflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const take = (c: Buffer) => out.push(c);
    z.on("data", take);
    z.write(input);
    z.flush(constants.Z_SYNC_FLUSH, () => {
      z.off("data", take);
      resolve(Buffer.concat(out));
    });
  });
}

function nameValues(block: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 4;
  for (let n = block.readUInt32BE(0); n > 0; n--) {
    const nameLen = block.readUInt32BE(at);
    const name = block.subarray(at + 4, at + 4 + nameLen).toString();
    at += 4 + nameLen;
    const valueLen = block.readUInt32BE(at);
    out[name] = block.subarray(at + 4, at + 4 + valueLen).toString();
    at += 4 + valueLen;
  }
  return out;
}

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8003, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(body.length, 4);
  head[4] = flags;
  return Buffer.concat([head, body]);
}

function dataFrame(stream: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(stream & 0x7fffffff, 0);
  head.writeUInt32BE(data.length, 4);
  head[4] = flags;
  return Buffer.concat([head, data]);
}

/** The streams kubectl opened, by id, with their headers (streamtype, port, requestid). */
export type SpdyStreams = Map<number, Record<string, string>>;

/** Serves port-forward on an upgraded connection; every forwarded port echoes what it is sent. */
export function servePortForward(socket: Duplex, streams: SpdyStreams = new Map()): SpdyStreams {
  const inflate = createInflate({ dictionary: spdyDictionary });
  const deflate = createDeflate({ dictionary: spdyDictionary });
  let buffered = Buffer.alloc(0);
  let queue = Promise.resolve();
  const frame = async (f: Buffer): Promise<void> => {
    if (f[0]! & 0x80) {
      const type = f.readUInt16BE(2);
      if (type === SYN_STREAM) {
        const id = f.readUInt32BE(8) & 0x7fffffff;
        streams.set(id, nameValues(await pass(inflate, f.subarray(18))));
        const reply = Buffer.alloc(4);
        reply.writeUInt32BE(id);
        const noHeaders = await pass(deflate, Buffer.alloc(4));
        socket.write(controlFrame(SYN_REPLY, 0, Buffer.concat([reply, noHeaders])));
      } else if (type === PING) {
        socket.write(f);
      } else if (type === RST_STREAM) {
        streams.delete(f.readUInt32BE(8) & 0x7fffffff);
      }
      return;
    }
    const id = f.readUInt32BE(0) & 0x7fffffff;
    const flags = f[4]!;
    const data = f.subarray(8);
    if (streams.get(id)?.streamtype !== "data") return;
    // The "pod" behind the port answers with what it was sent.
    if (data.length > 0) socket.write(dataFrame(id, 0, data));
    if (flags & FLAG_FIN) socket.write(dataFrame(id, FLAG_FIN, Buffer.alloc(0)));
  };
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 8) {
      const length = buffered.readUInt32BE(4) & 0xffffff;
      if (buffered.length < 8 + length) break;
      const f = buffered.subarray(0, 8 + length);
      buffered = buffered.subarray(8 + length);
      queue = queue.then(() => frame(f)).catch(() => void socket.destroy());
    }
  });
  socket.on("error", () => undefined);
  socket.on("close", () => {
    inflate.close();
    deflate.close();
  });
  return streams;
}
