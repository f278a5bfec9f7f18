// --token-auth-file: CSV rows `token,user,uid[,"group1,group2"]`. Read once at start.
import { readFileSync } from "node:fs";
import { bearerToken, type Authenticator } from "./authenticator.js";
import type { UserInfo } from "./user.js";

export function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim());
}

export function parseTokenFile(text: string, fileName = "token file"): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const rec = parseCsvLine(line);
    if (rec.length < 3) throw new Error(`${fileName}: line ${i + 1}: token file must have at least 3 columns (token, user name, user uid), found ${rec.length}`);
    const [token, name, uid, groups] = rec;
    if (!token) throw new Error(`${fileName}: line ${i + 1}: empty token`);
    if (tokens.has(token)) console.warn(`${fileName}: line ${i + 1}: duplicate token; the later one wins`);
    tokens.set(token, { name, uid, groups: groups ? groups.split(",").map((g) => g.trim()).filter(Boolean) : [] });
  });
  return tokens;
}

export function tokenFileAuthenticator(path: string): Authenticator {
  const tokens = parseTokenFile(readFileSync(path, "utf8"), path);
  return {
    name: "token-file",
    authenticate(req) {
      const token = bearerToken(req);
      if (!token) return undefined;
      const user = tokens.get(token);
      return user ? { user: { ...user, groups: [...user.groups] } } : undefined;
    },
  };
}
