// PEM (RFC 7468) as kapi reads and writes it: the blocks of a text (certificate bundles, key
// files, CSRs, CA bundles), one block written from DER, and bundles joined. The one place that
// knows the armor lines; what a block holds (a certificate, a key) is its reader's business.

export interface PemBlock {
  /** The label, e.g. `CERTIFICATE`, `RSA PRIVATE KEY`. */
  readonly type: string;
  /** The whole block, armor lines included: what node:crypto's PEM readers take. */
  readonly text: string;
  /** What stands between the armor lines, as written (base64 and line breaks). */
  readonly body: string;
}

// The label is what stands between "-----BEGIN " and "-----" on its line; END must repeat it.
const blockPattern = /-----BEGIN ([^-\r\n]+)-----([\s\S]*?)-----END \1-----/g;

/** Every block of `text`, in order; text around and between blocks is ignored. */
export function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(blockPattern)].map((m) => ({ type: m[1]!, text: m[0], body: m[2]! }));
}

/** The DER bytes a block's body encodes (line breaks and spaces dropped). */
export function pemBytes(block: PemBlock): Buffer<ArrayBuffer> {
  return Buffer.from(block.body.replace(/\s+/g, ""), "base64");
}

/** One block of `type` over `der`, 64 base64 characters a line, ending in a newline. */
export function encodePem(type: string, der: ArrayBuffer | Uint8Array): string {
  const b64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  return `-----BEGIN ${type}-----\n${b64}\n-----END ${type}-----\n`;
}

/** Two PEM bundles as one, with a line break between them where the first lacks one. */
export function joinPemBundles(a: string, b: string): string {
  return !b ? a : !a ? b : a.endsWith("\n") ? a + b : `${a}\n${b}`;
}
