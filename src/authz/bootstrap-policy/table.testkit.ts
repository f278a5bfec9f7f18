// Reads testdata/upstream-1.34.txt (kapi's table of upstream's default RBAC objects).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { PolicyRule, Subject } from "./rules.js";

export interface TableRole {
  kind: "ClusterRole" | "Role";
  namespace: string;
  name: string;
  labels: Record<string, string>;
  aggregate?: string;
  rules: PolicyRule[];
}

export interface TableBinding {
  kind: "ClusterRoleBinding" | "RoleBinding";
  namespace: string;
  name: string;
  roleRef: { kind: string; name: string };
  subjects: Subject[];
}

const list = (s: string) => (s === "" ? [] : s.split(",").map((x) => (x === '""' ? "" : x)));

export function readTable(): { roles: TableRole[]; bindings: TableBinding[] } {
  const text = readFileSync(fileURLToPath(new URL("./testdata/upstream-1.34.txt", import.meta.url)), "utf8");
  const roles: TableRole[] = [];
  const bindings: TableBinding[] = [];
  let role: TableRole | undefined;
  let binding: TableBinding | undefined;
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trimEnd();
    if (!line || line.startsWith("#")) continue;
    const fail = () => new Error(`upstream-1.34.txt:${i + 1}: cannot read ${JSON.stringify(line)}`);
    if (!line.startsWith(" ")) {
      const words = line.split(" ");
      const [kind, full] = words;
      const slash = kind.startsWith("Role") ? full.indexOf("/") : -1;
      const namespace = slash >= 0 ? full.slice(0, slash) : "";
      const name = slash >= 0 ? full.slice(slash + 1) : full;
      role = binding = undefined;
      if (kind === "ClusterRole" || kind === "Role") {
        role = { kind, namespace, name, labels: {}, rules: [] };
        for (let w = 2; w < words.length; w += 2) {
          if (words[w] === "label") {
            const [k, v] = words[w + 1].split("=");
            role.labels[k] = v;
          } else if (words[w] === "aggregate") role.aggregate = words[w + 1];
          else throw fail();
        }
        roles.push(role);
      } else if (kind === "ClusterRoleBinding" || kind === "RoleBinding") {
        if (words[2] !== "->") throw fail();
        const [refKind, refName] = [words[3].slice(0, words[3].indexOf("/")), words[3].slice(words[3].indexOf("/") + 1)];
        binding = { kind, namespace, name, roleRef: { kind: refKind, name: refName }, subjects: [] };
        bindings.push(binding);
      } else throw fail();
      continue;
    }
    const [tag, rest] = [line.trim().slice(0, 1), line.trim().slice(2)];
    if (tag === "r" && role) {
      const [g, r, v, n] = rest.split("|");
      const rule: PolicyRule = { verbs: list(v), apiGroups: list(g), resources: list(r) };
      if (n) rule.resourceNames = list(n);
      role.rules.push(rule);
    } else if (tag === "u" && role) {
      const [u, v] = rest.split("|");
      role.rules.push({ verbs: list(v), nonResourceURLs: list(u) });
    } else if (tag === "s" && binding) {
      const [kind, who] = rest.split(" ");
      if (kind === "ServiceAccount") binding.subjects.push({ kind, namespace: who.split("/")[0], name: who.split("/")[1] });
      else binding.subjects.push({ kind: kind as "User" | "Group", apiGroup: "rbac.authorization.k8s.io", name: who });
    } else throw fail();
  }
  // controller bindings: one per controller role, to its service account
  for (const r of roles) {
    if (r.kind !== "ClusterRole" || !r.name.startsWith("system:controller:")) continue;
    bindings.push({
      kind: "ClusterRoleBinding", namespace: "", name: r.name, roleRef: { kind: "ClusterRole", name: r.name },
      subjects: [{ kind: "ServiceAccount", namespace: "kube-system", name: r.name.slice("system:controller:".length) }],
    });
  }
  return { roles, bindings };
}
