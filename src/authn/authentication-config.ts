// --authentication-config: the structured AuthenticationConfiguration file: `anonymous`
// (enabled + path conditions) and `jwt` authenticators (read strictly here; validated and built
// by src/authn/jwt-authenticator/, which also reloads the file when it changes).
import { readFileSync } from "node:fs";
import { yaml } from "../encoding/yaml-lazy.js";
import { ConfigDecodeError, readJwtList, type JwtAuthenticatorSpec } from "./jwt-authenticator/config.js";
import { goQuote } from "../apimachinery/go-quote.js";

export interface AuthenticationConfig {
  anonymous?: { enabled: boolean; paths: string[] };
  /** The jwt authenticators, as written (validation is the JWT module's). */
  jwt: JwtAuthenticatorSpec[];
  /** The file's text (its hash is a metric label; reloads compare it). */
  data: string;
}

const apiVersions = new Set(["apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1alpha1"]);

export function parseAuthenticationConfig(text: string, file: string): AuthenticationConfig {
  if (text.length === 0) throw new Error(`failed to load authentication configuration from file ${goQuote(file)}: empty config data`);
  let doc: Record<string, any> | null;
  try {
    doc = yaml().parse(text) as Record<string, any> | null;
  } catch (e) {
    throw new Error(`failed to load authentication configuration from file ${goQuote(file)}: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== "object") throw new Error(`${file}: empty authentication configuration`);
  if (doc.kind !== "AuthenticationConfiguration" || !apiVersions.has(doc.apiVersion)) {
    throw new Error(`${file}: expected kind AuthenticationConfiguration of apiserver.config.k8s.io/v1, got ${doc.apiVersion}/${doc.kind}`);
  }
  let jwt: JwtAuthenticatorSpec[];
  try {
    jwt = readJwtList(doc.jwt);
  } catch (e) {
    if (e instanceof ConfigDecodeError) throw new Error(`failed to load authentication configuration from file ${goQuote(file)}: ${e.message}`);
    throw e;
  }
  const out: AuthenticationConfig = { jwt, data: text };
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
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === "ENOENT" ? "no such file or directory" : err.code === "EACCES" ? "permission denied" : err.message;
    throw new Error(`failed to load authentication configuration from file ${goQuote(file)}: open ${file}: ${why}`);
  }
  return parseAuthenticationConfig(text, file);
}
