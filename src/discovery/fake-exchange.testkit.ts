// Test double for driving the discovery handler without a socket.
import type { Exchange } from "../http/exchange.js";
import type { RequestInfo } from "../http/request-info.js";
import type { NonResourceHandler } from "../http/context.js";
import { writeStatus } from "../http/respond.js";
import { toApiError } from "../handlers/errors.js";
import { CodecSet } from "../encoding/negotiate.js";
import { jsonCodec, yamlCodec } from "../encoding/codec.js";
import { protobufCodec } from "../encoding/protobuf/index.js";

export interface Answer {
  handled: boolean;
  status: number;
  headers: Record<string, string | number | string[]>;
  body: string;
  json(): any;
}

export async function call(handler: NonResourceHandler, url: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  const q = url.indexOf("?");
  let status = 0;
  let sent: Record<string, string | number | string[]> = {};
  let body = "";
  let headersSent = false;
  const ex = {
    method,
    path: q < 0 ? url : url.slice(0, q),
    query: new URLSearchParams(q < 0 ? "" : url.slice(q + 1)),
    headers,
    socket: { localAddress: "127.0.0.1", localPort: 6443 },
    body: async () => Buffer.alloc(0),
    head(s: number, h: Record<string, string | number | string[]>) {
      status = s;
      sent = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
      headersSent = true;
    },
    write: () => true,
    end(chunk?: Buffer | string) {
      if (chunk !== undefined) body += chunk.toString();
    },
    get headersSent() {
      return headersSent;
    },
    closed: false,
    onClose() {},
    drained: async () => {},
    pending: () => 0,
  } as unknown as Exchange;
  let handled: boolean;
  try {
    handled = await handler(ex, { name: "admin", groups: [] }, { isResourceRequest: false, path: ex.path } as RequestInfo);
  } catch (e) {
    // What the chain's recovery filter does with a thrown error.
    writeStatus(ex, toApiError(e), new CodecSet([jsonCodec, yamlCodec, protobufCodec]));
    handled = true;
  }
  return { handled, status, headers: sent, body, json: () => JSON.parse(body) };
}
