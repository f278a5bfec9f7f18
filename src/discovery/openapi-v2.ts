// The OpenAPI v2 document (/openapi/v2): one swagger 2.0 document of every served type, derived
// from the v3 group-version documents. kubectl still reads it: client-side validation of what
// the server cannot validate itself (a `kind: List`, whose items kubectl checks one by one) and
// patch metadata lookups. We ship no upstream prose: no descriptions.
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

const v3Ref = "#/components/schemas/";

/** A v3 schema node as v2 has it: plain $refs with siblings, no nullable/oneOf/anyOf/not. */
export function schemaToV2(s: Json): Json {
  const out: Json = {};
  // v3 wraps a $ref that has siblings in allOf; v2 keeps siblings beside the $ref.
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && isObject(s.allOf[0]) && typeof s.allOf[0].$ref === "string") {
    out.$ref = (s.allOf[0].$ref as string).replace(v3Ref, "#/definitions/");
  }
  // IntOrString and Quantity are a oneOf of JSON types in v3, a string in v2.
  if (Array.isArray(s.oneOf) && s.type === undefined && !s["x-kubernetes-int-or-string"]) out.type = "string";
  for (const [k, v] of Object.entries(s)) {
    if (k === "oneOf" || k === "anyOf" || k === "not" || k === "nullable") continue;
    if (k === "allOf" && out.$ref !== undefined) continue;
    if (k === "$ref") out.$ref = (v as string).replace(v3Ref, "#/definitions/");
    else if (k === "properties" && isObject(v)) out.properties = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, schemaToV2(pv as Json)]));
    else if ((k === "items" || k === "additionalProperties") && isObject(v)) out[k] = schemaToV2(v);
    else if (k === "allOf" && Array.isArray(v)) out.allOf = v.map((x) => schemaToV2(x as Json));
    else out[k] = v;
  }
  // v2 validators know no null: a nullable field (custom resources) accepts any type, as upstream publishes it.
  if (s.nullable === true || s["x-kubernetes-int-or-string"] === true) delete out.type;
  return out;
}

function parameterToV2(p: Json): Json {
  const schema = isObject(p.schema) ? p.schema : {};
  const out: Json = { name: p.name, in: p.in };
  if (typeof p.description === "string") out.description = p.description;
  if (p.required === true) out.required = true;
  if (schema.type !== undefined) out.type = schema.type;
  if (schema.uniqueItems === true) out.uniqueItems = true;
  return out;
}

const sortedUnique = (list: string[]) => [...new Set(list)].sort();

function operationToV2(op: Json): Json {
  const out: Json = {};
  if (op.tags) out.tags = op.tags;
  if (op.operationId) out.operationId = op.operationId;
  const body = isObject(op.requestBody) ? op.requestBody : undefined;
  const bodyContent = isObject(body?.content) ? (body!.content as Json) : undefined;
  if (bodyContent) out.consumes = Object.keys(bodyContent);
  const responses = isObject(op.responses) ? op.responses : {};
  const produces: string[] = [];
  const v2Responses: Json = {};
  for (const [code, r] of Object.entries(responses)) {
    if (!isObject(r)) continue;
    const content = isObject(r.content) ? r.content : {};
    produces.push(...Object.keys(content));
    const first = Object.values(content).find(isObject) as Json | undefined;
    v2Responses[code] = { description: r.description ?? "", ...(isObject(first?.schema) ? { schema: schemaToV2(first!.schema as Json) } : {}) };
  }
  if (produces.length > 0) out.produces = sortedUnique(produces);
  out.schemes = ["https"];
  const params = Array.isArray(op.parameters) ? op.parameters.filter(isObject).map(parameterToV2) : [];
  const bodySchema = bodyContent ? (Object.values(bodyContent).find(isObject) as Json | undefined)?.schema : undefined;
  if (isObject(bodySchema)) params.unshift({ name: "body", in: "body", required: body!.required === true, schema: schemaToV2(bodySchema) });
  if (params.length > 0) out.parameters = params;
  out.responses = v2Responses;
  for (const [k, v] of Object.entries(op)) if (k.startsWith("x-")) out[k] = v;
  return out;
}

const methods = ["get", "put", "post", "delete", "options", "head", "patch"] as const;

function pathItemToV2(item: Json): Json {
  const out: Json = {};
  for (const m of methods) if (isObject(item[m])) out[m] = operationToV2(item[m] as Json);
  if (Array.isArray(item.parameters)) out.parameters = item.parameters.filter(isObject).map(parameterToV2);
  return out;
}

/** The v2 document of the given v3 documents (every group-version's, and the root ones). */
export function openapiV2Document(v3Documents: readonly Json[], info: Json): Json {
  const paths: Json = {};
  const definitions: Json = {};
  for (const d of v3Documents) {
    for (const [p, item] of Object.entries(isObject(d.paths) ? d.paths : {})) if (isObject(item)) paths[p] = pathItemToV2(item);
    const schemas = isObject(d.components) && isObject(d.components.schemas) ? d.components.schemas : {};
    for (const [name, s] of Object.entries(schemas)) if (isObject(s) && !(name in definitions)) definitions[name] = schemaToV2(s);
  }
  const byKey = (o: Json) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    swagger: "2.0",
    info,
    paths: byKey(paths),
    definitions: byKey(definitions),
    securityDefinitions: { BearerToken: { type: "apiKey", name: "authorization", in: "header" } },
    security: [{ BearerToken: [] }],
  };
}
