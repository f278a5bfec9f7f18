// The certificates.k8s.io admission plugins of kube-apiserver 1.34.
export { certificateApproval } from "./approval.js";
export { certificateSigning } from "./signing.js";
export { certificateSubjectRestriction } from "./subject-restriction.js";
export { clusterTrustBundleAttest } from "./ctb-attest.js";
