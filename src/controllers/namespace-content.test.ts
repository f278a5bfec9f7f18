// The namespace controller's ear for held content: which keys are a namespace's content, and a
// hold that queues the namespace at the first change of its content, once.
import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import { followContent, isContentKey } from "./namespace-content.js";

const types = builtinTypeRegistry((f) => f.group === "" && ["namespaces", "configmaps", "secrets"].includes(f.resource));
const turn = () => new Promise<void>((r) => setImmediate(r));

describe("isContentKey", () => {
  it("is an object of a namespaced type in that namespace, nothing else", () => {
    expect(isContentKey(types, "/registry/configmaps/team/settings", "team")).toBe(true);
    expect(isContentKey(types, "/registry/secrets/team/token", "team")).toBe(true);
    expect(isContentKey(types, "/registry/configmaps/team-b/settings", "team")).toBe(false);
    expect(isContentKey(types, "/registry/configmaps/other/team", "team")).toBe(false);
    // The namespace object itself is not its content.
    expect(isContentKey(types, "/registry/namespaces/team", "team")).toBe(false);
    // A type that is not served (not in the registry) is not looked at.
    expect(isContentKey(types, "/registry/pods/team/p", "team")).toBe(false);
  });
});

describe("followContent", () => {
  it("queues a held namespace at the first change of its content after the revision, once", async () => {
    const storage = new MemoryStorage();
    const queued: string[] = [];
    const follower = followContent(storage, types, (ns) => queued.push(ns));
    await storage.create("/registry/configmaps/team/before", "{}");
    follower.hold("team", await storage.currentRevision());
    await storage.create("/registry/configmaps/other/x", "{}");
    await storage.create("/registry/namespaces/team", "{}");
    await turn();
    expect(queued).toEqual([]);
    await storage.create("/registry/configmaps/team/a", "{}");
    await storage.create("/registry/configmaps/team/b", "{}");
    await turn();
    expect(queued).toEqual(["team"]);
    follower.stop();
    await storage.close();
  });

  it("hears a change made after the revision but before the hold; a released namespace is not queued", async () => {
    const storage = new MemoryStorage();
    const queued: string[] = [];
    const follower = followContent(storage, types, (ns) => queued.push(ns));
    const before = await storage.currentRevision();
    await storage.create("/registry/configmaps/early/a", "{}");
    follower.hold("early", before);
    follower.hold("quiet", await storage.currentRevision());
    follower.release("quiet");
    await storage.create("/registry/configmaps/quiet/a", "{}");
    await turn();
    expect(queued).toEqual(["early"]);
    follower.stop();
    await storage.close();
  });
});
