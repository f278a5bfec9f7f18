// The soak's writers: closed-loop workers spread over the replicas (worker w writes through
// replica w mod n), each owning a few ConfigMap names it creates, updates (with a resourceVersion
// precondition) and deletes (with one too). Every answered write is logged with the
// resourceVersion it was acknowledged at; a write whose answer was lost (the replica killed under
// it) leaves its name unknown until a read tells the worker what happened.
import type { ReplicaApi } from "./api.js";

export interface AckedWrite {
  op: "create" | "update" | "delete";
  name: string;
  /** resourceVersion acknowledged: the object's after a create or update; for a delete, the one it deleted. */
  rev: number;
  /** The sequence number written into data.seq (create, update). */
  seq: number | undefined;
}

export interface WriterStats {
  attempted: number;
  acked: number;
  /** Writes that got no answer (connection refused or cut): outcome unknown to the writer. */
  unanswered: number;
  /** Answers other than success, by status (409 after an unanswered write that did happen, 5xx while a replica stops). */
  refused: Record<string, number>;
  /** Reads made to learn the state of a name after an unanswered write, and how many of them got no answer. */
  resyncs: number;
  resyncsUnanswered: number;
}

type Known = { exists: false } | { exists: true; rev: number };

export function configMap(name: string, seq: number, rev?: number): object {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(rev ? { resourceVersion: String(rev) } : {}) }, data: { seq: String(seq) } };
}

export class Writers {
  readonly acked: AckedWrite[] = [];
  readonly stats: WriterStats = { attempted: 0, acked: 0, unanswered: 0, refused: {}, resyncs: 0, resyncsUnanswered: 0 };
  private seq = 0;
  private stopped = false;

  constructor(
    private readonly apis: () => ReplicaApi[],
    private readonly namespace: string,
    private readonly concurrency: number,
    private readonly namesPerWorker: number,
  ) {}

  /** Runs until stop(); resolves when every worker has finished its last request. */
  run(): Promise<void> {
    return Promise.all(Array.from({ length: this.concurrency }, (_, w) => this.worker(w))).then(() => undefined);
  }

  stop(): void {
    this.stopped = true;
  }

  private async worker(w: number): Promise<void> {
    const known: (Known | undefined)[] = Array.from({ length: this.namesPerWorker }, () => ({ exists: false }));
    const path = `/api/v1/namespaces/${this.namespace}/configmaps`;
    while (!this.stopped) {
      const apis = this.apis();
      const api = apis[w % apis.length]!;
      const k = Math.floor(Math.random() * this.namesPerWorker);
      const name = `w${w}-${k}`;
      const cur = known[k];
      let writing = false;
      try {
        if (!cur) {
          this.stats.resyncs++;
          const r = await api.request("GET", `${path}/${name}`);
          if (r.status === 200) known[k] = { exists: true, rev: Number(r.body.metadata.resourceVersion) };
          else if (r.status === 404) known[k] = { exists: false };
          else await pause();
          continue;
        }
        const prevRev = cur.exists ? cur.rev : 0;
        const seq = ++this.seq;
        this.stats.attempted++;
        writing = true;
        let op: AckedWrite["op"];
        let r;
        if (!cur.exists) {
          op = "create";
          known[k] = undefined;
          r = await api.request("POST", path, configMap(name, seq));
        } else if (Math.random() < 0.75) {
          op = "update";
          known[k] = undefined;
          r = await api.request("PUT", `${path}/${name}`, configMap(name, seq, cur.rev));
        } else {
          op = "delete";
          known[k] = undefined;
          r = await api.request("DELETE", `${path}/${name}`, { kind: "DeleteOptions", apiVersion: "v1", preconditions: { resourceVersion: String(cur.rev) } });
        }
        if (r.status >= 200 && r.status < 300) {
          this.stats.acked++;
          if (op === "delete") {
            this.acked.push({ op, name, rev: prevRev, seq: undefined });
            known[k] = { exists: false };
          } else {
            const rev = Number(r.body.metadata.resourceVersion);
            this.acked.push({ op, name, rev, seq });
            known[k] = { exists: true, rev };
          }
        } else {
          this.stats.refused[r.status] = (this.stats.refused[r.status] ?? 0) + 1;
          // Left unknown: the next turn on this name reads it first.
          if (r.status >= 500) await pause();
        }
      } catch {
        if (writing) this.stats.unanswered++;
        else this.stats.resyncsUnanswered++;
        await pause();
      }
    }
  }
}

const pause = () => new Promise((r) => setTimeout(r, 100));
