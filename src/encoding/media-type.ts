// Media-type parsing and Accept negotiation (pure).

export interface MediaType {
  type: string; // "application"
  subtype: string; // "json"
  params: Record<string, string>;
  q: number;
}

export function parseMediaType(s: string): MediaType | undefined {
  const [full, ...rawParams] = s.split(";");
  const [type, subtype] = full.trim().toLowerCase().split("/");
  if (!type || !subtype) return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of rawParams) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (k === "q") q = Number(v) || 0;
    else params[k] = v;
  }
  return { type, subtype, params, q };
}

/**
 * Parsed Accept headers by their text: a client sends the same one with every request, and
 * parsing it again cost a GET a few percent of its CPU. Bounded: a client sending ever-new
 * headers empties it instead of growing it. Callers only read what it holds.
 */
const parsedAccepts = new Map<string, readonly MediaType[]>();
const parsedAcceptsLimit = 256;
const anyRange: readonly MediaType[] = [{ type: "*", subtype: "*", params: {}, q: 1 }];

/** Accept header → media ranges, best first (stable for equal q). Empty header = any. */
export function parseAccept(header: string | undefined): readonly MediaType[] {
  if (header === undefined) return anyRange;
  let ranges = parsedAccepts.get(header);
  if (ranges === undefined) {
    ranges = parseAcceptText(header);
    if (parsedAccepts.size >= parsedAcceptsLimit) parsedAccepts.clear();
    parsedAccepts.set(header, ranges);
  }
  return ranges;
}

function parseAcceptText(header: string): readonly MediaType[] {
  if (!header.trim()) return anyRange;
  const out: MediaType[] = [];
  for (const part of header.split(",")) {
    const mt = parseMediaType(part);
    if (mt && mt.q > 0) out.push(mt);
  }
  return out
    .map((m, i) => ({ m, i }))
    .sort((a, b) => b.m.q - a.m.q || a.i - b.i)
    .map((x) => x.m);
}

export function essence(mt: MediaType): string {
  return `${mt.type}/${mt.subtype}`;
}

/** Does the range (possibly with wildcards) cover the concrete type? */
export function rangeMatches(range: MediaType, concrete: string): boolean {
  const [t, s] = concrete.split("/");
  return (range.type === "*" || range.type === t) && (range.subtype === "*" || range.subtype === s);
}
