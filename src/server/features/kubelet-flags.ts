// kube-apiserver's flags for reaching kubelets (pods/log, exec, attach, portforward, nodes/proxy):
// the client certificate and key kapi presents, the CA the kubelet's serving certificate must
// chain to (none: not verified, upstream's default), and which node address to dial.
import { readFileSync } from "node:fs";
import type { KubeletClientConfig } from "../../handlers/kubelet-connection.js";
import { defaultPreferredAddressTypes } from "../../types/node-address.js";
import { listFlag, type FlagSpec } from "../flag-spec.js";
import type { ServerOptions } from "../options.js";

export interface KubeletFlags {
  kubeletClientCertificate?: string;
  kubeletClientKey?: string;
  kubeletCertificateAuthority?: string;
  kubeletPreferredAddressTypes?: string[];
}

export const kubeletFlags: readonly FlagSpec[] = [
  { name: "kubelet-certificate-authority", kind: "string", default: "", help: "Path to a cert file for the certificate authority.", apply: (o, v) => (o.kubeletCertificateAuthority = v || undefined) },
  { name: "kubelet-client-certificate", kind: "string", default: "", help: "Path to a client cert file for TLS.", apply: (o, v) => (o.kubeletClientCertificate = v || undefined) },
  { name: "kubelet-client-key", kind: "string", default: "", help: "Path to a client key file for TLS.", apply: (o, v) => (o.kubeletClientKey = v || undefined) },
  {
    name: "kubelet-preferred-address-types",
    kind: "list",
    default: `[${defaultPreferredAddressTypes.join(",")}]`,
    help: "List of the preferred NodeAddressTypes to use for kubelet connections.",
    apply: (o, v) => (o.kubeletPreferredAddressTypes = listFlag(v)),
  },
];

/** kube-apiserver's --kubelet-port default (a node that reports no kubelet port is dialled here). */
const defaultKubeletPort = 10250;

/** The kubelet client the flags describe (their files read now: a missing one refuses the start). */
export function kubeletClientConfig(o: ServerOptions): KubeletClientConfig {
  const read = (f: string | undefined) => (f ? readFileSync(f, "utf8") : undefined);
  return {
    preferredAddressTypes: o.kubeletPreferredAddressTypes ?? defaultPreferredAddressTypes,
    defaultPort: defaultKubeletPort,
    tls: { cert: read(o.kubeletClientCertificate), key: read(o.kubeletClientKey), ca: read(o.kubeletCertificateAuthority) },
  };
}
