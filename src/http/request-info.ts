// Pure parse of method + path + query into the attributes authorization and routing use
// (upstream: RequestInfoFactory). No I/O, no knowledge of which resources exist.

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string; // "api" | "apis" | ""
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

const namespaceSubresources = new Set(["status", "finalize"]);

/** A path with an invalid percent-escape (answered 400). */
export class MalformedPathError extends Error {}

function splitPath(path: string): string[] {
  return path.split("/").filter((p) => p !== "").map(decodeSegment);
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new MalformedPathError(`invalid URL escape in ${JSON.stringify(s)}`);
  }
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: "",
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
    parts: [],
  };
  let parts = splitPath(path);
  if (parts.length === 0 || (parts[0] !== "api" && parts[0] !== "apis")) return info;
  info.apiPrefix = parts[0];
  parts = parts.slice(1);
  if (info.apiPrefix === "apis") {
    if (parts.length < 2) return info; // /apis or /apis/{group}: discovery
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  } else if (parts.length < 1) {
    return info; // /api
  }
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  if (parts.length === 0) return info; // /api/v1 or /apis/g/v: discovery

  info.isResourceRequest = true;
  let watchPrefix = false;
  if (parts[0] === "watch") {
    // deprecated /watch/ path form
    watchPrefix = true;
    parts = parts.slice(1);
  }
  switch (method) {
    case "POST":
      info.verb = "create";
      break;
    case "GET":
    case "HEAD":
      info.verb = "get";
      break;
    case "PUT":
      info.verb = "update";
      break;
    case "PATCH":
      info.verb = "patch";
      break;
    case "DELETE":
      info.verb = "delete";
      break;
    default:
      info.verb = "";
  }
  if (parts[0] === "namespaces") {
    if (parts.length > 1) {
      info.namespace = parts[1];
      // /namespaces/{ns}/{resource}... ; but /namespaces/{name}[/status|/finalize] is the namespace itself
      if (parts.length > 2 && !namespaceSubresources.has(parts[2])) {
        parts = parts.slice(2);
      }
    }
  }
  info.parts = parts;
  if (parts.length >= 3) info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];
  if (info.resource === "namespaces" && info.name) info.namespace = info.name;

  if (parts.length < 2 && info.verb === "get") {
    info.verb = isWatch(query) ? "watch" : "list";
    // A collection request narrowed to one name is authorized as that name (upstream does the same).
    const fieldName = nameFromFieldSelector(query.get("fieldSelector"));
    if (fieldName) info.name = fieldName;
  }
  if (watchPrefix && (info.verb === "get" || info.verb === "list")) info.verb = "watch";
  if (parts.length < 2 && info.verb === "delete") info.verb = "deletecollection";
  return info;
}

function isWatch(query: URLSearchParams): boolean {
  const w = query.get("watch");
  return w !== null && w !== "" && w !== "0" && w !== "false";
}

function nameFromFieldSelector(sel: string | null): string {
  if (!sel) return "";
  for (const term of sel.split(",")) {
    const m = /^\s*metadata\.name\s*==?\s*([^,]*?)\s*$/.exec(term);
    if (m && m[1] && !m[1].includes("/") && m[1] !== "." && m[1] !== "..") return m[1];
  }
  return "";
}
