import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../memory/memory-storage.js";
import { observedStorage } from "./observed-storage.js";

describe("observedStorage", () => {
  it("reports each request by etcd's operation names, with its key and whether it failed", async () => {
    const seen: [string, string, boolean][] = [];
    const s = observedStorage(new MemoryStorage(), (op, key, seconds, failed) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      seen.push([op, key, failed]);
    });
    const kv = await s.create("/registry/pods/a/p", "{}");
    await expect(s.create("/registry/pods/a/p", "{}")).rejects.toMatchObject({ code: "KeyExists" });
    await s.get("/registry/pods/a/p");
    await s.range("/registry/pods/");
    await s.count("/registry/pods/");
    await s.update("/registry/pods/a/p", "{}", kv.modRevision);
    await s.transaction([{ kind: "create", key: "/registry/pods/a/q", value: "{}" }]);
    await s.delete("/registry/pods/a/q");
    await s.currentRevision();
    expect(seen).toEqual([
      ["create", "/registry/pods/a/p", false],
      ["create", "/registry/pods/a/p", true],
      ["get", "/registry/pods/a/p", false],
      ["list", "/registry/pods/", false],
      ["listWithCount", "/registry/pods/", false],
      ["update", "/registry/pods/a/p", false],
      ["txn", "/registry/pods/a/q", false],
      ["delete", "/registry/pods/a/q", false],
    ]);
    await s.close();
  });
});
