// The layer rules of .dependency-cruiser.cjs, run by `npm test` over src/, catch a cycle between
// two folders and let an import that goes down pass. Each case cruises a two-file tree made in
// a temporary directory with the repository's own configuration.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "kapi-layers-"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true }, include: ["src"] }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const r = spawnSync(process.execPath, [join(repo, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"), "src", "--config", join(repo, ".dependency-cruiser.cjs")], { cwd: dir, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

// Each case starts a cruise (a second or more on a loaded machine).
describe("the layer rules", { timeout: 30_000 }, () => {
  it("fail on a cycle between two folders, naming the import that goes up", () => {
    const r = cruise({
      "src/apimachinery/object.ts": 'import type { Store } from "../registry/store.js";\nexport type Held = Store;\nexport interface KObject { kind: string }\n',
      "src/registry/store.ts": 'import type { KObject } from "../apimachinery/object.js";\nexport interface Store { get(): KObject }\n',
    });
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("layer-machinery: src/apimachinery/object.ts → src/registry/store.ts");
  });

  it("fail on an import between two folders of one layer", () => {
    const r = cruise({
      "src/authn/user-of.ts": 'import type { Decision } from "../authz/decision.js";\nexport type D = Decision;\n',
      "src/authz/decision.ts": "export type Decision = boolean;\n",
    });
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("layer-identity: src/authn/user-of.ts → src/authz/decision.ts");
  });

  it("fail on a handler that reaches a storage backend", () => {
    const r = cruise({
      "src/handlers/read.ts": 'import { MemoryStorage } from "../storage/memory/memory-storage.js";\nexport const s = MemoryStorage;\n',
      "src/storage/memory/memory-storage.ts": "export class MemoryStorage {}\n",
    });
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("handlers-never-touch-a-backend");
  });

  it("pass imports that go down", () => {
    const r = cruise({
      "src/registry/store.ts": 'import type { KObject } from "../apimachinery/object.js";\nexport interface Store { get(): KObject }\n',
      "src/apimachinery/object.ts": "export interface KObject { kind: string }\n",
    });
    expect(r.output).toContain("no dependency violations found");
    expect(r.status).toBe(0);
  });
});
