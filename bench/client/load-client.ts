// The driver's handle on the load-client process: typed calls over IPC.
import { Child } from "../core/child.js";
import type { BatchJob, BatchResult, ClosedJob, ClosedResult, ListJob, ListResult, OpenJob, OpenResult, RawRequest, RawResponse, ReplicaLatencyJob, ReplicaLatencyResult, ListVerifyJob, ListVerifyResult, WatchJob, WatchResult } from "./protocol.js";

export class LoadClient {
  private constructor(private child: Child) {}

  static start(): LoadClient {
    return new LoadClient(Child.start("client/worker.ts"));
  }

  closed = (j: ClosedJob) => this.child.call<ClosedResult>("closed", j);
  open = (j: OpenJob) => this.child.call<OpenResult>("open", j);
  list = (j: ListJob) => this.child.call<ListResult>("list", j);
  listVerify = (j: ListVerifyJob) => this.child.call<ListVerifyResult>("listVerify", j);
  watch = (j: WatchJob) => this.child.call<WatchResult>("watch", j);
  replicaLatency = (j: ReplicaLatencyJob) => this.child.call<ReplicaLatencyResult>("replicaLatency", j);
  batch = (j: BatchJob) => this.child.call<BatchResult>("batch", j);
  request = (q: RawRequest) => this.child.call<RawResponse>("request", q);
  stop = () => this.child.stop();
}
