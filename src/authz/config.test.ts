import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configurationFromFlags, loadAuthorizationConfiguration, validateAuthorizationFlags } from "./config.js";
import { checkAuthorizationFlags, setupAuthorization } from "./modes.js";
import { attributes } from "./conformance.testkit.js";
import { alwaysAllow } from "./always.js";

const dir = mkdtempSync(join(tmpdir(), "authz-config-"));
const kubeconfig = join(dir, "hook.kubeconfig");
writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
const env = { authorizeWithSelectors: true };

const webhook = (fields: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: hook
  webhook:
${fields
  .trim()
  .split("\n")
  .map((l) => "    " + l)
  .join("\n")}
`;
const good = `timeout: 3s
subjectAccessReviewVersion: v1
matchConditionSubjectAccessReviewVersion: v1
failurePolicy: Deny
connectionInfo:
  type: KubeConfigFile
  kubeConfigFile: ${kubeconfig}
matchConditions:
- expression: has(request.resourceAttributes)`;

const noOpinion = { authorize: () => ({ decision: "no-opinion" as const, reason: "" }) };

describe("authorization configuration file", () => {
  it("loads v1 and v1beta1 with defaults", () => {
    const c = loadAuthorizationConfiguration(webhook(good), env);
    expect(c.authorizers[0]).toMatchObject({ type: "Webhook", name: "hook", webhook: { timeoutMs: 3000, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, failurePolicy: "Deny", cacheAuthorizedRequests: true } });
    expect(c.authorizers[0]!.webhook!.compiled).toHaveLength(1);
    const beta = loadAuthorizationConfiguration("apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: Node, name: node}\n- {type: RBAC, name: rbac}\n", env);
    expect(beta.authorizers.map((a) => a.type)).toEqual(["Node", "RBAC"]);
  });

  const cases: [string, string, string | RegExp][] = [
    ["no timeout", good.replace("timeout: 3s\n", ""), "authorizers[0].timeout: Required value"],
    ["timeout over 30s", good.replace("timeout: 3s", "timeout: 45s"), 'authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s'],
    ["bad SAR version", good.replace("subjectAccessReviewVersion: v1", "subjectAccessReviewVersion: v2"), 'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"'],
    ["match conditions need a match version", good.replace("matchConditionSubjectAccessReviewVersion: v1\n", ""), "authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified"],
    ["match version v1 only", good.replace("matchConditionSubjectAccessReviewVersion: v1", "matchConditionSubjectAccessReviewVersion: v1beta1"), 'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"'],
    ["failure policy", good.replace("failurePolicy: Deny", "failurePolicy: Allow"), 'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"'],
    ["failure policy required", good.replace("failurePolicy: Deny\n", ""), "authorizers[0].failurePolicy: Required value"],
    ["InClusterConfig is refused", good.replace(`type: KubeConfigFile\n  kubeConfigFile: ${kubeconfig}`, "type: InClusterConfig"), 'authorizers[0].connectionInfo.type: Unsupported value: "InClusterConfig": supported values: "KubeConfigFile"'],
    ["relative kubeconfig", good.replace(kubeconfig, "hook.kubeconfig"), 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "hook.kubeconfig": must be an absolute path'],
    ["missing kubeconfig", good.replace(kubeconfig, "/nope/x"), 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/nope/x": error loading file: stat /nope/x: no such file or directory'],
    ["a match condition that does not compile", good.replace("has(request.resourceAttributes)", "request.nope"), /^authorizers\[0\]\.matchConditions\[0\]\.expression: Invalid value: "request\.nope": compilation failed: /],
    ["a match condition that is not bool", good.replace("has(request.resourceAttributes)", "request.user"), 'authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string'],
    ["too many match conditions", good.replace("- expression: has(request.resourceAttributes)", Array.from({ length: 65 }, (_, i) => `- expression: request.user == 'u${i}'`).join("\n")), "authorizers[0].matchConditions: Too many: 65: must have at most 64 items"],
    ["several errors are aggregated", good.replace("timeout: 3s\n", "").replace("failurePolicy: Deny\n", ""), "[authorizers[0].timeout: Required value, authorizers[0].failurePolicy: Required value]"],
  ];
  for (const [title, fields, want] of cases) {
    it(`refuses: ${title}`, () => {
      const run = () => loadAuthorizationConfiguration(webhook(fields), env);
      if (typeof want === "string") expect(run).toThrow(want);
      else expect(run).toThrow(want);
      if (typeof want === "string") {
        try {
          run();
        } catch (e) {
          expect((e as Error).message).toBe(want);
        }
      }
    });
  }

  it("refuses duplicate names, unknown and repeated types, wrong names of built-in types, an empty list", () => {
    const doc = (a: string) => `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n${a}`;
    const hook = (name: string) => `- type: Webhook\n  name: ${name}\n  webhook:\n${good.split("\n").map((l) => "    " + l).join("\n")}\n`;
    expect(() => loadAuthorizationConfiguration(doc(hook("a") + hook("a")), env)).toThrow('authorizers[1].name: Duplicate value: "a"');
    expect(() => loadAuthorizationConfiguration(doc("- {type: Magic, name: m}\n"), env)).toThrow('authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"');
    expect(() => loadAuthorizationConfiguration(doc("- {type: RBAC, name: rbac}\n- {type: RBAC, name: rbac2}\n"), env)).toThrow('authorizers[1].type: Duplicate value: "RBAC"');
    expect(() => loadAuthorizationConfiguration(doc("- {type: RBAC, name: my-rbac}\n"), env)).toThrow("expected name rbac for authorizer RBAC instead of my-rbac");
    expect(() => loadAuthorizationConfiguration(doc("- {type: Webhook, name: w}\n"), env)).toThrow("authorizers[0].webhook: Required value: required when type=Webhook");
    expect(() => loadAuthorizationConfiguration(doc("- {type: RBAC, name: Bad_Name}\n"), env)).toThrow(/authorizers\[0\]\.name: Invalid value: "Bad_Name": authorizer name is invalid: /);
    expect(() => loadAuthorizationConfiguration("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n", env)).toThrow("authorizers: Required value: at least one authorization mode must be defined");
    expect(() => loadAuthorizationConfiguration("apiVersion: apiserver.config.k8s.io/v9\nkind: AuthorizationConfiguration\n", env)).toThrow(/no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io\/v9"/);
  });
});

describe("authorization flags", () => {
  it("upstream's validation messages", () => {
    expect(validateAuthorizationFlags({ authorizationMode: ["RBAC", "RBAC"] })).toEqual(['authorization-mode ["RBAC" "RBAC"] has mode specified more than once']);
    expect(validateAuthorizationFlags({ authorizationMode: ["Magic"] })).toEqual(['authorization-mode "Magic" is not a valid mode']);
    expect(validateAuthorizationFlags({ authorizationMode: ["ABAC"] })).toEqual(["authorization-mode ABAC's authorization policy file not passed"]);
    expect(validateAuthorizationFlags({ authorizationMode: ["RBAC"], authorizationPolicyFile: "/p" })).toEqual(["cannot specify --authorization-policy-file without mode ABAC"]);
    expect(validateAuthorizationFlags({ authorizationMode: ["Webhook"] })).toEqual(["authorization-mode Webhook's authorization config file not passed"]);
    expect(validateAuthorizationFlags({ authorizationWebhookConfigFile: "/k" })).toEqual(["cannot specify --authorization-webhook-config-file without mode Webhook"]);
    expect(validateAuthorizationFlags({ authorizationConfig: "/c", authorizationMode: ["RBAC"] })).toEqual(["--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"]);
    expect(validateAuthorizationFlags({ authorizationConfig: "/c", authorizationWebhookVersion: "v1" })).toHaveLength(1);
    expect(validateAuthorizationFlags({})).toEqual([]);
    expect(() => checkAuthorizationFlags({ authorizationMode: ["ABAC", "Magic"] })).toThrow(`[authorization-mode ABAC's authorization policy file not passed, authorization-mode "Magic" is not a valid mode]`);
    expect(() => checkAuthorizationFlags({ authorizationMode: ["Webhook"], authorizationWebhookConfigFile: "/k", authorizationWebhookVersion: "v2" })).toThrow('unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"');
  });

  it("flags become a configuration: the webhook named default, 30s timeout, NoOpinion", () => {
    expect(configurationFromFlags({ authorizationMode: ["Node", "Webhook"], authorizationWebhookConfigFile: "/k", authorizationWebhookCacheAuthorizedTtlMs: 0 })).toEqual({
      authorizers: [
        { type: "Node", name: "node" },
        {
          type: "Webhook",
          name: "default",
          webhook: expect.objectContaining({ timeoutMs: 30_000, failurePolicy: "NoOpinion", subjectAccessReviewVersion: "v1beta1", authorizedTtlMs: 0, cacheAuthorizedRequests: false, unauthorizedTtlMs: 30_000, connectionInfo: { type: "KubeConfigFile", kubeConfigFile: "/k" } }),
        },
      ],
    });
    expect(configurationFromFlags({})).toEqual({ authorizers: [{ type: "AlwaysAllow", name: "alwaysallow" }] });
  });

  it("RBAC and Node come from their factories, made once", async () => {
    let made = 0;
    const rbac = () => {
      made++;
      return alwaysAllow;
    };
    const s = setupAuthorization({ authorizationMode: ["Node", "RBAC"] }, { rbac, node: () => ({ authorize: () => ({ decision: "no-opinion", reason: "not a node" }) }) }, { ...env, log: () => undefined });
    expect((await s.authorizer.authorize(attributes({ user: { name: "x", groups: [] }, resource: "pods" }))).decision).toBe("allow");
    expect(made).toBe(1);
    expect(() => setupAuthorization({ authorizationMode: ["RBAC"] }, {}, { ...env, log: () => undefined })).toThrow(/RBAC is not supported yet/);
  });
});

describe("configuration reload rules", () => {
  const doc = (...a: string[]) => `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n${a.join("")}`;
  it("RBAC, Node and ABAC can be neither dropped nor added by a reload; the previous chain stays", async () => {
    const file = join(dir, "reload.yaml");
    writeFileSync(file, doc("- {type: RBAC, name: rbac}\n"));
    const logs: string[] = [];
    const s = setupAuthorization({ authorizationConfig: file }, { rbac: () => noOpinion }, { ...env, log: (m) => logs.push(m), reloadIntervalMs: 3_600_000 });
    try {
      const ask = () => s.authorizer.authorize(attributes({ user: { name: "x", groups: [] }, resource: "pods" }));
      // The stand-in for RBAC has no opinion: all no-opinion is a deny.
      expect((await ask()).decision).toBe("deny");
      writeFileSync(file, doc("- {type: AlwaysDeny, name: alwaysdeny}\n"));
      s.checkFile();
      expect(logs.at(-1)).toMatch(/missing required types: \[RBAC\]/);
      writeFileSync(file, doc("- {type: Node, name: node}\n- {type: RBAC, name: rbac}\n"));
      s.checkFile();
      expect(logs.at(-1)).toMatch(/authorizer type Node is not allowed if it was not enabled at initial server startup/);
      expect((await ask()).decision).toBe("deny");
      writeFileSync(file, doc("- {type: AlwaysAllow, name: alwaysallow}\n- {type: RBAC, name: rbac}\n"));
      s.checkFile();
      expect((await ask()).decision).toBe("allow");
      expect(s.metrics.text()).toMatch(/automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="failure"\} 2/);
      expect(s.metrics.text()).toMatch(/automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} 1/);
      expect(s.metrics.text()).toMatch(/apiserver_authorization_config_controller_last_config_info\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}"\} 1/);
    } finally {
      s.stop();
    }
  });
});
