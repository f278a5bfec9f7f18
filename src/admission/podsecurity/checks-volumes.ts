// The volume checks: baseline forbids hostPath volumes; restricted allows only the volume
// types that carry no node or network storage of their own (and supersedes the hostPath check).
import { v1 } from "./api.js";
import { allowed, denied, joinQuote, pluralize, sortedSet, type Check } from "./check.js";

/** spec.volumes[*].hostPath must be unset. */
export const hostPathVolumes: Check = {
  id: "hostPathVolumes",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec) => {
        const bad = (spec.volumes ?? []).filter((v) => v.hostPath != null).map((v) => v.name);
        return bad.length > 0 ? denied("hostPath volumes", `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)}`) : allowed;
      },
    },
  ],
};

/** The volume sources restricted pods may use (image volumes since 1.33, in the same policy version). */
const allowedSources = ["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image", "persistentVolumeClaim", "projected", "secret"];

/** The restricted sources, in the order upstream names the first one a volume uses. */
const restrictedSources = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

export const restrictedVolumes: Check = {
  id: "restrictedVolumes",
  level: "restricted",
  versions: [
    {
      minimumVersion: v1(0),
      overrides: ["hostPathVolumes"],
      check: (_meta, spec) => {
        const bad: string[] = [];
        const types: string[] = [];
        for (const v of spec.volumes ?? []) {
          if (allowedSources.some((s) => v[s] != null)) continue;
          bad.push(v.name);
          types.push(restrictedSources.find((s) => v[s] != null) ?? "unknown");
        }
        if (bad.length === 0) return allowed;
        const distinct = sortedSet(types);
        return denied(
          "restricted volume types",
          `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("restricted volume type", "restricted volume types", distinct.length)} ${joinQuote(distinct)}`,
        );
      },
    },
  ],
};
