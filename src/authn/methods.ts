// Wiring of the request header, client certificate and token webhook methods from the server
// options, in kube-apiserver's union order: request header, x509, then the bearer-token methods
// (token file, service accounts, bootstrap tokens, JWT — added by start-up between `leading` and
// `trailing`), the webhook last. Also the CA bundle the TLS layer asks client certificates from.
import type { FeatureGates } from "../apimachinery/feature-gates.js";
import { joinPemBundles } from "../apimachinery/pem.js";
import type { Authenticator } from "./authenticator.js";
import type { Family } from "../observability/metric-family.js";
import { requestHeaderFromFlags, type RequestHeaderFlags } from "./requestheader/index.js";
import { webhookFromFlags, type WebhookFlags } from "./webhook/index.js";
import { x509Authenticator } from "./x509.js";

export interface AuthenticationMethods {
  /** Request header, then x509. */
  leading: Authenticator[];
  /** The token webhook (after every other token method). */
  trailing: Authenticator[];
  /** --client-ca-file's bundle plus --requestheader-client-ca-file's, for the TLS handshake. */
  tlsClientCA: string;
  /** The token webhook's cache metric families (none without a webhook). */
  families: Family<unknown>[];
}


export function authenticationMethods(
  o: RequestHeaderFlags & WebhookFlags,
  clientCA: string,
  opts: { gates?: FeatureGates; apiAudiences?: readonly string[]; log?: (msg: string) => void } = {},
): AuthenticationMethods {
  if ((o.requestheaderUIDHeaders ?? []).length > 0 && opts.gates && !opts.gates.enabled("RemoteRequestHeaderUID")) {
    throw new Error('--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled');
  }
  const rh = requestHeaderFromFlags(o);
  const webhook = webhookFromFlags(o, opts.apiAudiences ?? [], opts.log);
  return {
    leading: [...(rh.authenticator ? [rh.authenticator] : []), x509Authenticator(clientCA)],
    trailing: webhook ? [webhook] : [],
    tlsClientCA: joinPemBundles(clientCA, rh.clientCA ?? ""),
    families: webhook ? webhook.cache.metrics.families : [],
  };
}
