// --token-auth-file: CSV rows `token,user,uid[,"group1,group2"]`, read once at start, as
// kube-apiserver reads it (Go's encoding/csv: fields are not trimmed, `"` quotes a field and `""`
// inside it is a quote, blank lines are skipped, there are no comment lines). A row with fewer
// than 3 columns or a quoting error stops start-up, naming the line; an empty token is skipped
// with a warning; a repeated token: the later row wins (with a warning); groups split on ",".
import { readFileSync } from "node:fs";
import { bearerToken, type Authenticator } from "./authenticator.js";
import type { UserInfo } from "../apimachinery/user.js";

/** One CSV record (Go's encoding/csv rules); throws Go's parse error texts. */
export function parseCsvLine(line: string, lineNo = 1): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      // Quoted field: runs to the closing quote, which must end the field.
      let cur = "";
      i++;
      for (;;) {
        if (i >= line.length) throw new Error(`record on line ${lineNo}; parse error on line ${lineNo + 1}, column 0: extraneous or missing " in quoted-field`);
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            cur += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        cur += line[i++];
      }
      if (i < line.length && line[i] !== ",") throw new Error(`parse error on line ${lineNo}, column ${Buffer.byteLength(line.slice(0, i)) + 1}: extraneous or missing " in quoted-field`);
      out.push(cur);
    } else {
      const end = line.indexOf(",", i);
      const field = end < 0 ? line.slice(i) : line.slice(i, end);
      const q = field.indexOf('"');
      if (q >= 0) throw new Error(`parse error on line ${lineNo}, column ${Buffer.byteLength(line.slice(0, i + q)) + 1}: bare " in non-quoted-field`);
      out.push(field);
      i = end < 0 ? line.length : end;
    }
    if (i >= line.length) return out;
    i++; // the comma
    if (i >= line.length) {
      out.push("");
      return out;
    }
  }
}

export function parseTokenFile(text: string, fileName = "token file", warn: (msg: string) => void = (m) => console.warn(m)): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  let recordNum = 0;
  text.split("\n").forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line === "") return;
    const rec = parseCsvLine(line, i + 1);
    if (rec.length < 3) throw new Error(`token file '${fileName}' must have at least 3 columns (token, user name, user uid), found ${rec.length} (line ${i + 1})`);
    recordNum++;
    const [token, name, uid, groups] = rec;
    if (!token) {
      warn(`empty token has been found in token file '${fileName}', record number '${recordNum}'`);
      return;
    }
    if (tokens.has(token)) warn(`duplicate token has been found in token file '${fileName}', record number '${recordNum}'`);
    tokens.set(token, { name: name!, uid: uid!, groups: groups !== undefined ? groups.split(",") : [] });
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
