// POST .../serviceaccounts/<name>/token: a TokenRequest (authentication.k8s.io/v1) answered with
// a signed, bound token (upstream pkg/registry/core/serviceaccount/storage/token.go): audiences
// default to the API audiences, expirationSeconds to 3600 (at least 600 and at most 2^32, capped
// by --service-account-max-token-expiration with a warning), boundObjectRef to a Pod, Secret or
// Node that must exist (and match its uid); kubelet-style requests (3607 s, API audiences, pod
// bound) get a one-year token with `warnafter` when --service-account-extend-token-expiration.
import { ApiError, badRequest, conflict, invalid } from "../apimachinery/errors.js";
import { invalid as invalidField, type FieldError } from "../apimachinery/validation.js";
import type { ResourceRequest } from "./context.js";
import type { Creater, RestStorage } from "./rest/capabilities.js";
import { readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { writeOptions } from "./write-options.js";
import { negotiateWrite, writeResult } from "./output.js";
import type { KObject } from "../apimachinery/object.js";
import { tokenSigner } from "../authn/serviceaccount/token-signer.js";
import { boundTokenClaims, warnOnlyBoundTokenExpirationSeconds, type ObjectRef } from "../authn/serviceaccount/claims.js";
import type { ServiceAccountConfig } from "../authn/serviceaccount/config.js";
import { goQuote } from "../apimachinery/go-quote.js";

const tokenRequestKind = { group: "authentication.k8s.io", kind: "TokenRequest" };
const tokenRequestTypeMeta = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest" };
export const minTokenSeconds = 10 * 60;
export const maxTokenSeconds = 2 ** 32;

export function validateTokenRequestSpec(expirationSeconds: number): FieldError[] {
  const errs: FieldError[] = [];
  if (expirationSeconds < minTokenSeconds) errs.push(invalidField("spec.expirationSeconds", expirationSeconds, "may not specify a duration less than 10 minutes"));
  if (expirationSeconds > maxTokenSeconds) errs.push(invalidField("spec.expirationSeconds", expirationSeconds, "may not specify a duration larger than 2^32 seconds"));
  return errs;
}

interface BoundObjectRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

/** Go's schema.GroupVersionKind String(): "group/version, Kind=kind". */
function gvkString(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
  return `${group}/${version}, Kind=${kind}`;
}

/** serviceaccounts/token: created only; none without a signing key (the path is then unknown). */
export function tokenRequestStorage(cfg: ServiceAccountConfig): (Creater & RestStorage) | undefined {
  if (!cfg.signingKey) return undefined;
  const sign = tokenSigner(cfg.signingKey);
  const apiAuds = new Set(cfg.apiAudiences);
  return {
    unservedVerb: "NotFound",
    async create(r: ResourceRequest) {
      const n = negotiateWrite(r);
      const namespace = r.info.namespace;
      const name = r.info.name;
      const { stores, types } = r.parts;
      const dryRun = parseDryRun(r.ex.query, "CreateOptions");
      // Admission as upstream: mutating, then the request's own checks, then validating.
      const validate = (admitted: KObject) => {
        const m = (admitted.metadata ?? {}) as KObject["metadata"];
        if (m.name && m.name !== name) throw invalid(tokenRequestKind, name, [invalidField("metadata.name", m.name, "must match the service account name if specified")]);
        if (m.namespace && m.namespace !== namespace) throw invalid(tokenRequestKind, name, [invalidField("metadata.namespace", m.namespace, "must match the service account namespace if specified")]);
        const errs = validateTokenRequestSpec(((admitted.spec ?? {}) as { expirationSeconds?: number | null }).expirationSeconds ?? 3600);
        if (errs.length) throw invalid(tokenRequestKind, "", errs);
      };
      const requested = (await readObject(r, tokenRequestTypeMeta)) as KObject;
      const { object: body } = await r.store.create(namespace, requested, writeOptions(r, { dryRun, subresource: { subresource: "token", name, validate } }));
      const meta = (body.metadata ?? {}) as KObject["metadata"];
      const sa = await r.store.get(namespace, name);
      const spec = { ...((body.spec ?? {}) as { audiences?: string[] | null; expirationSeconds?: number | null; boundObjectRef?: BoundObjectRef | null }) };
      const audiences = spec.audiences && spec.audiences.length ? spec.audiences : [...cfg.apiAudiences];
      let expirationSeconds = spec.expirationSeconds ?? 3600;
      const nowMs = Date.now();

      let pod: ObjectRef | undefined;
      let node: ObjectRef | undefined;
      let secret: ObjectRef | undefined;
      const ref = spec.boundObjectRef ?? undefined;
      if (ref) {
        const apiVersion = ref.apiVersion ?? "";
        const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
        const kind = ref.kind ?? "";
        const get = (resource: string, ns: string) => stores.for(types.get("", "v1", resource)!).get(ns, ref.name ?? "");
        let uid: string | undefined;
        if (group === "" && kind === "Pod") {
          const p = await get("pods", namespace);
          const podSpec = (p.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
          if (name !== (podSpec.serviceAccountName ?? "")) throw badRequest(`cannot bind token for serviceaccount ${goQuote(name)} to pod running with different serviceaccount name.`);
          pod = { name: p.metadata.name!, uid: p.metadata.uid! };
          uid = pod.uid;
          if (podSpec.nodeName) {
            const nd = await stores.for(types.get("", "v1", "nodes")!).get("", podSpec.nodeName).catch(() => undefined);
            if (nd) node = { name: nd.metadata.name!, uid: nd.metadata.uid! };
          }
        } else if (group === "" && kind === "Node") {
          const nd = await get("nodes", "");
          node = { name: nd.metadata.name!, uid: nd.metadata.uid! };
          uid = node.uid;
        } else if (group === "" && kind === "Secret") {
          const s = await get("secrets", namespace);
          secret = { name: s.metadata.name!, uid: s.metadata.uid! };
          uid = secret.uid;
        } else {
          throw badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
        }
        if (ref.uid && uid !== ref.uid) {
          throw conflict({ group, resource: kind }, ref.name ?? "", `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
        }
      }
      if (cfg.maxExpirationSeconds > 0 && expirationSeconds > cfg.maxExpirationSeconds) {
        r.warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${cfg.maxExpirationSeconds} seconds`);
        expirationSeconds = cfg.maxExpirationSeconds;
      }
      let exp = expirationSeconds;
      let warnAfter = 0;
      if (cfg.extendExpiration && pod && expirationSeconds === warnOnlyBoundTokenExpirationSeconds && audiences.every((a) => apiAuds.has(a))) {
        warnAfter = expirationSeconds;
        exp = cfg.maxExtendedExpirationSeconds;
      }
      const claims = boundTokenClaims({
        serviceAccount: { namespace, name: sa.metadata.name!, uid: sa.metadata.uid! },
        pod,
        node,
        secret,
        expirationSeconds: exp,
        warnAfterSeconds: warnAfter,
        audiences,
        issuer: cfg.issuers[0],
        now: Math.floor(nowMs / 1000),
      });
      let token: string;
      try {
        token = sign(claims);
      } catch (e) {
        throw new ApiError(500, "InternalError", `failed to generate token: ${(e as Error).message}`, {});
      }
      const created = new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace(/\.\d+Z$/, "Z");
      const expiry = new Date(Math.floor(nowMs / 1000) * 1000 + expirationSeconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
      writeResult(r, n, 201, {
        kind: "TokenRequest",
        apiVersion: "authentication.k8s.io/v1",
        metadata: { ...meta, name: meta.name || name, namespace: meta.namespace || namespace, creationTimestamp: created },
        spec: { audiences, expirationSeconds, ...(ref ? { boundObjectRef: ref } : {}) },
        status: { token, expirationTimestamp: expiry },
      });
    },
  };
}
