import { describe, expect, it } from "vitest";
import {
  ManagedFieldsError,
  buildManagerIdentifier,
  decodeManagedFields,
  encodeManagedFields,
  formatTime,
  isResetManagedFields,
  managerName,
  prefixFromUserAgent,
  printManager,
  sortManagedFields,
  validateFieldManager,
  validateManagedFields,
} from "./managed-fields.js";
import type { ManagedFieldsEntry } from "./managed-fields.js";

const entry = (e: Partial<ManagedFieldsEntry>): ManagedFieldsEntry => ({
  manager: "m",
  operation: "Update",
  apiVersion: "v1",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:data": { "f:k": {} } },
  ...e,
});

describe("manager identifiers", () => {
  it("Apply entries ignore apiVersion; Update entries and subresources are separate", () => {
    expect(buildManagerIdentifier({ manager: "kubectl", operation: "Apply", apiVersion: "apps/v1" })).toBe('{"manager":"kubectl","operation":"Apply"}');
    expect(buildManagerIdentifier({ manager: "kcm", operation: "Update", apiVersion: "apps/v1" })).toBe(
      '{"manager":"kcm","operation":"Update","apiVersion":"apps/v1"}',
    );
    expect(buildManagerIdentifier({ manager: "kcm", operation: "Update", apiVersion: "apps/v1", subresource: "status" })).toBe(
      '{"manager":"kcm","operation":"Update","apiVersion":"apps/v1","subresource":"status"}',
    );
  });

  it("prints managers as conflict messages do", () => {
    expect(printManager('{"manager":"kubectl","operation":"Apply"}')).toBe('"kubectl"');
    expect(printManager('{"manager":"kcm","operation":"Update","apiVersion":"apps/v1"}')).toBe('"kcm" using apps/v1');
    expect(printManager('{"manager":"kcm","operation":"Update","apiVersion":"v1","subresource":"status"}')).toBe(
      '"kcm" with subresource "status" using v1',
    );
  });
});

describe("decoding", () => {
  it("decodes entries into sets per identifier, keeping times", () => {
    const m = decodeManagedFields([entry({ time: "2024-01-01T00:00:00Z" }), entry({ operation: "Apply", manager: "a" })]);
    expect([...m.fields.keys()]).toEqual(['{"manager":"m","operation":"Update","apiVersion":"v1"}', '{"manager":"a","operation":"Apply"}']);
    expect(m.times.get('{"manager":"m","operation":"Update","apiVersion":"v1"}')).toBe("2024-01-01T00:00:00Z");
  });

  it("rejects entries as upstream does", () => {
    expect(() => decodeManagedFields([entry({ operation: "Patch" })])).toThrow(new ManagedFieldsError("operation must be `Apply` or `Update`"));
    expect(() => decodeManagedFields([entry({ apiVersion: "" })])).toThrow("apiVersion must not be empty");
    expect(() => decodeManagedFields([entry({ fieldsType: "" })])).toThrow("missing fieldsType in managed fields entry 0");
    expect(() => decodeManagedFields([entry({}), entry({ fieldsType: "FieldsV2" })])).toThrow('invalid fieldsType "FieldsV2" in managed fields entry 1');
    expect(() => decodeManagedFields([entry({ fieldsV1: { "f:a": [] } as never })])).toThrow(/error decoding set/);
  });

  it("encodes back, sorted by operation, time, manager, apiVersion, subresource", () => {
    const entries = [
      entry({ manager: "z", time: "2024-01-01T00:00:00Z" }),
      entry({ manager: "b", time: "2024-01-01T00:00:00Z" }),
      entry({ manager: "a", time: "2024-01-02T00:00:00Z" }),
      entry({ manager: "q", operation: "Apply", time: "2025-01-01T00:00:00Z" }),
      entry({ manager: "b", time: "2024-01-01T00:00:00Z", subresource: "status" }),
    ];
    const out = encodeManagedFields(decodeManagedFields(entries));
    expect(out.map((e) => `${e.operation} ${e.manager} ${e.subresource ?? ""}`)).toEqual(["Apply q ", "Update b ", "Update b status", "Update z ", "Update a "]);
    expect(Object.keys(out[2]!)).toEqual(["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"]);
    expect(sortManagedFields([...out].reverse())).toEqual(out);
  });
});

describe("reset rule", () => {
  it("[{}] resets, [] and real entries do not", () => {
    expect(isResetManagedFields([{}])).toBe(true);
    expect(isResetManagedFields([{ manager: "" }])).toBe(true);
    expect(isResetManagedFields([])).toBe(false);
    expect(isResetManagedFields([], true)).toBe(true);
    expect(isResetManagedFields(undefined)).toBe(false);
    expect(isResetManagedFields([{}, {}])).toBe(false);
    expect(isResetManagedFields([{ fieldsV1: {} }])).toBe(false);
    expect(isResetManagedFields([entry({})])).toBe(false);
  });
});

describe("manager names and validation", () => {
  it("takes fieldManager, else the User-Agent part before the first '/'", () => {
    expect(managerName("my-controller", "kubectl/v1.34.0")).toBe("my-controller");
    expect(managerName(undefined, "kubectl/v1.34.0 (linux/amd64) kubernetes/abc")).toBe("kubectl");
    expect(managerName("", "Go-http-client/2.0")).toBe("Go-http-client");
    expect(prefixFromUserAgent("a\u0001b/1")).toBe("ab");
    expect(prefixFromUserAgent("x".repeat(200))).toHaveLength(128);
    expect(managerName(undefined, undefined)).toBe("");
  });

  it("validates fieldManager: at most 128 bytes, printable", () => {
    expect(validateFieldManager("kubectl")).toEqual([]);
    expect(validateFieldManager("x".repeat(129)).map((e) => e.message)).toEqual(["fieldManager: Too long: may not be more than 128 bytes"]);
    expect(validateFieldManager("a\tb").map((e) => e.message)).toEqual(['fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)']);
  });

  it("validates stored entries with upstream's messages", () => {
    const errs = validateManagedFields([
      { operation: "", manager: "m" },
      { operation: "Patch", fieldsType: "FieldsV2", manager: "y".repeat(129) },
    ]);
    expect(errs.map((e) => e.message)).toEqual([
      "metadata.managedFields[0].operation: Required value: must not be empty",
      'metadata.managedFields[1].operation: Unsupported value: "Patch": supported values: "Apply", "Update"',
      'metadata.managedFields[1].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      "metadata.managedFields[1].manager: Too long: may not be more than 128 bytes",
    ]);
  });

  it("formats times with second precision in UTC", () => {
    expect(formatTime("2024-05-01T12:00:00.123+02:00")).toBe("2024-05-01T10:00:00Z");
    expect(formatTime(new Date(0))).toBe("1970-01-01T00:00:00Z");
  });
});
