// The --oidc-* flags as the CLI parses them (pflag's rules: repeated slices append, key=value pairs).
import { describe, expect, it } from "vitest";
import { parseServeFlags } from "../../cli/flags.js";

describe("--oidc-* flags", () => {
  it("parse into the options, marking that OIDC flags were given", () => {
    const o = parseServeFlags([
      "--oidc-issuer-url=https://issuer.example",
      "--oidc-client-id",
      "kapi",
      "--oidc-ca-file=/etc/oidc-ca.pem",
      "--oidc-username-claim=email",
      "--oidc-username-prefix=-",
      "--oidc-groups-claim=groups",
      "--oidc-groups-prefix=oidc:",
      "--oidc-signing-algs=RS256,ES256",
      "--oidc-signing-algs=PS256",
      "--oidc-required-claim=hd=example.com",
      "--oidc-required-claim=tier=gold=1",
    ]);
    expect(o).toMatchObject({
      oidcIssuerURL: "https://issuer.example",
      oidcClientID: "kapi",
      oidcCAFile: "/etc/oidc-ca.pem",
      oidcUsernameClaim: "email",
      oidcUsernamePrefix: "-",
      oidcGroupsClaim: "groups",
      oidcGroupsPrefix: "oidc:",
      oidcSigningAlgs: ["RS256", "ES256", "PS256"],
      oidcRequiredClaims: { hd: "example.com", tier: "gold=1" },
      oidcFlagsSet: true,
    });
    expect(parseServeFlags([]).oidcFlagsSet).toBeUndefined();
  });

  it("refuse a required claim without '='", () => {
    expect(() => parseServeFlags(["--oidc-required-claim=hd"])).toThrow('invalid argument "hd" for "--oidc-required-claim" flag: malformed pair, expect string=string');
  });
});
