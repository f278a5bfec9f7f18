// DELETE one object and DELETE a collection, with DeleteOptions from the body or the query.
import { listObjects } from "../registry/list.js";
import { parseListOptions, queryInt64, validateListOptions } from "../registry/list-options.js";
import type { DeleteOptions, PropagationPolicy } from "../registry/store.js";
import { optionalQueryBool } from "../apimachinery/booleans.js";
import { forbidden, internalError, invalid } from "../apimachinery/errors.js";
import { forbidden as fieldForbidden, invalid as fieldInvalid, notSupported, type FieldError } from "../apimachinery/validation.js";
import type { ResourceRequest } from "./context.js";
import { readBody } from "./body.js";
import { dryRunErrors } from "./options.js";
import { negotiateWrite, writeResult } from "./output.js";
import { writeOptions } from "./write-options.js";
import { DecodeError } from "../encoding/decode-error.js";
import { negotiateInput } from "../encoding/negotiate.js";
import { isPlainObject } from "../apimachinery/json-value.js";
import { auditDeleteOptions } from "./audit-request.js";

interface ParsedDeleteOptions extends DeleteOptions {
  /** orphanDependents=false was given: a pending deletion then answers 202 (upstream quirk). */
  explicitNoOrphan: boolean;
}

/** A DeleteOptions body field that is a pointer to bool: null and absent both mean unset. */
function bodyBool(v: unknown): boolean | undefined {
  return v === undefined || v === null ? undefined : v === true;
}

/** The options as the request gave them, before validation. */
interface GivenDeleteOptions {
  dryRun: string[];
  grace: unknown;
  policy: string | undefined;
  orphan: boolean | undefined;
  unsafe: boolean | undefined;
  preconditions: unknown;
}

/**
 * Upstream reads DeleteOptions from the body when there is one, and from the query only when there
 * is none: a query parameter beside a body is not read.
 */
async function givenDeleteOptions(r: ResourceRequest): Promise<GivenDeleteOptions> {
  const raw = await readBody(r, r.info.verb === "deletecollection" ? "delete_collection" : "delete");
  if (raw.length === 0) {
    const q = r.ex.query;
    return {
      dryRun: q.getAll("dryRun"),
      grace: queryInt64(q, "gracePeriodSeconds"),
      policy: q.get("propagationPolicy") ?? undefined,
      orphan: optionalQueryBool(q, "orphanDependents"),
      unsafe: optionalQueryBool(q, "ignoreStoreReadErrorWithClusterBreakingPotential"),
      preconditions: undefined,
    };
  }
  const codec = negotiateInput(r.ex.headers["content-type"] as string | undefined, r.parts.codecs);
  const decoded = codec.decode(raw);
  if (decoded !== null && !isPlainObject(decoded)) throw new DecodeError("DeleteOptions must be an object");
  const body = (decoded as Record<string, any>) ?? {};
  auditDeleteOptions(r, body);
  return {
    dryRun: Array.isArray(body.dryRun) ? body.dryRun.map(String) : [],
    grace: body.gracePeriodSeconds ?? undefined,
    policy: body.propagationPolicy ?? undefined,
    orphan: bodyBool(body.orphanDependents),
    unsafe: bodyBool(body.ignoreStoreReadErrorWithClusterBreakingPotential),
    preconditions: body.preconditions ?? undefined,
  };
}

async function deleteOptions(r: ResourceRequest): Promise<ParsedDeleteOptions> {
  const given = await givenDeleteOptions(r);
  const { grace, policy, orphan } = given;
  // Without its gate the option is dropped unread, as upstream's handler drops it.
  const unsafe = r.parts.gates.enabled("AllowUnsafeMalformedObjectDeletion") && (given.unsafe ?? false);
  // upstream's ValidateDeleteOptions, in its order, as one 422.
  const errs: FieldError[] = [];
  if (grace !== undefined && !Number.isInteger(Number(grace))) errs.push(fieldInvalid("gracePeriodSeconds", grace, "must be an integer"));
  if (policy !== undefined && orphan !== undefined) {
    errs.push(fieldInvalid("propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"));
  }
  if (policy !== undefined && !["Foreground", "Background", "Orphan"].includes(policy)) {
    errs.push(notSupported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"]));
  }
  errs.push(...dryRunErrors(given.dryRun));
  const dryRun = given.dryRun.length > 0;
  if (unsafe) {
    const others: [string, unknown][] = [["dryRun", dryRun || undefined], ["gracePeriodSeconds", grace], ["orphanDependents", orphan], ["preconditions", given.preconditions], ["propagationPolicy", policy]];
    for (const [field, v] of others) {
      if (v !== undefined) errs.push(fieldForbidden(field, "must not be set when ignoreStoreReadErrorWithClusterBreakingPotential is true"));
    }
  }
  if (errs.length > 0) throw invalid({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", errs);
  return {
    dryRun,
    preconditions: given.preconditions as DeleteOptions["preconditions"],
    gracePeriodSeconds: grace === undefined ? undefined : Number(grace),
    propagationPolicy: (policy ?? (orphan === undefined ? undefined : orphan ? "Orphan" : "Background")) as PropagationPolicy | undefined,
    ignoreStoreReadErrorWithClusterBreakingPotential: unsafe || undefined,
    explicitNoOrphan: orphan === false,
  };
}

export async function handleDelete(r: ResourceRequest): Promise<void> {
  const n = negotiateWrite(r);
  const opts = await deleteOptions(r);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    // The audit log shows the option was asked for, whatever the outcome (upstream's annotation).
    r.ctx.annotate("apiserver.k8s.io/unsafe-delete-ignore-read-error", "");
    await authorizeUnsafeDelete(r);
  }
  const { object: obj, deleted, unread } = await r.store.delete(r.info.namespace, r.info.name, writeOptions(r, opts));
  if (unread) {
    // Nothing of the object could be read: upstream answers a bare Success naming it.
    writeResult(r, n, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200, details: { name: r.info.name, kind: r.type.kind } });
    return;
  }
  if (!deleted || r.type.strategy.returnDeletedObject) {
    writeResult(r, n, !deleted && opts.explicitNoOrphan ? 202 : 200, obj);
    return;
  }
  writeResult(r, n, 200, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { name: obj.metadata.name, group: r.type.group || undefined, kind: r.type.resource, uid: obj.metadata.uid },
  });
}

export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const n = negotiateWrite(r);
  const opts = await deleteOptions(r);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    throw invalid({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", [fieldInvalid("ignoreStoreReadErrorWithClusterBreakingPotential", true, "is not allowed with DELETECOLLECTION, try again after removing the option")]);
  }
  const listOpts = parseListOptions(r.ex.query);
  validateListOptions(listOpts, false);
  const list = await listObjects(r.store, r.info.namespace, listOpts);
  const results = [];
  for (const item of list.items) {
    try {
      const { object } = await r.store.delete(item.metadata.namespace ?? "", item.metadata.name!, writeOptions(r, opts));
      results.push(object);
    } catch (e) {
      if (!(e instanceof Error && "code" in e && (e as any).code === 404)) throw e;
    }
  }
  writeResult(r, n, 200, { kind: r.type.listKind, apiVersion: r.type.apiVersion, metadata: { resourceVersion: list.resourceVersion }, items: results });
}

/**
 * The unsafe option needs its own permission beyond delete: the verb
 * `unsafe-delete-ignore-read-errors` on the object (upstream's authorizeUnsafeDelete).
 */
async function authorizeUnsafeDelete(r: ResourceRequest): Promise<void> {
  const gr = { group: r.type.group, resource: r.type.resource };
  const { info, user } = r;
  if (info.subresource) throw forbidden(gr, info.name, "ignoreStoreReadErrorWithClusterBreakingPotential delete option is not allowed on a subresource or non-resource request");
  const z = r.parts.authorizer;
  if (!z) throw internalError(new Error("no authorizer provided, unable to authorize unsafe delete"));
  const verb = "unsafe-delete-ignore-read-errors";
  const res = await z.authorize({
    user, verb, isResourceRequest: true, path: info.path, namespace: info.namespace,
    apiGroup: r.type.group, apiVersion: r.type.version, resource: r.type.resource, subresource: "", name: info.name,
  });
  if (res.decision === "allow") return;
  if (res.error) throw forbidden(gr, info.name, `error while checking permission for "${verb}", ${res.error}`);
  throw forbidden(gr, info.name, `not permitted to do "${verb}", reason: ${res.reason}`);
}
