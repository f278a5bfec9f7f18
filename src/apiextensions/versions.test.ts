import { describe, expect, it } from "vitest";
import { apiVersionOf, deprecationWarning, hasServedVersion, servedVersions, storageVersion, type CRDLike, type CRDVersionSpec } from "./versions.js";

const crd = (versions: CRDVersionSpec[]): CRDLike => ({ spec: { group: "stable.example.com", names: { kind: "CronTab" }, versions } });

describe("versions", () => {
  const c = crd([
    { name: "v1beta1", served: true, storage: false },
    { name: "v1", served: true, storage: true },
    { name: "v2alpha1", served: false, storage: false },
  ]);
  it("storage and served versions", () => {
    expect(storageVersion(c)).toBe("v1");
    expect(servedVersions(c)).toEqual(["v1beta1", "v1"]);
    expect(hasServedVersion(c, "v2alpha1")).toBe(false);
    expect(hasServedVersion(c, "v1")).toBe(true);
  });
  it("apiVersionOf", () => {
    expect(apiVersionOf("stable.example.com", "v1")).toBe("stable.example.com/v1");
    expect(apiVersionOf("", "v1")).toBe("v1");
  });
});

describe("deprecationWarning", () => {
  it.each<[string, CRDVersionSpec[], string, string | undefined]>([
    ["not deprecated", [{ name: "v1", served: true, storage: true }], "v1", undefined],
    ["unknown version", [{ name: "v1", served: true, storage: true }], "v9", undefined],
    ["explicit text", [{ name: "v1", served: true, storage: true, deprecated: true, deprecationWarning: "use v2, please" }], "v1", "use v2, please"],
    ["default, nothing newer", [{ name: "v1", served: true, storage: true, deprecated: true }], "v1", "stable.example.com/v1 CronTab is deprecated"],
    [
      "default names the newest served, non-deprecated version",
      [
        { name: "v1beta1", served: true, storage: false, deprecated: true },
        { name: "v1", served: true, storage: true },
        { name: "v2", served: true, storage: false },
        { name: "v3", served: false, storage: false },
        { name: "v4", served: true, storage: false, deprecated: true },
      ],
      "v1beta1",
      "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v2 CronTab",
    ],
    [
      "older versions are not suggested",
      [
        { name: "v1", served: true, storage: true },
        { name: "v2", served: true, storage: false, deprecated: true },
      ],
      "v2",
      "stable.example.com/v2 CronTab is deprecated",
    ],
    [
      "alpha before beta before GA",
      [
        { name: "v1alpha1", served: true, storage: false, deprecated: true },
        { name: "v1alpha2", served: true, storage: true },
        { name: "v1beta1", served: true, storage: false },
      ],
      "v1alpha1",
      "stable.example.com/v1alpha1 CronTab is deprecated; use stable.example.com/v1beta1 CronTab",
    ],
  ])("%s", (_n, versions, v, want) => {
    expect(deprecationWarning(crd(versions), v)).toBe(want);
  });
});
