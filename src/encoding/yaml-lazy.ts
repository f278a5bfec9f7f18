// The YAML library, loaded on first use: most servers never see a YAML body, and start-up time
// is a feature.
import { lazyPackage } from "../apimachinery/package-files.js";

export const yaml = lazyPackage<typeof import("yaml")>("yaml");

/**
 * Paths of duplicated mapping keys in the first YAML document, in the same notation as
 * duplicateJsonKeys (`spec.replicas`, `a[0].b`). YAML 1.2 forbids them; Kubernetes reports them
 * through field validation instead of failing the parse.
 */
export function duplicateYamlKeys(text: string): string[] {
  const y = yaml();
  const doc = y.parseDocument(text, { uniqueKeys: false });
  const out: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (y.isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = y.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const child = path ? `${path}.${key}` : key;
        if (seen.has(key)) out.push(child);
        seen.add(key);
        walk(pair.value, child);
      }
    } else if (y.isSeq(node)) {
      node.items.forEach((item, i) => walk(item, `${path}[${i}]`));
    }
  };
  walk(doc.contents, "");
  return out;
}
