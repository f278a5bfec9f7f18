import { describe, expect, it } from "vitest";
import { parseServeFlags } from "../cli/flags.js";
import { controllerEnabled, controllersError } from "./controllers-flag.js";

describe("--controllers", () => {
  const on = (list: string[]) => ["bootstrap-signer-controller", "token-cleaner-controller"].filter((n) => controllerEnabled(n, list));
  it("defaults to * : both bootstrap controllers run in kapi", () => {
    expect(on(["*"])).toEqual(["bootstrap-signer-controller", "token-cleaner-controller"]);
    expect(on(parseServeFlags([]).controllers ?? ["*"])).toEqual(["bootstrap-signer-controller", "token-cleaner-controller"]);
  });
  it("-foo turns one off, the first mention wins, aliases count", () => {
    expect(on(["*", "-tokencleaner"])).toEqual(["bootstrap-signer-controller"]);
    expect(on(["-bootstrap-signer-controller", "*"])).toEqual(["token-cleaner-controller"]);
    expect(on(["bootstrapsigner", "-bootstrap-signer-controller"])).toEqual(["bootstrap-signer-controller"]);
    expect(on(["tokencleaner"])).toEqual(["token-cleaner-controller"]);
    expect(on([])).toEqual([]);
  });
  it("switches the service-account controllers by their upstream names and aliases", () => {
    expect(controllerEnabled("serviceaccount-controller", ["*"])).toBe(true);
    expect(controllerEnabled("serviceaccount-token-controller", ["*", "-serviceaccount-token"])).toBe(false);
    expect(controllerEnabled("serviceaccount-controller", ["*", "-serviceaccount"])).toBe(false);
    expect(controllerEnabled("serviceaccount-controller", ["tokencleaner"])).toBe(false);
  });
  it("switches the root CA publisher by its upstream name and alias", () => {
    expect(controllerEnabled("root-ca-certificate-publisher-controller", ["*"])).toBe(true);
    expect(controllerEnabled("root-ca-certificate-publisher-controller", ["*", "-root-ca-cert-publisher"])).toBe(false);
    expect(controllerEnabled("root-ca-certificate-publisher-controller", ["-root-ca-certificate-publisher-controller", "*"])).toBe(false);
    expect(controllersError(["root-ca-cert-publisher"])).toBeUndefined();
  });
  it("switches the namespace controller and the garbage collector by their upstream names and aliases", () => {
    expect(controllerEnabled("namespace-controller", ["*"])).toBe(true);
    expect(controllerEnabled("garbage-collector-controller", ["*"])).toBe(true);
    expect(controllerEnabled("namespace-controller", ["*", "-namespace"])).toBe(false);
    expect(controllerEnabled("garbage-collector-controller", ["garbagecollector"])).toBe(true);
    expect(controllerEnabled("namespace-controller", ["garbagecollector"])).toBe(false);
  });
  it("refuses unknown names with upstream's message", () => {
    expect(controllersError(["*", "-bootstrapsigner", "tokencleaner"])).toBeUndefined();
    expect(controllersError(["foo"])).toBe('"foo" is not in the list of known controllers');
    expect(controllersError(["-foo", "bar"])).toBe('["foo" is not in the list of known controllers, "bar" is not in the list of known controllers]');
    expect(() => parseServeFlags(["--controllers=*,nope"])).toThrow('"nope" is not in the list of known controllers');
  });
  it("parses the flag: comma lists, repeated flags add up", () => {
    expect(parseServeFlags(["--controllers", "*,-tokencleaner", "--controllers=bootstrapsigner"]).controllers).toEqual(["*", "-tokencleaner", "bootstrapsigner"]);
    expect(parseServeFlags(["--enable-bootstrap-token-auth"]).enableBootstrapTokenAuth).toBe(true);
    expect(parseServeFlags([]).enableBootstrapTokenAuth ?? false).toBe(false);
  });
});
