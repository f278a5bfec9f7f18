import { describe, expect, it } from "vitest";
import { CelMap, type CelValue } from "../value.js";
import { callOverload, findOverload } from "./overloads.testkit.js";
import { parseCelURL, urlsLibrary, URLValue } from "./url.js";

const call = (id: string, ...args: CelValue[]) => callOverload(urlsLibrary, id, ...args);
const url = (s: string) => parseCelURL(s);

describe("kubernetes.urls", () => {
  it.each([
    ["https://user:pass@example.com:80/path?query=val#fragment", true],
    ["/absolute-path", true],
    ["https://example.com", true],
    ["*", true],
    ["https://a:b:c/", false],
    ["../relative-path", false],
    ["", false],
    ["https://exa mple.com/", false],
    ["https://[::1/", false],
  ])("isURL(%j) = %s", (s, want) => {
    expect(call("is_url_string", s)).toBe(want);
  });

  it.each([
    ["../relative-path", 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request'],
    ["https://a:b:c/", 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host'],
    ["", 'URL parse error during conversion from string: parse "": empty url'],
    [":foo", 'URL parse error during conversion from string: parse ":foo": missing protocol scheme'],
    ["https://a/%zz", 'URL parse error during conversion from string: parse "https://a/%zz": invalid URL escape "%zz"'],
    ["https://a b/", `URL parse error during conversion from string: parse "https://a b/": invalid character " " in host name`],
    ["https://a/\n", 'URL parse error during conversion from string: parse "https://a/\\n": net/url: invalid control character in URL'],
    ["https://a/?q#%zz", 'URL parse error during conversion from string: parse "https://a/?q#%zz": invalid URL escape "%zz"'],
  ])("url(%j) fails", (s, message) => {
    expect(() => call("string_to_url", s)).toThrow(message);
  });

  it.each([
    ["/path", "", "", "", "", "/path"],
    ["https://example.com/", "https", "example.com", "example.com", "", "/"],
    ["https://example.com:80/", "https", "example.com:80", "example.com", "80", "/"],
    ["https://[::1]:80/", "https", "[::1]:80", "::1", "80", "/"],
    ["https://[::1]/", "https", "[::1]", "::1", "", "/"],
    ["https://127.0.0.1:80/", "https", "127.0.0.1:80", "127.0.0.1", "80", "/"],
    ["https://example.com/path with spaces/", "https", "example.com", "example.com", "", "/path%20with%20spaces/"],
    ["https://example.com", "https", "example.com", "example.com", "", ""],
    ["HTTPS://example.com/a%2Fb", "https", "example.com", "example.com", "", "/a%2Fb"],
  ])("url(%j) parts", (s, scheme, host, hostname, port, path) => {
    const u = url(s);
    expect(call("url_get_scheme", u)).toBe(scheme);
    expect(call("url_get_host", u)).toBe(host);
    expect(call("url_get_hostname", u)).toBe(hostname);
    expect(call("url_get_port", u)).toBe(port);
    expect(call("url_get_escaped_path", u)).toBe(path);
  });

  it("getQuery", () => {
    const q = call("url_get_query", url("https://example.com/path?k1=a&k2=b&k2=c")) as CelMap;
    expect(q.get("k1")).toEqual(["a"]);
    expect(q.get("k2")).toEqual(["b", "c"]);
    const spaced = call("url_get_query", url("https://example.com/path?key with spaces=value with spaces")) as CelMap;
    expect(spaced.get("key with spaces")).toEqual(["value with spaces"]);
    expect((call("url_get_query", url("https://example.com/path?")) as CelMap).size).toBe(0);
    expect((call("url_get_query", url("https://example.com/path?a=1;b=2&c=%zz&d=+x")) as CelMap).get("d")).toEqual([" x"]);
  });

  it("equality by Go's String()", () => {
    expect(url("https://example.com/a b#f g").toString()).toBe("https://example.com/a%20b#f%20g");
    expect(url("HTTPS://example.com/").equals(url("https://example.com/"))).toBe(true);
    expect(url("https://example.com/a").equals(url("https://example.com/b"))).toBe(false);
    expect((url("https://u:p@h/") as URLValue).toString()).toBe("https://u:p@h/");
  });

  it("costs: url() traverses its argument (estimated too), accessors 1", () => {
    const c = findOverload(urlsLibrary, "string_to_url").cost!;
    expect(c.actual!(["https://example.com/"], null)).toBe(2); // 20 chars
    expect(c.estimate!([{ type: { kind: "string" }, size: { min: 10, max: 100 } }])).toEqual({ cost: { min: 1, max: 10 }, resultSize: { min: 10, max: 100 } });
    expect(findOverload(urlsLibrary, "url_get_query").cost!.actual!([], null)).toBe(1);
    expect(findOverload(urlsLibrary, "is_url_string").cost).toBeUndefined();
  });
});
