// The LIST bench's cheap page reading (bench/client/list-page.ts): it counts items and finds the
// continue token without parsing, and must agree with a full parse on the pages kapi writes.
import { describe, expect, it } from "vitest";
import { continueToken, pageItems } from "../bench/client/list-page.js";

const pod = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name, namespace: "n", ownerReferences: [{ kind: "ReplicaSet", name: "rs" }] }, spec: { containers: [{ name: "c", image: "i" }] }, ...extra });
const page = (items: unknown[], meta: Record<string, unknown> = { resourceVersion: "7" }) => Buffer.from(JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: meta, items }) + "\n");

describe("list page scan", () => {
  it("counts the items a full parse finds", () => {
    for (const n of [0, 1, 2, 500]) {
      const body = page(Array.from({ length: n }, (_, i) => pod(`p${i}`, { status: { phase: "Running", message: 'a ,{"metadata": in a string is escaped' } })));
      expect(pageItems(body)).toBe(JSON.parse(body.toString()).items.length);
    }
  });

  it("finds the continue token in the list metadata, and none on the last page", () => {
    expect(continueToken(page([pod("a")], { resourceVersion: "7", continue: "eyJ2IjoxfQ", remainingItemCount: 3 }))).toBe("eyJ2IjoxfQ");
    expect(continueToken(page([pod("a")]))).toBe("");
    // A token past the first 4 KB (a long one) is still found, and an item's field is never taken for it.
    const long = "x".repeat(5000);
    expect(continueToken(page([pod("a")], { resourceVersion: "7", continue: long }))).toBe(long);
    expect(continueToken(page([pod("a", { spec: { continue: "no" }, pad: "y".repeat(5000) })]))).toBe("");
  });
});
