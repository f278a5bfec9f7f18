import { X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuthnRequest, ClientCertificate } from "../authenticator.js";
import { authenticatorConformance } from "../conformance.testkit.js";
import { daysFromNow, makeCert, type TestCert } from "../pki.testkit.js";
import { checkHeaderFlag, clearIdentityHeaders, identityFromHeaders, unescapeExtraKey } from "./headers.js";
import { requestHeaderAuthenticator } from "./index.js";

const x = (c: TestCert) => new X509Certificate(c.certPem);
const peer = (leaf: TestCert): ClientCertificate => ({ commonName: leaf.cert.subjectName.getField("CN")[0] ?? "", organizations: [], chain: [x(leaf)] });

let proxyCA: TestCert, clientCA: TestCert, proxy: TestCert, otherProxy: TestCert, userCert: TestCert, expiredProxy: TestCert;
beforeAll(async () => {
  proxyCA = await makeCert({ commonName: "front-proxy-ca" });
  clientCA = await makeCert({ commonName: "client-ca" });
  proxy = await makeCert({ commonName: "front-proxy-client", issuer: proxyCA });
  otherProxy = await makeCert({ commonName: "someone-else", issuer: proxyCA });
  userCert = await makeCert({ commonName: "jane", issuer: clientCA });
  expiredProxy = await makeCert({ commonName: "front-proxy-client", issuer: proxyCA, notBefore: daysFromNow(-5), notAfter: daysFromNow(-1) });
}, 60_000);

const headers = { usernameHeaders: ["X-Remote-User", "X-Other-User"], uidHeaders: ["X-Remote-Uid"], groupHeaders: ["X-Remote-Group", "X-Other-Group"], extraHeaderPrefixes: ["X-Remote-Extra-", "X-Other-Extra-"] };
const make = () => requestHeaderAuthenticator({ clientCA: proxyCA.certPem, allowedNames: ["front-proxy-client"], ...headers });
const raw = (cert: ClientCertificate | undefined, rawHeaders: string[]): AuthnRequest => {
  const h: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const k = rawHeaders[i]!.toLowerCase();
    h[k] = h[k] === undefined ? rawHeaders[i + 1]! : `${h[k]}, ${rawHeaders[i + 1]}`;
  }
  return { path: "/", headers: h, rawHeaders: [...rawHeaders], peerCertificate: cert };
};

authenticatorConformance({
  method: "request header",
  make,
  valid: [
    {
      title: "user, uid, every group value, extra keys lowercased and percent-decoded",
      request: () =>
        raw(peer(proxy), ["X-Remote-User", "alice", "x-remote-uid", "u-1", "X-Remote-Group", "a", "x-remote-group", "b", "X-Other-Group", "c", "X-Remote-Extra-Scopes", "s1", "X-Remote-Extra-Scopes", "s2", "X-Remote-Extra-Example.com%2fKey", "v"]),
      user: { name: "alice", uid: "u-1", groups: ["a", "b", "c"], extra: { scopes: ["s1", "s2"], "example.com/key": ["v"] } },
    },
    { title: "the first non-empty username header wins", request: () => raw(peer(proxy), ["X-Remote-User", "", "X-Other-User", "bob"]), user: { name: "bob", groups: [] } },
  ],
  invalid: [
    { title: "certificate from another CA", request: () => raw(peer(userCert), ["X-Remote-User", "root", "X-Remote-Group", "system:masters"]) },
    { title: "CN not in the allowed names", request: () => raw(peer(otherProxy), ["X-Remote-User", "root"]) },
    { title: "expired proxy certificate", request: () => raw(peer(expiredProxy), ["X-Remote-User", "root"]) },
  ],
  absent: [
    { title: "headers without a client certificate", request: { path: "/", headers: { "x-remote-user": "root", "x-remote-group": "system:masters" } } },
    { title: "proxy certificate without a username header", request: { path: "/", headers: {}, peerCertificate: undefined } },
  ],
});

describe("request header parsing", () => {
  it("reads the joined form when raw headers are not available", () => {
    expect(identityFromHeaders(headers, { "x-remote-user": "a", "x-remote-group": ["g1", "g2"], "x-remote-extra-k": "v" })).toEqual({ name: "a", uid: "", groups: ["g1", "g2"], extra: { k: ["v"] } });
    expect(identityFromHeaders(headers, { "x-remote-group": "g" })).toBeUndefined();
  });
  it("percent-decodes extra keys as Go's PathUnescape, keeping a malformed key", () => {
    expect(unescapeExtraKey("a%2Fb%20c")).toBe("a/b c");
    expect(unescapeExtraKey("caf%C3%A9")).toBe("café");
    expect(unescapeExtraKey("bad%zz")).toBe("bad%zz");
  });
  it("strips every identity header, any case, from both header forms", () => {
    const h: Record<string, string> = { "x-remote-user": "a", "x-remote-extra-k": "v", "x-other-group": "g", accept: "json" };
    const rawHeaders = ["X-Remote-User", "a", "X-REMOTE-EXTRA-K", "v", "Accept", "json", "x-other-group", "g"];
    clearIdentityHeaders(headers, h, rawHeaders);
    expect(h).toEqual({ accept: "json" });
    expect(rawHeaders).toEqual(["Accept", "json"]);
  });
  it("strips the headers of a request it does not trust", async () => {
    const r = raw(peer(userCert), ["X-Remote-User", "root", "Accept", "json"]);
    await make().authenticate(r);
    expect(r.headers).toEqual({ accept: "json" });
    const none: AuthnRequest = { path: "/", headers: { "x-remote-user": "root" } };
    expect(await make().authenticate(none)).toBeUndefined();
    expect(none.headers).toEqual({});
  });
  it("names the refusals as upstream", async () => {
    expect(await make().authenticate(raw(peer(otherProxy), ["X-Remote-User", "root"]))).toEqual({ error: "x509: subject with cn=someone-else is not in the allowed list" });
    expect(await make().authenticate(raw(peer(userCert), ["X-Remote-User", "root"]))).toEqual({ error: "x509: certificate signed by unknown authority" });
  });
  it("any CN from the CA when no names are listed", async () => {
    const any = requestHeaderAuthenticator({ clientCA: proxyCA.certPem, allowedNames: [], ...headers });
    expect(await any.authenticate(raw(peer(otherProxy), ["X-Remote-User", "u"]))).toEqual({ user: { name: "u", groups: [], extra: {} } });
  });
  it("refuses blank header flags as kube-apiserver", () => {
    expect(() => checkHeaderFlag("requestheader-group-headers", ["X-Remote-Group", " "])).toThrow('empty value in "requestheader-group-headers"');
  });
});
