// The README's TypeScript controller test is test/readme-example.test.ts, which the suite runs:
// this fails when the README's copy and the file part ways, so the README cannot rot.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

/** The file from its first import on, importing kapi by package name as a reader's project does. */
function readmeForm(testFile: string): string {
  const start = testFile.search(/^import /m);
  if (start < 0) throw new Error("test/readme-example.test.ts has no import");
  return testFile.slice(start).replaceAll('from "../src/index.js"', 'from "kapi"');
}

/** The code block that follows `<!-- mirrors PATH -->` in a markdown text. */
function mirroredBlock(markdown: string, path: string): string {
  const marker = `<!-- mirrors ${path} -->`;
  const at = markdown.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no "${marker}"`);
  const m = /^```ts\n([\s\S]*?)^```$/m.exec(markdown.slice(at + marker.length));
  if (!m) throw new Error(`README.md has no \`\`\`ts block after "${marker}"`);
  return m[1]!;
}

it("the README's controller test is test/readme-example.test.ts (with \"kapi\" for \"../src/index.js\")", () => {
  const file = "test/readme-example.test.ts";
  expect(mirroredBlock(read("README.md"), file)).toBe(readmeForm(read(file)));
});
