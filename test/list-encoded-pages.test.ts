// LIST from the watch cache is written from each object's memoised bytes (src/handlers/list-json.ts):
// every page must be byte for byte what encoding the list object gives (the generic path, here
// reached through ?pretty=true and compacted), over HTTP/1.1 and HTTP/2, gzipped or not, and an
// object's bytes must follow its changes. A list larger than one body (wholeBodyBytes) is streamed
// as the client takes it: the same bytes, without a Content-Length.
import { connect, type ClientHttp2Session } from "node:http2";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wholeBodyBytes } from "../src/http/respond.js";
import { req } from "./support/client.js";
import { create, mkns, startTuned, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
const base = "/api/v1/namespaces/enc/configmaps";
// Multi-byte UTF-8, JSON escapes and a line separator: the item bytes must be exactly JSON.stringify's.
const tricky = { text: 'héllo ✓ 😀 \u2028 "quoted" back\\slash <tag> &amp;', empty: "" };

beforeAll(async () => {
  s = await startTuned();
  await mkns(s, "enc");
  for (let i = 0; i < 5; i++) await create(s, "enc", { metadata: { name: `c${i}`, labels: { i: String(i) }, annotations: { note: `ünïcödé ${i}` } }, data: { ...tricky, n: String(i) } });
});
afterAll(async () => {
  await s?.stop();
});

/** What the generic encoder writes for the same list: the pretty form, compacted. */
const reference = async (path: string) => {
  const r = await req(s, "GET", `${path}${path.includes("?") ? "&" : "?"}pretty=true`);
  return Buffer.from(JSON.stringify(JSON.parse(r.text)) + "\n");
};

/** One GET over HTTP/2: the body as received and the response's headers. */
function h2get(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}): Promise<{ body: Buffer; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const st = session.request({ ":path": path, accept: "application/json", ...headers });
    const chunks: Buffer[] = [];
    let h: Record<string, unknown> = {};
    st.on("response", (r) => (h = r));
    st.on("data", (c: Buffer) => chunks.push(c));
    st.on("end", () => resolve({ body: Buffer.concat(chunks), headers: h }));
    st.on("error", reject);
  });
}

const h2session = () => connect(s.url, { ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key });

/** Every page of a traversal by `limit`, as served (HTTP/1.1). */
async function pages(limit: number): Promise<{ path: string; body: Buffer; length: string | undefined }[]> {
  const out: { path: string; body: Buffer; length: string | undefined }[] = [];
  let token = "";
  do {
    const path = `${base}?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
    const r = await req(s, "GET", path);
    expect(r.status).toBe(200);
    out.push({ path, body: r.body, length: r.headers["content-length"] as string | undefined });
    token = r.json.metadata.continue ?? "";
  } while (token);
  return out;
}

describe("LIST pages from memoised item bytes", () => {
  it("writes every page byte for byte as the list object encodes, with its Content-Length", async () => {
    const first = await pages(2);
    expect(first.map((p) => JSON.parse(p.body.toString()).items.length)).toEqual([2, 2, 1]);
    for (const p of first) {
      expect(p.body.equals(await reference(p.path))).toBe(true);
      expect(Number(p.length)).toBe(p.body.length);
    }
    // Served again from the same memoised bytes: the same pages.
    const again = await pages(2);
    expect(again.map((p) => p.body.toString())).toEqual(first.map((p) => p.body.toString()));
    const whole = await req(s, "GET", base);
    expect(whole.body.equals(await reference(base))).toBe(true);
    expect(JSON.parse(whole.text).items[0].data.text).toBe(tricky.text);
  });

  it("serves an object's new bytes once it changes", async () => {
    const before = await req(s, "GET", base);
    const cur = (await req(s, "GET", `${base}/c1`)).json;
    const updated = await req(s, "PUT", `${base}/c1`, { body: { ...cur, data: { ...cur.data, n: "changed ✓" } } });
    expect(updated.status).toBe(200);
    const after = await req(s, "GET", base);
    expect(after.body.equals(before.body)).toBe(false);
    const c1 = after.json.items.find((i: any) => i.metadata.name === "c1");
    expect([c1.data.n, c1.metadata.resourceVersion]).toEqual(["changed ✓", updated.json.metadata.resourceVersion]);
    expect(after.body.equals(await reference(base))).toBe(true);
  });

  it("gzips a large list as one body, the same bytes once decompressed", async () => {
    await create(s, "enc", { metadata: { name: "large" }, data: { blob: "x".repeat(200 * 1024) } });
    const r = await req(s, "GET", base, { headers: { "accept-encoding": "gzip" } });
    expect(r.headers["content-encoding"]).toBe("gzip");
    const plain = gunzipSync(r.body);
    expect(Number(r.headers["content-length"])).toBe(r.body.length);
    expect(plain.equals(await reference(base))).toBe(true);
  });

  it("writes the same bytes over HTTP/2", async () => {
    const session = h2session();
    try {
      const got = await h2get(session, `${base}?limit=3`);
      expect(got.body.equals(await reference(`${base}?limit=3`))).toBe(true);
      expect(Number(got.headers["content-length"])).toBe(got.body.length);
    } finally {
      session.close();
    }
  });
});

describe("an unpaged LIST larger than one body", () => {
  const big = "/api/v1/namespaces/enc-big/configmaps";
  beforeAll(async () => {
    await mkns(s, "enc-big");
    // 32 objects of 300–400 KB with multi-byte text: more than two whole bodies' worth, many socket buffers.
    for (let i = 0; i < 32; i++) await create(s, "enc-big", { metadata: { name: `big-${i}` }, data: { ...tricky, blob: `${i}ü`.repeat(100 * 1024) } });
  });

  it("streams it over HTTP/1.1 without a Content-Length, byte for byte, again and again", async () => {
    const want = await reference(big);
    expect(want.length).toBeGreaterThan(2 * wholeBodyBytes);
    for (let i = 0; i < 2; i++) {
      const r = await req(s, "GET", big);
      expect(r.status).toBe(200);
      expect(r.headers["content-length"]).toBeUndefined();
      expect(r.headers["transfer-encoding"]).toBe("chunked");
      expect(r.body.equals(want)).toBe(true);
    }
  });

  it("streams the same bytes over HTTP/2, plain and gzipped", async () => {
    const want = await reference(big);
    const session = h2session();
    try {
      const plain = await h2get(session, big);
      expect([plain.headers[":status"], plain.headers["content-length"]]).toEqual([200, undefined]);
      expect(plain.body.equals(want)).toBe(true);
      const zipped = await h2get(session, big, { "accept-encoding": "gzip" });
      expect([zipped.headers["content-encoding"], zipped.headers["content-length"]]).toEqual(["gzip", undefined]);
      expect(gunzipSync(zipped.body).equals(want)).toBe(true);
    } finally {
      session.close();
    }
  });

  it("streams it gzipped over HTTP/1.1", async () => {
    const r = await req(s, "GET", big, { headers: { "accept-encoding": "gzip" } });
    expect([r.headers["content-encoding"], r.headers["content-length"], r.headers["vary"]]).toEqual(["gzip", undefined, "Accept-Encoding"]);
    expect(r.body.length).toBeLessThan(wholeBodyBytes);
    expect(gunzipSync(r.body).equals(await reference(big))).toBe(true);
  });

  it("stops for a client that leaves mid-body, and serves the next one whole", async () => {
    const session = h2session();
    try {
      // A small window: the server can send little before the client stops reading and resets.
      const got = await new Promise<number>((resolve, reject) => {
        const st = session.request({ ":path": big, accept: "application/json" });
        st.once("data", (c: Buffer) => {
          st.close();
          resolve(c.length);
        });
        st.on("error", reject);
      });
      expect(got).toBeGreaterThan(0);
      const next = await h2get(session, big);
      expect(next.body.equals(await reference(big))).toBe(true);
    } finally {
      session.close();
    }
  });
});
