// Service validation (upstream ValidateService / ValidateServiceUpdate).
import { parseIPv4, parseIPv4Sloppy, parseIPv6 } from "../../apimachinery/ip-address.js";
import { duplicate, forbidden, invalid, isDNS1123Subdomain, notSupported, required, validateLabels, type FieldError } from "../../apimachinery/validation.js";
import { validateEndpointIP } from "./endpoints.js";
import { arr, child, dnsLabelErrors, index, isObj, isValidPortName, isValidPortNum, obj, str, type Obj } from "./helpers.js";

const ipMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const protocols = ["SCTP", "TCP", "UDP"];
const serviceTypes = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const familyPolicies = ["PreferDualStack", "RequireDualStack", "SingleStack"];

const headless = (spec: Obj) => spec.clusterIP === "None";

function validateServicePort(p: Obj, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(p.name);
  if (requireName && name === "") errs.push(required(child(path, "name"), ""));
  else if (name !== "") {
    errs.push(...dnsLabelErrors(name, child(path, "name")));
    if (names.has(name)) errs.push(duplicate(child(path, "name"), name));
    else names.add(name);
  }
  const port = Number(p.port ?? 0);
  for (const m of isValidPortNum(port)) errs.push(invalid(child(path, "port"), port, m));
  const proto = str(p.protocol);
  if (proto === "") errs.push(required(child(path, "protocol"), ""));
  else if (!protocols.includes(proto)) errs.push(notSupported(child(path, "protocol"), proto, protocols));
  const tp = p.targetPort;
  if (typeof tp === "string") for (const m of isValidPortName(tp)) errs.push(invalid(child(path, "targetPort"), tp, m));
  else for (const m of isValidPortNum(Number(tp ?? 0))) errs.push(invalid(child(path, "targetPort"), Number(tp ?? 0), m));
  return errs;
}

export function validateService(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  const type = str(spec.type);
  const ports = arr(spec.ports);
  if (ports.length === 0 && !headless(spec) && type !== "ExternalName") errs.push(required("spec.ports", ""));
  switch (type) {
    case "LoadBalancer":
      if (headless(spec)) errs.push(invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for LoadBalancer services"));
      ports.forEach((p, i) => {
        if (obj(p).port === 10250) errs.push(invalid(`spec.ports[${i}]`, 10250, "may not expose port 10250 externally since it is used by kubelet"));
      });
      break;
    case "NodePort":
      if (headless(spec)) errs.push(invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for NodePort services"));
      break;
    case "ExternalName": {
      if (arr(spec.clusterIPs).length > 0) errs.push(forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
      if (arr(spec.ipFamilies).length > 0) errs.push(forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
      if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errs.push(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
      const cname = str(spec.externalName).replace(/\.$/, "");
      if (cname) for (const m of isDNS1123Subdomain(cname)) errs.push(invalid("spec.externalName", cname, m));
      else errs.push(required("spec.externalName", ""));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(obj(p), ports.length > 1, names, index("spec.ports", i))));
  if (isObj(spec.selector)) errs.push(...validateLabels(spec.selector as Record<string, string>, "spec.selector"));
  const sa = str(spec.sessionAffinity);
  if (sa === "") errs.push(required("spec.sessionAffinity", ""));
  else if (sa !== "ClientIP" && sa !== "None") errs.push(notSupported("spec.sessionAffinity", sa, ["ClientIP", "None"]));
  if (sa === "ClientIP") {
    const t = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
    if (typeof t === "number" && (t <= 0 || t > 86400)) {
      errs.push(invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", t, "must be greater than 0 and less than 86400"));
    }
  } else if (spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null) {
    errs.push(forbidden("spec.sessionAffinityConfig", `must not be set when session affinity is ${sa}`));
  }
  if (type !== "ExternalName") errs.push(...validateClusterIPFields(spec));
  // As upstream 1.34 (StrictIPCIDRValidation off): read loosely (leading zeros allowed, warned
  // about), then the addresses a Service must not claim refused as for endpoints.
  arr(spec.externalIPs).forEach((ip, i) => {
    const field = `spec.externalIPs[${i}]`;
    if (!parseIPv4Sloppy(str(ip)) && !parseIPv6(str(ip))) errs.push(invalid(field, ip, ipMessage));
    else errs.push(...validateEndpointIP(str(ip), field));
  });
  if (type === "") errs.push(required("spec.type", ""));
  else if (!serviceTypes.includes(type)) errs.push(notSupported("spec.type", type, serviceTypes));
  if (type === "ClusterIP") {
    ports.forEach((p, i) => {
      if (obj(p).nodePort) errs.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((raw, i) => {
    const p = obj(raw);
    if (!p.nodePort) return;
    const k = `${str(p.protocol)}/${p.nodePort}`;
    if (nodePorts.has(k)) errs.push(duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(k);
  });
  const seen = new Set<string>();
  ports.forEach((raw, i) => {
    const p = obj(raw);
    const k = `${str(p.protocol)}/${p.port}`;
    // upstream's bad value is an internal ServicePort holding only protocol and port
    if (seen.has(k)) errs.push(duplicate(`spec.ports[${i}]`, { Name: "", Protocol: str(p.protocol), AppProtocol: null, Port: Number(p.port ?? 0), TargetPort: 0, NodePort: 0 }));
    seen.add(k);
  });
  const etp = spec.externalTrafficPolicy;
  const external = type === "NodePort" || type === "LoadBalancer" || (type === "ClusterIP" && arr(spec.externalIPs).length > 0);
  if (external) {
    if (!etp) errs.push(required("spec.externalTrafficPolicy", ""));
    else if (etp !== "Cluster" && etp !== "Local") errs.push(notSupported("spec.externalTrafficPolicy", etp, ["Cluster", "Local"]));
  } else if (etp) {
    errs.push(invalid("spec.externalTrafficPolicy", etp, "may only be set for externally-accessible services"));
  }
  const itp = spec.internalTrafficPolicy;
  if (itp !== undefined && itp !== null && type !== "ExternalName" && itp !== "Cluster" && itp !== "Local") {
    errs.push(notSupported("spec.internalTrafficPolicy", itp, ["Cluster", "Local"]));
  }
  return errs;
}

function validateClusterIPFields(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const ips = arr(spec.clusterIPs);
  if (str(spec.clusterIP) !== "") {
    if (ips.length === 0) errs.push(required("spec.clusterIPs", ""));
    else if (ips[0] !== spec.clusterIP) errs.push(invalid("spec.clusterIPs", ips, "first value must match `clusterIP`"));
  } else if (ips.length !== 0) {
    errs.push(invalid("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified"));
  }
  const seen = new Set<string>();
  arr(spec.ipFamilies).forEach((f, i) => {
    if (f !== "IPv4" && f !== "IPv6") errs.push(notSupported(`spec.ipFamilies[${i}]`, f, ["IPv4", "IPv6"]));
    if (seen.has(f)) errs.push(duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null && !familyPolicies.includes(spec.ipFamilyPolicy)) {
    errs.push(notSupported("spec.ipFamilyPolicy", spec.ipFamilyPolicy, familyPolicies));
  }
  ips.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (ips.length > 1) errs.push(invalid("spec.clusterIPs", ips, "'None' must be the first and only value"));
      return;
    }
    if (!parseIPv4(str(ip)) && !parseIPv6(str(ip))) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, ipMessage));
  });
  if (ips.length > 2) errs.push(invalid("spec.clusterIPs", ips, "may only hold up to 2 values"));
  return errs;
}

export function validateServiceUpdate(o: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const ns = obj(o.spec);
  const os = obj(old.spec);
  if (ns.type !== "ExternalName" && os.type !== "ExternalName" && !(headless(ns) && headless(os))) {
    const newIPs = arr(ns.clusterIPs);
    const oldIPs = arr(os.clusterIPs);
    if (newIPs.length === oldIPs.length) {
      oldIPs.forEach((ip, i) => {
        if (ip !== newIPs[i]) errs.push(invalid(`spec.clusterIPs[${i}]`, newIPs, "may not change once set"));
      });
    } else if (newIPs.length < oldIPs.length && newIPs.length === 0) {
      errs.push(invalid("spec.clusterIPs[0]", newIPs, "primary clusterIP can not be unset"));
    } else if (newIPs.length > 0 && oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
      errs.push(invalid("spec.clusterIPs[0]", newIPs, "may not change once set"));
    }
    const nf = arr(ns.ipFamilies);
    const of = arr(os.ipFamilies);
    if (nf.length > 0 && of.length > 0 && nf[0] !== of[0]) errs.push(invalid("spec.ipFamilies[0]", nf, "may not change once set"));
  }
  errs.push(...validateService(o));
  return errs;
}
