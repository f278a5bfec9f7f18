// A failed etcd call, worded as kube-apiserver's etcd client (clientv3 3.6 over grpc-go 1.72)
// words it. kube-apiserver hands that error on untouched from its etcd3 store through the
// registry's storage-error interpretation (which knows none of them) to the Status writer, which
// answers 500 with no reason and the error's text as message — so the text is what a client sees:
//   - an error etcd itself answered ("etcdserver: request timed out, possibly due to previous
//     leader failure", "etcdserver: leader changed"): clientv3 turns it into its EtcdError, whose
//     text is the description alone;
//   - the connection to the member lost mid-call: grpc-go's "rpc error: code = Unavailable desc =
//     error reading from server: …" (EOF when the member closed it, the socket error when it was
//     reset); a write is never retried on another member, it may have been applied;
//   - the call's deadline: the request context's error, "context deadline exceeded".
import * as grpc from "@grpc/grpc-js";

/** What grpc-js says of a socket error, as Go's syscall errors read. */
const goErrno: Record<string, string> = {
  ECONNRESET: "connection reset by peer",
  ETIMEDOUT: "connection timed out",
  EPIPE: "broken pipe",
};

export class EtcdCallError extends Error {
  /** The gRPC status code. */
  readonly code: grpc.status;
  /** grpc-js's own description (etcd's, when etcd answered the error). */
  readonly details: string;

  constructor(err: grpc.ServiceError, address: string) {
    super(goClientMessage(err.code, err.details ?? "", address));
    this.name = "EtcdCallError";
    this.code = err.code;
    this.details = err.details ?? "";
  }

  /** The member could not be reached or lost the call, or etcd could not serve it for now (no leader, a proposal lost). */
  get unavailable(): boolean {
    return this.code === grpc.status.UNAVAILABLE;
  }

  /** The call ran out of time (its deadline: the request's). */
  get timedOut(): boolean {
    return this.code === grpc.status.DEADLINE_EXCEEDED;
  }
}

/** The text of kube-apiserver's etcd client error for a call to `address` that failed so. */
export function goClientMessage(code: grpc.status, details: string, address: string): string {
  if (code === grpc.status.DEADLINE_EXCEEDED) return "context deadline exceeded";
  if (code === grpc.status.CANCELLED) return "context canceled";
  // etcd's own errors (rpctypes) carry their description only.
  if (details.startsWith("etcdserver: ")) return details;
  return `rpc error: code = ${goCodeName(code)} desc = ${transportDesc(details, address)}`;
}

/** grpc-go's description of a connection lost under a call, from grpc-js's. */
function transportDesc(details: string, address: string): string {
  // grpc-js: the member closed the connection (Go reads EOF), or the socket failed on a read.
  if (details === "Connection dropped") return "error reading from server: EOF";
  const read = /^read (E[A-Z]+)$/.exec(details);
  if (read && goErrno[read[1]!]) return `error reading from server: read tcp ${address}: read: ${goErrno[read[1]!]}`;
  return details;
}

/** grpc-go's names of the status codes (codes.Code.String()). */
function goCodeName(code: grpc.status): string {
  const name = grpc.status[code];
  if (name === undefined) return `Code(${code})`;
  // OK → OK, UNAVAILABLE → Unavailable, DEADLINE_EXCEEDED → DeadlineExceeded.
  return name === "OK" ? "OK" : name.toLowerCase().replace(/(^|_)([a-z])/g, (_, _u: string, c: string) => c.toUpperCase());
}
