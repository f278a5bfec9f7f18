// The server side of RFC 6455's framing, as much as a byte tunnel over a WebSocket needs: the
// handshake's accept key, frames read from a client (masked, maybe fragmented, control frames
// between) and unmasked frames written to it.
import { createHash } from "node:crypto";

export const opcodes = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** Sec-WebSocket-Accept for the client's Sec-WebSocket-Key. */
export function acceptKey(key: string): string {
  return createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
}

/** A frame the server sends: never masked. */
export function encodeFrame(opcode: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.alloc(2) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (n < 126) head[1] = n;
  else if (n < 65536) {
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** A close frame with its status code (1000: normal closure). */
export function closeFrame(code = 1000): Buffer {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code);
  return encodeFrame(opcodes.close, payload);
}

export class FrameError extends Error {}

/**
 * Reads the frames a client sends, fed chunk by chunk. A client's frames must be masked
 * (RFC 6455 §5.1); a payload beyond `maxPayload` is refused rather than buffered.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly maxPayload = 32 << 20) {}

  /** The frames complete so far; throws FrameError on a frame no client may send. */
  push(chunk: Buffer): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: Frame[] = [];
    for (;;) {
      const f = this.next();
      if (!f) return out;
      out.push(f);
    }
  }

  private next(): Frame | undefined {
    const b = this.buffered;
    if (b.length < 2) return undefined;
    if (!(b[1]! & 0x80)) throw new FrameError("client frame is not masked");
    let length = b[1]! & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return undefined;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.maxPayload)) throw new FrameError("frame too large");
      length = Number(big);
      offset = 10;
    }
    if (length > this.maxPayload) throw new FrameError("frame too large");
    if (b.length < offset + 4 + length) return undefined;
    const mask = b.subarray(offset, offset + 4);
    const payload = Buffer.from(b.subarray(offset + 4, offset + 4 + length));
    for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
    this.buffered = b.subarray(offset + 4 + length);
    return { fin: (b[0]! & 0x80) !== 0, opcode: b[0]! & 0x0f, payload };
  }
}
