import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gzipBody, negotiateContentEncoding } from "./gzip.js";

describe("negotiateContentEncoding", () => {
  it("takes gzip only as a bare token of the list", () => {
    for (const yes of ["gzip", "gzip, deflate", "deflate,gzip", " br ,  gzip "]) expect(negotiateContentEncoding(yes), yes).toBe("gzip");
    for (const no of [undefined, "", "identity", "x-gzip", "gzip;q=0", "GZIP", "deflate, br", "*"]) expect(negotiateContentEncoding(no), String(no)).toBeUndefined();
  });
});

describe("gzipBody", () => {
  it("round-trips and gives the same bytes for the same body", () => {
    const body = Buffer.from("x".repeat(1000));
    const z = gzipBody(body);
    expect(gunzipSync(z).equals(body)).toBe(true);
    expect(gzipBody(body)).toBe(z);
  });
});
