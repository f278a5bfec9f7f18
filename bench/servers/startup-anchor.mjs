// Anchor for start-up: the least a durable HTTPS API server must do before /readyz can answer
// 200 — start node, open the SQLite file (WAL, synchronous=FULL, one query), listen with TLS.
// Plain .mjs run by bare node (no TypeScript loader), exactly like kapi's built CLI.
// Usage: node startup-anchor.mjs <db path> <cert dir> <port>
import { readFileSync } from "node:fs";
import { createSecureServer } from "node:http2";
import { join } from "node:path";

const [dbPath, certDir, port] = process.argv.slice(2);
const db = await openSqlite(dbPath);
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = FULL");
db.prepare("SELECT count(*) FROM sqlite_master").get();
const r = (f) => readFileSync(join(certDir, f), "utf8");
const server = createSecureServer({
  cert: r("apiserver.crt"),
  key: r("apiserver.key"),
  ca: r("client-ca.crt"),
  requestCert: true,
  rejectUnauthorized: false,
  allowHTTP1: true,
  ALPNProtocols: ["h2", "http/1.1"],
});
// One compatibility-API handler for both protocols: per-request speed does not matter here.
server.on("request", (req, res) => {
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
  res.end("ok");
});
server.listen(Number(port), "127.0.0.1");
process.on("SIGTERM", () => {
  server.close();
  db.close();
  process.exit(0);
});

/** The SQLite kapi itself prefers on this Node: node:sqlite where it loads, else better-sqlite3. */
async function openSqlite(path) {
  try {
    const { DatabaseSync } = await import("node:sqlite");
    return new DatabaseSync(path);
  } catch {
    const { default: Database } = await import("better-sqlite3");
    return new Database(path);
  }
}
