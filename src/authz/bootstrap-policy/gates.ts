// Feature gates the bootstrap policy consults, with kube-apiserver 1.34's defaults (beta and GA
// on, alpha off). A gate kapi's --feature-gates knows is read from it; the others keep 1.34's
// default, since kapi serves those features (or not) exactly as 1.34 does by default.
import type { FeatureGates } from "../../apimachinery/feature-gates.js";

export const policyGateDefaults: Readonly<Record<string, boolean>> = {
  DynamicResourceAllocation: true, // GA in 1.34
  MultiCIDRServiceAllocator: true, // GA in 1.33
  SELinuxChangePolicy: true, // beta in 1.33, on
  VolumeAttributesClass: true, // GA in 1.34
  ClusterTrustBundle: false, // beta, off by default
  PodCertificateRequest: false, // alpha
  DRADeviceTaints: false, // alpha
  StorageVersionMigrator: false, // alpha
  StorageVersionAPI: false, // alpha
};

export type GateCheck = (name: string) => boolean;

export function policyGates(gates?: FeatureGates): GateCheck {
  return (name) => {
    if (gates) {
      try {
        return gates.enabled(name);
      } catch {
        // not a gate kapi's flag knows: 1.34's default below
      }
    }
    const d = policyGateDefaults[name];
    if (d === undefined) throw new Error(`bootstrap policy: unknown feature gate ${name}`);
    return d;
  };
}
