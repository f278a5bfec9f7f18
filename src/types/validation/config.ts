// Secret and ConfigMap validation (upstream ValidateSecret, ValidateConfigMap and their updates).
import { forbidden, invalid, maxLenError, regexError, required, tooLong, type FieldError } from "../../apimachinery/validation.js";
import { goUnmarshalMapError } from "../../apimachinery/go-json.js";
import { immutable, key, obj, str, type Obj } from "./helpers.js";
import { deepEqual } from "../../apimachinery/json-value.js";

/** core.MaxSecretSize (also the ConfigMap limit). */
export const MAX_SECRET_SIZE = 1024 * 1024;

const configMapKeyFmt = "[-._a-zA-Z0-9]+";
const configMapKeyRe = /^[-._a-zA-Z0-9]+$/;
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/** Upstream validation.IsConfigMapKey. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push(maxLenError(253));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, "key.name", "KEY_NAME", "key-name"));
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

const decodedLen = (b64: unknown): number => Buffer.from(str(b64), "base64").length;
const decoded = (b64: unknown): Buffer => Buffer.from(str(b64), "base64");

export function validateSecret(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(o.data);
  let total = 0;
  for (const k of Object.keys(data).sort()) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(key("data", k), k, m));
    total += decodedLen(data[k]);
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong("data", MAX_SECRET_SIZE));
  const annotations = obj(o.metadata?.annotations);
  switch (str(o.type)) {
    case "kubernetes.io/service-account-token":
      if (!str(annotations["kubernetes.io/service-account.name"])) {
        errs.push(required(key("metadata.annotations", "kubernetes.io/service-account.name"), ""));
      }
      break;
    case "Opaque":
    case "":
      break;
    case "kubernetes.io/dockercfg":
    case "kubernetes.io/dockerconfigjson": {
      const k = o.type === "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
      if (!(k in data)) {
        errs.push(required(key("data", k), ""));
        break;
      }
      const e = goUnmarshalMapError(decoded(data[k]).toString("utf8"));
      if (e) errs.push(invalid(key("data", k), "<secret contents redacted>", e));
      break;
    }
    case "kubernetes.io/basic-auth":
      if (!("username" in data) && !("password" in data)) {
        errs.push(required(key("data", "username"), ""), required(key("data", "password"), ""));
      }
      break;
    case "kubernetes.io/ssh-auth":
      if (decodedLen(data["ssh-privatekey"]) === 0) errs.push(required(key("data", "ssh-privatekey"), ""));
      break;
    case "kubernetes.io/tls":
      if (!("tls.crt" in data)) errs.push(required(key("data", "tls.crt"), ""));
      if (!("tls.key" in data)) errs.push(required(key("data", "tls.key"), ""));
      break;
    case "bootstrap.kubernetes.io/token":
      errs.push(...validateBootstrapToken(o, data));
      break;
  }
  return errs;
}

/**
 * Bootstrap token secrets (the spec's Authentication section): kapi rejects malformed ones at
 * the API, where kube-apiserver stores them and its authenticator ignores them — a token that
 * can never authenticate is better refused than kept.
 */
function validateBootstrapToken(o: Obj, data: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const redacted = "<secret contents redacted>";
  const get = (k: string) => (k in data ? decoded(data[k]).toString("utf8") : undefined);
  const id = get("token-id");
  const secret = get("token-secret");
  if (id === undefined) errs.push(required(key("data", "token-id"), ""));
  else if (!bootstrapTokenIdRe.test(id)) errs.push(invalid(key("data", "token-id"), redacted, "must match [a-z0-9]{6}"));
  else if (o.metadata?.name !== `bootstrap-token-${id}`) errs.push(invalid("metadata.name", o.metadata?.name, `must be bootstrap-token-<token-id> (bootstrap-token-${id})`));
  if (secret === undefined) errs.push(required(key("data", "token-secret"), ""));
  else if (!bootstrapTokenSecretRe.test(secret)) errs.push(invalid(key("data", "token-secret"), redacted, "must match [a-z0-9]{16}"));
  const exp = get("expiration");
  if (exp !== undefined && (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(exp) || Number.isNaN(Date.parse(exp)))) {
    errs.push(invalid(key("data", "expiration"), exp, "must be an RFC 3339 time in UTC"));
  }
  const groups = get("auth-extra-groups");
  if (groups !== undefined) {
    for (const g of groups.split(",")) if (!g.startsWith("system:bootstrappers:")) errs.push(invalid(key("data", "auth-extra-groups"), g, "must start with system:bootstrappers:"));
  }
  return errs;
}

const immutableMsg = "field is immutable when `immutable` is set";

export function validateSecretUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = immutable("type", o.type, old.type);
  if (old.immutable === true) {
    if (o.immutable !== true) errs.push(forbidden("immutable", immutableMsg));
    if (!deepEqual(o.data ?? {}, old.data ?? {})) errs.push(forbidden("data", immutableMsg));
  }
  errs.push(...validateSecret(o));
  return errs;
}

export function validateConfigMap(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(o.data);
  const binary = obj(o.binaryData);
  let total = 0;
  for (const k of Object.keys(data).sort()) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(key("data", k), k, m));
    if (k in binary) errs.push(invalid(key("data", k), k, "duplicate of key present in binaryData"));
    total += Buffer.byteLength(str(data[k]));
  }
  for (const k of Object.keys(binary).sort()) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(key("binaryData", k), k, m));
    if (k in data) errs.push(invalid(key("binaryData", k), k, "duplicate of key present in data"));
    total += decodedLen(binary[k]);
  }
  // upstream reports the size on the whole object (empty field path)
  if (total > MAX_SECRET_SIZE) errs.push(tooLong("", MAX_SECRET_SIZE));
  return errs;
}

export function validateConfigMapUpdate(o: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (old.immutable === true) {
    if (o.immutable !== true) errs.push(forbidden("immutable", immutableMsg));
    if (!deepEqual(o.data ?? {}, old.data ?? {})) errs.push(forbidden("data", immutableMsg));
    if (!deepEqual(o.binaryData ?? {}, old.binaryData ?? {})) errs.push(forbidden("binaryData", immutableMsg));
  }
  errs.push(...validateConfigMap(o));
  return errs;
}

const bootstrapTokenIdRe = /^[a-z0-9]{6}$/;
const bootstrapTokenSecretRe = /^[a-z0-9]{16}$/;

