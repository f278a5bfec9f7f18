// LIST: every cell of the spec's resourceVersion × resourceVersionMatch × paging table, paging
// rules, and the errors (400 / 410 / 422 / 504) — against a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { cm, create, mkns, sleep, startTuned, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
let tiny: PartsServer;
const base = "/api/v1/namespaces/lt/configmaps";
let rvAfter5 = 0; // list revision once the first five objects exist

beforeAll(async () => {
  s = await startTuned();
  tiny = await startTuned({ storageHistoryWindowMs: 200, watchCache: { snapshotTtlMs: 100 } });
  await mkns(s, "lt");
  for (let i = 0; i < 5; i++) await create(s, "lt", cm(`c${i}`, { tier: i % 2 ? "odd" : "even" }));
  rvAfter5 = Number((await req(s, "GET", base)).json.metadata.resourceVersion);
  await create(s, "lt", cm("c5", { tier: "odd" }));
});
afterAll(async () => {
  await s?.stop();
  await tiny?.stop();
});

const get = (q: string, srv = s) => req(srv, "GET", `${base}?${q}`);
const names = (r: any) => r.json.items.map((i: any) => i.metadata.name);

describe("list: resourceVersion unset", () => {
  it("no limit: most recent, including a write acknowledged just before", async () => {
    const created = await create(s, "lt", cm("fresh"));
    const r = await get("");
    expect(r.status).toBe(200);
    expect(names(r)).toContain("fresh");
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(created.metadata.resourceVersion));
    expect(r.json.metadata.continue).toBeUndefined();
    expect(r.json.metadata.remainingItemCount).toBeUndefined();
    await req(s, "DELETE", `${base}/fresh`);
  });

  it("limit: most recent, paged with a consistent snapshot and remainingItemCount", async () => {
    const p1 = await get("limit=2");
    expect(names(p1)).toEqual(["c0", "c1"]);
    expect(p1.json.metadata.remainingItemCount).toBe(4);
    const p2 = await get(`limit=2&continue=${p1.json.metadata.continue}`);
    expect(names(p2)).toEqual(["c2", "c3"]);
    expect(p2.json.metadata.resourceVersion).toBe(p1.json.metadata.resourceVersion);
    const p3 = await get(`limit=2&continue=${p2.json.metadata.continue}`);
    expect(names(p3)).toEqual(["c4", "c5"]);
    expect(p3.json.metadata.continue).toBeUndefined();
    expect(p3.json.metadata.remainingItemCount).toBeUndefined();
  });

  it("omits remainingItemCount with selectors", async () => {
    const r = await get("limit=1&labelSelector=tier%3Dodd");
    expect(names(r)).toEqual(["c1"]);
    expect(r.json.metadata.continue).toBeTruthy();
    expect(r.json.metadata.remainingItemCount).toBeUndefined();
    const r2 = await get(`limit=1&labelSelector=tier%3Dodd&continue=${r.json.metadata.continue}`);
    expect(names(r2)).toEqual(["c3"]);
  });

  it("resourceVersionMatch without resourceVersion is 422 Invalid", async () => {
    for (const m of ["Exact", "NotOlderThan"]) {
      const r = await get(`resourceVersionMatch=${m}`);
      expect(r.status).toBe(422);
      expect(r.json.reason).toBe("Invalid");
      expect(r.json.details.kind).toBe("ListOptions");
      expect(r.json.message).toContain("resourceVersionMatch is forbidden unless resourceVersion is provided");
    }
    const bogus = await get("resourceVersion=1&resourceVersionMatch=Bogus");
    expect(bogus.status).toBe(422);
    expect(bogus.json.message).toContain('Unsupported value: "Bogus"');
  });
});

describe("list: resourceVersion 0", () => {
  it("no limit: any version, from the cache", async () => {
    const r = await get("resourceVersion=0");
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(["c0", "c1", "c2", "c3", "c4", "c5"]);
  });

  it("limit is ignored (upstream's cache serves resourceVersion=0 unpaged)", async () => {
    const r = await get("resourceVersion=0&limit=2");
    expect(names(r)).toHaveLength(6);
    expect(r.json.metadata.continue).toBeUndefined();
  });

  it("NotOlderThan 0 is any; Exact 0 is 422", async () => {
    expect(names(await get("resourceVersion=0&resourceVersionMatch=NotOlderThan"))).toHaveLength(6);
    const r = await get("resourceVersion=0&resourceVersionMatch=Exact");
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  });

  it("limit with continue is a continuation", async () => {
    const p1 = await get("limit=3");
    const p2 = await get(`resourceVersion=0&limit=3&continue=${p1.json.metadata.continue}`);
    expect(p2.status).toBe(200);
    expect(names(p2)).toEqual(["c3", "c4", "c5"]);
    expect(p2.json.metadata.resourceVersion).toBe(p1.json.metadata.resourceVersion);
  });
});

describe("list: resourceVersion N", () => {
  it("no limit: not older than N", async () => {
    const r = await get(`resourceVersion=${rvAfter5}`);
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(rvAfter5);
    expect(names(r)).toContain("c5");
  });

  it("limit without match: exact at N (legacy)", async () => {
    const r = await get(`resourceVersion=${rvAfter5}&limit=10`);
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(String(rvAfter5));
    expect(names(r)).toEqual(["c0", "c1", "c2", "c3", "c4"]);
  });

  it("Exact with and without limit: the state at N, collection version N", async () => {
    const r = await get(`resourceVersion=${rvAfter5}&resourceVersionMatch=Exact`);
    expect(r.json.metadata.resourceVersion).toBe(String(rvAfter5));
    expect(names(r)).toEqual(["c0", "c1", "c2", "c3", "c4"]);
    const p1 = await get(`resourceVersion=${rvAfter5}&resourceVersionMatch=Exact&limit=3`);
    expect(names(p1)).toEqual(["c0", "c1", "c2"]);
    expect(p1.json.metadata.resourceVersion).toBe(String(rvAfter5));
    const p2 = await get(`limit=3&continue=${p1.json.metadata.continue}`);
    expect(names(p2)).toEqual(["c3", "c4"]);
    expect(p2.json.metadata.resourceVersion).toBe(String(rvAfter5));
  });

  it("NotOlderThan with and without limit", async () => {
    const r = await get(`resourceVersion=${rvAfter5}&resourceVersionMatch=NotOlderThan`);
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(rvAfter5);
    expect(names(r)).toHaveLength(6);
    const p1 = await get(`resourceVersion=${rvAfter5}&resourceVersionMatch=NotOlderThan&limit=4`);
    expect(names(p1)).toEqual(["c0", "c1", "c2", "c3"]);
    expect(p1.json.metadata.remainingItemCount).toBe(2);
    const p2 = await get(`limit=4&continue=${p1.json.metadata.continue}`);
    expect(names(p2)).toEqual(["c4", "c5"]);
  });

  it("limit, continue and a nonzero resourceVersion is 400", async () => {
    const p1 = await get("limit=2");
    const r = await get(`resourceVersion=${rvAfter5}&limit=2&continue=${p1.json.metadata.continue}`);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("specifying resource version is not allowed when using continue");
    const withMatch = await get(`resourceVersion=${rvAfter5}&resourceVersionMatch=Exact&limit=2&continue=${p1.json.metadata.continue}`);
    expect(withMatch.status).toBe(422);
  });

  it("a future version waits, then 504 Too large resource version with Retry-After", async () => {
    const future = rvAfter5 + 100_000;
    const t0 = Date.now();
    const [notOlder, exact] = await Promise.all([get(`resourceVersion=${future}`), get(`resourceVersion=${future}&resourceVersionMatch=Exact`)]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2500); // both waited for the version first
    for (const r of [notOlder, exact]) {
      expect(r.status).toBe(504);
      expect(r.headers["retry-after"]).toBe("1");
      expect(r.json.reason).toBe("Timeout");
      expect(r.json.message).toContain("Too large resource version");
      expect(r.json.details.causes[0].reason).toBe("ResourceVersionTooLarge");
    }
  }, 15_000);
});

describe("list: errors and expiry", () => {
  it("a garbage continue token is 400", async () => {
    for (const tok of ["garbage!", Buffer.from("{}").toString("base64url"), Buffer.from('{"v":"meta.k8s.io/v1","rv":5,"start":"../x\\u0000"}').toString("base64url")]) {
      const r = await get(`limit=2&continue=${encodeURIComponent(tok)}`);
      expect(r.status).toBe(400);
      expect(r.json.message).toMatch(/^invalid continue token/);
    }
  });

  it("a token that is not one is answered in the words of Go's base64 and JSON decoders, as upstream's", async () => {
    const notValid = "invalid continue token: continue key is not valid";
    const cases: [string, string][] = [
      ["garbage", `${notValid}: invalid character '\\u0081' looking for beginning of value`],
      ["ab+c", `${notValid}: illegal base64 data at input byte 2`],
      [Buffer.from("null").toString("base64url"), `${notValid}: server does not recognize this encoded version `],
      [Buffer.from('{"v":"meta.k8s.io/v1","rv":"5","start":"a\\u0000"}').toString("base64url"), `${notValid}: json: cannot unmarshal string into Go struct field continueToken.rv of type int64`],
    ];
    for (const [tok, message] of cases) {
      const r = await get(`limit=2&continue=${encodeURIComponent(tok)}`);
      expect([r.status, r.json.reason, r.json.message]).toEqual([400, "BadRequest", message]);
    }
  });

  it("Exact at a compacted version and an expired continue token are 410 Expired", async () => {
    await mkns(tiny, "lt");
    for (let i = 0; i < 6; i++) await create(tiny, "lt", cm(`c${i}`));
    const p1 = await get("limit=2", tiny);
    const old = p1.json.metadata.resourceVersion;
    await create(tiny, "lt", cm("later"));
    await sleep(500); // history window 200 ms: compaction passes `old`
    const exact = await get(`resourceVersion=${old}&resourceVersionMatch=Exact`, tiny);
    expect(exact.status).toBe(410);
    expect(exact.json.reason).toBe("Expired");
    expect(exact.json.message).toBe("The resourceVersion for the provided list is too old.");
    const cont = await get(`limit=2&continue=${p1.json.metadata.continue}`, tiny);
    expect(cont.status).toBe(410);
    expect(cont.json.reason).toBe("Expired");
    // The Status carries a token that continues at the latest version (inconsistently).
    const next = await get(`limit=10&continue=${cont.json.metadata.continue}`, tiny);
    expect(next.status).toBe(200);
    expect(names(next)).toEqual(["c2", "c3", "c4", "c5", "later"]);
  });

  it("pages 50 objects by 7 exactly once while 20 of them change between pages", async () => {
    await mkns(s, "page");
    for (let i = 0; i < 50; i++) await create(s, "page", cm(`p${String(i).padStart(2, "0")}`));
    const seen: string[] = [];
    let token = "";
    let rv = "";
    let updated = 0;
    for (;;) {
      const r = await req(s, "GET", `/api/v1/namespaces/page/configmaps?limit=7${token ? `&continue=${token}` : ""}`);
      expect(r.status).toBe(200);
      rv ||= r.json.metadata.resourceVersion;
      expect(r.json.metadata.resourceVersion).toBe(rv);
      for (const it of r.json.items) {
        seen.push(it.metadata.name);
        expect(Number(it.metadata.resourceVersion)).toBeLessThanOrEqual(Number(rv));
      }
      for (let k = 0; k < 3 && updated < 20; k++, updated++) {
        const name = `p${String(updated * 2).padStart(2, "0")}`;
        const u = await req(s, "PATCH", `/api/v1/namespaces/page/configmaps/${name}`, { body: { data: { k: "changed" } }, headers: { "content-type": "application/merge-patch+json" } });
        expect(u.status).toBe(200);
      }
      token = r.json.metadata.continue;
      if (!token) break;
    }
    expect(updated).toBe(20);
    expect(seen).toHaveLength(50);
    expect(new Set(seen).size).toBe(50);
  });
});
