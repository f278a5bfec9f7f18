// Updating a CRD keeps open watches of its custom resources when the watch cache is unaffected
// (a printer column, a new served version, another version's schema), and ends them cleanly
// (clients re-list, nothing lost) when the stored objects decode differently (storage defaults).
import { request as httpsRequest } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, type TestServer } from "./support/client.js";
import { Heard } from "./support/heard.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import { crontabCRD } from "./support/crd.js";

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const crdName = "crontabs.stable.example.com";
const base = (v: string) => `/apis/stable.example.com/${v}/namespaces/default/crontabs`;
const ct = (name: string, v = "v1") => ({ apiVersion: `stable.example.com/${v}`, kind: "CronTab", metadata: { name, namespace: "default" }, spec: { cronSpec: "* * * * *" } });

let s: PartsServer;
beforeAll(async () => {
  s = await startTuned();
  const crd = crontabCRD();
  // Versions with different schemas and identical selectable fields cannot be written (upstream's
  // hoisting of identical per-version fields), so this definition has none.
  delete (crd.spec.versions[0] as { selectableFields?: unknown }).selectableFields;
  expect((await req(s, "POST", crdPath, { body: crd })).status).toBe(201);
  await settled(async () => {
    if ((await req(s, "GET", base("v1"))).status !== 200) throw new Error("not served");
  });
});
afterAll(async () => {
  await s?.stop();
});

/** `fn`'s answer once the CRD controllers have settled: asked once, so a change not in effect by then fails. */
async function settled<T>(fn: () => Promise<T>): Promise<T> {
  await s.settle();
  return fn();
}

interface OpenWatch {
  /** The events received, waited on as they arrive. */
  heard: Heard<any>;
  events: any[];
  ended: boolean;
  /** Resolves when the stream ends. */
  end: Promise<void>;
  close(): void;
}
function openWatch(server: TestServer, path: string): Promise<OpenWatch> {
  const url = new URL(path, server.url);
  const creds = server.admin;
  return new Promise((resolve, reject) => {
    const heard = new Heard<any>();
    let ended!: () => void;
    const w: OpenWatch = { heard, events: heard.items, ended: false, end: new Promise<void>((r) => (ended = r)), close: () => r.destroy() };
    const stop = () => {
      w.ended = true;
      heard.close();
      ended();
    };
    let buf = "";
    const r = httpsRequest({ method: "GET", hostname: url.hostname, port: url.port, path: url.pathname + url.search, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch ${res.statusCode}`));
      resolve(w);
      res.on("data", (c) => {
        buf += c.toString();
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) heard.push(JSON.parse(line));
        }
      });
      res.on("end", stop);
      res.on("close", stop);
    });
    r.on("error", stop);
    r.end();
  });
}

async function updateCRD(mutate: (crd: any) => void): Promise<void> {
  const got = await req(s, "GET", `${crdPath}/${crdName}`);
  mutate(got.json);
  const put = await req(s, "PUT", `${crdPath}/${crdName}`, { body: got.json });
  expect(put.status, JSON.stringify(put.json)).toBe(200);
}

const added = (name: string) => (e: any) => e.type === "ADDED" && e.object?.metadata?.name === name;

describe("CRD updates and open watches", () => {
  it("a new printer column, a new served version and that version's schema change keep v1 watches open", async () => {
    const list = await req(s, "GET", base("v1"));
    const w = await openWatch(s, `${base("v1")}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`);
    const wAll = await openWatch(s, `/apis/stable.example.com/v1/crontabs?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`);
    try {
      // 1. a printer column on v1
      await updateCRD((crd) => crd.spec.versions[0].additionalPrinterColumns.push({ name: "Color", type: "string", jsonPath: ".spec.color" }));
      await settled(async () => {
        const t = await req(s, "GET", base("v1"), { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
        if (!t.json.columnDefinitions?.some((c: any) => c.name === "Color")) throw new Error("no Color column yet");
      });
      expect((await req(s, "POST", base("v1"), { body: ct("after-column") })).status).toBe(201);
      await w.heard.some("ADDED after-column", added("after-column"));

      // 2. a new served version v2 (not the storage version)
      await updateCRD((crd) => {
        const v2 = JSON.parse(JSON.stringify(crd.spec.versions[0]));
        v2.name = "v2";
        v2.storage = false;
        crd.spec.versions.push(v2);
      });
      await settled(async () => {
        if ((await req(s, "GET", base("v2"))).status !== 200) throw new Error("v2 not served");
      });
      expect((await req(s, "POST", base("v2"), { body: ct("via-v2", "v2") })).status).toBe(201);
      await w.heard.some("ADDED via-v2", added("via-v2"));

      // 3. v2's schema changes (image limited to 5 characters in v2 only)
      await updateCRD((crd) => (crd.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.image.maxLength = 5));
      await settled(async () => {
        const r = await req(s, "POST", base("v2"), { body: { ...ct("long-image", "v2"), spec: { cronSpec: "* * * * *", image: "abcdefgh" } } });
        if (r.status !== 422) throw new Error(`status ${r.status}`);
      });
      expect((await req(s, "POST", base("v1"), { body: ct("after-v2-schema") })).status).toBe(201);
      await w.heard.some("ADDED after-v2-schema", added("after-v2-schema"));
      await wAll.heard.some("ADDED after-v2-schema", added("after-v2-schema"));

      expect(w.ended).toBe(false);
      expect(wAll.ended).toBe(false);
      expect(w.events.filter((e) => e.type === "ERROR")).toEqual([]);
      expect(w.events.map((e) => e.object.metadata.name)).toEqual(["after-column", "via-v2", "after-v2-schema"]);
    } finally {
      w.close();
      wAll.close();
    }
  });

  it("a storage-schema default ends the watches cleanly; a re-list from there loses nothing and reads the default", async () => {
    const list = await req(s, "GET", base("v2"));
    const rv = list.json.metadata.resourceVersion;
    const w = await openWatch(s, `${base("v2")}?watch=1&resourceVersion=${rv}`);
    try {
      await updateCRD((crd) => (crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color.default = "red"));
      await w.end;
      expect(w.events.filter((e) => e.type === "ERROR")).toEqual([]);
      // The client re-lists: every object is there, read with the new default.
      const relist = await settled(async () => {
        const r = await req(s, "GET", base("v2"));
        if (r.json.items[0]?.spec?.color !== "red") throw new Error("default not applied yet");
        return r;
      });
      expect(relist.json.items.map((o: any) => o.metadata.name).sort()).toEqual(["after-column", "after-v2-schema", "via-v2"]);
      // and its watch from the re-list's revision sees what comes next
      const w2 = await openWatch(s, `${base("v2")}?watch=1&resourceVersion=${relist.json.metadata.resourceVersion}`);
      try {
        expect((await req(s, "POST", base("v1"), { body: ct("after-default") })).status).toBe(201);
        await w2.heard.some("ADDED after-default", added("after-default"));
        expect(w2.events.find((e) => e.object?.metadata?.name === "after-default").object.spec.color).toBe("red");
      } finally {
        w2.close();
      }
    } finally {
      w.close();
    }
  });
});

describe("CRD updates and CEL rule cost", () => {
  const name = "crontabs.cost.example.com";
  const listOf = (maxItems: number) => ({
    type: "array",
    maxItems,
    items: { type: "string", maxLength: 64 },
    "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x != y))" }],
  });
  // A single version's schema is validated as the top-level one (upstream's hoisting): spec.validation.
  const costly = /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[l\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of 3\.1x/;
  const put = async (mutate: (crd: any) => void) => {
    const got = await req(s, "GET", `${crdPath}/${name}`);
    mutate(got.json);
    return req(s, "PUT", `${crdPath}/${name}`, { body: got.json });
  };
  const causes = (r: any) => (r.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`).join("\n");

  it("skips the per-rule cost limit for versions whose schema did not change, not for changed or new ones", async () => {
    const crd: any = crontabCRD("cost.example.com");
    delete crd.spec.versions[0].selectableFields;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.l = listOf(500);
    expect((await req(s, "POST", crdPath, { body: crd })).status).toBe(201);
    // Over the per-rule limit (3.1x) and under the total: refused on create...
    const refused = await req(s, "POST", crdPath, {
      body: { ...crd, metadata: { name: "crontabs.cost2.example.com" }, spec: { ...crd.spec, group: "cost2.example.com", versions: [{ ...crd.spec.versions[0], schema: { openAPIV3Schema: { ...crd.spec.versions[0].schema.openAPIV3Schema, properties: { ...crd.spec.versions[0].schema.openAPIV3Schema.properties, spec: { ...crd.spec.versions[0].schema.openAPIV3Schema.properties.spec, properties: { ...crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties, l: listOf(1000) } } } } } }] } },
    });
    expect(refused.status).toBe(422);
    expect(causes(refused)).toMatch(/Forbidden: estimated rule cost exceeds budget by factor of 3\.1x/);
    // ...but a definition stored with it (accepted under older cost estimates) stays updatable.
    const key = `/registry/apiextensions.k8s.io/customresourcedefinitions/${name}`;
    const kv = (await s.storage.get(key))!;
    const stored = JSON.parse(kv.value);
    stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.l = listOf(1000);
    await s.storage.update(key, JSON.stringify(stored), kv.modRevision);
    await settled(async () => {
      const r = await req(s, "GET", `${crdPath}/${name}`);
      if (r.json.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.l.maxItems !== 1000) throw new Error("not yet");
    });

    const labelled = await put((c) => (c.metadata.labels = { touched: "yes" }));
    expect(labelled.status, causes(labelled)).toBe(200);
    const column = await put((c) => c.spec.versions[0].additionalPrinterColumns.push({ name: "L", type: "string", jsonPath: ".spec.l" }));
    expect(column.status, causes(column)).toBe(200);

    // A new version with the same rule has no old schema: its cost is checked. (Its schema differs
    // from v1's elsewhere: identical schemas are validated once, as v1's, which did not change.)
    const withV2 = await put((c) => {
      const v2 = JSON.parse(JSON.stringify(c.spec.versions[0]));
      v2.name = "v2";
      v2.storage = false;
      v2.schema.openAPIV3Schema.description = "v2";
      c.spec.versions.push(v2);
    });
    expect(withV2.status).toBe(422);
    expect(causes(withV2)).toMatch(/^spec\.versions\[1\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[l\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget/m);
    expect(causes(withV2)).not.toMatch(/spec\.versions\[0\]/);

    // Changing the version's schema checks its cost again.
    const changed = await put((c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.description = "changed"));
    expect(changed.status).toBe(422);
    expect(causes(changed)).toMatch(costly);
  });
});
