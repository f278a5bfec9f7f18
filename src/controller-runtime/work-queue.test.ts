import { createConnection, createServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { KeyQueue } from "./work-queue.js";

/** Keeps the thread busy for `ms`, as a reconcile that computes does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("KeyQueue", () => {
  it("lets a connection's bytes in between slices while several queues are busy with work that never waits on I/O", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    let worked = 0;
    const received = new Promise<number>((resolve) => server.on("connection", (s) => s.once("data", () => resolve(worked))));
    const queues = [0, 1, 2].map(() => new KeyQueue(async () => {
      busy(0.5);
      worked++;
    }));
    const keysEach = 100;
    for (const q of queues) for (let i = 0; i < keysEach; i++) q.add(`k${i}`);
    const client = createConnection((server.address() as AddressInfo).port, "127.0.0.1", () => client.write("GET / HTTP/1.1\r\n\r\n"));
    try {
      const before = await received;
      // A few event-loop iterations (connect, accept, read), one slice of ~2 keys each: the bytes
      // are read long before the 300 keys are done (taking 50 keys per queue per turn, as the
      // queue once did, read them only after 150).
      expect(before).toBeLessThan(40);
      await Promise.all(queues.map((q) => q.whenIdle()));
      expect(worked).toBe(3 * keysEach);
    } finally {
      client.destroy();
      for (const q of queues) q.stop();
      await new Promise((r) => server.close(r));
    }
  });

  it("still names a failed key as retrying while its retry runs, and not once the retry succeeds", async () => {
    let attempts = 0;
    let retryStarted!: () => void;
    const retryRunning = new Promise<void>((r) => (retryStarted = r));
    let releaseRetry!: () => void;
    const queue: KeyQueue = new KeyQueue(
      async () => {
        if (++attempts === 1) throw new Error("refused");
        retryStarted();
        await new Promise<void>((r) => (releaseRetry = r));
      },
      (key) => queue.addAfter(key, 5, true),
    );
    queue.add("k");
    await retryRunning;
    expect([queue.idle(), queue.retrying()]).toEqual([false, ["k"]]);
    releaseRetry();
    await queue.whenIdle();
    expect([attempts, queue.retrying()]).toEqual([2, []]);
    queue.stop();
  });
});
