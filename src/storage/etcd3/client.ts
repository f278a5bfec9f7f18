// A thin client of etcd's v3 gRPC API over @grpc/grpc-js: unary KV, Maintenance and Lease calls
// with a deadline (made straight on the channel, ./unary-call.ts), and raw watch streams. One
// channel per endpoint (--etcd-servers), all connected from the start; calls go round robin over
// the endpoints whose connection is up, as etcd's Go client balances them, so a cluster that
// loses one member keeps serving through the others. As that client does, a read (Range, Status)
// that finds its member gone is retried on another one within its deadline, and a write (Txn,
// Compact) is not: it may have been applied before the member went, and only the caller can tell
// (a create retried would find its own key). This module is loaded only when etcd3 is the backend.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { etcdApiDescriptor } from "./api-descriptor.js";
import { EtcdCallError } from "./call-error.js";
import { unaryCall } from "./unary-call.js";
import { requestTooLargeMessage } from "../common/request-size.js";

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
  /** The answering member (a 64-bit id, as a number: fit to compare with StatusResponse.leader). */
  member_id: number;
}

export interface RawStatusResponse {
  header: RawHeader;
  version: string;
  /** The size of the member's database file (apiserver_storage_size_bytes). */
  dbSize: number;
  /** The member id of the cluster's leader as the answering member knows it (0: none). */
  leader: number;
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

/** The unary methods kapi calls, each made on a channel by unaryCall. */
type UnaryMethod = "Range" | "Txn" | "Compact" | "Status" | "LeaseGrant";
type MethodDefinitions = Record<UnaryMethod, grpc.MethodDefinition<object, unknown>>;
interface Endpoint {
  url: string;
  /** host:port, as the Go client's errors name the member. */
  address: string;
  channel: grpc.Channel;
  /** Watch streams go through grpc-js's client (its streaming call); unary calls straight on the channel. */
  watch: grpc.Client & { Watch(meta: grpc.Metadata, opts: grpc.CallOptions): WatchStream };
}

/** A watch stream and the endpoint it runs on (to resume elsewhere when that member goes). */
export interface OpenWatchStream {
  stream: WatchStream;
  endpoint: string;
}

const loadOptions: protoLoader.Options = { longs: Number, enums: String, defaults: true, oneofs: true };
/** etcd's Go client waits this long between retries of a read on another member. */
const retryBackoffMs = 25;

/**
 * The text kube-apiserver answers with when etcd refused a write for its size (upstream's
 * isTooLargeError): etcd's own refusal past --max-request-bytes, or the client's past its 2 MiB
 * send limit, in Go's words for a gRPC status. Undefined for any other failure.
 */
export function tooLargeMessage(err: unknown): string | undefined {
  const e = err as { code?: grpc.status; details?: string; sentBytes?: number };
  if (e?.code === grpc.status.INVALID_ARGUMENT && e.details === requestTooLargeMessage) return requestTooLargeMessage;
  if (e?.code !== grpc.status.RESOURCE_EXHAUSTED || e.sentBytes === undefined) return undefined;
  return `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${e.sentBytes} vs. ${maxCallSendMsgSize})`;
}

/** etcd's Go client's default MaxCallSendMsgSize, which kube-apiserver keeps. */
const maxCallSendMsgSize = 2 * 1024 * 1024;

/**
 * etcd's Go client's default MaxCallRecvMsgSize (math.MaxInt32), which kube-apiserver keeps: a
 * range's answer easily passes what a request may send. grpc-js's own default is 4 MiB, past
 * which an unpaged list of a large store failed.
 */
const maxCallRecvMsgSize = 2 ** 31 - 1;

/** Whether a read that failed so may be tried again on another member (etcd's Go client: Unavailable only). */
const retryableRead = (err: unknown) => (err as grpc.ServiceError)?.code === grpc.status.UNAVAILABLE;

export class EtcdClient {
  private readonly endpoints: Endpoint[];
  /** Where the round robin goes next. */
  private next = 0;

  constructor(private readonly opts: EtcdClientOptions) {
    if (opts.endpoints.length === 0) throw new Error("no etcd endpoints given");
    const pkg = grpc.loadPackageDefinition(protoLoader.fromJSON(etcdApiDescriptor as Parameters<typeof protoLoader.fromJSON>[0], loadOptions)) as unknown as {
      etcdserverpb: Record<"KV" | "Watch" | "Maintenance" | "Lease", grpc.ServiceClientConstructor>;
    };
    // Lease ids use all 64 bits: read as strings, where every other int64 (revisions, counts) is a number.
    const leasePkg = grpc.loadPackageDefinition(protoLoader.fromJSON(etcdApiDescriptor as Parameters<typeof protoLoader.fromJSON>[0], { ...loadOptions, longs: String })) as unknown as {
      etcdserverpb: Record<"Lease", grpc.ServiceClientConstructor>;
    };
    const service = (name: "KV" | "Maintenance") => pkg.etcdserverpb[name].service as grpc.ServiceDefinition;
    const kv = service("KV");
    this.methods = {
      Range: kv.Range!,
      Txn: kv.Txn!,
      Compact: kv.Compact!,
      Status: service("Maintenance").Status!,
      LeaseGrant: (leasePkg.etcdserverpb.Lease.service as grpc.ServiceDefinition).LeaseGrant!,
    };
    this.txnBytes = (req) => this.methods.Txn.requestSerialize(req).length;
    this.endpoints = opts.endpoints.map((url) => {
      const { address, secure } = parseEndpoint(url);
      const creds = secure
        ? grpc.credentials.createSsl(opts.tls?.ca ?? null, opts.tls?.key ?? null, opts.tls?.cert ?? null)
        : grpc.credentials.createInsecure();
      // One channel per endpoint, carrying its watch streams and every unary call.
      const watch = new pkg.etcdserverpb.Watch(address, creds, { "grpc.max_send_message_length": maxCallSendMsgSize, "grpc.max_receive_message_length": maxCallRecvMsgSize }) as unknown as Endpoint["watch"];
      const channel = watch.getChannel() as grpc.Channel;
      // Connect every member now: the one a call fails over to is then already up.
      channel.getConnectivityState(true);
      return { url, address, channel, watch };
    });
  }

  /** The encoded size of a Txn request. */
  private readonly txnBytes: (req: object) => number;
  private readonly methods: MethodDefinitions;

  get endpointCount(): number {
    return this.endpoints.length;
  }

  range(req: object, timeoutMs?: number): Promise<RawRangeResponse> {
    return this.read("Range", req, timeoutMs) as Promise<RawRangeResponse>;
  }

  txn(req: object): Promise<RawTxnResponse> {
    return (this.write("Txn", req) as Promise<RawTxnResponse>).catch((e: unknown) => {
      // Over the send limit: the size it had, which grpc-js leaves out and Go's client names.
      if ((e as grpc.ServiceError)?.code === grpc.status.RESOURCE_EXHAUSTED) Object.assign(e as object, { sentBytes: this.txnBytes(req) });
      throw e;
    });
  }

  compact(revision: number): Promise<{ header: RawHeader }> {
    return this.write("Compact", { revision }) as Promise<{ header: RawHeader }>;
  }

  /** A new lease of `ttlSeconds` (etcd may round it up to its minimum); resolves with its id (64 bits, as a decimal string). */
  async leaseGrant(ttlSeconds: number): Promise<string> {
    const r = (await this.write("LeaseGrant", { TTL: ttlSeconds })) as { ID: string; error: string };
    if (r.error) throw new Error(`etcd lease grant: ${r.error}`);
    return r.ID;
  }

  status(timeoutMs?: number): Promise<RawStatusResponse> {
    return this.read("Status", {}, timeoutMs) as Promise<RawStatusResponse>;
  }

  /**
   * A new bidirectional watch stream (the caller sends create requests) on a member whose
   * connection is up, other than `avoid` when another is there; undefined when `avoid` is given
   * and no other member is connected or connecting (nowhere to resume).
   */
  watchStream(avoid?: string): OpenWatchStream | undefined {
    const e = this.pick(avoid);
    if (!e) return undefined;
    // As kube-apiserver's watches (clientv3.WithRequireLeader): a member that has had no leader
    // for three election timeouts ends the stream ("etcdserver: no leader") instead of keeping a
    // watch that can hear nothing.
    const meta = new grpc.Metadata();
    meta.set("hasleader", "true");
    return { stream: e.watch.Watch(meta, {}), endpoint: e.url };
  }

  close(): void {
    for (const e of this.endpoints) e.watch.close();
  }

  /**
   * The next endpoint round robin among those connected; failing that, one connecting or idle;
   * failing that, the next in turn (a call then waits for it up to its deadline, as for an etcd
   * that is restarting). With `avoid`, that endpoint is never chosen, and nothing is chosen
   * unless another endpoint is connected or connecting.
   */
  private pick(avoid?: string): Endpoint | undefined {
    const n = this.endpoints.length;
    let pending: number | undefined;
    let down: number | undefined;
    for (let i = 0; i < n; i++) {
      const at = (this.next + i) % n;
      const e = this.endpoints[at]!;
      if (e.url === avoid) continue;
      const state = e.channel.getConnectivityState(true);
      if (state === grpc.connectivityState.READY) {
        this.next = (at + 1) % n;
        return e;
      }
      if (state === grpc.connectivityState.TRANSIENT_FAILURE || state === grpc.connectivityState.SHUTDOWN) down ??= at;
      else pending ??= at;
    }
    const at = pending ?? (avoid === undefined ? down : undefined);
    if (at === undefined) return undefined;
    this.next = (at + 1) % n;
    return this.endpoints[at];
  }

  private call(e: Endpoint, method: UnaryMethod, req: object, deadline: number): Promise<unknown> {
    // Wait for a connection up to the deadline (as etcd's Go client does), rather than failing
    // at once while a restarting etcd is still coming back.
    const meta = new grpc.Metadata();
    meta.setOptions({ waitForReady: true });
    return unaryCall(e.channel, this.methods[method], req, deadline, meta).catch((err: grpc.ServiceError) => {
      throw new EtcdCallError(err, e.address);
    });
  }

  private async read(method: UnaryMethod, req: object, timeoutMs = this.opts.callTimeoutMs): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    let e = this.pick()!;
    for (;;) {
      try {
        return await this.call(e, method, req, deadline);
      } catch (err) {
        const other = retryableRead(err) && Date.now() + retryBackoffMs < deadline ? this.pick(e.url) : undefined;
        if (!other) throw err;
        await new Promise((r) => setTimeout(r, retryBackoffMs));
        e = other;
      }
    }
  }

  private write(method: UnaryMethod, req: object): Promise<unknown> {
    return this.call(this.pick()!, method, req, Date.now() + this.opts.callTimeoutMs);
  }
}

/** An --etcd-servers entry: http://host:port or https://host:port (a bare host:port is plain). */
export function parseEndpoint(endpoint: string): { address: string; secure: boolean } {
  const m = /^(?:(https?|unix):\/\/)?([^/]+)\/?$/.exec(endpoint.trim());
  if (!m || m[1] === "unix") throw new Error(`--etcd-servers: unsupported etcd endpoint ${JSON.stringify(endpoint)} (want http:// or https://host:port)`);
  return { address: m[2]!, secure: m[1] === "https" };
}
