import { describe, expect, it, vi } from "vitest";
import { Dispatcher } from "../../controllers/flowcontrol/dispatcher.js";
import { DroppedRequestsTracker } from "../../controllers/flowcontrol/dropped-requests.js";
import { WatchTracker } from "../../controllers/flowcontrol/watch-tracker.js";
import { workEstimator } from "../../controllers/flowcontrol/work-estimator.js";
import { recordingContext, type RecordingOptions } from "../../http/recording-exchange.testkit.js";
import { FlowControlMetrics } from "../../observability/flowcontrol-metrics.js";
import { mandatoryFlowSchemas, mandatoryPriorityLevels, type FlowSchema, type PriorityLevelConfiguration } from "../../types/flowcontrol-bootstrap.js";
import { isLongRunning } from "../long-running.js";
import type { Filter } from "./filter.js";
import { priorityAndFairnessFilter } from "./priority-and-fairness.js";

const jane = { name: "jane", groups: ["system:authenticated"] };
const admin = { name: "root", groups: ["system:masters", "system:authenticated"] };

/** A filter over the mandatory configuration plus one level of one seat and one short queue for jane. */
function setUp(queueLengthLimit = 1) {
  const tiny: PriorityLevelConfiguration = {
    metadata: { name: "tiny", uid: "pl-uid" },
    spec: { type: "Limited", limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: "Queue", queuing: { queues: 1, handSize: 1, queueLengthLimit } } } },
  };
  const janes: FlowSchema = {
    metadata: { name: "janes", uid: "fs-uid" },
    spec: { priorityLevelConfiguration: { name: "tiny" }, matchingPrecedence: 10, rules: [{ subjects: [{ kind: "User", user: { name: "jane" } }], resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }] }] },
  };
  const metrics = new FlowControlMetrics();
  const dispatcher = new Dispatcher({ serverConcurrencyLimit: 1, metrics });
  dispatcher.digest([...mandatoryPriorityLevels(), tiny], [...mandatoryFlowSchemas(), janes]);
  const watches = new WatchTracker();
  const filter = priorityAndFairnessFilter({ dispatcher, watches, metrics, dropped: new DroppedRequestsTracker(), isLongRunning, requestTimeoutMs: 60_000, estimate: workEstimator({ objectCount: () => undefined, watches, maxSeats: () => 0, watchList: true }) });
  return { filter, metrics, dispatcher };
}

function hold(filter: Filter, o: RecordingOptions & { user?: typeof jane; deadlineMs?: number } = {}) {
  const { ctx, rec } = recordingContext({ user: jane, path: "/api/v1/namespaces/a/pods", ...o });
  if (o.deadlineMs !== undefined) ctx.deadline = ctx.receivedAt + o.deadlineMs;
  let release!: () => void;
  const next = vi.fn(() => new Promise<void>((r) => (release = r)));
  const done = filter(ctx, next);
  return { ctx, rec, next, done, release: () => release() };
}

describe("priority and fairness filter", () => {
  it("sends a request to its level and says so in the PF headers", async () => {
    const { filter } = setUp();
    const r = hold(filter);
    expect(r.next).toHaveBeenCalledOnce();
    r.release();
    await r.done;
    expect(r.rec.headers).toMatchObject({ "x-kubernetes-pf-flowschema-uid": "fs-uid", "x-kubernetes-pf-prioritylevel-uid": "pl-uid" });
  });

  it("queues while the seat is taken and answers 429 with Retry-After when the queue is full", async () => {
    const { filter, metrics } = setUp();
    const first = hold(filter);
    const second = hold(filter);
    expect(second.next).not.toHaveBeenCalled();
    const third = hold(filter);
    await third.done;
    expect(third.next).not.toHaveBeenCalled();
    expect(third.rec.status).toBe(429);
    expect(third.rec.headers).toMatchObject({ "retry-after": "1", "x-kubernetes-pf-flowschema-uid": "fs-uid" });
    expect(third.rec.body()).toBe("Too many requests, please try again later.\n");
    first.release();
    await first.done;
    await vi.waitFor(() => expect(second.next).toHaveBeenCalledOnce());
    second.release();
    await second.done;
    expect(metrics.text()).toContain('apiserver_flowcontrol_rejected_requests_total{flow_schema="janes",priority_level="tiny",reason="queue-full"} 1');
    // Only the one that queued has time its latency SLI leaves out.
    expect(first.ctx.latency).toBeUndefined();
    expect(second.ctx.latency?.apfQueueWaitSeconds).toBeGreaterThan(0);
  });

  it("refuses a queued request whose wait passes a quarter of its deadline", async () => {
    const { filter } = setUp(5);
    const first = hold(filter);
    const late = hold(filter, { deadlineMs: 40 }); // a wait of 10 ms at most
    await late.done;
    expect(late.rec.status).toBe(429);
    expect(late.next).not.toHaveBeenCalled();
    first.release();
    await first.done;
  });

  it("lets system:masters through the exempt level and never queues it", async () => {
    const { filter } = setUp();
    const held = hold(filter);
    const root = [hold(filter, { user: admin }), hold(filter, { user: admin })];
    for (const r of root) expect(r.next).toHaveBeenCalledOnce();
    for (const r of [held, ...root]) r.release();
    await Promise.all([held, ...root].map((r) => r.done));
  });

  it("holds a watch's seat only until the watch handler says it is initialized", async () => {
    const { filter } = setUp();
    const watch = hold(filter, { query: "watch=true" });
    expect(watch.next).toHaveBeenCalledOnce();
    const waiting = hold(filter);
    expect(waiting.next).not.toHaveBeenCalled();
    watch.ctx.watchInitialized!();
    await vi.waitFor(() => expect(waiting.next).toHaveBeenCalledOnce());
    waiting.release();
    watch.release();
    await Promise.all([watch.done, waiting.done]);
  });

  it("passes other long-running requests by", async () => {
    const { filter } = setUp();
    const held = hold(filter);
    const exec = hold(filter, { path: "/api/v1/namespaces/a/pods/p/exec" });
    expect(exec.next).toHaveBeenCalledOnce();
    held.release();
    exec.release();
    await Promise.all([held.done, exec.done]);
  });
});
