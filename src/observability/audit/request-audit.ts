// One request's audit event (upstream: audit.AuditContext): made when the request arrives, given
// its level by the policy once the user is known, filled in by the stages the request passes
// (annotations, the impersonated user, request and response bodies, the status) and handed to
// the backends at each stage the policy does not omit.
import { encodeEventRecord, encodeRequestPart, type AuditEventRecord } from "./event-record.js";
import { encodeBody, statusOf, type ResponseBody } from "./event-bodies.js";
import { microNow } from "./micro-time.js";
import { atLeast, type EventUser, type Level, type ObjectReference, type RequestAuditConfig, type ResponseStatus, type Stage } from "./types.js";

/** Where a stage's event goes: the backends. true: stored or queued; false: lost; a promise when the backend must be waited for. */
export interface AuditSink {
  process(record: AuditEventRecord): boolean | Promise<boolean>;
}

/** What the request says of itself, read once the policy has decided to record it. */
export interface RequestMetadata {
  requestURI: string;
  verb: string;
  user?: EventUser;
  sourceIPs: readonly string[];
  userAgent: string;
  objectRef?: ObjectReference;
}

/** What the stages of a request record on its audit event. */
export interface AuditRecorder {
  /**
   * Adds an annotation, recorded when the request's level is at least `level` (Metadata by
   * default). The first value of a key stays (upstream keeps it and warns).
   */
  annotate(key: string, value: string, level?: Level): void;
  /** The user the request is served as (impersonation). */
  impersonated(user: EventUser): void;
  /** The decoded request body (create, update, delete options): fills objectRef's uid and resourceVersion; kept from Request level. */
  requestObject(obj: unknown): void;
  /** A patch body (its JSON text as sent, or the object it decoded to), kept from Request level. */
  requestPatch(patch: ResponseBody): void;
  /** Whether the request's body is kept (Request level and above): what is passed to requestObject is encoded then. */
  readonly wantsRequestBody: boolean;
}

type State = "pending" | "on" | "off" | "done";

export class RequestAudit implements AuditRecorder {
  private state: State = "pending";
  private config: RequestAuditConfig = { level: "None", omitStages: [], omitManagedFields: false };
  private meta: RequestMetadata | undefined;
  private impersonatedUser: EventUser | undefined;
  private annotations: Record<string, string> | undefined;
  /** Annotations made before the policy decided, with their levels. */
  private early: { key: string; value: string; level: Level }[] | undefined;
  private status: ResponseStatus | undefined;
  private requestBody: string | undefined;
  private responseBody: string | undefined;
  /** A response body seen before the policy decided (a refusal before the audit stage). */
  private earlyResponse: ResponseBody | undefined;
  private startedSent = false;
  /** The encoded part every stage's event shares (see process). */
  private requestPart: string | undefined;
  /** The event a backend is still taking. */
  private sending: Promise<boolean> | undefined;
  /** Watches and the other long-running requests also get a ResponseStarted event. */
  longRunning = false;

  constructor(
    readonly auditID: string,
    /** When the request arrived, in microseconds since the epoch. */
    readonly receivedAt: number,
    private readonly sink: AuditSink,
  ) {}

  get level(): Level {
    return this.config.level;
  }

  /** The policy has not decided yet (the request has not reached the audit stage). */
  get pending(): boolean {
    return this.state === "pending";
  }

  /** Recording: the policy decided a level above None, and the final stage is still to come. */
  get recording(): boolean {
    return this.state === "on";
  }

  /** The policy's decision for the request; from None on, nothing is recorded. */
  init(config: RequestAuditConfig, meta: RequestMetadata): void {
    this.config = config;
    if (config.level === "None") {
      this.state = "off";
      return;
    }
    this.state = "on";
    this.meta = meta;
    for (const a of this.early ?? []) this.annotate(a.key, a.value, a.level);
    this.early = undefined;
    if (this.earlyResponse) this.response(this.earlyResponse);
  }

  annotate(key: string, value: string, level: Level = "Metadata"): void {
    if (this.state === "pending") (this.early ??= []).push({ key, value, level });
    if (this.state !== "on" || !atLeast(this.config.level, level)) return;
    const a = (this.annotations ??= {});
    if (!(key in a)) a[key] = value;
  }

  impersonated(user: EventUser): void {
    if (this.state !== "on") return;
    this.impersonatedUser = user;
    this.requestPart = undefined;
  }

  requestObject(obj: unknown): void {
    if (this.state !== "on") return;
    const m = metadataOf(obj);
    const ref = (this.meta!.objectRef ??= {});
    this.requestPart = undefined;
    if (m) {
      if (!ref.namespace && typeof m.namespace === "string") ref.namespace = m.namespace;
      if (!ref.name && typeof m.name === "string") ref.name = m.name;
      if (!ref.uid && typeof m.uid === "string") ref.uid = m.uid;
      if (!ref.resourceVersion && typeof m.resourceVersion === "string") ref.resourceVersion = m.resourceVersion;
    }
    if (atLeast(this.config.level, "Request")) this.requestBody = encodeBody({ object: obj }, this.config.omitManagedFields);
  }

  requestPatch(patch: ResponseBody): void {
    if (this.wantsRequestBody) this.requestBody = encodeBody(patch, false);
  }

  get wantsRequestBody(): boolean {
    return this.state === "on" && atLeast(this.config.level, "Request");
  }

  /** The response's body before it is encoded: its Status (errors, deletes), and the object itself at RequestResponse. */
  response(body: ResponseBody): void {
    if (this.state === "pending") this.earlyResponse = body;
    if (this.state !== "on") return;
    const st = statusOf(body);
    if (st) this.status = { ...st, code: this.status?.code ?? st.code };
    if (atLeast(this.config.level, "RequestResponse")) this.responseBody = encodeBody(body, this.config.omitManagedFields);
  }

  /** The request is in: the RequestReceived stage. */
  received(): boolean | Promise<boolean> {
    return this.process("RequestReceived");
  }

  /** The response's head goes out with `code`: long-running requests get their ResponseStarted event now. */
  responseStarted(code: number): boolean | Promise<boolean> {
    if (this.state !== "on") return true;
    this.status = this.status ? { ...this.status, code } : { metadata: {}, code };
    if (!this.longRunning || this.startedSent) return true;
    this.startedSent = true;
    return this.process("ResponseStarted");
  }

  /**
   * The response is finished (or the request ended without one): the ResponseComplete event,
   * once. A request that ended with no status at all is recorded as upstream records it.
   */
  complete(): boolean | Promise<boolean> {
    if (this.state !== "on") return true;
    if (!this.status) {
      this.status = { metadata: {}, status: "Success", message: "Connection closed early", code: 200 };
      if (this.longRunning && !this.startedSent) {
        this.startedSent = true;
        void this.process("ResponseStarted");
      }
    }
    const r = this.process("ResponseComplete");
    this.state = "done";
    return r;
  }

  /** A failure no stage answered (a thrown bug): the Panic event in place of ResponseComplete. */
  panic(message: string): void {
    if (this.state !== "on") return;
    this.status = { metadata: {}, status: "Failure", message: `APIServer panic'd: ${message}`, reason: "InternalError", code: 500 };
    void this.process("Panic");
    this.state = "done";
  }

  /**
   * A request refused before the audit stage (authentication, a bad timeout): one ResponseStarted
   * event with the status it got, as upstream's failed-request handlers record it.
   */
  refusedEarly(code: number): boolean | Promise<boolean> {
    if (this.state !== "on") return true;
    this.status = this.status ? { ...this.status, code } : { metadata: {}, code };
    const r = this.process("ResponseStarted");
    this.state = "done";
    return r;
  }

  /** Nothing more is recorded (the request failed to be audited at all). */
  drop(): void {
    this.state = "done";
  }

  private process(stage: Stage): boolean | Promise<boolean> {
    if (this.config.omitStages.includes(stage)) return true;
    const m = this.meta!;
    // From requestURI to objectRef an event is the same at every stage, unless a stage filled in more.
    this.requestPart ??= encodeRequestPart(m, this.impersonatedUser);
    const record = encodeEventRecord(
      {
        level: this.config.level,
        auditID: this.auditID,
        stage,
        responseStatus: this.status,
        requestObject: this.requestBody,
        responseObject: this.responseBody,
        requestReceived: this.receivedAt,
        stageTime: stage === "RequestReceived" ? this.receivedAt : microNow(),
        annotations: this.annotations,
      },
      this.requestPart,
    );
    // A stage's event goes after the one still being taken (a watch's ResponseStarted at a
    // blocking webhook when the watch ends): the backends get a request's stages in order.
    const r = this.sending ? this.sending.then(() => this.sink.process(record)) : this.sink.process(record);
    // Only ResponseStarted can have a stage after it while it is still being taken (RequestReceived
    // is waited for before the request goes on; ResponseComplete and Panic are last).
    if (stage === "ResponseStarted" && typeof r !== "boolean") this.sending = r;
    return r;
  }
}

function metadataOf(obj: unknown): Record<string, unknown> | undefined {
  if (obj === null || typeof obj !== "object") return undefined;
  const m = (obj as { metadata?: unknown }).metadata;
  return m !== null && typeof m === "object" && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
}
