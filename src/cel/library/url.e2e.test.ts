import { describe } from "vitest";
import { CelMap } from "../value.js";
import { compileErr, evalErr, table } from "./e2e-testutil.js";

describe("kubernetes.urls end to end", () => {
  table([
    ['url("https://example.com/") == url("https://example.com/")', true],
    ['url("https://example.com/") == url("https://example.com")', false],
    ['url("../relative-path")', evalErr('URL parse error during conversion from string: parse "../relative-path": invalid URI for request')],
    ['url("https://a:b:c/")', evalErr('URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host')],
    ['url("")', evalErr('URL parse error during conversion from string: parse "": empty url')],
    ["url(1)", compileErr("found no matching overload for 'url' applied to '(int)'")],
    ['isURL("https://user:pass@example.com:80/path?query=val#fragment")', true],
    ['isURL("/absolute-path")', true],
    ['isURL("https://a:b:c/")', false],
    ['isURL("../relative-path")', false],
    ['isURL("")', false],
    ["isURL(1)", compileErr("found no matching overload for 'isURL' applied to '(int)'")],
    ['url("/path").getScheme()', ""],
    ['url("https://example.com/").getScheme()', "https"],
    ['url("HTTPS://example.com/").getScheme()', "https"],
    ['url("https://example.com:80/").getHost()', "example.com:80"],
    ['url("https://[::1]:80/").getHost()', "[::1]:80"],
    ['url("/path").getHost()', ""],
    ['url("https://example.com:80/").getHostname()', "example.com"],
    ['url("https://[::1]:80/").getHostname()', "::1"],
    ['url("https://[::1]/").getHostname()', "::1"],
    ['url("/path").getHostname()', ""],
    ['url("https://example.com:80/").getPort()', "80"],
    ['url("https://example.com/").getPort()', ""],
    ['url("https://example.com/path").getEscapedPath()', "/path"],
    ['url("https://example.com/path with spaces/").getEscapedPath()', "/path%20with%20spaces/"],
    ['url("https://example.com").getEscapedPath()', ""],
    ['url("https://example.com/path").getQuery()', new CelMap()],
    ['url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()', CelMap.fromRecord({ k1: ["a"], k2: ["b", "c"] })],
    ['url("https://example.com/path?key=val").getQuery()["key"][0]', "val"],
    ['url("https://example.com/path?k=").getQuery()', CelMap.fromRecord({ k: [""] })],
    ['url("https://example.com/").getQuery()["missing"]', evalErr("no such key: missing")],
    ['url("https://example.com/").getScheme(1)', compileErr("found no matching overload for 'getScheme' applied to 'kubernetes.URL.(int)'")],
    ['type(url("https://example.com/")) == type(url("/x"))', true],
  ]);
});
