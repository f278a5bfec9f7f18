// One unary gRPC call made straight on a grpc-js channel (Channel.createCall, the call object
// grpc-js's own Client builds on). The Client's unary path adds, per call, what kapi's etcd client
// never uses: interceptor wrappers, an EventEmitter for the call, and an Error captured for its
// stack (grpc-js appends the caller's stack to a failed call's error) — together about a quarter
// of the client's CPU per etcd request, on every create, update, delete and GET. The channel
// below is the same: deadline, wait-for-ready, the send-size limit, retries and the connection.
import * as grpc from "@grpc/grpc-js";

/** A failed call as grpc-js's Client reports one (a ServiceError: code, details, metadata). */
export type UnaryCallError = grpc.ServiceError;

/** Resolves with the decoded answer, or rejects with the call's status as a ServiceError. */
export function unaryCall(channel: grpc.Channel, method: grpc.MethodDefinition<object, unknown>, req: object, deadline: number, meta: grpc.Metadata): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let encoded: Buffer;
    try {
      encoded = method.requestSerialize(req);
    } catch (e) {
      // As grpc-js words a request it cannot serialize (the call is never sent).
      return reject(callError({ code: grpc.status.INTERNAL, details: `Request message serialization failure: ${(e as Error)?.message ?? String(e)}`, metadata: new grpc.Metadata() }));
    }
    const call = channel.createCall(method.path, deadline, undefined, null, null);
    let answer: unknown;
    let answered = false;
    let failed: grpc.StatusObject | undefined;
    call.start(meta, {
      onReceiveMetadata() {},
      onReceiveMessage(message: Buffer) {
        if (answered) return call.cancelWithStatus(grpc.status.UNIMPLEMENTED, "Too many responses received");
        answered = true;
        try {
          answer = method.responseDeserialize(message);
        } catch (e) {
          failed = { code: grpc.status.INTERNAL, details: `Response message parsing error: ${(e as Error)?.message ?? String(e)}`, metadata: new grpc.Metadata() };
          call.cancelWithStatus(failed.code, failed.details);
        }
      },
      onReceiveStatus(status: grpc.StatusObject) {
        const s = failed ?? status;
        if (s.code !== grpc.status.OK) return reject(callError(s));
        if (!answered) return reject(callError({ code: grpc.status.UNIMPLEMENTED, details: "No message received", metadata: s.metadata }));
        resolve(answer);
      },
    });
    call.sendMessageWithContext({}, encoded);
    call.halfClose();
    call.startRead();
  });
}

/** grpc-js's error for a status: the message reads "<code> <NAME>: <details>". */
function callError(s: grpc.StatusObject): UnaryCallError {
  return Object.assign(new Error(`${s.code} ${grpc.status[s.code]}: ${s.details}`), s);
}
