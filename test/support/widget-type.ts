// A type declared at run time the way a custom resource will be: namespaced `widgets` in
// example.kapi.dev/v1 with a permissive schema of its own (over the built-in ObjectMeta), a
// status and a scale subresource, a short name, a category and one selectable field.
import { defineResourceType, type ResourceType } from "../../src/registry/resource-type.js";
import { strategy } from "../../src/registry/strategy.js";
import { layeredSchema } from "../../src/registry/type-schema.js";
import { builtinSchema } from "../../src/types/register.js";

export const widgetGroup = "example.kapi.dev";
const meta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const widgetDef = "dev.kapi.example.v1.Widget";
const widgetListDef = "dev.kapi.example.v1.WidgetList";
const open = { type: "object", "x-kubernetes-preserve-unknown-fields": true } as const;

const schema = layeredSchema(
  {
    [widgetDef]: {
      type: "object",
      properties: { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { $ref: `${meta}ObjectMeta` }, spec: open, status: open },
      "x-kubernetes-group-version-kind": [{ group: widgetGroup, version: "v1", kind: "Widget" }],
    },
    [widgetListDef]: {
      type: "object",
      properties: { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { $ref: `${meta}ListMeta` }, items: { type: "array", items: { $ref: widgetDef } } },
      "x-kubernetes-group-version-kind": [{ group: widgetGroup, version: "v1", kind: "WidgetList" }],
    },
  },
  { [`${widgetGroup}/v1/Widget`]: widgetDef, [`${widgetGroup}/v1/WidgetList`]: widgetListDef },
  builtinSchema,
);

export function widgetType(): ResourceType {
  return defineResourceType({
    group: widgetGroup,
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
    verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
    shortNames: ["wd"],
    categories: ["kapi"],
    subresources: [{ name: "status", kind: "Widget", verbs: ["get", "patch", "update"] }],
    scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" },
    storageVersion: { group: widgetGroup, version: "v1", kind: "Widget" },
    strategy: strategy({ tracksGeneration: true }),
    schema,
    selectableFields: (o) => ({ "spec.color": String((o.spec as { color?: unknown } | undefined)?.color ?? "") }),
  });
}
