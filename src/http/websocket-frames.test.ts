import { describe, expect, it } from "vitest";
import { acceptKey, closeFrame, encodeFrame, FrameError, FrameReader, opcodes } from "./websocket-frames.js";

/** A frame as a client sends it: masked. */
function clientFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i & 3]!));
  const n = payload.length;
  const len = n < 126 ? Buffer.from([0x80 | n]) : n < 65536 ? Buffer.from([0x80 | 126, n >> 8, n & 255]) : Buffer.concat([Buffer.from([0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode]), len, mask, masked]);
}

describe("WebSocket framing (RFC 6455)", () => {
  it("the accept key of RFC 6455's example", () => {
    expect(acceptKey("dGhlIHNhbXBsZSBub25jZQ==")).toBe("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  });

  it("reads masked frames of every length form, split anywhere, fragments and control frames between", () => {
    const big = Buffer.alloc(70_000, 7);
    const mid = Buffer.alloc(300, 5);
    const wire = Buffer.concat([clientFrame(opcodes.binary, Buffer.from("ab"), false), clientFrame(opcodes.ping, Buffer.from("p")), clientFrame(opcodes.continuation, mid), clientFrame(opcodes.binary, big), clientFrame(opcodes.close, Buffer.from([3, 232]))]);
    const reader = new FrameReader();
    const frames = [];
    for (let i = 0; i < wire.length; i += 997) frames.push(...reader.push(wire.subarray(i, i + 997)));
    expect(frames.map((f) => [f.opcode, f.fin, f.payload.length])).toEqual([[2, false, 2], [9, true, 1], [0, true, 300], [2, true, 70_000], [8, true, 2]]);
    expect(frames[0]!.payload.toString()).toBe("ab");
    expect(frames[3]!.payload.equals(big)).toBe(true);
  });

  it("refuses an unmasked client frame and one beyond the limit", () => {
    expect(() => new FrameReader().push(encodeFrame(opcodes.binary, Buffer.from("x")))).toThrow(FrameError);
    expect(() => new FrameReader(10).push(clientFrame(opcodes.binary, Buffer.alloc(11)))).toThrow(FrameError);
  });

  it("writes unmasked frames with the shortest length form", () => {
    expect(encodeFrame(opcodes.binary, Buffer.from("hi"))).toEqual(Buffer.from([0x82, 2, 0x68, 0x69]));
    expect(encodeFrame(opcodes.binary, Buffer.alloc(126)).subarray(0, 4)).toEqual(Buffer.from([0x82, 126, 0, 126]));
    expect(encodeFrame(opcodes.binary, Buffer.alloc(65536)).subarray(0, 10)).toEqual(Buffer.from([0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0]));
    expect(closeFrame()).toEqual(Buffer.from([0x88, 2, 3, 232]));
  });
});
