import { describe, expect, it } from "vitest";
import { cleanPath, forwardedUri, joinPath, proxySubpath, proxyTarget, rewriteBackendUrl, rewriteHtml } from "./proxy-url.js";

describe("paths as Go's path package cleans them", () => {
  it("cleans and joins", () => {
    expect(cleanPath("/a/b/../c/./d/")).toBe("/a/c/d");
    expect(cleanPath("/../x")).toBe("/x");
    expect(cleanPath("")).toBe(".");
    expect(joinPath("", "")).toBe("");
    expect(joinPath("", "/a//b/")).toBe("/a/b");
    expect(joinPath("/api/v1/x/proxy", "/y/")).toBe("/api/v1/x/proxy/y");
  });
});

describe("the proxy target", () => {
  const p = "/api/v1/namespaces/ns/pods/web/proxy";
  it("joins the subpath, keeps the trailing slash and works out the prefix", () => {
    expect(proxySubpath(["a", "b"], `${p}/a/b/`)).toBe("/a/b/");
    expect(proxySubpath([], `${p}/`)).toBe("/");
    expect(proxySubpath([], p)).toBe("");
    expect(proxyTarget("GET", `${p}/a/b/`, "", "/a/b/")).toEqual({ path: "/a/b/", prefix: p });
    // As Go's TrimSuffix: only the cleaned location path comes off the end.
    expect(proxyTarget("POST", `${p}/x/../y`, "", "/x/../y")).toEqual({ path: "/y", prefix: `${p}/x/..` });
  });
  it("redirects a GET or HEAD of the bare root to its slash, with the query", () => {
    expect(proxyTarget("GET", p, "a=1", "")).toEqual({ redirect: `${p}/?a=1`, prefix: p });
    expect(proxyTarget("POST", p, "", "")).toEqual({ path: "", prefix: p });
  });
  it("names the forwarded URI with the prefix", () => {
    expect(forwardedUri(p, "/a/")).toBe(`${p}/a/`);
    expect(forwardedUri(p, "")).toBe(p);
  });
});

describe("the backend's URLs rewritten to come back through the proxy", () => {
  const prefix = "/api/v1/namespaces/ns/services/svc/proxy";
  it("prefixes absolute paths on the backend's host or the client's, and leaves others", () => {
    expect(rewriteBackendUrl("/login?next=/x", "10.0.0.5:80", "kapi:6443", prefix)).toBe(`${prefix}/login?next=/x`);
    expect(rewriteBackendUrl("http://10.0.0.5:80/a/", "10.0.0.5:80", "kapi:6443", prefix)).toBe(`${prefix}/a/`);
    expect(rewriteBackendUrl("https://kapi:6443/a", "10.0.0.5:80", "kapi:6443", prefix)).toBe(`https://kapi:6443${prefix}/a`);
    expect(rewriteBackendUrl("https://example.com/a", "10.0.0.5:80", "kapi:6443", prefix)).toBe("https://example.com/a");
    expect(rewriteBackendUrl("relative/path", "10.0.0.5:80", "kapi:6443", prefix)).toBe("relative/path");
    expect(rewriteBackendUrl(`${prefix}/already`, "10.0.0.5:80", "kapi:6443", prefix)).toBe(`${prefix}/already`);
  });

  it("rewrites the URL attributes of HTML start tags, and nothing else", () => {
    const html = `<html><a href="/x">x</a> <img src='/i.png' alt="/not"><p title="/no">/text</p><script src=/s.js></script><a name="n"></a></html>`;
    const out = rewriteHtml(html, (u) => rewriteBackendUrl(u, "b", "c", "/pre"));
    expect(out).toBe(`<html><a href="/pre/x">x</a> <img src="/pre/i.png" alt="/not"><p title="/no">/text</p><script src="/pre/s.js"></script><a name="n"></a></html>`);
  });
});
