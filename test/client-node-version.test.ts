// The client-facing tests run against the client-node major vitest.config.ts chose: check that
// the import really is that package, so a run meant for 2.x cannot silently test 1.x.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { chooseClientNode, clientNodePackage } from "./support/client-node-choice.js";

const require = createRequire(import.meta.url);
function installedMajor(pkg: string): number {
  // Both majors are ESM with no "exports" map, so package.json sits beside the resolved main's folder.
  const main = require.resolve(pkg);
  const pj = JSON.parse(readFileSync(main.replace(/dist\/index\.js$/, "package.json"), "utf8"));
  return Number(pj.version.split(".")[0]);
}

describe("client-node under test", () => {
  it("is the major this run chose", () => {
    const major = Number(process.env.KAPI_TEST_CLIENT_NODE);
    expect([1, 2]).toContain(major);
    expect(installedMajor(clientNodePackage[major as 1 | 2])).toBe(major);
    // 1.x re-exports node-fetch's FetchError; 2.x (undici) dropped it.
    expect("FetchError" in k8s).toBe(major === 1);
  });

  it("chooses 2.x on Node >= 22.19 unless told, and refuses 2.x below it", () => {
    expect(chooseClientNode(undefined, "20.20.2")).toBe(1);
    expect(chooseClientNode(undefined, "22.18.9")).toBe(1);
    expect(chooseClientNode("", "22.19.0")).toBe(2);
    expect(chooseClientNode(undefined, "24.21.0")).toBe(2);
    expect(chooseClientNode("1", "24.21.0")).toBe(1);
    expect(() => chooseClientNode("2", "20.20.2")).toThrow(/needs Node >= 22.19.0; this is Node 20.20.2/);
    expect(() => chooseClientNode("3", "24.21.0")).toThrow(/CLIENT_NODE must be 1 or 2/);
  });
});
