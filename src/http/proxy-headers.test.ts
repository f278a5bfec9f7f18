import { describe, expect, it } from "vitest";
import { dialFailure, DialTimeoutError, exchangeFailure } from "./dial-error.js";
import { forwardedRequestHeaders, identityHeaderPrefixes, isUpgradeRequest, returnedResponseHeaders, switchingProtocolsHead } from "./proxy-headers.js";

const policy = { upgrade: false, keepHost: true, backendHost: "10.0.0.9:8080", dropPrefixes: identityHeaderPrefixes };

describe("forwardedRequestHeaders", () => {
  it("drops the caller's credentials, client-sent identities and hop-by-hop headers, keeping repeats apart", () => {
    const raw = [
      "Host", "kapi:6443",
      "Authorization", "Bearer secret",
      "X-Remote-User", "mallory",
      "x-remote-extra-scopes", "all",
      "Impersonate-User", "admin",
      "Impersonate-Group", "system:masters",
      "Connection", "keep-alive, X-Secret-Hop",
      "X-Secret-Hop", "1",
      "Keep-Alive", "timeout=5",
      "Transfer-Encoding", "chunked",
      "Proxy-Authorization", "Basic x",
      "Accept", "a/b",
      "Accept", "c/d",
      ":path", "/x",
    ];
    expect(forwardedRequestHeaders(raw, policy)).toEqual(["Host", "kapi:6443", "Accept", "a/b", "Accept", "c/d"]);
  });

  it("keeps Connection: Upgrade and Upgrade only for an upgrade", () => {
    const raw = ["Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Key", "k"];
    expect(forwardedRequestHeaders(raw, policy)).toEqual(["Host", "10.0.0.9:8080", "Sec-WebSocket-Key", "k"]);
    expect(forwardedRequestHeaders(raw, { ...policy, upgrade: true })).toEqual(["Host", "10.0.0.9:8080", "Sec-WebSocket-Key", "k", "Connection", "Upgrade", "Upgrade", "websocket"]);
  });

  it("appends the client's address to X-Forwarded-For, drops Host when asked, and adds the proxy's own headers last", () => {
    const raw = ["Host", "kapi", "X-Forwarded-For", "10.0.0.1", "X-Remote-Group", "g"];
    const out = forwardedRequestHeaders(raw, { ...policy, keepHost: false, forwardedFor: "127.0.0.1", add: [["X-Remote-User", "alice"]] });
    expect(out).toEqual(["Host", "10.0.0.9:8080", "X-Forwarded-For", "10.0.0.1, 127.0.0.1", "X-Remote-User", "alice"]);
  });

  it("drops the caller's own request-header names", () => {
    const out = forwardedRequestHeaders(["X-Who", "eve", "X-Other", "1"], { ...policy, dropPrefixes: ["x-who"] });
    expect(out).toEqual(["Host", "10.0.0.9:8080", "X-Other", "1"]);
  });

  it("keeps the client's Host, or its HTTP/2 authority, when asked", () => {
    expect(forwardedRequestHeaders([":authority", "kapi:6443", ":path", "/"], policy)).toEqual(["Host", "kapi:6443"]);
  });
});

describe("returnedResponseHeaders", () => {
  it("drops hop-by-hop headers and the caller's names, and lists repeats", () => {
    const raw = ["Content-Type", "text/plain", "Connection", "close", "Transfer-Encoding", "chunked", "Set-Cookie", "a=1", "Set-Cookie", "b=2", "Access-Control-Allow-Origin", "*"];
    expect(returnedResponseHeaders(raw, new Set(["access-control-allow-origin"]))).toEqual({ "content-type": "text/plain", "set-cookie": ["a=1", "b=2"] });
  });
});

describe("isUpgradeRequest and the 101 head", () => {
  it("reads Connection's tokens", () => {
    expect(isUpgradeRequest({ connection: "keep-alive, Upgrade" })).toBe(true);
    expect(isUpgradeRequest({ connection: "keep-alive" })).toBe(false);
    expect(isUpgradeRequest({})).toBe(false);
  });
  it("writes the backend's 101 as it came", () => {
    expect(switchingProtocolsHead("", ["Upgrade", "SPDY/3.1", "Connection", "Upgrade"])).toBe("HTTP/1.1 101 Switching Protocols\r\nUpgrade: SPDY/3.1\r\nConnection: Upgrade\r\n\r\n");
  });
});

describe("backend errors in Go's words", () => {
  const err = (code: string, message = code) => Object.assign(new Error(message), { code });
  it("tells dial failures as Go's net package does", () => {
    expect(dialFailure(err("ECONNREFUSED"), "127.0.0.1", 10250).message).toBe("dial tcp 127.0.0.1:10250: connect: connection refused");
    expect(dialFailure(err("ECONNREFUSED"), "::1", 1).message).toBe("dial tcp [::1]:1: connect: connection refused");
    expect(dialFailure(new DialTimeoutError(), "10.0.0.1", 443).message).toBe("dial tcp 10.0.0.1:443: i/o timeout");
    expect(dialFailure(err("ENOTFOUND"), "nowhere.invalid", 80).message).toBe("dial tcp: lookup nowhere.invalid: no such host");
    expect(dialFailure(err("DEPTH_ZERO_SELF_SIGNED_CERT"), "h", 1).message).toBe("tls: failed to verify certificate: x509: certificate signed by unknown authority");
    expect(dialFailure(err("ECONNREFUSED"), "h", 1).dial).toBe(true);
  });
  it("tells failures after the dial apart", () => {
    expect(exchangeFailure(new Error("socket hang up"), "h", 1)).toMatchObject({ message: "EOF", dial: false });
    expect(exchangeFailure(err("ECONNRESET"), "10.0.0.1", 80).message).toBe("read tcp 10.0.0.1:80: read: connection reset by peer");
  });
});
