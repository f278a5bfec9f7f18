// --authentication-config: the structured AuthenticationConfiguration file. This build honours
// `anonymous` (enabled + path conditions); JWT authenticators are refused at start-up until
// they are implemented, rather than silently ignored.
import { readFileSync } from "node:fs";
import { yaml } from "../encoding/yaml-lazy.js";

export interface AuthenticationConfig {
  anonymous?: { enabled: boolean; paths: string[] };
}

const apiVersions = new Set(["apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1alpha1"]);

export function parseAuthenticationConfig(text: string, file: string): AuthenticationConfig {
  const doc = yaml().parse(text) as Record<string, any> | null;
  if (!doc || typeof doc !== "object") throw new Error(`${file}: empty authentication configuration`);
  if (doc.kind !== "AuthenticationConfiguration" || !apiVersions.has(doc.apiVersion)) {
    throw new Error(`${file}: expected kind AuthenticationConfiguration of apiserver.config.k8s.io/v1, got ${doc.apiVersion}/${doc.kind}`);
  }
  if (Array.isArray(doc.jwt) && doc.jwt.length > 0) {
    throw new Error(`${file}: jwt authenticators are not supported yet by kapi`);
  }
  const out: AuthenticationConfig = {};
  if (doc.anonymous) {
    const conds = doc.anonymous.conditions ?? [];
    if (!Array.isArray(conds)) throw new Error(`${file}: anonymous.conditions must be a list`);
    const paths = conds.map((c: any, i: number) => {
      if (!c || typeof c.path !== "string" || !c.path) throw new Error(`${file}: anonymous.conditions[${i}].path: Required value`);
      return c.path as string;
    });
    if (paths.length > 0 && !doc.anonymous.enabled) throw new Error(`${file}: anonymous.conditions: Invalid value: enabled should be set to true when conditions are defined`);
    out.anonymous = { enabled: Boolean(doc.anonymous.enabled), paths };
  }
  return out;
}

export function loadAuthenticationConfig(file: string): AuthenticationConfig {
  return parseAuthenticationConfig(readFileSync(file, "utf8"), file);
}
