// Printers for the apps API group.
import {
  age,
  ageColumn,
  col,
  containerCells,
  containersColumn,
  formatLabels,
  formatLabelSelector,
  imagesColumn,
  int,
  labelSelectorString,
  name,
  nameColumn,
  selectorColumn,
} from "./helpers.js";
import type { Printer } from "./types.js";

/** spec.replicas with the API default of 1 when unset. */
function replicas(obj: any): number {
  return typeof obj?.spec?.replicas === "number" ? int(obj.spec.replicas) : 1;
}

export const deploymentPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Ready", "string", "Ready replicas out of desired replicas."),
    col("Up-to-date", "string", "Replicas running the latest pod template."),
    col("Available", "string", "Replicas available to serve."),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(),
  ],
  cells(d, now) {
    const [names, images] = containerCells(d?.spec?.template?.spec?.containers);
    const selector = labelSelectorString(d?.spec?.selector);
    return [
      name(d),
      `${int(d?.status?.readyReplicas)}/${replicas(d)}`,
      int(d?.status?.updatedReplicas),
      int(d?.status?.availableReplicas),
      age(d, now),
      names,
      images,
      selector === undefined ? "<invalid>" : selector,
    ];
  },
};

/** ReplicaSets and ReplicationControllers print the same columns. */
export const replicaControllerColumns = [
  nameColumn(),
  col("Desired", "integer", "Requested number of replicas."),
  col("Current", "integer", "Number of replicas that exist."),
  col("Ready", "integer", "Number of ready replicas."),
  ageColumn(),
  containersColumn(),
  imagesColumn(),
  selectorColumn(),
];

export const replicaSetPrinter: Printer = {
  columns: replicaControllerColumns,
  cells(rs, now) {
    const [names, images] = containerCells(rs?.spec?.template?.spec?.containers);
    return [
      name(rs),
      replicas(rs),
      int(rs?.status?.replicas),
      int(rs?.status?.readyReplicas),
      age(rs, now),
      names,
      images,
      formatLabelSelector(rs?.spec?.selector),
    ];
  },
};

export const statefulSetPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Ready", "string", "Ready replicas out of desired replicas."),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
  ],
  cells(ss, now) {
    const [names, images] = containerCells(ss?.spec?.template?.spec?.containers);
    return [name(ss), `${int(ss?.status?.readyReplicas)}/${replicas(ss)}`, age(ss, now), names, images];
  },
};

export const daemonSetPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Desired", "integer", "Nodes that should run the daemon pod."),
    col("Current", "integer", "Nodes running at least one daemon pod."),
    col("Ready", "integer", "Nodes whose daemon pod is ready."),
    col("Up-to-date", "integer", "Nodes running the latest daemon pod template."),
    col("Available", "integer", "Nodes whose daemon pod is available."),
    col("Node Selector", "string", "Node selector of the pod template."),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(),
  ],
  cells(ds, now) {
    const status = ds?.status ?? {};
    const podSpec = ds?.spec?.template?.spec;
    const [names, images] = containerCells(podSpec?.containers);
    return [
      name(ds),
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(podSpec?.nodeSelector),
      age(ds, now),
      names,
      images,
      formatLabelSelector(ds?.spec?.selector),
    ];
  },
};
