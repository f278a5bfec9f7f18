// Which group-resource a storage key belongs to, by the key prefixes of the served types (the
// encryption configuration names resources as they are stored: events of events.k8s.io are kept
// with the core group's). Follows the type registry, so custom resources count once served.
import type { GroupResource } from "../apimachinery/errors.js";
import type { TypeRegistry } from "./type-registry.js";

export function resourceOfKey(types: TypeRegistry): (key: string) => GroupResource | undefined {
  let byPrefix: Map<string, GroupResource> | undefined;
  types.subscribe(() => (byPrefix = undefined));
  const table = () => {
    const m = new Map<string, GroupResource>();
    // A type whose prefix is its own comes first; one stored under another's prefix does not rename it.
    const all = types.all();
    const own = (g: string, r: string) => `/registry/${g ? `${g}/` : ""}${r}/`;
    for (const t of all) if (t.keyPrefix === own(t.group, t.resource)) m.set(t.keyPrefix, { group: t.group, resource: t.resource });
    for (const t of all) if (!m.has(t.keyPrefix)) m.set(t.keyPrefix, { group: t.group, resource: t.resource });
    return m;
  };
  return (key) => {
    byPrefix ??= table();
    // Prefixes are /registry/<resource>/ or /registry/<group>/<resource>/: the key's first two or three segments.
    let end = key.indexOf("/", "/registry/".length);
    for (let i = 0; i < 2 && end > 0; i++) {
      const gr = byPrefix.get(key.slice(0, end + 1));
      if (gr) return gr;
      end = key.indexOf("/", end + 1);
    }
    return undefined;
  };
}
