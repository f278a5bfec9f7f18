// One informer per replica, as client-go's reflector does it: list, then watch from the list's
// resourceVersion, and when the watch ends (the replica killed, the server timing it out) watch
// again from the last resourceVersion seen (events and bookmarks), on the same replica, until it
// answers again. A watch refused with 410 Gone forces a relist (counted: events between the two
// may then be missed, which the soak reports as lost).
import type { ReplicaApi } from "./api.js";

export interface SeenEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  name: string;
  rev: number;
}

const retryMs = 200;

export class Informer {
  /** resourceVersion of the first list: the events after it are what this informer must see. */
  listedAt = 0;
  readonly events: SeenEvent[] = [];
  /** name → resourceVersion, as the informer's store holds it. */
  readonly state = new Map<string, number>();
  lastRev = 0;
  relists = 0;
  /** Watches opened (the first, and one per resume). */
  watches = 0;
  /** Failed attempts to (re)open a watch while the replica was away. */
  failedAttempts = 0;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    readonly name: string,
    private readonly api: () => ReplicaApi,
    private readonly path: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Lists (resolving once the first list is done) and keeps watching in the background. */
  async start(): Promise<void> {
    await this.list();
    this.listedAt = this.lastRev;
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.api().close();
    await this.running;
  }

  private async list(): Promise<void> {
    const r = await this.api().request("GET", this.path);
    if (r.status !== 200) throw new Error(`${this.name}: list: HTTP ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    this.state.clear();
    for (const o of r.body.items) this.state.set(o.metadata.name, Number(o.metadata.resourceVersion));
    this.lastRev = Number(r.body.metadata.resourceVersion);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const outcome = await this.watchOnce();
        if (outcome === "gone") {
          this.relists++;
          this.log(`${this.name}: watch from ${this.lastRev} answered 410 Gone: relisting`);
          await this.list();
        }
      } catch {
        this.failedAttempts++;
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  }

  /** One watch from lastRev until it ends: "ended", or "gone" for a 410. Throws when it cannot open. */
  private watchOnce(): Promise<"ended" | "gone"> {
    return new Promise((resolve, reject) => {
      let outcome: "ended" | "gone" = "ended";
      const path = `${this.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.lastRev}`;
      this.api()
        .stream(
          path,
          (line) => {
            const ev = JSON.parse(line) as { type: string; object: any };
            if (ev.type === "ERROR") {
              if (ev.object?.code === 410) outcome = "gone";
              return;
            }
            const rev = Number(ev.object.metadata.resourceVersion);
            if (ev.type !== "BOOKMARK") {
              const name = ev.object.metadata.name as string;
              this.events.push({ type: ev.type as SeenEvent["type"], name, rev });
              if (ev.type === "DELETED") this.state.delete(name);
              else this.state.set(name, rev);
            }
            if (rev > this.lastRev) this.lastRev = rev;
          },
          () => resolve(outcome),
        )
        .then((status) => {
          if (status === 410) outcome = "gone";
          else if (status !== 200) reject(new Error(`watch: HTTP ${status}`));
          else this.watches++;
        }, reject);
    });
  }
}
