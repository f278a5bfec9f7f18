import { describe, expect, it } from "vitest";
import type { Authenticator } from "../../authn/authenticator.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { FeatureGates } from "../../apimachinery/feature-gates.js";
import type { TlsSetup } from "../tls-setup.js";
import type { Controller } from "../../controller-runtime/controller.js";
import type { FlagSpec } from "../flag-spec.js";
import { checkFeatureFlags, flagsOf, setUpFeatures, type CoreParts, type FeatureModule, type FeatureOptions, type ServingContext } from "./feature-module.js";

const options = {} as FeatureOptions;
const gates = {} as FeatureGates;
const core = { log: () => {} } as unknown as CoreParts;
const ctx = { options, gates, tls: {} as TlsSetup, certDir: undefined, core: () => core, servingPort: () => 6443, log: () => {} };
const authn = (name: string): Authenticator => ({ name, authenticate: () => undefined });
const plugin = (name: string): AdmissionPlugin => ({ name, validate: () => {} });

/** A controller that only records its stop. */
const stoppedBy = (stop: () => unknown): Controller => ({ name: "recorded", idle: () => true, whenIdle: async () => undefined, retrying: () => [], whenRetryDue: async () => undefined, stop: () => void stop() });

describe("feature modules", () => {
  it("checks flags in module order and stops at the first refusal", () => {
    const seen: string[] = [];
    const m = (name: string, bad = false): FeatureModule => ({
      name,
      checkFlags() {
        seen.push(name);
        if (bad) throw new Error(`${name}: bad flag`);
      },
    });
    expect(() => checkFeatureFlags([m("a"), m("b", true), m("c")], options, gates)).toThrow("b: bad flag");
    expect(seen).toEqual(["a", "b"]);
  });

  it("orders authenticators by the union's slots, whatever the module order", () => {
    const f = setUpFeatures(
      [
        { name: "webhook", setup: () => ({ authenticators: () => ({ "token-webhook": [authn("webhook")] }) }) },
        { name: "jwt", setup: () => ({ authenticators: () => ({ jwt: [authn("jwt")] }) }) },
        { name: "client", setup: () => ({ authenticators: () => ({ client: [authn("request-header"), authn("x509")] }) }) },
        { name: "sa", setup: () => ({ authenticators: () => ({ "service-account": [authn("sa")] }) }) },
      ],
      ctx,
    );
    expect(f.authenticators(core).map((a) => a.name)).toEqual(["request-header", "x509", "sa", "jwt", "webhook"]);
  });

  it("chains admission plugins, starts and stops controllers, and hands later modules the audiences earlier ones declared", () => {
    const events: string[] = [];
    let audiencesSeen: readonly string[] = [];
    const f = setUpFeatures(
      [
        { name: "first", setup: () => ({ apiAudiences: ["aud"], admissionPlugins: () => [plugin("guard")], controllers: () => [stoppedBy(() => events.push("stop first's controller"))] }) },
        {
          name: "second",
          setup: (c) => {
            audiencesSeen = c.apiAudiences;
            return { admissionPlugins: () => [plugin("named")], controllersOnceServing: () => [stoppedBy(() => events.push("stop later controller"))], stop: () => events.push("stop second") };
          },
        },
        { name: "no contribution" },
      ],
      ctx,
    );
    expect(audiencesSeen).toEqual(["aud"]);
    expect(f.apiAudiences).toEqual(["aud"]);
    expect(f.names()).toEqual(["first", "second", "no contribution"]);
    expect(f.admissionPlugins({} as never).map((p) => p.name)).toEqual(["guard", "named"]);
    f.startControllers(core);
    f.startControllersOnceServing(core);
    f.stop();
    expect(events).toEqual(["stop second", "stop first's controller", "stop later controller"]);
  });

  it("refuses two features claiming one subresource, one authorization mode or one single value", () => {
    const sub = (name: string): FeatureModule => ({ name, setup: () => ({ storages: () => [{ anyType: true, subresource: "scale", storage: {} }] }) });
    expect(() => setUpFeatures([sub("a"), sub("b")], ctx).storages({} as ServingContext)).toThrow("feature b: */*/scale already has a storage");
    const mode = (name: string): FeatureModule => ({ name, setup: () => ({ authorizationModes: () => ({ rbac: () => ({ authorize: () => ({ decision: "allow", reason: "" }) }) }) }) });
    expect(() => setUpFeatures([mode("a"), mode("b")], ctx).authorizationModes(core)).toThrow("feature b: authorization mode rbac is already provided");
    const ca = (name: string): FeatureModule => ({ name, setup: () => ({ tlsClientCA: "pem" }) });
    expect(() => setUpFeatures([ca("a"), ca("b")], ctx)).toThrow("features a and b both contribute tlsClientCA");
    const chain = (name: string): FeatureModule => ({ name, setup: () => ({ authorizer: () => ({ authorizer: { authorize: () => ({ decision: "allow", reason: "" }) } }) }) });
    expect(() => setUpFeatures([chain("a"), chain("b")], ctx)).toThrow("features a and b both build the authorizer chain");
    expect(() => setUpFeatures([ca("a")], ctx).authorizer(core)).toThrow("no feature builds the authorizer chain");
    const flow = (name: string): FeatureModule => ({ name, setup: () => ({ flowControl: () => (ctx, next) => next(ctx) }) });
    expect(() => setUpFeatures([flow("a"), flow("b")], ctx).flowControl(core)).toThrow("features a and b both give the flow control stage");
    expect(setUpFeatures([ca("a")], ctx).flowControl(core)).toBeUndefined();
    expect(setUpFeatures([ca("a"), flow("b")], ctx).flowControl(core)).toBeTypeOf("function");
  });

  it("hands the authorizer chain every module's modes", () => {
    const allow = { authorize: () => ({ decision: "allow" as const, reason: "" }) };
    let given: string[] = [];
    const f = setUpFeatures(
      [
        { name: "rbac", setup: () => ({ authorizationModes: () => ({ rbac: () => allow }) }) },
        { name: "chain", setup: () => ({ authorizer: (_c, modes) => ((given = Object.keys(modes)), { authorizer: allow }) }) },
        { name: "node", setup: () => ({ authorizationModes: () => ({ node: () => allow }) }) },
      ],
      ctx,
    );
    expect(f.authorizer(core).authorizer).toBe(allow);
    expect(given.sort()).toEqual(["node", "rbac"]);
  });

  it("gathers the core's flags and every module's in sections, refusing a name declared twice", () => {
    const flag = (name: string): FlagSpec => ({ name, kind: "string", default: "", help: name, apply: () => undefined });
    const sections = flagsOf([flag("core")], [{ name: "a", flags: [flag("x"), flag("y")] }, { name: "none" }, { name: "b", flags: [flag("z")] }]);
    expect(sections.map((s) => [s.section, s.flags.map((f) => f.name)])).toEqual([
      ["generic", ["core"]],
      ["a", ["x", "y"]],
      ["b", ["z"]],
    ]);
    expect(() => flagsOf([flag("core")], [{ name: "a", flags: [flag("core")] }])).toThrow("flag --core is declared by both generic and a");
  });

  it("creates every feature's namespaces (once each, together), then runs every feature's bootstrap together", async () => {
    const order: string[] = [];
    const ensuring = { ...core, ensureAll: async (_t: unknown, _ns: string, os: { metadata: { name?: string } }[]) => void order.push(`namespaces ${os.map((o) => o.metadata.name).join(" ")}`) } as unknown as CoreParts;
    const slow = (name: string, ms: number, namespaces: string[] = []): FeatureModule => ({
      name,
      setup: () => ({ namespaces, bootstrap: () => new Promise((r) => setTimeout(() => r(order.push(name)), ms)) }),
    });
    await setUpFeatures([slow("slow", 30, ["kube-system"]), slow("fast", 1, ["default", "kube-system"])], ctx).bootstrap(ensuring, undefined);
    expect(order).toEqual(["namespaces kube-system default", "fast", "slow"]);
  });
});

describe("the server's features", () => {
  it("are fresh per server and uniquely named", async () => {
    const { serverFeatures } = await import("./index.js");
    const names = serverFeatures().map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(serverFeatures()[0]).not.toBe(serverFeatures()[0]);
  });
});
