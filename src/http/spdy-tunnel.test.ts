import { describe, expect, it } from "vitest";
import { isTunnelingRequest, spdyRequestHeaders, tunneledProtocols } from "./spdy-tunnel.js";

describe("SPDY tunnelled through a WebSocket (upstream's TunnelingHandler)", () => {
  const ws = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-protocol": "SPDY/3.1+portforward.k8s.io, portforward.k8s.io" };
  it("is asked by a WebSocket naming a SPDY/3.1+….k8s.io subprotocol only", () => {
    expect(isTunnelingRequest(ws)).toBe(true);
    expect(isTunnelingRequest({ ...ws, "sec-websocket-protocol": "portforward.k8s.io" })).toBe(false);
    expect(isTunnelingRequest({ ...ws, "sec-websocket-protocol": "SPDY/3.1+portforward.example.com" })).toBe(false);
    expect(isTunnelingRequest({ ...ws, upgrade: "SPDY/3.1" })).toBe(false);
    expect(tunneledProtocols(ws)).toEqual(["portforward.k8s.io"]);
  });

  it("asks the backend for SPDY/3.1 with the unprefixed protocols, the handshake's own headers dropped", () => {
    const raw = ["Host", "kapi", "Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Key", "k", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Protocol", "SPDY/3.1+portforward.k8s.io", "X-Stream-Protocol-Version", "old", "User-Agent", "kubectl"];
    expect(spdyRequestHeaders(raw, ["portforward.k8s.io"])).toEqual(["Host", "kapi", "Connection", "Upgrade", "User-Agent", "kubectl", "Upgrade", "SPDY/3.1", "X-Stream-Protocol-Version", "portforward.k8s.io", "Content-Length", "0"]);
  });
});
