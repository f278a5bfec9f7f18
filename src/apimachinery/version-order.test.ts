import { describe, expect, it } from "vitest";
import { compareKubeAwareVersions } from "./version-order.js";

describe("compareKubeAwareVersions", () => {
  it("orders GA, then beta, then alpha, higher numbers first, then other strings alphabetically", () => {
    const sorted = ["v1alpha1", "foo", "v1beta1", "v10", "v2", "v1", "v11alpha2", "v12alpha1", "v1beta2", "bar", "v3beta1"].sort(compareKubeAwareVersions);
    expect(sorted).toEqual(["v10", "v2", "v1", "v3beta1", "v1beta2", "v1beta1", "v12alpha1", "v11alpha2", "v1alpha1", "bar", "foo"]);
  });
});
