// Printers for the autoscaling API group (v2 shape; v1 CPU targets are mapped onto it).
import { age, ageColumn, arr, col, int, name, nameColumn, str } from "./helpers.js";
import { formatQuantityPtr } from "../apimachinery/quantity.js";
import type { Printer } from "./types.js";

/** Metric specs and statuses in autoscaling/v2 shape, converting the v1 CPU fields when needed. */
function hpaMetrics(hpa: any): { specs: any[]; statuses: any[] } {
  const spec = hpa?.spec ?? {};
  const status = hpa?.status ?? {};
  if (Array.isArray(spec.metrics) || Array.isArray(status.currentMetrics)) {
    return { specs: arr(spec.metrics), statuses: arr(status.currentMetrics) };
  }
  const specs: any[] = [];
  const statuses: any[] = [];
  if (typeof spec.targetCPUUtilizationPercentage === "number") {
    specs.push({
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: spec.targetCPUUtilizationPercentage } },
    });
  }
  if (typeof status.currentCPUUtilizationPercentage === "number") {
    statuses.push({
      type: "Resource",
      resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } },
    });
  }
  return { specs, statuses };
}

function percent(v: unknown): string {
  return `${int(v)}%`;
}

/** One "current/target" entry for a Resource or ContainerResource metric. */
function resourceMetric(source: any, current: any): string {
  const target = source?.target ?? {};
  const metricName = str(source?.name);
  if (target.averageValue !== undefined && target.averageValue !== null) {
    const cur = current ? formatQuantityPtr(current.current?.averageValue) : "<unknown>";
    return `${metricName}: ${cur}/${formatQuantityPtr(target.averageValue)}`;
  }
  const utilization = current?.current?.averageUtilization;
  const cur = typeof utilization === "number" ? percent(utilization) : "<unknown>";
  const tgt = typeof target.averageUtilization === "number" ? percent(target.averageUtilization) : "<auto>";
  return `${metricName}: ${cur}/${tgt}`;
}

/** Value-or-average entry for Object and External metrics. */
function valueMetric(source: any, current: any): string {
  const target = source?.target ?? {};
  if (target.averageValue !== undefined && target.averageValue !== null) {
    const cur =
      current && current.current?.averageValue !== undefined && current.current?.averageValue !== null
        ? formatQuantityPtr(current.current.averageValue)
        : "<unknown>";
    return `${cur}/${formatQuantityPtr(target.averageValue)} (avg)`;
  }
  const cur = current ? formatQuantityPtr(current.current?.value) : "<unknown>";
  return `${cur}/${formatQuantityPtr(target.value)}`;
}

export function formatHPAMetrics(specs: any[], statuses: any[]): string {
  if (specs.length === 0) return "<none>";
  const list: string[] = [];
  const max = 2;
  specs.forEach((spec, i) => {
    const st = statuses[i];
    switch (spec?.type) {
      case "External":
        list.push(valueMetric(spec.external, st?.external));
        break;
      case "Object":
        list.push(valueMetric(spec.object, st?.object));
        break;
      case "Pods": {
        const cur = st?.pods ? formatQuantityPtr(st.pods.current?.averageValue) : "<unknown>";
        list.push(`${cur}/${formatQuantityPtr(spec.pods?.target?.averageValue)}`);
        break;
      }
      case "Resource":
        list.push(resourceMetric(spec.resource, st?.resource));
        break;
      case "ContainerResource":
        list.push(resourceMetric(spec.containerResource, st?.containerResource));
        break;
      default:
        list.push("<unknown type>");
    }
  });
  if (list.length > max) return `${list.slice(0, max).join(", ")} + ${list.length - max} more...`;
  return list.join(", ");
}

export const horizontalPodAutoscalerPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Reference", "string", "Kind and name of the scaled workload."),
    col("Targets", "string", "Current and target values of the scaling metrics."),
    col("MinPods", "string", "Lower replica limit."),
    col("MaxPods", "string", "Upper replica limit."),
    col("Replicas", "string", "Current number of replicas."),
    ageColumn(),
  ],
  cells(hpa, now) {
    const spec = hpa?.spec ?? {};
    const { specs, statuses } = hpaMetrics(hpa);
    return [
      name(hpa),
      `${str(spec.scaleTargetRef?.kind)}/${str(spec.scaleTargetRef?.name)}`,
      formatHPAMetrics(specs, statuses),
      typeof spec.minReplicas === "number" ? String(int(spec.minReplicas)) : "<unset>",
      int(spec.maxReplicas),
      int(hpa?.status?.currentReplicas),
      age(hpa, now),
    ];
  },
};
