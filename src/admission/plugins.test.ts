import { describe, expect, it } from "vitest";
import { allOrderedPlugins, defaultOnPlugins, enabledAdmissionPlugins } from "./plugins.js";

describe("admission plugin flags", () => {
  it("refuses unknown names in either flag, as upstream words it", () => {
    expect(() => enabledAdmissionPlugins({ enableAdmissionPlugins: ["NoSuchPlugin"] })).toThrow('enable-admission-plugins plugin "NoSuchPlugin" is unknown');
    expect(() => enabledAdmissionPlugins({ disableAdmissionPlugins: ["Nope"] })).toThrow('disable-admission-plugins plugin "Nope" is unknown');
  });

  it("refuses a name both enabled and disabled", () => {
    expect(() => enabledAdmissionPlugins({ enableAdmissionPlugins: ["NamespaceLifecycle", "AlwaysPullImages"], disableAdmissionPlugins: ["NamespaceLifecycle", "AlwaysPullImages"] })).toThrow(
      "[AlwaysPullImages NamespaceLifecycle] in enable-admission-plugins and disable-admission-plugins overlapped",
    );
  });

  it("runs enabled plugins in upstream's order whatever the flag's order, and leaves out disabled ones", () => {
    const on = enabledAdmissionPlugins({});
    expect(on).toContain("NamespaceLifecycle");
    expect(on.every((n) => defaultOnPlugins.has(n))).toBe(true);
    const order = (names: string[]) => names.map((n) => allOrderedPlugins.indexOf(n as never));
    expect(order(on)).toEqual([...order(on)].sort((a, b) => a - b));
    expect(enabledAdmissionPlugins({ disableAdmissionPlugins: ["NamespaceLifecycle"] })).not.toContain("NamespaceLifecycle");
  });
});
