// Turns a RequestSpec into per-slot requests. Bodies are filled from one pre-serialized template
// so the client spends its CPU on sending, not on JSON.stringify.
import { fillTemplate, pod, NAME, SEQ } from "../fixtures.js";
import type { RequestSpec } from "./protocol.js";
import type { Conn, Response } from "./transport.js";

export interface Outgoing {
  method: string;
  path: string;
  body?: Buffer;
  wantBody: boolean;
}

export interface Generator {
  /** Untimed set-up per slot (warm connection, create the object an update slot owns). */
  prepare(slot: number, conn: Conn, firstOnConn: boolean): Promise<void>;
  next(slot: number, seq: number): Outgoing;
  onResponse(slot: number, r: Response): void;
  /** A second request that completes the operation (status write after create). */
  then?(slot: number, seq: number, r: Response): Outgoing | undefined;
}

const RV = "__RV__";

export function generator(spec: RequestSpec): Generator {
  switch (spec.op) {
    case "get":
      return {
        async prepare(_slot, conn, first) {
          if (first) await conn.request("GET", spec.path);
        },
        next: () => ({ method: "GET", path: spec.path, wantBody: false }),
        onResponse: () => undefined,
      };
    case "create": {
      const path = `/api/v1/namespaces/${spec.namespace}/pods`;
      const tpl = JSON.stringify(pod(NAME, spec.namespace, SEQ, spec.ownerUid));
      return {
        async prepare() {},
        next: (slot, seq) => ({ method: "POST", path, body: Buffer.from(fillTemplate(tpl, `${spec.prefix}-${slot}-${seq}`, String(seq))), wantBody: false }),
        onResponse: () => undefined,
        then: spec.withStatus
          ? (slot, seq) => {
              const name = `${spec.prefix}-${slot}-${seq}`;
              return { method: "PUT", path: `${path}/${name}/status`, body: Buffer.from(fillTemplate(tpl, name, String(seq))), wantBody: false };
            }
          : undefined,
      };
    }
    case "post":
      return {
        async prepare() {},
        next: (slot, seq) => ({ method: "POST", path: spec.path, body: Buffer.from(fillTemplate(spec.template, `${spec.prefix}-${slot}-${seq}`, String(seq))), wantBody: false }),
        onResponse: () => undefined,
      };
    case "update": {
      const collection = `/api/v1/namespaces/${spec.namespace}/pods`;
      const p = pod(NAME, spec.namespace, SEQ, spec.ownerUid);
      const tpl = JSON.stringify({ ...p, metadata: { ...(p.metadata as object), resourceVersion: RV } });
      const rvs: string[] = [];
      const name = (slot: number) => `${spec.prefix}-${slot}`;
      // Decoded, not pattern-matched: field order and managedFields size are the server's business.
      const remember = (slot: number, r: Response) => {
        const rv = r.body ? (JSON.parse(r.body.toString("utf8")) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion : undefined;
        if (rv) rvs[slot] = rv;
      };
      return {
        async prepare(slot, conn) {
          const r = await conn.request("POST", collection, Buffer.from(fillTemplate(tpl.replace(`"resourceVersion":"${RV}",`, ""), name(slot))), true);
          if (r.status !== 201) throw new Error(`update set-up: create returned ${r.status}: ${r.body?.toString().slice(0, 300)}`);
          remember(slot, r);
        },
        // Every update changes an annotation: a no-op PUT would not be a write at all.
        next: (slot, seq) => ({
          method: "PUT",
          path: `${collection}/${name(slot)}`,
          body: Buffer.from(fillTemplate(tpl, name(slot), String(seq + 1)).replace(RV, rvs[slot])),
          wantBody: true,
        }),
        onResponse: remember,
      };
    }
  }
}
