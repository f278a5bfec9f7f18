// The etcd3 storage backend's flags and their checks; the backend itself is opened by the core
// (server/core.ts) and loaded only when it is the one chosen.
import { etcdFlags } from "./etcd-flags.js";
import type { FeatureModule } from "./feature-module.js";

export function etcdStorageFeature(): FeatureModule {
  return {
    name: "etcd",
    flags: etcdFlags,
    checkFlags: (o) => {
      if (o.storageBackend !== "etcd3") return;
      if (o.etcdServers.length === 0) throw new Error("--etcd-servers must be specified");
      if (!!o.etcd.certFile !== !!o.etcd.keyFile) throw new Error("--etcd-certfile and --etcd-keyfile must be given together");
    },
  };
}
