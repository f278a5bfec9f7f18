// `kapi cel eval` as a user runs it: the real CLI process, files on disk.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runKapi } from "./support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "kapi-cel-"));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("kapi cel eval", () => {
  it("evaluates a rule over --self (YAML) and prints a CEL literal on the last line", async () => {
    const self = file("self.yaml", "replicas: 3\nports: [80, 443]\nname: web\n");
    const r = await runKapi(["cel", "eval", "self.ports.map(p, p + self.replicas)", "--self", self]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n").pop()).toBe("[83, 446]");
  });

  it("compares with --old-self for a transition rule", async () => {
    const self = file("new.json", '{"replicas": 5}');
    const old = file("old.json", '{"replicas": 3}');
    const r = await runKapi(["cel", "eval", "self.replicas >= oldSelf.replicas", "--self", self, "--old-self", old]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("true");
  });

  it("exits 1 with the compile error and its position", async () => {
    const r = await runKapi(["cel", "eval", "self.replicas >"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting /);
  });

  it("exits 1 with an evaluation error", async () => {
    const self = file("zero.yaml", "a: 1\n");
    const r = await runKapi(["cel", "eval", "self.a / 0", "--self", self]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("evaluation error: division by zero");
  });

  it("exits 2 on a missing file or an unknown flag", async () => {
    expect((await runKapi(["cel", "eval", "true", "--self", join(dir, "absent.yaml")])).code).toBe(2);
    expect((await runKapi(["cel", "eval", "true", "--schema", join(dir, "absent.yaml")])).code).toBe(2);
    expect((await runKapi(["cel", "eval", "true", "--nope"])).code).toBe(2);
  });
});

const crd = (maxItems?: number) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              x-tier: {type: string, maxLength: 20}
              tags:
                type: array
                ${maxItems ? `maxItems: ${maxItems}` : ""}
                items: {type: string, maxLength: 10}
`;

describe("kapi cel check", () => {
  it("prints the result type and the estimated cost of a rule against a CRD's schema", async () => {
    const schema = file("bounded.yaml", crd(10));
    const r = await runKapi(["cel", "check", "self.spec.tags.all(t, t.size() < 5) && self.metadata.name != ''", "--schema", schema]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("type: bool");
    expect(lines[1]).toMatch(/^estimated cost: (\d+\.\.)?\d+$/);
    expect(lines.at(-1)).toBe("ok");
  });

  it("exits 1 when the estimate is over the per-rule limit, with upstream's message", async () => {
    const schema = file("unbounded.yaml", crd());
    const r = await runKapi(["cel", "check", "self.spec.tags.all(a, self.spec.tags.all(b, a != b || a == b))", "--schema", schema]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/estimated rule cost exceeds budget by factor of/);
  });

  it("exits 1 on a type error, naming the position", async () => {
    const schema = file("types.yaml", crd(10));
    const r = await runKapi(["cel", "check", "self.spec.replicas + 'x' > 0", "--schema", schema]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ERROR: <input>:1:20: found no matching overload for '_+_' applied to '(int, string)'");
  });

  it("eval types self from --schema: escaped names, and int fields stay ints", async () => {
    const schema = file("eval-schema.yaml", crd(10));
    const self = file("widget.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 2, x-tier: gold, tags: [a]}\n");
    const r = await runKapi(["cel", "eval", "[self.spec.x__dash__tier, string(self.spec.replicas * 2)]", "--self", self, "--schema", schema]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe('["gold", "4"]');
  });

  it("exits 2 when check has no --schema", async () => {
    expect((await runKapi(["cel", "check", "true"])).code).toBe(2);
  });
});
