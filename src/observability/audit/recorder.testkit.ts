// An AuditRecorder for unit tests of the stages that record on a request's audit event: it keeps
// what it is told (annotations first value wins, as the real event keeps them; levels above
// `level` dropped).
import type { AuditRecorder } from "./request-audit.js";
import { atLeast, type EventUser, type Level } from "./types.js";

export interface RecordedAudit extends AuditRecorder {
  readonly annotations: Record<string, string>;
  impersonatedUser?: EventUser;
  requestBody?: unknown;
}

export function recordingAudit(level: Level = "RequestResponse"): RecordedAudit {
  const rec: RecordedAudit = {
    annotations: {},
    annotate(key, value, min = "Metadata") {
      if (atLeast(level, min) && !(key in rec.annotations)) rec.annotations[key] = value;
    },
    impersonated(user) {
      rec.impersonatedUser = user;
    },
    requestObject(obj) {
      rec.requestBody = obj;
    },
    requestPatch(patch) {
      rec.requestBody = patch;
    },
    wantsRequestBody: atLeast(level, "Request"),
  };
  return rec;
}
