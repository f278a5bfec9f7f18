// A thin client of etcd's v3 gRPC API over @grpc/grpc-js: unary KV and Maintenance calls with a
// deadline, and raw watch streams. One channel per endpoint (--etcd-servers); a call that finds
// its endpoint unavailable moves the client on to the next one for later calls, so a cluster
// that loses one member keeps serving. This module is loaded only when etcd3 is the backend.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { etcdApiDescriptor } from "./api-descriptor.js";

export interface EtcdTls {
  /** PEM CA bundle that signs the etcd servers' certificates (--etcd-cafile). */
  ca?: Buffer;
  /** PEM client certificate and key (--etcd-certfile, --etcd-keyfile). */
  cert?: Buffer;
  key?: Buffer;
}

export interface EtcdClientOptions {
  /** scheme://host:port, in order of preference; https endpoints use `tls`. */
  endpoints: string[];
  tls?: EtcdTls;
  /** How long a unary call may wait for an endpoint and its answer. */
  callTimeoutMs: number;
}

export interface RawKeyValue {
  key: Buffer;
  value: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
}

export interface RawHeader {
  revision: number;
}

export interface RawRangeResponse {
  header: RawHeader;
  kvs: RawKeyValue[];
  more: boolean;
  count: number;
}

export interface RawTxnResponse {
  header: RawHeader;
  succeeded: boolean;
  responses: {
    response_range?: RawRangeResponse;
    response_put?: { header: RawHeader; prev_kv?: RawKeyValue };
    response_delete_range?: { header: RawHeader; deleted: number; prev_kvs: RawKeyValue[] };
  }[];
}

export interface RawWatchResponse {
  header: RawHeader;
  watch_id: number;
  created: boolean;
  canceled: boolean;
  compact_revision: number;
  cancel_reason: string;
  events: { type: "PUT" | "DELETE"; kv: RawKeyValue; prev_kv?: RawKeyValue }[];
}

export type WatchStream = grpc.ClientDuplexStream<object, RawWatchResponse>;

type Unary = (req: object, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => grpc.ClientUnaryCall;
interface Endpoint {
  kv: grpc.Client & Record<"Range" | "Txn" | "Compact", Unary>;
  watch: grpc.Client & { Watch(opts: grpc.CallOptions): WatchStream };
  maintenance: grpc.Client & { Status: Unary };
}

const loadOptions: protoLoader.Options = { longs: Number, enums: String, defaults: true, oneofs: true };

/** The gRPC status codes that say the endpoint, not the request, failed. */
export function isUnavailable(err: unknown): boolean {
  const code = (err as grpc.ServiceError)?.code;
  return code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED;
}

export class EtcdClient {
  private readonly endpoints: Endpoint[];
  private current = 0;

  constructor(private readonly opts: EtcdClientOptions) {
    if (opts.endpoints.length === 0) throw new Error("no etcd endpoints given");
    const pkg = grpc.loadPackageDefinition(protoLoader.fromJSON(etcdApiDescriptor as Parameters<typeof protoLoader.fromJSON>[0], loadOptions)) as unknown as {
      etcdserverpb: Record<"KV" | "Watch" | "Maintenance", grpc.ServiceClientConstructor>;
    };
    this.endpoints = opts.endpoints.map((e) => {
      const { address, secure } = parseEndpoint(e);
      const creds = secure
        ? grpc.credentials.createSsl(opts.tls?.ca ?? null, opts.tls?.key ?? null, opts.tls?.cert ?? null)
        : grpc.credentials.createInsecure();
      // One channel per endpoint, shared by its three services.
      const kv = new pkg.etcdserverpb.KV(address, creds) as unknown as Endpoint["kv"];
      const channelOverride = kv.getChannel();
      const watch = new pkg.etcdserverpb.Watch(address, creds, { channelOverride }) as unknown as Endpoint["watch"];
      const maintenance = new pkg.etcdserverpb.Maintenance(address, creds, { channelOverride }) as unknown as Endpoint["maintenance"];
      return { kv, watch, maintenance };
    });
  }

  range(req: object, timeoutMs?: number): Promise<RawRangeResponse> {
    return this.call((e) => e.kv.Range.bind(e.kv), req, timeoutMs) as Promise<RawRangeResponse>;
  }

  txn(req: object): Promise<RawTxnResponse> {
    return this.call((e) => e.kv.Txn.bind(e.kv), req) as Promise<RawTxnResponse>;
  }

  compact(revision: number): Promise<{ header: RawHeader }> {
    return this.call((e) => e.kv.Compact.bind(e.kv), { revision }) as Promise<{ header: RawHeader }>;
  }

  status(timeoutMs?: number): Promise<{ header: RawHeader; version: string }> {
    return this.call((e) => e.maintenance.Status.bind(e.maintenance), {}, timeoutMs) as Promise<{ header: RawHeader; version: string }>;
  }

  /** A new bidirectional watch stream on the current endpoint (the caller sends create requests). */
  watchStream(): WatchStream {
    const e = this.endpoints[this.current]!;
    return e.watch.Watch({});
  }

  /** Move on to the next endpoint (a watch stream that failed calls this before it reports). */
  failover(): void {
    if (this.endpoints.length > 1) this.current = (this.current + 1) % this.endpoints.length;
  }

  close(): void {
    for (const e of this.endpoints) e.kv.close();
  }

  private call(method: (e: Endpoint) => Unary, req: object, timeoutMs = this.opts.callTimeoutMs): Promise<unknown> {
    const e = this.endpoints[this.current]!;
    // Wait for a connection up to the deadline (as etcd's Go client does), rather than failing
    // at once while a restarting etcd is still coming back.
    const meta = new grpc.Metadata();
    meta.setOptions({ waitForReady: true });
    return new Promise((resolve, reject) => {
      method(e)(req, meta, { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (!err) return resolve(res);
        if (isUnavailable(err) && this.endpoints[this.current] === e) this.failover();
        reject(err);
      });
    });
  }
}

/** An --etcd-servers entry: http://host:port or https://host:port (a bare host:port is plain). */
export function parseEndpoint(endpoint: string): { address: string; secure: boolean } {
  const m = /^(?:(https?|unix):\/\/)?([^/]+)\/?$/.exec(endpoint.trim());
  if (!m || m[1] === "unix") throw new Error(`--etcd-servers: unsupported etcd endpoint ${JSON.stringify(endpoint)} (want http:// or https://host:port)`);
  return { address: m[2]!, secure: m[1] === "https" };
}
