import { describe, expect, it } from "vitest";
import { encodePem, joinPemBundles, pemBlocks, pemBytes } from "./pem.js";

describe("PEM", () => {
  it("writes 64-character lines and reads back the same bytes", () => {
    const der = new Uint8Array(100).map((_, i) => i);
    const text = encodePem("CERTIFICATE", der);
    expect(text.split("\n").map((l) => l.length)).toEqual([27, 64, 64, 8, 25, 0]);
    const [block] = pemBlocks(`junk\n${text}junk`);
    expect(block!.type).toBe("CERTIFICATE");
    expect(block!.text).toBe(text.trimEnd());
    expect([...pemBytes(block!)]).toEqual([...der]);
  });
  it("reads every block with its label, an END that must repeat the label", () => {
    const text = "-----BEGIN A KEY-----\nAA==\n-----END A KEY-----\n-----BEGIN X-----\nunterminated\n-----BEGIN CERTIFICATE REQUEST-----\nAQ==\n-----END CERTIFICATE REQUEST-----\n";
    expect(pemBlocks(text).map((b) => b.type)).toEqual(["A KEY", "CERTIFICATE REQUEST"]);
  });
  it("joins bundles with one line break between them", () => {
    expect(joinPemBundles("a", "b")).toBe("a\nb");
    expect(joinPemBundles("a\n", "b")).toBe("a\nb");
    expect(joinPemBundles("", "b")).toBe("b");
    expect(joinPemBundles("a", "")).toBe("a");
  });
});
