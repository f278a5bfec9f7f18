// A CronTab CustomResourceDefinition (schema with defaults and limits, status and scale
// subresources, printer columns, a selectable field) in any group, plural and kind.
export function crontabCRD(group = "stable.example.com", plural = "crontabs", kind = "CronTab", extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [`${plural.slice(0, 2)}x`], categories: ["all", "kapi"] },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: `${kind} runs a command on a schedule.`,
              properties: {
                spec: {
                  type: "object",
                  description: "The desired schedule.",
                  required: ["cronSpec"],
                  properties: {
                    cronSpec: { type: "string", pattern: "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$", description: "When to run." },
                    image: { type: "string", maxLength: 20 },
                    replicas: { type: "integer", minimum: 1, maximum: 10, default: 1 },
                    color: { type: "string", enum: ["red", "blue"] },
                    tags: { type: "array", items: { type: "string" } },
                  },
                },
                status: { type: "object", properties: { replicas: { type: "integer" }, selector: { type: "string" } } },
              },
            },
          },
          subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" } },
          additionalPrinterColumns: [
            { name: "Spec", type: "string", jsonPath: ".spec.cronSpec", description: "The cron spec." },
            { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
            { name: "Image", type: "string", jsonPath: ".spec.image", priority: 1 },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          selectableFields: [{ jsonPath: ".spec.color" }],
        },
      ],
      ...extra,
    },
  };
}

