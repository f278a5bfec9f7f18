// EncryptionConfiguration (apiserver.config.k8s.io/v1), the file --encryption-provider-config
// names: parsed, validated in upstream's words (pkg/apis/apiserver/validation), and turned into
// one transformer per group-resource rule (pkg/server/options/encryptionconfig). Pure: the caller
// reads the file.
import { lazyPackage } from "../../apimachinery/package-files.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { aggregateMessage, GoSyntaxValue, invalid, required, type FieldError } from "../../apimachinery/validation.js";
import { aesCbcTransformer, aesGcmTransformer, secretboxTransformer } from "./ciphers.js";
import { identityTransformer, prefixTransformers, type PrefixedTransformer, type TransformationRecorder, type ValueTransformer } from "./transformer.js";

export interface GroupResource {
  group: string;
  resource: string;
}

interface Key {
  name: string;
  secret: string;
}

interface Provider {
  aesgcm?: { keys: Key[] };
  aescbc?: { keys: Key[] };
  secretbox?: { keys: Key[] };
  identity?: object;
  kms?: object;
}

interface ResourceConfiguration {
  resources: string[];
  providers: Provider[];
}

/** Which transformer stores each group-resource; resources no rule names keep plain text. */
export interface EncryptionTransformers {
  forResource(gr: GroupResource): ValueTransformer;
}

/**
 * The transformers of a configuration file's text. Throws an Error with upstream's message
 * (`error while parsing file: ...` / `error while building transformers: ...`).
 */
/** `record` hears every transformation the built transformers make (the server's metrics). */
export function loadEncryptionConfiguration(text: string, file: string, record?: TransformationRecorder): EncryptionTransformers {
  if (text.length === 0) throw new Error(`error while parsing file: error while loading file: encryption provider configuration file ${goQuote(file)} is empty`);
  const resources = decode(text, file);
  const errs = validateEncryptionConfiguration(resources);
  if (errs.length > 0) throw new Error(`error while parsing file: ${aggregateMessage(errs)}`);
  try {
    return build(resources, record);
  } catch (e) {
    throw new Error(`error while building transformers: ${(e as Error).message}`);
  }
}

function decode(text: string, file: string): ResourceConfiguration[] {
  const fail = (why: string) => new Error(`error while parsing file: error decoding encryption provider configuration file ${goQuote(file)}: ${why}`);
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (!isObject(doc)) throw fail("Object 'Kind' is missing in the configuration");
  const { apiVersion, kind } = doc;
  if (typeof kind !== "string" || kind === "") throw fail(`Object 'Kind' is missing in ${goQuote(text.trim().slice(0, 200))}`);
  if (apiVersion !== "apiserver.config.k8s.io/v1" || kind !== "EncryptionConfiguration") {
    throw fail(`no kind ${goQuote(kind)} is registered for version ${goQuote(String(apiVersion ?? ""))}`);
  }
  // Unknown fields are dropped, as upstream's (non-strict) decoder does.
  const list = Array.isArray(doc.resources) ? doc.resources : [];
  return list.map((r) => ({
    resources: isObject(r) && Array.isArray(r.resources) ? r.resources.map(String) : [],
    providers: isObject(r) && Array.isArray(r.providers) ? r.providers.map(provider) : [],
  }));
}

function provider(p: unknown): Provider {
  const out: Provider = {};
  if (!isObject(p)) return out;
  const keys = (v: unknown): Key[] =>
    isObject(v) && Array.isArray(v.keys) ? v.keys.map((k) => ({ name: isObject(k) ? String(k.name ?? "") : "", secret: isObject(k) ? String(k.secret ?? "") : "" })) : [];
  if (p.aesgcm != null) out.aesgcm = { keys: keys(p.aesgcm) };
  if (p.aescbc != null) out.aescbc = { keys: keys(p.aescbc) };
  if (p.secretbox != null) out.secretbox = { keys: keys(p.secretbox) };
  if (p.identity != null) out.identity = {};
  if (p.kms != null) out.kms = {};
  return out;
}

const yaml = lazyPackage<typeof import("yaml")>("yaml");
const aesKeySizes = [16, 24, 32];
const secretboxKeySizes = [32];
const anyGroupAnyResource: GroupResource = { group: "*", resource: "*" };

/** Upstream ValidateEncryptionConfiguration (reload-only KMS rules aside: kapi refuses KMS). */
export function validateEncryptionConfiguration(resources: readonly ResourceConfiguration[]): FieldError[] {
  if (resources.length === 0) return [required("resources", "at least one resources is required")];
  const errs: FieldError[] = [];
  resources.forEach((conf, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    if (conf.resources.length === 0) errs.push(required(r, `at least one ${r} is required`));
    errs.push(...validateResourceOverlap(conf.resources, r), ...validateResourceNames(conf.resources, r));
    if (conf.providers.length === 0) errs.push(required(p, `at least one ${p} is required`));
    conf.providers.forEach((prov, j) => {
      const path = `${p}[${j}]`;
      const single = validateSingleProvider(prov, path);
      errs.push(...single);
      if (single.length > 0) return;
      if (prov.aesgcm) errs.push(...validateKeys(prov.aesgcm.keys, `${path}.aesgcm.keys`, aesKeySizes));
      else if (prov.aescbc) errs.push(...validateKeys(prov.aescbc.keys, `${path}.aescbc.keys`, aesKeySizes));
      else if (prov.secretbox) errs.push(...validateKeys(prov.secretbox.keys, `${path}.secretbox.keys`, secretboxKeySizes));
    });
  });
  return errs;
}

/** Upstream schema.ParseGroupResource: the resource before the first dot, the group after it. */
export function parseGroupResource(s: string): GroupResource {
  const dot = s.indexOf(".");
  return dot < 0 ? { group: "", resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
}

const sameGR = (a: GroupResource, b: GroupResource) => a.group === b.group && a.resource === b.resource;

function goStrings(list: readonly string[]): GoSyntaxValue {
  return new GoSyntaxValue(`[]string{${list.map(goQuote).join(", ")}}`);
}

function validateResourceOverlap(resources: readonly string[], field: string): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  grs.forEach((r1, i) =>
    grs.forEach((r2, j) => {
      if (i === j) return;
      if (sameGR(r1, r2) && !duplicate) {
        duplicate = true;
        return;
      }
      if (overlap) return;
      if (sameGR(r1, anyGroupAnyResource)) overlap = true;
      else if (r1.group === r2.group && (r1.resource === "*" || r2.resource === "*")) overlap = true;
    }),
  );
  const errs: FieldError[] = [];
  if (duplicate) errs.push(invalid(field, goStrings(resources), "the same resource cannot be specified multiple times"));
  if (overlap) errs.push(invalid(field, goStrings(resources), "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"));
  return errs;
}

function validateResourceNames(resources: readonly string[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  resources.forEach((res, j) => {
    const f = `${field}[${j}]`;
    const gr = parseGroupResource(res);
    let message: string | undefined;
    if (/[A-Z]/.test(res)) message = "resource name should not contain capital letters";
    else if (res === "*") message = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
    else if (["apiserveripinfo", "serviceipallocations", "servicenodeportallocations"].includes(res)) message = "resources which do not have REST API/s cannot be encrypted";
    else if (gr.group === "events.k8s.io") message = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file";
    else if (gr.group === "extensions") message = "'extensions' group has been removed and cannot be used for encryption";
    else if (gr.group === "*" && gr.resource !== "*") message = "encrypting the same resource across groups is not supported";
    if (message) errs.push(invalid(f, res, message));
  });
  return errs;
}

const providerFields = [
  ["aesgcm", "AESGCM", "AESConfiguration"],
  ["aescbc", "AESCBC", "AESConfiguration"],
  ["secretbox", "Secretbox", "SecretboxConfiguration"],
  ["identity", "Identity", "IdentityConfiguration"],
  ["kms", "KMS", "KMSConfiguration"],
] as const;

function validateSingleProvider(p: Provider, field: string): FieldError[] {
  const found = providerFields.filter(([k]) => p[k] !== undefined).length;
  if (found === 1) return [];
  // Go prints the provider with %#v; a set pointer's address is not reproducible, so it shows as set.
  const shown = new GoSyntaxValue(
    `apiserver.ProviderConfiguration{${providerFields.map(([k, name, type]) => `${name}:(*apiserver.${type})(${p[k] === undefined ? "nil" : "set"})`).join(", ")}}`,
  );
  return [
    invalid(field, shown, found === 0 ? "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity" : "more than one provider specified in a single element, should split into different list elements"),
  ];
}

function validateKeys(keys: readonly Key[], field: string, sizes: readonly number[]): FieldError[] {
  if (keys.length === 0) return [required(field, "at least one keys is required")];
  const errs: FieldError[] = [];
  keys.forEach((key, i) => {
    const f = `${field}[${i}]`;
    if (key.name === "") errs.push(required(`${f}.name`, "name is a mandatory field for a key"));
    if (key.secret === "") {
      errs.push(required(`${f}.secret`, "secret is a mandatory field for a key"));
      return;
    }
    const secret = strictBase64(key.secret);
    if (!secret) errs.push(invalid(`${f}.secret`, "REDACTED", "secrets must be base64 encoded"));
    else if (!sizes.includes(secret.length)) errs.push(invalid(`${f}.secret`, "REDACTED", `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(" ")}]`));
  });
  return errs;
}

/** Go's base64.StdEncoding.DecodeString: padded, no stray characters (line breaks are skipped). */
function strictBase64(s: string): Buffer | undefined {
  const t = s.replace(/[\r\n]/g, "");
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return undefined;
  return Buffer.from(t, "base64");
}

function keyedTransformers(keys: readonly Key[], make: (key: Buffer) => ValueTransformer, noMatch: string, record: TransformationRecorder | undefined): ValueTransformer {
  return prefixTransformers(
    noMatch,
    keys.map((k) => ({ prefix: `${k.name}:`, transformer: make(strictBase64(k.secret)!) })),
    record,
  );
}

function providerTransformer(p: Provider, record: TransformationRecorder | undefined): PrefixedTransformer {
  if (p.aesgcm) return { prefix: "k8s:enc:aesgcm:v1:", transformer: keyedTransformers(p.aesgcm.keys, aesGcmTransformer, "no matching key was found for the provided AES transformer", record) };
  if (p.aescbc) return { prefix: "k8s:enc:aescbc:v1:", transformer: keyedTransformers(p.aescbc.keys, aesCbcTransformer, "no matching key was found for the provided AES transformer", record) };
  if (p.secretbox) {
    return { prefix: "k8s:enc:secretbox:v1:", transformer: keyedTransformers(p.secretbox.keys, secretboxTransformer, "no matching key was found for the provided Secretbox transformer", record) };
  }
  if (p.identity) return { prefix: "", transformer: identityTransformer };
  throw new Error("the kms provider is not supported by kapi (it has no KMS plugin client); use aescbc, aesgcm or secretbox");
}

function grString(gr: GroupResource): string {
  if (gr.group === "" && gr.resource === "*") return "*.";
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function build(resources: readonly ResourceConfiguration[], record: TransformationRecorder | undefined): EncryptionTransformers {
  const lists = new Map<string, PrefixedTransformer[]>();
  const id = (gr: GroupResource) => `${gr.resource}.${gr.group}`;
  for (const conf of resources) {
    const providers = conf.providers.map((p) => providerTransformer(p, record));
    for (const res of conf.resources) {
      const gr = parseGroupResource(res);
      // A rule after `*.group` or `*.*` could never apply: upstream refuses it.
      for (const masking of [{ group: gr.group, resource: "*" }, anyGroupAnyResource]) {
        if (lists.has(id(masking))) throw new Error(`resource ${goQuote(grString(gr))} is masked by earlier rule ${goQuote(grString(masking))}`);
      }
      lists.set(id(gr), [...(lists.get(id(gr)) ?? []), ...providers]);
    }
  }
  const transformers = new Map([...lists].map(([k, list]) => [k, prefixTransformers("no matching prefix found", list, record)]));
  const lookup = (gr: GroupResource) => transformers.get(id(gr)) ?? transformers.get(id({ group: gr.group, resource: "*" })) ?? transformers.get(id(anyGroupAnyResource));
  return { forResource: (gr) => lookup(gr) ?? identityTransformer };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
