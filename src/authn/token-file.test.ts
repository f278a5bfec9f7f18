import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { authenticatorConformance } from "./conformance.testkit.js";
import { parseTokenFile, tokenFileAuthenticator } from "./token-file.js";

const dir = mkdtempSync(join(tmpdir(), "kapi-tokfile-"));
const file = join(dir, "tokens.csv");
writeFileSync(file, 'tok-alice,alice,uid-1,"dev,ops"\ntok-bob,bob,uid-2\n\n');
const bearer = (t: string) => ({ path: "/", headers: { authorization: `Bearer ${t}` } });

authenticatorConformance({
  method: "static token file",
  make: () => tokenFileAuthenticator(file),
  valid: [
    { title: "token with groups", request: bearer("tok-alice"), user: { name: "alice", uid: "uid-1", groups: ["dev", "ops"] } },
    { title: "token without groups", request: bearer("tok-bob"), user: { name: "bob", uid: "uid-2", groups: [] } },
  ],
  // An unknown token is no token of this method's: the union answers "invalid bearer token" (401).
  invalid: [],
  absent: [
    { title: "unknown token", request: bearer("nope") },
    { title: "no Authorization header", request: { path: "/", headers: {} } },
    { title: "another scheme", request: { path: "/", headers: { authorization: "Basic YTpi" } } },
  ],
});

describe("token file parsing (Go's encoding/csv, kube-apiserver's texts)", () => {
  it("refuses a row with fewer than 3 columns, naming the file and line", () => {
    expect(() => parseTokenFile("a,b,c\n\nx,y\n", "/etc/t.csv")).toThrow("token file '/etc/t.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 3)");
  });
  it("refuses bad quoting with Go's parse error", () => {
    expect(() => parseTokenFile('a,b"c,d\n', "f")).toThrow('parse error on line 1, column 4: bare " in non-quoted-field');
    expect(() => parseTokenFile('a,"b"c,d\n', "f")).toThrow('parse error on line 1, column 6: extraneous or missing " in quoted-field');
  });
  it("skips an empty token and keeps the later duplicate, with warnings", () => {
    const warnings: string[] = [];
    const t = parseTokenFile(",u,1\nt,first,1\nt,second,2\n", "f", (m) => warnings.push(m));
    expect(t.get("t")).toEqual({ name: "second", uid: "2", groups: [] });
    expect(warnings).toEqual(["empty token has been found in token file 'f', record number '1'", "duplicate token has been found in token file 'f', record number '3'"]);
  });
  it("keeps fields as written (no trimming), quotes and doubled quotes", () => {
    const t = parseTokenFile('t1,"a ""b""",u," g1,g2"\r\nt2,x,,\n', "f");
    expect(t.get("t1")).toEqual({ name: 'a "b"', uid: "u", groups: [" g1", "g2"] });
    expect(t.get("t2")).toEqual({ name: "x", uid: "", groups: [""] });
  });
});
