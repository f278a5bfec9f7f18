import { describe, expect, it } from "vitest";
import { loadEncryptionConfiguration } from "./config.js";

const head = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n";
const load = (body: string) => () => loadEncryptionConfiguration(head + body, "/etc/enc.yaml");
const k = (n: number) => Buffer.alloc(n, 1).toString("base64");

describe("EncryptionConfiguration", () => {
  it("refuses what upstream's validation refuses, in its words", () => {
    expect(load("resources: []\n")).toThrow("error while parsing file: resources: Required value: at least one resources is required");
    expect(load(`resources:\n- providers: [{identity: {}}]\n`)).toThrow("resources[0].resources: Required value: at least one resources[0].resources is required");
    expect(load(`resources:\n- resources: [secrets]\n`)).toThrow("resources[0].providers: Required value: at least one resources[0].providers is required");
    expect(load(`resources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k1, secret: "${k(10)}"}]}}]\n`)).toThrow(
      'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 10, expected one of [16 24 32]',
    );
    expect(load(`resources:\n- resources: [secrets]\n  providers: [{secretbox: {keys: [{name: k1, secret: "${k(16)}"}]}}]\n`)).toThrow("got 16, expected one of [32]");
    expect(load(`resources:\n- resources: [secrets]\n  providers: [{aesgcm: {keys: [{name: k1, secret: "not base64!"}]}}]\n`)).toThrow("secrets must be base64 encoded");
    expect(load(`resources:\n- resources: [secrets]\n  providers: [{aesgcm: {keys: []}}]\n`)).toThrow("resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required");
    expect(load(`resources:\n- resources: [secrets]\n  providers: [{rot13: {}}]\n`)).toThrow(
      "resources[0].providers[0]: Invalid value: apiserver.ProviderConfiguration{AESGCM:(*apiserver.AESConfiguration)(nil), AESCBC:(*apiserver.AESConfiguration)(nil), Secretbox:(*apiserver.SecretboxConfiguration)(nil), Identity:(*apiserver.IdentityConfiguration)(nil), KMS:(*apiserver.KMSConfiguration)(nil)}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity",
    );
    expect(load(`resources:\n- resources: [secrets, "*."]\n  providers: [{identity: {}}]\n`)).toThrow(
      `resources[0].resources: Invalid value: []string{"secrets", "*."}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`,
    );
    expect(load(`resources:\n- resources: [Secrets, events.events.k8s.io]\n  providers: [{identity: {}}]\n- resources: ["*"]\n  providers: [{identity: {}}]\n`)).toThrow(
      `error while parsing file: [resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters, resources[0].resources[1]: Invalid value: "events.events.k8s.io": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file, resources[1].resources[0]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources]`,
    );
  });

  it("refuses a rule masked by an earlier wildcard, and kms, when building", () => {
    expect(load(`resources:\n- resources: ["*.apps"]\n  providers: [{identity: {}}]\n- resources: [deployments.apps]\n  providers: [{identity: {}}]\n`)).toThrow(
      'error while building transformers: resource "deployments.apps" is masked by earlier rule "*.apps"',
    );
    expect(load(`resources:\n- resources: [secrets]\n  providers: [{kms: {apiVersion: v2, name: p, endpoint: "unix:///k.sock"}}]\n`)).toThrow("the kms provider is not supported by kapi");
  });

  it("refuses an empty file, another kind and bad YAML", () => {
    expect(() => loadEncryptionConfiguration("", "/e.yaml")).toThrow('encryption provider configuration file "/e.yaml" is empty');
    expect(() => loadEncryptionConfiguration("apiVersion: v1\nkind: ConfigMap\n", "/e.yaml")).toThrow('error decoding encryption provider configuration file "/e.yaml"');
    expect(() => loadEncryptionConfiguration("a: [", "/e.yaml")).toThrow("error decoding encryption provider configuration file");
  });

  it("applies a rule by exact resource, then *.group, then *.*; others stay plain", () => {
    const t = loadEncryptionConfiguration(
      head +
        `resources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: a, secret: "${k(32)}"}]}}]\n- resources: ["*.apps"]\n  providers: [{aesgcm: {keys: [{name: g, secret: "${k(16)}"}]}}]\n- resources: ["*.*"]\n  providers: [{secretbox: {keys: [{name: s, secret: "${k(32)}"}]}}]\n`,
      "e.yaml",
    );
    expect(t.forResource({ group: "", resource: "secrets" }).toStorage("x", "/k")).toMatch(/^k8s:enc:aescbc:v1:a:/);
    expect(t.forResource({ group: "apps", resource: "deployments" }).toStorage("x", "/k")).toMatch(/^k8s:enc:aesgcm:v1:g:/);
    expect(t.forResource({ group: "", resource: "configmaps" }).toStorage("x", "/k")).toMatch(/^k8s:enc:secretbox:v1:s:/);
    const only = loadEncryptionConfiguration(head + `resources:\n- resources: [secrets]\n  providers: [{identity: {}}]\n`, "e.yaml");
    expect(only.forResource({ group: "", resource: "configmaps" }).toStorage("x", "/k")).toBe("x");
  });
});
