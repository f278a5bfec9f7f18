// What went wrong reaching a backend, told as Go's net and crypto/tls packages tell it: upstream's
// Statuses quote those errors ("error dialing backend: dial tcp 10.0.0.1:10250: connect:
// connection refused"), and clients and people match on the text. Pure: Node's error codes in,
// Go's words out.

/** Why a proxied request failed, and whether the backend was ever reached. */
export class BackendError extends Error {
  override name = "BackendError";
  constructor(
    message: string,
    /** The connection (or its TLS handshake) never came up: nothing reached the backend. */
    readonly dial: boolean,
  ) {
    super(message);
  }
}

/** host:port as Go prints a dialed address (IPv6 in brackets). */
export function dialAddress(hostname: string, port: number): string {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

const connectReasons: Record<string, string> = {
  ECONNREFUSED: "connect: connection refused",
  EHOSTUNREACH: "connect: no route to host",
  ENETUNREACH: "connect: network is unreachable",
  EADDRNOTAVAIL: "connect: cannot assign requested address",
  ECONNRESET: "read: connection reset by peer",
  EPIPE: "write: broken pipe",
};

const unknownAuthority = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
]);

/** A failure to connect to hostname:port (before or during the TLS handshake), in Go's words. */
export function dialFailure(err: NodeJS.ErrnoException | Error, hostname: string, port: number): BackendError {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  // Go names the address it dialed: a host name's resolved IP, which Node's connect error carries.
  const address = dialAddress((err as { address?: string }).address ?? hostname, port);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new BackendError(`dial tcp: lookup ${hostname}: no such host`, true);
  if (code === "ETIMEDOUT" || err instanceof DialTimeoutError) return new BackendError(`dial tcp ${address}: i/o timeout`, true);
  if (unknownAuthority.has(code)) return new BackendError("tls: failed to verify certificate: x509: certificate signed by unknown authority", true);
  if (code === "CERT_HAS_EXPIRED") return new BackendError("tls: failed to verify certificate: x509: certificate has expired or is not yet valid", true);
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") return new BackendError(`tls: failed to verify certificate: x509: ${err.message}`, true);
  const reason = connectReasons[code];
  if (reason) return new BackendError(`dial tcp ${address}: ${reason}`, true);
  return new BackendError(`dial tcp ${address}: ${err.message}`, true);
}

/** A failure after the connection was up (the backend hung up, answered garbage). */
export function exchangeFailure(err: NodeJS.ErrnoException | Error, hostname: string, port: number): BackendError {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  if (code === "ECONNRESET" || code === "EPIPE") return new BackendError(`read tcp ${dialAddress(hostname, port)}: ${connectReasons[code]}`, false);
  // Node's "socket hang up": the backend closed before answering (Go's unexpected EOF).
  if (err.message === "socket hang up") return new BackendError("EOF", false);
  return new BackendError(err.message, false);
}

/** The dial did not complete within its timeout. */
export class DialTimeoutError extends Error {
  override name = "DialTimeoutError";
  constructor() {
    super("i/o timeout");
  }
}
