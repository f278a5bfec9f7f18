// Which requests are long-running: they are not bounded by --request-timeout and not counted by
// max-in-flight. kube-apiserver's rule: the watch and proxy verbs, and the attach, exec, proxy,
// log and portforward subresources (connect verbs, once served), and the profiler's paths.
import type { RequestInfo } from "../http/request-info.js";

export type LongRunningCheck = (info: RequestInfo) => boolean;

const longRunningVerbs = new Set(["watch", "proxy"]);
const longRunningSubresources = new Set(["attach", "exec", "proxy", "log", "portforward"]);

export const isLongRunning: LongRunningCheck = (info) =>
  longRunningVerbs.has(info.verb) ||
  (info.isResourceRequest ? longRunningSubresources.has(info.subresource) : info.path.startsWith("/debug/pprof/"));
