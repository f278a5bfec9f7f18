import { describe, expect, it } from "vitest";
import { parseLabelSelector } from "../../apimachinery/labels.js";
import { attributes } from "../conformance.testkit.js";
import { compileMatchCondition, evaluateMatchConditions } from "./match-conditions.js";
import { omitEmpty, reviewSpecOf } from "./review-spec.js";

const anon = { name: "", groups: [] };
const listNodes = attributes({ user: anon, verb: "list", apiVersion: "v1", resource: "nodes" });
const version = attributes({ user: anon, verb: "get", isResourceRequest: false, path: "/version" });
const evaluate = (a: typeof listNodes, ...exprs: string[]) =>
  evaluateMatchConditions(
    exprs.map((e) => compileMatchCondition(e, true)),
    reviewSpecOf(a, true),
    true,
  );

describe("the request match conditions see", () => {
  it("holds every string attribute, the groups and the extra even when empty (a cluster-scoped request's namespace is \"\")", () => {
    expect(evaluate(listNodes, 'request.resourceAttributes.namespace.startsWith("x")')).toEqual({ result: "no-match" });
    expect(
      evaluate(
        listNodes,
        'request.resourceAttributes.namespace == "" && request.resourceAttributes.group == "" && request.resourceAttributes.subresource == "" && request.resourceAttributes.name == ""',
        'request.user == "" && request.uid == "" && size(request.groups) == 0 && size(request.extra) == 0',
        "has(request.resourceAttributes.namespace) && !has(request.nonResourceAttributes)",
      ),
    ).toEqual({ result: "match" });
    expect(evaluate(version, 'request.nonResourceAttributes.path == "/version" && request.nonResourceAttributes.verb == "get"')).toEqual({ result: "match" });
  });

  it("has no resourceAttributes on a non-resource request, and selectors only when the request had requirements", () => {
    const r = evaluate(version, 'request.resourceAttributes.namespace == ""');
    expect(r.result).toBe("error");
    expect(r.error).toMatch(/^cel evaluation error: expression 'request\.resourceAttributes\.namespace == ""' resulted in error: .*resourceAttributes/);
    expect(evaluate(listNodes, "!has(request.resourceAttributes.labelSelector) && !has(request.resourceAttributes.fieldSelector)")).toEqual({ result: "match" });
    const selected = attributes({ user: anon, verb: "list", resource: "pods", labelSelector: { raw: "app", requirements: parseLabelSelector("app").requirements() } });
    expect(evaluate(selected, 'request.resourceAttributes.labelSelector.requirements.exists(r, r.key == "app" && r.operator == "Exists" && size(r.values) == 0)')).toEqual({ result: "match" });
  });

  it("a false settles it even after a failure (which is still reported); failures with no false are the error", () => {
    expect(evaluate(version, "request.resourceAttributes.name == 'a'", "request.user == 'bob'")).toEqual({
      result: "no-match",
      error: "cel evaluation error: expression 'request.resourceAttributes.name == 'a'' resulted in error: no such key: resourceAttributes",
    });
    const both = evaluate(version, "request.resourceAttributes.name == 'a'", "request.resourceAttributes.verb == 'b'");
    expect(both.result).toBe("error");
    expect(both.error).toMatch(/^\[cel evaluation error: .*name == 'a'.*, cel evaluation error: .*verb == 'b'.*\]$/);
  });
});

describe("the review's wire spec", () => {
  it("drops what Go's omitempty drops, in v1's field order", () => {
    const a = attributes({ user: { name: "bob", groups: ["dev"] }, verb: "list", apiVersion: "v1", resource: "nodes" });
    expect(JSON.stringify(omitEmpty(reviewSpecOf(a, true)))).toBe('{"resourceAttributes":{"verb":"list","version":"v1","resource":"nodes"},"user":"bob","groups":["dev"]}');
    expect(omitEmpty(reviewSpecOf(version, true))).toEqual({ nonResourceAttributes: { path: "/version", verb: "get" } });
  });
});
