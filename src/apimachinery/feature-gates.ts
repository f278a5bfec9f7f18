// --feature-gates: the gates kube-apiserver 1.34 knows that matter to an API server, with their
// 1.34 defaults. Unknown names and bad values are start-up errors naming them, as upstream.
import { parseGoBool } from "./booleans.js";
import { goQuote } from "./go-quote.js";

interface GateSpec {
  default: boolean;
  /** GA (or deprecated) gates locked to their default: setting the other value is an error. */
  locked?: boolean;
}

const known: Record<string, GateSpec> = {
  APIResponseCompression: { default: true },
  APIListChunking: { default: true, locked: true },
  APIServerIdentity: { default: true },
  APIServerTracing: { default: true },
  AggregatedDiscoveryRemoveBetaType: { default: false },
  AllowInsecureKubeletCertificateSigningRequests: { default: false },
  AllowUnsafeMalformedObjectDeletion: { default: false },
  AnonymousAuthConfigurableEndpoints: { default: true, locked: true },
  AuthorizeNodeWithSelectors: { default: true, locked: true },
  AuthorizeWithSelectors: { default: true, locked: true },
  BtreeWatchCache: { default: true, locked: true },
  CBORServingAndStorage: { default: false },
  ClusterTrustBundle: { default: false },
  ConcurrentWatchObjectDecode: { default: false },
  ConsistentListFromCache: { default: true },
  CoordinatedLeaderElection: { default: false },
  CustomResourceFieldSelectors: { default: true, locked: true },
  DeclarativeValidation: { default: true },
  DeclarativeValidationTakeover: { default: false },
  DetectCacheInconsistency: { default: true },
  ExternalServiceAccountTokenSigner: { default: true },
  InPlacePodVerticalScaling: { default: true },
  KMSv1: { default: false },
  ListFromCacheSnapshot: { default: true },
  MutatingAdmissionPolicy: { default: false },
  OpenAPIEnums: { default: true },
  PodTopologyLabelsAdmission: { default: false },
  RecoverVolumeExpansionFailure: { default: true },
  RemoteRequestHeaderUID: { default: true },
  ResilientWatchCacheInitialization: { default: true },
  RetryGenerateName: { default: true, locked: true },
  SeparateCacheWatchRPC: { default: false },
  ServiceAccountNodeAudienceRestriction: { default: true },
  SizeBasedListCostEstimate: { default: true },
  StorageVersionAPI: { default: false },
  StorageVersionHash: { default: true },
  StrictCostEnforcementForVAP: { default: true, locked: true },
  StrictCostEnforcementForWebhooks: { default: true, locked: true },
  StructuredAuthenticationConfiguration: { default: true },
  StructuredAuthenticationConfigurationEgressSelector: { default: true },
  StructuredAuthorizationConfiguration: { default: true, locked: true },
  TokenRequestServiceAccountUIDValidation: { default: true },
  UnauthenticatedHTTP2DOSMitigation: { default: true },
  // Alpha in 1.34: PodSecurity relaxes runAsNonRoot, runAsUser and procMount for hostUsers=false pods.
  UserNamespacesPodSecurityStandards: { default: false },
  WatchCacheInitializationPostStartHook: { default: false },
  WatchFromStorageWithoutResourceVersion: { default: false },
  WatchList: { default: false },
  WatchListClient: { default: false },
  AllAlpha: { default: false },
  AllBeta: { default: false },
};

export class FeatureGates {
  private constructor(private readonly values: ReadonlyMap<string, boolean>) {}

  static parse(spec: string): FeatureGates {
    const values = new Map<string, boolean>();
    for (const item of spec.split(",").map((s) => s.trim()).filter(Boolean)) {
      const eq = item.indexOf("=");
      if (eq < 0) throw new Error(`--feature-gates: missing bool value for ${item}`);
      const name = item.slice(0, eq).trim();
      const raw = item.slice(eq + 1).trim();
      const gate = known[name];
      if (!gate) throw new Error(`--feature-gates: unrecognized feature gate: ${name}`);
      const value = parseGoBool(raw);
      if (value === undefined) throw new Error(`--feature-gates: invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing ${goQuote(raw)}: invalid syntax`);
      if (gate.locked && value !== gate.default) throw new Error(`--feature-gates: cannot set feature gate ${name} to ${value}, feature is locked to ${gate.default}`);
      values.set(name, value);
    }
    return new FeatureGates(values);
  }

  enabled(name: string): boolean {
    const gate = known[name];
    if (!gate) throw new Error(`feature gate ${name} is not registered`);
    return this.values.get(name) ?? gate.default;
  }
}
