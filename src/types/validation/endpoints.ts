// Endpoints and EndpointSlice validation (upstream pkg/apis/core/validation ValidateEndpoints and
// pkg/apis/discovery/validation ValidateEndpointSlice{Create,Update}). Both refuse the addresses a
// Service must never route to (ValidateEndpointIP): otherwise anyone who may write Endpoints could
// point a Service — and the apiserver's own service proxy — at the node's loopback or the cloud
// metadata address.
import { parseIPv4Sloppy, parseIPv6, type Addr } from "../../apimachinery/ip-address.js";
import { duplicate, invalid, isDNS1123Subdomain, isQualifiedName, notSupported, required, tooMany, type FieldError } from "../../apimachinery/validation.js";
import { arr, child, dnsLabelErrors, immutable, index, isValidPortNum, obj, str, type Obj } from "./helpers.js";

const ipMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const protocols = ["SCTP", "TCP", "UDP"];

/** The IPv4 address inside an IPv4 or IPv4-mapped IPv6 address, as Go's net.IP.To4 finds it. */
function v4Of(a: Addr): Uint8Array | undefined {
  const b = a.bytes;
  if (b.length === 4) return b;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return undefined;
  return b[10] === 0xff && b[11] === 0xff ? b.subarray(12) : undefined;
}

/** Upstream ValidateEndpointIP: unspecified, loopback, link-local unicast and link-local multicast refused. */
export function validateEndpointIP(ip: string, field: string): FieldError[] {
  const a = parseIPv4Sloppy(ip) ?? parseIPv6(ip);
  if (!a) return [invalid(field, ip, "must be a valid IP address")];
  const v4 = v4Of(a);
  const b = a.bytes;
  const errs: FieldError[] = [];
  const unspecified = v4 ? v4.every((x) => x === 0) : b.every((x) => x === 0);
  const loopback = v4 ? v4[0] === 127 : b.subarray(0, 15).every((x) => x === 0) && b[15] === 1;
  const linkLocal = v4 ? v4[0] === 169 && v4[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
  const linkLocalMulticast = v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
  if (unspecified) errs.push(invalid(field, ip, `may not be unspecified (${ip})`));
  if (loopback) errs.push(invalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  if (linkLocal) errs.push(invalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  if (linkLocalMulticast) errs.push(invalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  return errs;
}

function validateEndpointAddress(a: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ip = str(a.ip);
  if (!parseIPv4Sloppy(ip) && !parseIPv6(ip)) errs.push(invalid(child(path, "ip"), ip, ipMessage));
  if (str(a.hostname) !== "") errs.push(...dnsLabelErrors(str(a.hostname), child(path, "hostname")));
  if (a.nodeName !== undefined && a.nodeName !== null) {
    for (const m of isDNS1123Subdomain(str(a.nodeName))) errs.push(invalid(child(path, "nodeName"), str(a.nodeName), m));
  }
  // As upstream: the special-address check only speaks once the address is otherwise well formed.
  if (errs.length > 0) return errs;
  return validateEndpointIP(ip, child(path, "ip"));
}

function validateEndpointPort(p: Obj, requireName: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(p.name);
  if (requireName && name === "") errs.push(required(child(path, "name"), ""));
  else if (name !== "") errs.push(...dnsLabelErrors(name, child(path, "name")));
  const port = Number(p.port ?? 0);
  for (const m of isValidPortNum(port)) errs.push(invalid(child(path, "port"), port, m));
  errs.push(...validateProtocol(p.protocol, child(path, "protocol")));
  errs.push(...validateAppProtocol(p.appProtocol, child(path, "appProtocol")));
  return errs;
}

function validateProtocol(v: unknown, field: string): FieldError[] {
  const proto = str(v);
  if (proto === "") return [required(field, "")];
  return protocols.includes(proto) ? [] : [notSupported(field, proto, protocols)];
}

function validateAppProtocol(v: unknown, field: string): FieldError[] {
  if (v === undefined || v === null) return [];
  return isQualifiedName(str(v)).map((m) => invalid(field, str(v), m));
}

/** Upstream ValidateEndpoints (the subsets; object meta is checked by the store). */
export function validateEndpoints(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  arr(o.subsets).forEach((raw, i) => {
    const ss = obj(raw);
    const path = index("subsets", i);
    const addresses = arr(ss.addresses);
    const notReady = arr(ss.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) errs.push(required(path, "must specify `addresses` or `notReadyAddresses`"));
    addresses.forEach((a, j) => errs.push(...validateEndpointAddress(obj(a), index(child(path, "addresses"), j))));
    notReady.forEach((a, j) => errs.push(...validateEndpointAddress(obj(a), index(child(path, "notReadyAddresses"), j))));
    const ports = arr(ss.ports);
    ports.forEach((p, j) => errs.push(...validateEndpointPort(obj(p), ports.length > 1, index(child(path, "ports"), j))));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// discovery.k8s.io EndpointSlice

const addressTypes = ["FQDN", "IPv4", "IPv6"];
// "IP" is deprecated: refused on create, kept on update so old objects stay writable.
const addressTypesOnUpdate = ["FQDN", "IP", "IPv4", "IPv6"];
const maxAddresses = 100;
const maxPorts = 100;
const maxEndpoints = 1000;

function validateSliceAddress(type: string, address: string, field: string): FieldError[] {
  switch (type) {
    case "IP":
      return parseIPv4Sloppy(address) || parseIPv6(address) ? [] : [invalid(field, address, ipMessage)];
    case "IPv4":
      return [...(parseIPv4Sloppy(address) ? [] : [invalid(field, address, "must be a valid IPv4 address")]), ...validateEndpointIP(address, field)];
    case "IPv6":
      return [...(parseIPv6(address) ? [] : [invalid(field, address, "must be a valid IPv6 address")]), ...validateEndpointIP(address, field)];
    case "FQDN":
      return validateFQDN(address, field);
    default:
      // Unknown types fall through unvalidated, as upstream (the address type check already spoke).
      return [];
  }
}

/** Upstream IsFullyQualifiedDomainName. */
function validateFQDN(name: string, field: string): FieldError[] {
  const s = name.replace(/\.$/, "").toLowerCase();
  if (s === "") return [required(field, "")];
  if (!s.includes(".")) return [invalid(field, name, "should be a domain with at least two segments separated by dots")];
  return isDNS1123Subdomain(s).map((m) => invalid(field, name, m));
}

function validateSliceEndpoints(endpoints: unknown[], type: string): FieldError[] {
  if (endpoints.length > maxEndpoints) return [tooMany("endpoints", endpoints.length, maxEndpoints)];
  const errs: FieldError[] = [];
  endpoints.forEach((raw, i) => {
    const ep = obj(raw);
    const path = index("endpoints", i);
    const addrPath = child(path, "addresses");
    const addresses = arr(ep.addresses);
    if (addresses.length === 0) errs.push(required(addrPath, "must contain at least 1 address"));
    else if (addresses.length > maxAddresses) errs.push(tooMany(addrPath, addresses.length, maxAddresses));
    addresses.forEach((a, j) => errs.push(...validateSliceAddress(type, str(a), index(addrPath, j))));
    if (ep.hostname !== undefined && ep.hostname !== null) errs.push(...dnsLabelErrors(str(ep.hostname), child(path, "hostname")));
  });
  return errs;
}

function validateSlicePorts(ports: unknown[]): FieldError[] {
  if (ports.length > maxPorts) return [tooMany("ports", ports.length, maxPorts)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const p = obj(raw);
    const path = index("ports", i);
    const name = str(p.name);
    if (name !== "") errs.push(...dnsLabelErrors(name, child(path, "name")));
    if (names.has(name)) errs.push(duplicate(child(path, "name"), name));
    else names.add(name);
    errs.push(...validateProtocol(p.protocol, child(path, "protocol")));
    errs.push(...validateAppProtocol(p.appProtocol, child(path, "appProtocol")));
  });
  return errs;
}

function validateSlice(o: Obj, validTypes: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(o.addressType);
  if (type === "") errs.push(required("addressType", ""));
  else if (!validTypes.includes(type)) errs.push(notSupported("addressType", type, validTypes));
  errs.push(...validateSliceEndpoints(arr(o.endpoints), type));
  errs.push(...validateSlicePorts(arr(o.ports)));
  return errs;
}

/** Upstream ValidateEndpointSliceCreate. */
export const validateEndpointSlice = (o: Obj): FieldError[] => validateSlice(o, addressTypes);

/** Upstream ValidateEndpointSliceUpdate: the deprecated "IP" type kept, the address type immutable. */
export function validateEndpointSliceUpdate(o: Obj, old: Obj): FieldError[] {
  return [...validateSlice(o, addressTypesOnUpdate), ...immutable("addressType", o.addressType, old.addressType)];
}
