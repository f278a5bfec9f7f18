import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { fakeParts, fakeWorld, podsType } from "./parts.testkit.js";
import { podNodeSelector, podNodeSelectorConfig } from "./pod-node-selector.js";

const ns = (name: string, selector?: string): KObject => ({ metadata: { name, ...(selector !== undefined ? { annotations: { "scheduler.alpha.kubernetes.io/node-selector": selector } } : {}) } });
const config = podNodeSelectorConfig({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "env=prod", restricted: "env=dev,tier=web" } });
const plugin = podNodeSelector(fakeParts(fakeWorld({ "/namespaces": [ns("plain"), ns("team", "team=a"), ns("restricted", "env=dev")] })), config);
const run = async (namespace: string, nodeSelector?: Record<string, string>) => {
  const a = admissionAttributes({ operation: "CREATE", type: podsType, namespace, name: "p", subresource: "", dryRun: false, object: { metadata: { name: "p" }, spec: { containers: [], ...(nodeSelector ? { nodeSelector } : {}) } } });
  await plugin.admit!(a);
  await plugin.validate!(a);
  return (a.object as any).spec.nodeSelector;
};

describe("PodNodeSelector", () => {
  it("merges the namespace's selector, else the cluster default, into the pod's", async () => {
    expect(await run("team", { disk: "ssd" })).toEqual({ team: "a", disk: "ssd" });
    expect(await run("plain")).toEqual({ env: "prod" });
  });
  it("refuses conflicts with the namespace's selector and labels outside its whitelist", async () => {
    await expect(run("team", { team: "b" })).rejects.toMatchObject({ code: 403, message: 'pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector' });
    await expect(run("restricted", { gpu: "yes" })).rejects.toMatchObject({ message: 'pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist' });
    expect(await run("restricted", { tier: "web" })).toEqual({ env: "dev", tier: "web" });
  });
});
