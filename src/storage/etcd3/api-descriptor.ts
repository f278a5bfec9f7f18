// The part of etcd's v3 gRPC API that kapi speaks, as a protobuf descriptor (protobufjs's JSON
// form, which @grpc/proto-loader loads without .proto files on disk). Message and field numbers
// are etcd's wire contract (etcdserverpb and mvccpb, stable since etcd 3.0; progress requests
// since 3.4); only the fields kapi reads or sets are declared, the rest are skipped on decode.
// Leases: only granting one (keys written with a TTL carry it; etcd deletes them when it expires).

const i64 = (id: number) => ({ type: "int64", id });
const bytes = (id: number) => ({ type: "bytes", id });
const bool = (id: number) => ({ type: "bool", id });
const msg = (id: number, type: string, rule?: "repeated") => ({ type, id, ...(rule ? { rule } : {}) });

export const etcdApiDescriptor = {
  nested: {
    mvccpb: {
      nested: {
        KeyValue: { fields: { key: bytes(1), create_revision: i64(2), mod_revision: i64(3), version: i64(4), value: bytes(5), lease: i64(6) } },
        Event: {
          fields: { type: msg(1, "EventType"), kv: msg(2, "KeyValue"), prev_kv: msg(3, "KeyValue") },
          nested: { EventType: { values: { PUT: 0, DELETE: 1 } } },
        },
      },
    },
    etcdserverpb: {
      nested: {
        KV: {
          methods: {
            Range: { requestType: "RangeRequest", responseType: "RangeResponse" },
            Txn: { requestType: "TxnRequest", responseType: "TxnResponse" },
            Compact: { requestType: "CompactionRequest", responseType: "CompactionResponse" },
          },
        },
        Watch: {
          methods: { Watch: { requestType: "WatchRequest", responseType: "WatchResponse", requestStream: true, responseStream: true } },
        },
        Maintenance: { methods: { Status: { requestType: "StatusRequest", responseType: "StatusResponse" } } },
        Lease: { methods: { LeaseGrant: { requestType: "LeaseGrantRequest", responseType: "LeaseGrantResponse" } } },
        LeaseGrantRequest: { fields: { TTL: i64(1), ID: i64(2) } },
        LeaseGrantResponse: { fields: { header: msg(1, "ResponseHeader"), ID: i64(2), TTL: i64(3), error: { type: "string", id: 4 } } },
        ResponseHeader: { fields: { member_id: { type: "uint64", id: 2 }, revision: i64(3) } },
        RangeRequest: {
          fields: { key: bytes(1), range_end: bytes(2), limit: i64(3), revision: i64(4), keys_only: bool(8), count_only: bool(9), min_mod_revision: i64(10) },
        },
        RangeResponse: { fields: { header: msg(1, "ResponseHeader"), kvs: msg(2, "mvccpb.KeyValue", "repeated"), more: bool(3), count: i64(4) } },
        PutRequest: { fields: { key: bytes(1), value: bytes(2), lease: i64(3), prev_kv: bool(4) } },
        PutResponse: { fields: { header: msg(1, "ResponseHeader"), prev_kv: msg(2, "mvccpb.KeyValue") } },
        DeleteRangeRequest: { fields: { key: bytes(1), range_end: bytes(2), prev_kv: bool(3) } },
        DeleteRangeResponse: { fields: { header: msg(1, "ResponseHeader"), deleted: i64(2), prev_kvs: msg(3, "mvccpb.KeyValue", "repeated") } },
        RequestOp: {
          oneofs: { request: { oneof: ["request_range", "request_put", "request_delete_range"] } },
          fields: { request_range: msg(1, "RangeRequest"), request_put: msg(2, "PutRequest"), request_delete_range: msg(3, "DeleteRangeRequest") },
        },
        ResponseOp: {
          oneofs: { response: { oneof: ["response_range", "response_put", "response_delete_range"] } },
          fields: { response_range: msg(1, "RangeResponse"), response_put: msg(2, "PutResponse"), response_delete_range: msg(3, "DeleteRangeResponse") },
        },
        Compare: {
          oneofs: { target_union: { oneof: ["version", "create_revision", "mod_revision"] } },
          fields: { result: msg(1, "CompareResult"), target: msg(2, "CompareTarget"), key: bytes(3), version: i64(4), create_revision: i64(5), mod_revision: i64(6) },
          nested: {
            CompareResult: { values: { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } },
            CompareTarget: { values: { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3 } },
          },
        },
        TxnRequest: { fields: { compare: msg(1, "Compare", "repeated"), success: msg(2, "RequestOp", "repeated"), failure: msg(3, "RequestOp", "repeated") } },
        TxnResponse: { fields: { header: msg(1, "ResponseHeader"), succeeded: bool(2), responses: msg(3, "ResponseOp", "repeated") } },
        CompactionRequest: { fields: { revision: i64(1), physical: bool(2) } },
        CompactionResponse: { fields: { header: msg(1, "ResponseHeader") } },
        WatchRequest: {
          oneofs: { request_union: { oneof: ["create_request", "cancel_request", "progress_request"] } },
          fields: { create_request: msg(1, "WatchCreateRequest"), cancel_request: msg(2, "WatchCancelRequest"), progress_request: msg(3, "WatchProgressRequest") },
        },
        WatchCreateRequest: { fields: { key: bytes(1), range_end: bytes(2), start_revision: i64(3), progress_notify: bool(4), prev_kv: bool(6) } },
        WatchCancelRequest: { fields: { watch_id: i64(1) } },
        WatchProgressRequest: { fields: {} },
        WatchResponse: {
          fields: {
            header: msg(1, "ResponseHeader"),
            watch_id: i64(2),
            created: bool(3),
            canceled: bool(4),
            compact_revision: i64(5),
            cancel_reason: { type: "string", id: 6 },
            events: msg(11, "mvccpb.Event", "repeated"),
          },
        },
        StatusRequest: { fields: {} },
        StatusResponse: { fields: { header: msg(1, "ResponseHeader"), version: { type: "string", id: 2 }, dbSize: i64(3), leader: { type: "uint64", id: 4 } } },
      },
    },
  },
};
