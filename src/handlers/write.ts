// POST (create) and PUT (update, also of /status and a namespace's /finalize).
import { methodNotSupported } from "../apimachinery/errors.js";
import type { ResourceRequest } from "./context.js";
import { readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { resolveFieldManager } from "./field-manager.js";
import { negotiateWrite, writeWritten } from "./output.js";
import { writeOptions } from "./write-options.js";
import { createAuthorization } from "./create-on-update.js";

export async function handleCreate(r: ResourceRequest): Promise<void> {
  const refused = r.type.createRefused?.();
  if (refused) throw refused;
  const n = negotiateWrite(r);
  const dryRun = parseDryRun(r.ex.query, "CreateOptions");
  const fieldManager = resolveFieldManager(r, "CreateOptions");
  const body = await readObject(r);
  writeWritten(r, n, await r.parts.store.create(r.type, r.info.namespace, body, writeOptions(r, { dryRun, fieldManager })), 201);
}

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const sub = r.info.subresource;
  if (sub && !writableSubresource(r, "update")) throw methodNotSupported(r.type.gr, "update");
  const n = negotiateWrite(r);
  const dryRun = parseDryRun(r.ex.query, "UpdateOptions");
  const fieldManager = resolveFieldManager(r, "UpdateOptions");
  const body = await readObject(r);
  const result = await r.parts.store.update(
    r.type,
    r.info.namespace,
    r.info.name,
    { subresource: sub, createIfMissing: r.type.strategy.allowCreateOnUpdate, desired: () => body, authorizeCreate: createAuthorization(r) },
    writeOptions(r, { dryRun, fieldManager }),
  );
  writeWritten(r, n, result);
}

/** A CertificateSigningRequest's approval subresource (approve and deny: status.conditions only). */
export function isCsrApproval(r: ResourceRequest): boolean {
  return r.info.subresource === "approval" && r.type.group === "certificates.k8s.io" && r.type.resource === "certificatesigningrequests";
}

/**
 * The subresources PUT and PATCH write through the store: status everywhere; a namespace's
 * finalize (PUT only); a CSR's approval; a pod's ephemeral containers.
 */
export function writableSubresource(r: ResourceRequest, verb: "update" | "patch"): boolean {
  const { group, resource } = r.type;
  switch (r.info.subresource) {
    case "status":
      return true;
    case "finalize":
      return verb === "update" && group === "" && resource === "namespaces";
    case "approval":
      return isCsrApproval(r);
    case "ephemeralcontainers":
      return group === "" && resource === "pods";
    default:
      return false;
  }
}
