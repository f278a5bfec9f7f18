import { describe, expect, it } from "vitest";
import { eventRecord } from "./event-record.js";
import { LogBackend, type LineSink, type LogFormat } from "./log-backend.js";

const errors = () => undefined;

/** A sink that takes bytes (as the log file does): what it was given, copied, since the buffer is the backend's again after. */
function byteSink(): LineSink & { chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  return { chunks, write: (t) => void chunks.push(Buffer.from(t)), writeBytes: (b) => void chunks.push(Buffer.from(b)), close: () => undefined };
}

const ev = (i: number) =>
  eventRecord({
    level: "Metadata",
    auditID: `id-${i}`,
    stage: i % 2 ? "ResponseComplete" : "RequestReceived",
    requestURI: `/api/v1/namespaces/ns-${i}/pods/p?x=<&>`,
    verb: "get",
    user: { username: `user-ünï-${i}`, groups: ["system:authenticated"] },
    sourceIPs: ["127.0.0.1"],
    userAgent: "agent ✓ 𝄞 " + "x".repeat(i % 300),
    requestReceived: 1_700_000_000_000_000 + i,
    stageTime: 1_700_000_000_000_500 + i,
    annotations: i % 2 ? { "authorization.k8s.io/reason": `RBAC: allowed by "r-${i}"`, "authorization.k8s.io/decision": "allow" } : undefined,
  });

describe("the log backend's bytes", () => {
  for (const format of ["json", "legacy"] as LogFormat[]) {
    it(`${format}: a turn's lines, past the first buffer's size and with multi-byte characters, are the lines' UTF-8 in order, written once`, async () => {
      const out = byteSink();
      const log = new LogBackend(out, { format, groupCommit: true, errors });
      const events = Array.from({ length: 400 }, (_, i) => ev(i));
      const waits = events.map((e) => log.processEvents([e]));
      await Promise.all(waits);
      expect(out.chunks).toHaveLength(1);
      const expected = events.map((e) => (format === "json" ? e.jsonLine() : e.legacy() + "\n")).join("");
      expect(Buffer.byteLength(expected)).toBeGreaterThan(64 * 1024);
      expect(out.chunks[0]!.equals(Buffer.from(expected))).toBe(true);
      // The next turn starts from an empty buffer.
      await log.processEvents([ev(1)]);
      expect(out.chunks[1]!.toString()).toBe(format === "json" ? ev(1).jsonLine() : ev(1).legacy() + "\n");
    });
  }
});
