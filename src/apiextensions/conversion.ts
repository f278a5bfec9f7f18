// Conversion of custom resources between the versions of their CRD, as apiextensions-apiserver
// 1.34 does it (pkg/apiserver/conversion: converter.go, nop_converter.go, webhook_converter.go):
//
// - every call first checks that the target and the source versions belong to the CRD;
// - strategy `None` only rewrites apiVersion;
// - strategy `Webhook` sends one ConversionReview (v1 or v1beta1, the first of the CRD's
//   `conversionReviewVersions` this server knows) holding every object that is not already in
//   the desired version, to `clientConfig.url` or to the service reference (resolved to its
//   one of its endpoints, src/webhook/service-resolver.ts; TLS checked against `<name>.<namespace>.svc`), trusting `caBundle`, with a 30 s
//   timeout; the answer is checked (uid, result, count, apiVersion, kind, name, namespace, uid of
//   each object) and only labels and annotations may change in metadata — the rest of metadata is
//   restored from the original.
//
// Failures are thrown as `ConversionError` carrying upstream's message; the serving layer answers
// them as 500 InternalError (`Internal error occurred: <message>`), see `conversionStatusError`.
import { randomUUID } from "node:crypto";
import { deepClone, isPlainObject } from "../apimachinery/json-value.js";
import { internalError, type ApiError } from "../apimachinery/errors.js";
import { aggregateMessage, validateAnnotations, validateLabels } from "../apimachinery/validation.js";
import { goQuote } from "../apimachinery/go-quote.js";
import type { KObject } from "../apimachinery/object.js";
import { CallError, defaultRequestTimeoutMs, genericMessage, post, type DialTarget } from "../webhook/client.js";
import { goURLString, type WebhookConnection } from "../webhook/kubeconfig.js";
import type { ServiceResolver } from "../webhook/service-resolver.js";
import { apiVersionOf, type CRDLike } from "./versions.js";
import { interpretError } from "../apimachinery/go-interpret.js";

export class ConversionError extends Error {
  override name = "ConversionError";
}

/** The 500 Status upstream answers a failed conversion with. */
export function conversionStatusError(err: unknown): ApiError {
  return internalError(err instanceof Error ? err.message : String(err));
}

export interface ConvertCallOptions {
  /**
   * The objects are the items of a list being read: give the list's apiVersion and kind
   * (e.g. `stable.example.com/v1`, `CronTabList`). Messages then name the list's kind and the
   * index of the failing item, and item versions are checked with the list wording.
   */
  list?: { apiVersion: string; kind: string };
}

export interface Converter {
  readonly strategy: "None" | "Webhook";
  /**
   * Returns the objects in `toVersion` (a version name of the CRD), in order. Inputs are never
   * modified. Throws ConversionError.
   */
  convert(objects: readonly KObject[], toVersion: string, opts?: ConvertCallOptions): Promise<KObject[]>;
}

/** Resolves a service reference to the address to dial (src/webhook/service-resolver.ts). */
export type { ServiceResolver } from "../webhook/service-resolver.js";

export interface ConverterOptions {
  /** Per-call deadline; upstream's webhook client uses 30s. */
  timeoutMs?: number;
  resolveService?: ServiceResolver;
  userAgent?: string;
}

const reviewGroup = "apiextensions.k8s.io";
const supportedReviewVersions = ["v1", "v1beta1"] as const;

/** Builds the converter for the CRD's `spec.conversion` (strategy None when absent). */
export function createConverter(crd: CRDLike, options: ConverterOptions = {}): Converter {
  const strategy = crd.spec.conversion?.strategy ?? "None";
  if (strategy === "None") return new DelegatingConverter(crd, "None", nopConvert);
  if (strategy === "Webhook") {
    const hook = new WebhookCaller(crd, options);
    return new DelegatingConverter(crd, "Webhook", (objs, gv, gvk, isList) => hook.convert(objs, gv, gvk, isList));
  }
  throw new ConversionError(`unknown conversion strategy ${goQuote(strategy)} for CRD ${crd.metadata?.name ?? ""}`);
}

// ---------------------------------------------------------------------------------------------
// Go's fmt of GroupVersion / GroupVersionKind.

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  if (i < 0) return { group: "", version: apiVersion };
  return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** schema.GroupVersion.String(): `group/version`, the bare version for the core group, "" when empty. */
function gvString(apiVersion: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  if (group === "") return version;
  return `${group}/${version}`;
}

/** schema.GroupVersionKind.String(): `group/version, Kind=kind`. */
function gvkString(apiVersion: string | undefined, kind: string | undefined): string {
  const { group, version } = splitApiVersion(apiVersion ?? "");
  return `${group}/${version}, Kind=${kind ?? ""}`;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Go's %T of a value decoded from JSON into unstructured content. */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** Go's time.Duration.String() for whole milliseconds (the `timeout` query parameter). */
export function goDurationString(ms: number): string {
  if (ms <= 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  let s = ms / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const sec = `${Number(s.toFixed(3))}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

// ---------------------------------------------------------------------------------------------
// The generic part (upstream's crConverter + safe wrapper).

type ConvertFn = (objects: KObject[], toGV: string, inGVK: string, isList: boolean) => Promise<KObject[]>;

function nopConvert(objects: KObject[], toGV: string): Promise<KObject[]> {
  for (const o of objects) o.apiVersion = toGV;
  return Promise.resolve(objects);
}

class DelegatingConverter implements Converter {
  private readonly valid: Set<string>;
  private readonly group: string;

  constructor(
    crd: CRDLike,
    readonly strategy: "None" | "Webhook",
    private readonly fn: ConvertFn,
  ) {
    this.group = crd.spec.group;
    this.valid = new Set(crd.spec.versions.map((v) => apiVersionOf(crd.spec.group, v.name)));
  }

  async convert(objects: readonly KObject[], toVersion: string, opts: ConvertCallOptions = {}): Promise<KObject[]> {
    const toGV = apiVersionOf(this.group, toVersion);
    if (!this.valid.has(toGV)) throw new ConversionError(`request to convert CR to an invalid group/version: ${toGV}`);
    if (opts.list) {
      if (!this.valid.has(gvString(opts.list.apiVersion))) throw new ConversionError(`request to convert CR from an invalid group/version: ${gvString(opts.list.apiVersion)}`);
      objects.forEach((o, i) => {
        if (!this.valid.has(gvString(str(o.apiVersion)))) throw new ConversionError(`request to convert CR list failed, list index ${i} has invalid group/version: ${gvString(str(o.apiVersion))}`);
      });
    } else {
      for (const o of objects) {
        if (!this.valid.has(gvString(str(o.apiVersion)))) throw new ConversionError(`request to convert CR from an invalid group/version: ${gvString(str(o.apiVersion))}`);
      }
    }
    const copies = objects.map((o) => deepClone(o));
    if (copies.length === 0) return copies;
    // One call (one ConversionReview) for all objects. Without list details, several objects are
    // reported as a list of the first object's kind.
    const isList = Boolean(opts.list) || copies.length > 1;
    const inGVK = opts.list ? gvkString(opts.list.apiVersion, opts.list.kind) : gvkString(str(copies[0]!.apiVersion), str(copies[0]!.kind));
    return this.fn(copies, toGV, inGVK, isList);
  }
}

// ---------------------------------------------------------------------------------------------
// The webhook.

interface ClientConfig {
  url?: string;
  caBundle?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
}

/** Upstream's ClusterIP service resolution (aggregator ResolveCluster), over any Service getter (the server resolves through endpoints instead: no kube-proxy). */
export function clusterIPServiceResolver(getService: (namespace: string, name: string) => Promise<Record<string, unknown> | undefined>): ServiceResolver {
  return async (namespace, name, port) => {
    const svc = await getService(namespace, name);
    if (!svc) throw new Error(`service ${goQuote(name)} not found`);
    const spec = (isPlainObject(svc.spec) ? svc.spec : {}) as Record<string, unknown>;
    const type = str(spec.type) || "ClusterIP";
    const clusterIP = str(spec.clusterIP);
    if (type === "ClusterIP" && clusterIP === "None") throw new Error(`cannot route to service with ClusterIP "None"`);
    if (type === "ClusterIP" || type === "LoadBalancer" || type === "NodePort") {
      const ports = Array.isArray(spec.ports) ? (spec.ports as Record<string, unknown>[]) : [];
      if (!ports.some((p) => p.port === port)) throw new Error(`no service port ${port} found for service ${goQuote(name)}`);
      return { host: clusterIP, port };
    }
    if (type === "ExternalName") return { host: str(spec.externalName), port };
    throw new Error(`unsupported service type ${goQuote(type)}`);
  };
}

class WebhookCaller {
  private readonly reviewVersions: string[];
  private readonly conn: WebhookConnection;
  private readonly timeoutMs: number;
  /** A service reference: resolved to an endpoint on every call. */
  private readonly service?: { namespace: string; name: string; port: number };

  constructor(
    crd: CRDLike,
    private readonly options: ConverterOptions,
  ) {
    const hook = crd.spec.conversion?.webhook;
    this.reviewVersions = hook?.conversionReviewVersions ?? [];
    const cfg: ClientConfig = hook?.clientConfig ?? {};
    this.timeoutMs = options.timeoutMs ?? defaultRequestTimeoutMs;
    let server: URL;
    if (cfg.url) {
      server = new URL(cfg.url);
    } else if (cfg.service) {
      const s = cfg.service;
      const port = s.port ?? 443;
      const host = `${s.name}.${s.namespace}.svc`;
      server = new URL(`https://${host}:${port}${s.path ?? ""}`);
      this.service = { namespace: s.namespace, name: s.name, port };
    } else {
      throw new ConversionError("conversion webhook has neither url nor service");
    }
    server.searchParams.set("timeout", goDurationString(this.timeoutMs));
    this.conn = {
      server,
      ca: cfg.caBundle ? Buffer.from(cfg.caBundle, "base64").toString("utf8") : undefined,
      insecureSkipTLSVerify: false,
      ...(this.service ? { href: goURLString(server, this.service.port) } : {}),
    };
  }

  async convert(objects: KObject[], toGV: string, inGVK: string, isList: boolean): Promise<KObject[]> {
    // A smoke test of upstream's cache calls conversion with objects holding only apiVersion and
    // kind; those never reach the webhook.
    const isEmpty = (o: KObject) => Object.keys(o).length === 2 && "apiVersion" in o && "kind" in o;
    if (!isList && isEmpty(objects[0]!)) return nopConvert(objects, toGV);

    const pending: number[] = [];
    objects.forEach((o, i) => {
      if (o.apiVersion !== toGV) pending.push(i);
    });
    const reviewVersion = this.reviewVersions.find((v) => (supportedReviewVersions as readonly string[]).includes(v));
    if (!reviewVersion) throw new ConversionError("no supported conversion review versions");
    if (pending.length === 0) return objects;

    const uid = randomUUID();
    const reviewApiVersion = `${reviewGroup}/${reviewVersion}`;
    const request = {
      kind: "ConversionReview",
      apiVersion: reviewApiVersion,
      request: { uid, desiredAPIVersion: toGV, objects: pending.map((i) => objects[i]) },
      response: { uid: "", convertedObjects: null, result: { metadata: {} } },
    };
    const failed = (msg: string) => new ConversionError(`conversion webhook for ${inGVK} failed: ${msg}`);

    let converted: unknown[];
    try {
      converted = await this.call(Buffer.from(JSON.stringify(request)), reviewVersion, uid);
    } catch (e) {
      if (e instanceof ConversionError) throw e;
      throw failed(e instanceof Error ? e.message : String(e));
    }
    if (converted.length !== pending.length) {
      throw new ConversionError(`conversion webhook for ${inGVK} returned ${converted.length} objects, expected ${pending.length}`);
    }

    const single = !isList;
    const out = objects.slice();
    let index = 0;
    for (const i of pending) {
      const original = objects[i]!;
      const raw = converted[index];
      // Each converted object is decoded as unstructured content: it needs a kind and an apiVersion.
      const decodeErr = unstructuredDecodeError(raw);
      if (decodeErr) {
        if (single) throw new ConversionError(decodeErr);
        throw new ConversionError(`conversion webhook for ${inGVK} returned invalid converted object at index ${index}: ${decodeErr}`);
      }
      const obj = raw as KObject;
      index++;
      const where = single ? "returned invalid object at index 0" : `returned invalid converted object at index ${index}`;
      const gotGV = gvString(str(obj.apiVersion));
      if (gotGV !== toGV) throw new ConversionError(`conversion webhook for ${inGVK} ${where}: invalid groupVersion (expected ${toGV}, received ${gotGV})`);
      if (str(obj.kind) !== str(original.kind)) throw new ConversionError(`conversion webhook for ${inGVK} ${where}: invalid kind (expected ${str(original.kind)}, received ${str(obj.kind)})`);
      const metaErr = sameIdentity(original, obj);
      if (metaErr) {
        throw new ConversionError(single ? `conversion webhook for ${inGVK} returned invalid object: ${metaErr}` : `conversion webhook for ${inGVK} returned invalid converted object at index ${index}: ${metaErr}`);
      }
      const restoreErr = restoreObjectMeta(original, obj);
      if (restoreErr) {
        throw new ConversionError(single ? `conversion webhook for ${inGVK} returned invalid metadata: ${restoreErr}` : `conversion webhook for ${inGVK} returned invalid metadata in object at index ${index}: ${restoreErr}`);
      }
      out[i] = obj;
    }
    return out;
  }

  /** POSTs the review; returns response.convertedObjects or throws with client-go's / upstream's text. */
  private async call(body: Buffer, reviewVersion: string, uid: string): Promise<unknown[]> {
    let target: DialTarget | undefined;
    // Without a resolver (tools, unit tests) the service's DNS name is dialled as it is.
    if (this.service && this.options.resolveService) {
      const { namespace, name, port } = this.service;
      try {
        target = await this.options.resolveService(namespace, name, port);
      } catch (e) {
        throw new CallError(`Post "${this.conn.href ?? this.conn.server.href}": ${e instanceof Error ? e.message : String(e)}`, false);
      }
    }
    const res = await post(this.conn, body, {
      timeoutMs: this.timeoutMs,
      userAgent: this.options.userAgent ?? "kapi/conversion-webhook",
      ...(target ? { target } : {}),
    });
    const text = res.body.toString("utf8");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Answered below, in upstream's words (a Status, or the decoder's error).
    }
    if (res.status < 200 || res.status > 206) {
      if (isPlainObject(json) && json.kind === "Status" && typeof json.message === "string" && json.message !== "") throw new CallError(json.message, false);
      const isText = /^text\//.test(String(res.headers["content-type"] ?? ""));
      throw new CallError(genericMessage(res.status, isText ? text.trim() : undefined), false);
    }
    const notInterpreted = interpretError(text);
    if (notInterpreted !== undefined) throw new CallError(notInterpreted, false);
    // null: the struct stays empty, and its kind is missing.
    if (!isPlainObject(json)) throw new CallError(`Object 'Kind' is missing in '${text}'`, false);
    if (str(json.kind) === "") throw new CallError(`Object 'Kind' is missing in '${text}'`, false);
    if (str(json.apiVersion) === "") throw new CallError(`Object 'apiVersion' is missing in '${text}'`, false);
    const expected = `${reviewGroup}/${reviewVersion}`;
    if (json.kind === "ConversionReview" && json.apiVersion !== expected && (json.apiVersion === `${reviewGroup}/v1` || json.apiVersion === `${reviewGroup}/v1beta1`)) {
      throw new CallError(`converting (${splitApiVersion(str(json.apiVersion)).version}.ConversionReview) to (${reviewVersion}.ConversionReview): unknown conversion`, false);
    }
    if (json.kind !== "ConversionReview" || json.apiVersion !== expected) {
      throw new CallError(`expected webhook response of ${gvkString(expected, "ConversionReview")}, got ${gvkString(str(json.apiVersion), str(json.kind))}`, false);
    }
    const response = json.response;
    if (!isPlainObject(response)) throw new CallError("no response provided", false);
    // v1beta1 answers were never checked for their uid; upstream keeps it so.
    if (reviewVersion === "v1" && str(response.uid) !== uid) throw new CallError(`expected response.uid=${goQuote(uid)}, got ${goQuote(str(response.uid))}`, false);
    const result = isPlainObject(response.result) ? response.result : {};
    if (result.status !== "Success") {
      if (typeof result.message === "string" && result.message !== "") throw new CallError(result.message, false);
      throw new CallError(`response.result.status was '${str(result.status)}', not 'Success'`, false);
    }
    return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  }
}

/** The error decoding one converted object as unstructured content, or undefined. */
function unstructuredDecodeError(raw: unknown): string | undefined {
  const text = JSON.stringify(raw ?? null);
  if (!isPlainObject(raw)) return raw === null ? `Object 'Kind' is missing in '${text}'` : `json: cannot unmarshal ${Array.isArray(raw) ? "array" : typeof raw === "string" ? "string" : typeof raw === "number" ? "number" : "bool"} into Go value of type map[string]interface {}`;
  if (str(raw.kind) === "") return `Object 'Kind' is missing in '${text}'`;
  return undefined;
}

/** upstream validateConvertedObject: kind, name, namespace and uid must be unchanged. */
function sameIdentity(a: KObject, b: KObject): string | undefined {
  const ma = isPlainObject(a.metadata) ? a.metadata : {};
  const mb = isPlainObject(b.metadata) ? (b.metadata as Record<string, unknown>) : {};
  const pairs: [string, unknown, unknown][] = [
    ["kind", a.kind, b.kind],
    ["name", ma.name, mb.name],
    ["namespace", ma.namespace, mb.namespace],
    ["UID", ma.uid, mb.uid],
  ];
  for (const [what, x, y] of pairs) if (str(x) !== str(y)) return `must have the same ${what}: ${str(x)} != ${str(y)}`;
  return undefined;
}

/**
 * upstream restoreObjectMeta: the converted object's metadata becomes the original's, except
 * labels and annotations, which are taken from the converted object (validated when changed).
 * Mutates `converted`; returns an error text or undefined.
 */
function restoreObjectMeta(original: KObject, converted: KObject): string | undefined {
  if (!("metadata" in converted)) return "missing metadata in converted object";
  const responseMeta = (converted as Record<string, unknown>).metadata;
  if (!isPlainObject(responseMeta)) return `invalid metadata of type ${goTypeName(responseMeta)} in converted object`;
  const originalMeta = (original as Record<string, unknown>).metadata;
  if (originalMeta !== undefined && !isPlainObject(originalMeta)) return `invalid metadata of type ${goTypeName(originalMeta)} in input object`;
  const result: Record<string, unknown> = originalMeta === undefined ? {} : deepClone(originalMeta);
  for (const fld of ["labels", "annotations"] as const) {
    const got = responseMeta[fld];
    if (got === undefined || got === null) {
      delete result[fld];
      continue;
    }
    if (!isPlainObject(got)) return `invalid metadata.${fld} of type ${goTypeName(got)} in converted object`;
    const before = result[fld];
    if (before !== undefined && before !== null && !isPlainObject(before)) return `invalid metadata.${fld} of type ${goTypeName(before)} in original object`;
    const beforeMap = (before ?? {}) as Record<string, unknown>;
    let changed = Object.keys(beforeMap).length !== Object.keys(got).length;
    for (const [k, v] of Object.entries(got)) {
      if (typeof v !== "string") return `metadata.${fld}[${k}] must be a string, but is ${goTypeName(v)} in converted object`;
      if (beforeMap[k] !== v) changed = true;
    }
    if (changed) {
      const map = got as Record<string, string>;
      // upstream validates annotations at the path "metadata.annotation".
      const errs = fld === "labels" ? validateLabels(map, "metadata.labels") : validateAnnotations(map, "metadata.annotation");
      if (errs.length > 0) return aggregateMessage(errs);
    }
    result[fld] = got;
  }
  converted.metadata = result as KObject["metadata"];
  return undefined;
}
