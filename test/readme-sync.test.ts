// The README's examples cannot rot: its TypeScript controller test is test/readme-example.test.ts,
// which the suite runs, and its Python example is docs/testing.md's. These fail when a copy and
// its source part ways.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

/** The file from its first import on, importing kapi by package name as a reader's project does. */
function readmeForm(testFile: string): string {
  const start = testFile.search(/^import /m);
  if (start < 0) throw new Error("test/readme-example.test.ts has no import");
  return testFile.slice(start).replaceAll('from "../src/index.js"', 'from "kapi"');
}

/** The first ```LANG block after `after` in a markdown text. */
function blockAfter(markdown: string, after: string, lang: string): string {
  const at = markdown.indexOf(after);
  if (at < 0) throw new Error(`no "${after}" in the markdown`);
  const m = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "m").exec(markdown.slice(at + after.length));
  if (!m) throw new Error(`no \`\`\`${lang} block after "${after}"`);
  return m[1]!;
}

it("the README's controller test is test/readme-example.test.ts (with \"kapi\" for \"../src/index.js\")", () => {
  const file = "test/readme-example.test.ts";
  expect(blockAfter(read("README.md"), `<!-- mirrors ${file} -->`, "ts")).toBe(readmeForm(read(file)));
});

it("the README's Python example is docs/testing.md's", () => {
  expect(blockAfter(read("README.md"), "### Python\n", "python")).toBe(blockAfter(read("docs/testing.md"), "### From Python\n", "python"));
});
