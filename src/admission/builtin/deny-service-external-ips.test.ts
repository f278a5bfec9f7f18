import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { denyServiceExternalIPs } from "./deny-service-external-ips.js";
import { typeFor } from "./parts.testkit.js";

const svc = (externalIPs?: string[]): KObject => ({ metadata: { name: "s" }, spec: { ...(externalIPs ? { externalIPs } : {}) } });
const check = (object: KObject, oldObject?: KObject) =>
  denyServiceExternalIPs().validate!(admissionAttributes({ operation: oldObject ? "UPDATE" : "CREATE", type: typeFor("", "services"), namespace: "ns", name: "s", subresource: "", dryRun: false, object, oldObject }));

describe("DenyServiceExternalIPs", () => {
  it("refuses new external IPs and keeps old ones", () => {
    expect(() => check(svc(["1.2.3.4"]))).toThrow('services "s" is forbidden: Use of external IPs is denied by admission control');
    expect(() => check(svc(["1.2.3.4"]), svc(["1.2.3.4", "5.6.7.8"]))).not.toThrow();
    expect(() => check(svc(["9.9.9.9"]), svc(["1.2.3.4"]))).toThrow(expect.objectContaining({ code: 403 }));
    expect(() => check(svc())).not.toThrow();
  });
});
