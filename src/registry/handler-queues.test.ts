import { describe, expect, it } from "vitest";
import { HandlerQueues } from "./handler-queues.js";

const turn = () => new Promise((r) => setImmediate(r));

describe("informer handler queues", () => {
  it("are not idle while a notification waits for its handler, and whenIdle resolves once it was handed over", async () => {
    const q = new HandlerQueues<string>(() => undefined);
    const got: string[] = [];
    q.add({ added: (o) => void got.push(o) }, []);
    expect(q.idle()).toBe(true);
    q.notify({ kind: "added", obj: "a" });
    expect(q.idle()).toBe(false);
    const drained = q.whenIdle().then(() => [...got]);
    expect(await drained).toEqual(["a"]);
    expect(q.idle()).toBe(true);
  });

  it("count a notification a handler queues for an earlier handler in the same drain, and deliver it", async () => {
    const q = new HandlerQueues<string>(() => undefined);
    const first: string[] = [];
    q.add({ added: (o) => void first.push(o) }, []);
    // The second handler's reaction reaches the first one, which this drain has already passed.
    q.add({ added: (o) => (o === "a" ? q.notify({ kind: "added", obj: "b" }) : undefined) }, []);
    q.notify({ kind: "added", obj: "a" });
    await q.whenIdle();
    expect(first).toEqual(["a", "b"]);
    expect(q.idle()).toBe(true);
  });

  it("a listener's queue left when it is removed does not count; closing wakes waiters", async () => {
    const q = new HandlerQueues<string>(() => undefined);
    const remove = q.add({}, ["x", "y"]);
    expect(q.idle()).toBe(false);
    remove();
    expect(q.idle()).toBe(true);
    q.add({}, ["z"]);
    const waiting = q.whenIdle();
    q.close();
    await waiting;
    expect(q.idle()).toBe(true);
    await turn();
  });
});
