// One stage's audit event, encoded once when the stage is processed (the request's event keeps
// changing after): the audit.k8s.io/v1 Event's JSON in upstream's field order, with Go's escaping
// of <, > and & (upstream's encoder escapes them), and the legacy one-line text.
import { compareStrings, goJSON, goJSONString } from "../../apimachinery/go-json.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { formatMicroTime, formatRFC3339Nano, parseMicroTime } from "./micro-time.js";
import type { EventUser, Level, ObjectReference, ResponseStatus, Stage } from "./types.js";

/** The event's state at one stage; object bodies are JSON text already. */
export interface EventFields {
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: EventUser;
  impersonatedUser?: EventUser;
  sourceIPs: readonly string[];
  userAgent: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: string;
  responseObject?: string;
  /** Microseconds since the epoch. */
  requestReceived: number;
  stageTime: number;
  annotations?: Readonly<Record<string, string>>;
}

export const eventApiVersion = "audit.k8s.io/v1";

const jsonLinePrefix = `{"kind":"Event","apiVersion":"${eventApiVersion}",`;
const jsonLinePrefixBytes = Buffer.from(jsonLinePrefix);

/** The fields of an event besides its shared request part (see encodeEventRecord). */
export type StageFields = Omit<EventFields, keyof RequestPartFields>;

/** One stage's event, encoded (the request's event keeps changing after). */
export class AuditEventRecord {
  constructor(
    readonly stage: Stage,
    readonly level: Level,
    /**
     * The Event's members without kind and apiVersion, and without the braces: the log line puts
     * kind and apiVersion before them and an EventList's item braces alone, so neither copies the
     * other's text.
     */
    private readonly members: string,
    /** Where the request and response objects are in `members` (equal: none), and where the annotations start (-1: none): what the truncating backend cuts out and adds to. */
    private readonly bodiesAt = -1,
    private readonly bodiesEnd = -1,
    private readonly annotationsAt = -1,
  ) {}

  /** The Event without kind and apiVersion (an EventList's item). */
  get json(): string {
    return "{" + this.members + "}";
  }

  /** One line of the json log format. */
  jsonLine(): string {
    return jsonLinePrefix + this.members + "}\n";
  }

  /** jsonLine()'s length in UTF-16 units, without making it. */
  jsonLineLength(): number {
    return jsonLinePrefix.length + this.members.length + 2;
  }

  /** jsonLine() written as UTF-8 into `buf` at `at` (which has room for it), without making it; returns where it ends. */
  writeJsonLine(buf: Buffer, at: number): number {
    at += jsonLinePrefixBytes.copy(buf, at);
    at += buf.write(this.members, at);
    buf[at++] = 0x7d; // }
    buf[at++] = 0x0a; // \n
    return at;
  }

  /** The bytes of jsonLine(), without making it: the size upstream's truncating backend measures (the Event as its encoder writes it). */
  encodedSize(): number {
    return jsonLinePrefix.length + Buffer.byteLength(this.members) + 2;
  }

  /**
   * The event without its request and response objects and with one more annotation (upstream's
   * truncate marks it audit.k8s.io/truncated: "true"): cut from the encoded text, which holds
   * the annotations last.
   */
  withoutBodies(annotationKey: string, annotationValue: string): AuditEventRecord {
    const m = this.members;
    const cut = this.bodiesAt < 0 ? m : m.slice(0, this.bodiesAt) + m.slice(this.bodiesEnd);
    const removed = this.bodiesAt < 0 ? 0 : this.bodiesEnd - this.bodiesAt;
    const at = this.annotationsAt < 0 ? cut.length : this.annotationsAt - removed;
    const annotations = this.annotationsAt < 0 ? {} : (JSON.parse(cut.slice(at + annotationsMember.length)) as Record<string, string>);
    annotations[annotationKey] = annotationValue;
    return new AuditEventRecord(this.stage, this.level, cut.slice(0, at) + annotationsMember + stringMap(annotations), -1, -1, at);
  }

  /** upstream's EventString: the legacy log format's line (without the newline), read back from the event. */
  legacy(): string {
    const f = JSON.parse(this.json) as { auditID: string; stage: string; requestURI: string; verb: string; user: EventUser; impersonatedUser?: EventUser; sourceIPs?: string[]; userAgent?: string; objectRef?: ObjectReference; responseStatus?: ResponseStatus; requestReceivedTimestamp: string };
    const username = f.user.username || "<none>";
    const groups = f.user.username && f.user.groups?.length ? quotedList(f.user.groups) : "<none>";
    const as = f.impersonatedUser ? (f.impersonatedUser.username ?? "") : "<self>";
    const asgroups = f.impersonatedUser?.groups ? quotedList(f.impersonatedUser.groups) : "<lookup>";
    const namespace = f.objectRef?.namespace || "<none>";
    const response = f.responseStatus ? String(f.responseStatus.code) : "<deferred>";
    const ip = f.sourceIPs?.[0] ?? "<unknown>";
    const q = goQuote;
    return `${formatRFC3339Nano(parseMicroTime(f.requestReceivedTimestamp))} AUDIT: id=${q(f.auditID)} stage=${q(f.stage)} ip=${q(ip)} method=${q(f.verb)} user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asgroups)} user-agent=${q(f.userAgent ?? "")} namespace=${q(namespace)} uri=${q(f.requestURI)} response="${response}"`;
  }
}

/** An event from all its fields (the request path encodes the parts that do not change once: see RequestAudit). */
export function eventRecord(f: EventFields): AuditEventRecord {
  return encodeEventRecord(f, encodeRequestPart(f, f.impersonatedUser));
}

function quotedList(list: readonly string[]): string {
  return list.map(goQuote).join(",");
}

const s = goJSONString;

/** What a request's events share over its stages, from requestURI to objectRef, as JSON members. */
export type RequestPartFields = Pick<EventFields, "requestURI" | "verb" | "user" | "impersonatedUser" | "sourceIPs" | "userAgent" | "objectRef">;

export function encodeRequestPart(f: Omit<RequestPartFields, "user" | "impersonatedUser"> & { user?: EventUser }, impersonatedUser?: EventUser): string {
  let out = `"requestURI":${s(f.requestURI)},"verb":${s(f.verb)},"user":${f.user ? user(f.user) : "{}"}`;
  if (impersonatedUser) out += `,"impersonatedUser":${user(impersonatedUser)}`;
  if (f.sourceIPs.length > 0) out += `,"sourceIPs":${strings(f.sourceIPs)}`;
  if (f.userAgent) out += `,"userAgent":${s(f.userAgent)}`;
  if (f.objectRef) out += `,"objectRef":${objectRef(f.objectRef)}`;
  return out;
}

const annotationsMember = `,"annotations":`;

/** The event's record: its JSON members (without the braces) around the request's shared part. */
export function encodeEventRecord(f: StageFields, requestPart: string): AuditEventRecord {
  let out = `"level":"${f.level}","auditID":${s(f.auditID)},"stage":"${f.stage}",${requestPart}`;
  if (f.responseStatus) out += `,"responseStatus":${status(f.responseStatus)}`;
  const bodiesAt = out.length;
  if (f.requestObject !== undefined) out += `,"requestObject":${f.requestObject}`;
  if (f.responseObject !== undefined) out += `,"responseObject":${f.responseObject}`;
  const bodiesEnd = out.length;
  out += `,"requestReceivedTimestamp":"${formatMicroTime(f.requestReceived)}","stageTimestamp":"${formatMicroTime(f.stageTime)}"`;
  let annotationsAt = -1;
  if (f.annotations && Object.keys(f.annotations).length > 0) {
    annotationsAt = out.length;
    out += annotationsMember + stringMap(f.annotations);
  }
  return new AuditEventRecord(f.stage, f.level, out, bodiesAt, bodiesEnd, annotationsAt);
}

function user(u: EventUser): string {
  let out = "";
  if (u.username) out += `"username":${s(u.username)}`;
  if (u.uid) out += `${out ? "," : ""}"uid":${s(u.uid)}`;
  if (u.groups?.length) out += `${out ? "," : ""}"groups":${strings(u.groups)}`;
  if (u.extra && Object.keys(u.extra).length > 0) out += `${out ? "," : ""}"extra":${goJSON(u.extra)}`;
  return `{${out}}`;
}

function strings(list: readonly string[]): string {
  let out = "";
  for (let i = 0; i < list.length; i++) out += (i > 0 ? "," : "") + s(list[i]!);
  return `[${out}]`;
}

/** `{"k":"v",...}` of `keys` in that order, empty strings left out (omitempty). */
function members(keys: readonly string[], o: Record<string, unknown>): string {
  let out = "";
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "string" && v !== "") out += `${out ? "," : ""}"${k}":${s(v)}`;
  }
  return out;
}

/** The reference's non-empty members in its struct's order, each read by name (one is written per event). */
function objectRef(r: ObjectReference): string {
  let out = "";
  if (r.resource) out += `${out ? "," : ""}"resource":${s(r.resource)}`;
  if (r.namespace) out += `${out ? "," : ""}"namespace":${s(r.namespace)}`;
  if (r.name) out += `${out ? "," : ""}"name":${s(r.name)}`;
  if (r.uid) out += `${out ? "," : ""}"uid":${s(r.uid)}`;
  if (r.apiGroup) out += `${out ? "," : ""}"apiGroup":${s(r.apiGroup)}`;
  if (r.apiVersion) out += `${out ? "," : ""}"apiVersion":${s(r.apiVersion)}`;
  if (r.resourceVersion) out += `${out ? "," : ""}"resourceVersion":${s(r.resourceVersion)}`;
  if (r.subresource) out += `${out ? "," : ""}"subresource":${s(r.subresource)}`;
  return `{${out}}`;
}

/** A map of strings as Go writes it: keys in byte order. */
function stringMap(m: Readonly<Record<string, string>>): string {
  const keys = Object.keys(m);
  // Usually added in order already (the authorizer's decision, then its reason).
  for (let i = 1; i < keys.length; i++) {
    if (compareStrings(keys[i - 1]!, keys[i]!) > 0) {
      keys.sort(compareStrings);
      break;
    }
  }
  let out = "";
  for (let i = 0; i < keys.length; i++) out += `${i > 0 ? "," : ""}${annotationText(keys[i]!)}:${annotationText(m[keys[i]!]!)}`;
  return `{${out}}`;
}

/**
 * Annotation keys and values come from a small set (the authorizer's decision and reason for each
 * binding, admission's labels), and a reason quotes names, so it needs escaping every time: each
 * text's JSON is kept, up to a bound past which the cache starts over.
 */
const annotationTexts = new Map<string, string>();
const maxAnnotationTexts = 1024;
const maxCachedAnnotationLength = 512;

function annotationText(text: string): string {
  let json = annotationTexts.get(text);
  if (json !== undefined) return json;
  json = s(text);
  if (text.length > maxCachedAnnotationLength) return json;
  if (annotationTexts.size >= maxAnnotationTexts) annotationTexts.clear();
  annotationTexts.set(text, json);
  return json;
}

function status(st: ResponseStatus): string {
  let out = `{"metadata":{}`;
  if (st.status) out += `,"status":${s(st.status)}`;
  if (st.message) out += `,"message":${s(st.message)}`;
  if (st.reason) out += `,"reason":${s(st.reason)}`;
  if (st.details !== undefined && st.details !== null) out += `,"details":${details(st.details as Obj)}`;
  return out + `,"code":${st.code}}`;
}

type Obj = Record<string, unknown>;

/** metav1.StatusDetails in its struct's field order (name, group, kind, uid, causes, retryAfterSeconds). */
function details(d: Obj): string {
  let out = members(["name", "group", "kind", "uid"], d);
  if (Array.isArray(d.causes) && d.causes.length > 0) out += `${out ? "," : ""}"causes":[${(d.causes as Obj[]).map((c) => `{${members(["reason", "message", "field"], c)}}`).join(",")}]`;
  if (typeof d.retryAfterSeconds === "number" && d.retryAfterSeconds !== 0) out += `${out ? "," : ""}"retryAfterSeconds":${d.retryAfterSeconds}`;
  return `{${out}}`;
}

const htmlUnsafe = /[<>&\u2028\u2029]/g;

/** JSON text with <, >, & and the line separators escaped as Go's encoder writes them. */
export function goEscapeJSON(json: string): string {
  return json.replace(htmlUnsafe, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}
