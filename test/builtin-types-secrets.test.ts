// Secrets: stringData is merged into data and never stored; bootstrap token secrets are
// validated in the spec's format.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
beforeAll(async () => void (s = await startTuned()));
afterAll(async () => s?.stop());

const b64 = (v: string) => Buffer.from(v).toString("base64");

describe("Secret stringData", () => {
  it("is merged into data on create and update and never stored", async () => {
    const sp = "/api/v1/namespaces/default/secrets";
    const c = await req(s, "POST", sp, { body: { metadata: { name: "sd" }, stringData: { user: "admin" } } });
    expect(c.json.stringData).toBeUndefined();
    expect(c.json.data).toEqual({ user: b64("admin") });
    const u = await req(s, "PUT", `${sp}/sd`, { body: { ...c.json, stringData: { pass: "pw" } } });
    expect(u.json.data).toEqual({ user: b64("admin"), pass: b64("pw") });
    const g = await req(s, "GET", `${sp}/sd`);
    expect(g.json.stringData).toBeUndefined();
    expect(g.json.data.pass).toBe(b64("pw"));
    const stored = JSON.parse((await s.storage.get("/registry/secrets/default/sd"))!.value);
    expect(stored.data).toEqual({ user: b64("admin"), pass: b64("pw") });
    expect(stored).not.toHaveProperty("stringData");
  });
});

describe("bootstrap token secrets (the spec's format)", () => {
  const token = (name: string, data: Record<string, string>) => ({ metadata: { name }, type: "bootstrap.kubernetes.io/token", data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });

  it("accepts a well-formed token and rejects malformed ones with field causes", async () => {
    const ok = await req(s, "POST", "/api/v1/namespaces/kube-system/secrets", { body: token("bootstrap-token-abcdef", { "token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true", "auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token" }) });
    expect(ok.status).toBe(201);
    const bad = await req(s, "POST", "/api/v1/namespaces/kube-system/secrets", { body: token("bootstrap-token-xyz", { "token-id": "ABC", "token-secret": "short", "expiration": "tomorrow", "auth-extra-groups": "admins" }) });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes.map((c: { field: string }) => c.field).sort()).toEqual(["data[auth-extra-groups]", "data[expiration]", "data[token-id]", "data[token-secret]"]);
    const wrongName = await req(s, "POST", "/api/v1/namespaces/kube-system/secrets", { body: token("bootstrap-token-other", { "token-id": "abcdef", "token-secret": "0123456789abcdef" }) });
    expect(wrongName.status).toBe(422);
    expect(wrongName.json.details.causes[0].field).toBe("metadata.name");
  });
});
