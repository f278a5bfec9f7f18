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
    expect((await runKapi(["cel", "eval", "true", "--schema", "x"])).code).toBe(2);
  });
});
