// kube-system/extension-apiserver-authentication (upstream: kube-apiserver's
// cluster_authentication_trust_controller): how extension API servers are told to authenticate
// the requests the aggregator sends them — the client CA, and, when a front-proxy CA is
// configured, its bundle and the request-header names, as JSON lists. What is there is merged with
// this server's settings rather than replaced (several kube-apiservers share the ConfigMap):
// lists keep their entries and add ours, CA bundles keep each unexpired certificate once. Checked
// on every change of the ConfigMap and once a minute.
import { X509Certificate } from "node:crypto";
import { deepEqual } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import { encodePem, pemBlocks, pemBytes } from "../apimachinery/pem.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { aggregatorFieldManager, isNotFound, updateObject } from "./apiservices.js";

export const authenticationConfigMapNamespace = "kube-system";
export const authenticationConfigMapName = "extension-apiserver-authentication";
const recheckMs = 60_000;
const fiveMinutesMs = 5 * 60_000;

export interface ClusterAuthenticationInfo {
  clientCA: string;
  requestHeader?: {
    clientCA: string;
    usernameHeaders: readonly string[];
    uidHeaders: readonly string[];
    groupHeaders: readonly string[];
    extraHeaderPrefixes: readonly string[];
    allowedNames: readonly string[];
  };
}

const listOf = (s: string | undefined): string[] => {
  if (!s) return [];
  const v = JSON.parse(s) as unknown;
  return Array.isArray(v) ? v.map(String) : [];
};
const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];

/** Both bundles' certificates, each once, without those expired more than five minutes ago. */
function combineBundles(a: string, b: string): string {
  const seen = new Set<string>();
  let out = "";
  for (const block of [...pemBlocks(a), ...pemBlocks(b)].filter((x) => x.type === "CERTIFICATE")) {
    const der = pemBytes(block);
    const key = der.toString("base64");
    if (seen.has(key)) continue;
    if (new Date(new X509Certificate(der).validTo).getTime() <= Date.now() - fiveMinutesMs) continue;
    seen.add(key);
    out += encodePem("CERTIFICATE", der);
  }
  return out;
}

/** The data the ConfigMap should hold: what it holds merged with `ours`. */
export function authenticationData(existing: Record<string, string>, ours: ClusterAuthenticationInfo): Record<string, string> {
  const data: Record<string, string> = {};
  const clientCA = combineBundles(existing["client-ca-file"] ?? "", ours.clientCA);
  if (clientCA) data["client-ca-file"] = clientCA;
  const rh = ours.requestHeader;
  const requestHeaderCA = combineBundles(existing["requestheader-client-ca-file"] ?? "", rh?.clientCA ?? "");
  if (!requestHeaderCA) return data;
  const merged = (key: string, mine: readonly string[] | undefined) => JSON.stringify(union(listOf(existing[key]), mine ?? []));
  data["requestheader-username-headers"] = merged("requestheader-username-headers", rh?.usernameHeaders);
  data["requestheader-uid-headers"] = merged("requestheader-uid-headers", rh?.uidHeaders);
  data["requestheader-group-headers"] = merged("requestheader-group-headers", rh?.groupHeaders);
  data["requestheader-extra-headers-prefix"] = merged("requestheader-extra-headers-prefix", rh?.extraHeaderPrefixes);
  data["requestheader-client-ca-file"] = requestHeaderCA;
  data["requestheader-allowed-names"] = merged("requestheader-allowed-names", rh?.allowedNames);
  return data;
}

export interface AuthenticationConfigMapDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  info: ClusterAuthenticationInfo;
}

export function startAuthenticationConfigMap({ stores, types, informers, info }: AuthenticationConfigMapDeps): Controller | undefined {
  const cmType = types.get("", "v1", "configmaps");
  if (!cmType) return undefined;
  const configMaps = informers.metadataFor(cmType);
  const key = `${authenticationConfigMapNamespace}/${authenticationConfigMapName}`;
  const ours = (cm: KObject) => cm.metadata.namespace === authenticationConfigMapNamespace && cm.metadata.name === authenticationConfigMapName && key;

  async function sync(): Promise<void> {
    const store = stores.for(cmType!);
    const current = await store.get(authenticationConfigMapNamespace, authenticationConfigMapName).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    const existing = (current?.data ?? {}) as Record<string, string>;
    const data = authenticationData(existing, info);
    if (current && deepEqual(data, existing)) return;
    if (!current) {
      const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: authenticationConfigMapNamespace, name: authenticationConfigMapName }, data } as KObject;
      await store.create(authenticationConfigMapNamespace, cm, { dryRun: false, fieldManager: aggregatorFieldManager });
      return;
    }
    await updateObject(stores, cmType!, authenticationConfigMapNamespace, authenticationConfigMapName, "", (o) => {
      o.data = authenticationData((o.data ?? {}) as Record<string, string>, info);
    });
  }

  return runController({
    name: "cluster-authentication-trust-controller",
    watches: [{ informer: configMaps, added: ours, updated: (_o, n) => ours(n), deleted: ours }],
    setup: (ctx) => ctx.enqueue(key),
    reconcile: sync,
    resync: { everyMs: recheckMs, keys: () => [key] },
  });
}
