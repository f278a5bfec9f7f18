import { describe, expect, it } from "vitest";
import { parseServeFlags } from "../flags.js";
import { chooseStorage } from "./storage-choice.js";

const standIns = (...urls: string[]) => async (u: string) => urls.includes(u);

describe("chooseStorage", () => {
  it("without --etcd-servers: sqlite by default, memory when asked, etcd3 needs servers", async () => {
    const d = parseServeFlags([]);
    await chooseStorage(d, standIns());
    expect(d.storageBackend).toBe("sqlite");
    const m = parseServeFlags(["--storage-backend=memory"]);
    await chooseStorage(m, standIns());
    expect(m.storageBackend).toBe("memory");
    await expect(chooseStorage(parseServeFlags(["--storage-backend=etcd3"]), standIns())).rejects.toThrow("--etcd-servers must be specified");
  });

  it("--etcd-servers naming kapi's stand-in: memory, kapi's files in --cert-dir unless --data-dir is given", async () => {
    const f = parseServeFlags(["--etcd-servers=http://127.0.0.1:1,http://127.0.0.1:2", "--cert-dir=/tmp/c"]);
    await chooseStorage(f, standIns("http://127.0.0.1:1", "http://127.0.0.1:2"));
    expect([f.storageBackend, f.dataDir]).toEqual(["memory", "/tmp/c"]);
    const g = parseServeFlags(["--etcd-servers=http://127.0.0.1:1", "--cert-dir=/tmp/c", "--data-dir=/tmp/d"]);
    await chooseStorage(g, standIns("http://127.0.0.1:1"));
    expect(g.dataDir).toBe("/tmp/d");
  });

  it("real etcd servers: the etcd3 backend; refuses the stand-in mixed with a real etcd, and --etcd-servers with another backend", async () => {
    const real = parseServeFlags(["--etcd-servers=http://10.0.0.8:2379,https://10.0.0.9:2379"]);
    await chooseStorage(real, standIns());
    expect([real.storageBackend, real.etcdServers]).toEqual(["etcd3", ["http://10.0.0.8:2379", "https://10.0.0.9:2379"]]);
    await expect(chooseStorage(parseServeFlags(["--etcd-servers=http://127.0.0.1:1,http://10.0.0.9:2379"]), standIns("http://127.0.0.1:1"))).rejects.toThrow(
      "--etcd-servers: kapi's etcd stand-in cannot be listed together with a real etcd",
    );
    await expect(chooseStorage(parseServeFlags(["--etcd-servers=http://127.0.0.1:1", "--storage-backend=sqlite"]), standIns("http://127.0.0.1:1"))).rejects.toThrow("--etcd-servers needs --storage-backend=etcd3");
  });

  it("--allow-privileged=false is refused; --advertise-address is accepted", () => {
    expect(() => parseServeFlags(["--allow-privileged=false"])).toThrow("--allow-privileged=false is not supported");
    expect(() => parseServeFlags(["--allow-privileged=true", "--advertise-address=127.0.0.1"])).not.toThrow();
  });
});
