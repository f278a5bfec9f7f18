// Events for tests: one as core/v1 clients (the kubelet, client-go's recorder) write it, one as
// events.k8s.io/v1 clients do.
import type { KObject } from "../apimachinery/object.js";

/** An old-style core/v1 Event about a Pod of `namespace` (no eventTime, a source and counts). */
export function oldStyleEvent(name: string, namespace = "default"): KObject {
  return {
    kind: "Event",
    apiVersion: "v1",
    metadata: { name, namespace },
    involvedObject: { kind: "Pod", namespace, name: "web-1", apiVersion: "v1" },
    reason: "BackOff",
    message: "Back-off restarting failed container",
    source: { component: "kubelet", host: "node-1" },
    firstTimestamp: "2025-01-01T00:00:00Z",
    lastTimestamp: "2025-01-01T00:05:00Z",
    count: 4,
    type: "Warning",
  } as unknown as KObject;
}

/** A new-style events.k8s.io/v1 Event about a Deployment of `namespace`. */
export function newStyleEvent(name: string, namespace = "default"): KObject {
  return {
    kind: "Event",
    apiVersion: "events.k8s.io/v1",
    metadata: { name, namespace },
    eventTime: "2025-01-01T00:00:00.000000Z",
    reportingController: "example.com/controller",
    reportingInstance: "controller-0",
    action: "Reconcile",
    reason: "Synced",
    regarding: { kind: "Deployment", namespace, name: "web", apiVersion: "apps/v1" },
    note: "synced",
    type: "Normal",
  } as unknown as KObject;
}
