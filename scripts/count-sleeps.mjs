#!/usr/bin/env node
// Counts the fixed sleeps of kapi's own suite: `setTimeout(r, N)` promises and `sleep(N)` calls
// with a literal N, in test/ (support included) and the unit tests (src/**/*.test.ts,
// *.testkit.ts). A sleep is a poll's interval when a loop (`for (` / `while (`) opens on its line
// or within the six lines before it; otherwise it is a one-off sleep.
//
//   node scripts/count-sleeps.mjs [git-ref] [--list]
//
// With a ref (e.g. `main`), the files are read as they are at that commit.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const list = args.includes("--list");
const ref = args.find((a) => !a.startsWith("--"));
const git = (...a) => execFileSync("git", a, { encoding: "utf8", maxBuffer: 64 << 20 });

const files = (ref ? git("ls-tree", "-r", "--name-only", ref, "test", "src") : git("ls-files", "test", "src"))
  .split("\n")
  .filter((f) => (f.startsWith("test/") && f.endsWith(".ts")) || /^src\/.*\.(test|testkit)\.ts$/.test(f));

const number = String.raw`(\d[\d_]*)`;
const patterns = [
  new RegExp(String.raw`setTimeout\(\s*(?:r|res|resolve)\s*,\s*${number}\s*\)`, "g"),
  new RegExp(String.raw`\bsleep\(\s*${number}\s*\)`, "g"),
];

// A sleep whose length is computed (a helper's interval, "until just past an expiry") is counted apart.
const computed = [
  /setTimeout\(\s*(?:r|res|resolve)\s*,(?!\s*\d)[^)]+\)/g,
  /\bsleep\((?!\s*\d|ms: number)[^)]+\)/g,
];
let computedN = 0;
let oneOff = { n: 0, ms: 0 };
let poll = { n: 0, ms: 0 };
const rows = [];
for (const f of files) {
  let text;
  try {
    text = ref ? git("show", `${ref}:${f}`) : readFileSync(f, "utf8");
  } catch {
    continue; // in the index, deleted in the worktree
  }
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return;
    for (const re of computed) {
      for (const m of line.matchAll(re)) {
        if (/=>\s*new Promise|const sleep|function sleep/.test(line)) continue; // a sleep helper's own definition
        computedN++;
        rows.push(`${f}:${i + 1}\tcomputed\t${m[0]}`);
      }
    }
    for (const re of patterns) {
      for (const m of line.matchAll(re)) {
        const ms = Number(m[1].replaceAll("_", ""));
        const looped = lines.slice(Math.max(0, i - 6), i + 1).some((l) => /\b(for|while)\s*\(/.test(l));
        const bucket = looped ? poll : oneOff;
        bucket.n++;
        bucket.ms += ms;
        rows.push(`${f}:${i + 1}\t${looped ? "poll" : "once"}\t${ms}`);
      }
    }
  });
}
if (list) console.log(rows.join("\n"));
const s = (b) => `${b.n} (${(b.ms / 1000).toFixed(1)} s)`;
console.log(`${ref ?? "worktree"}: ${oneOff.n + poll.n} sleeps, ${((oneOff.ms + poll.ms) / 1000).toFixed(1)} s in all; one-off ${s(oneOff)}, poll intervals ${s(poll)}; ${computedN} of a computed length`);
