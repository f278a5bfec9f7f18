// Defaults for the everyday kinds outside core and the workload groups: networking, policy,
// autoscaling, scheduling, storage, rbac, flowcontrol, coordination, events.
import { arr, isObj, setDefault, setDefaultStr, type Obj } from "../validation/helpers.js";

const spec = (o: Obj): Obj => (isObj(o.spec) ? o.spec : (o.spec = {}));

export function defaultNetworkPolicy(o: Obj): void {
  const s = spec(o);
  setDefault(s, "podSelector", {});
  for (const dir of ["ingress", "egress"]) {
    for (const rule of arr(s[dir])) for (const p of arr(isObj(rule) ? rule.ports : undefined)) if (isObj(p)) setDefault(p, "protocol", "TCP");
  }
  if (arr(s.policyTypes).length === 0) {
    s.policyTypes = ["Ingress"];
    if (arr(s.egress).length > 0) s.policyTypes.push("Egress");
  }
}

export function defaultIngress(_o: Obj): void {
  // networking/v1 Ingress has no field defaults.
}

export function defaultHPA(o: Obj): void {
  const s = spec(o);
  setDefault(s, "minReplicas", 1);
  if (arr(s.metrics).length === 0) {
    s.metrics = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }];
  }
  if (isObj(s.behavior)) {
    s.behavior.scaleUp = scalingRules(s.behavior.scaleUp, 0, [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ]);
    s.behavior.scaleDown = scalingRules(s.behavior.scaleDown, 300, [{ type: "Percent", value: 100, periodSeconds: 15 }]);
  }
}

function scalingRules(rules: unknown, window: number, policies: Obj[]): Obj {
  const r: Obj = isObj(rules) ? rules : {};
  setDefault(r, "stabilizationWindowSeconds", window);
  setDefault(r, "selectPolicy", "Max");
  if (r.policies === undefined || r.policies === null) r.policies = policies;
  return r;
}

export function defaultPriorityClass(o: Obj): void {
  setDefault(o, "preemptionPolicy", "PreemptLowerPriority");
  setDefault(o, "value", 0);
}

export function defaultStorageClass(o: Obj): void {
  setDefaultStr(o, "reclaimPolicy", "Delete");
  setDefaultStr(o, "volumeBindingMode", "Immediate");
}

export function defaultCSIDriver(o: Obj): void {
  const s = spec(o);
  setDefault(s, "attachRequired", true);
  setDefault(s, "podInfoOnMount", false);
  setDefault(s, "storageCapacity", false);
  setDefault(s, "fsGroupPolicy", "ReadWriteOnceWithFSType");
  setDefault(s, "requiresRepublish", false);
  setDefault(s, "seLinuxMount", false);
  if (arr(s.volumeLifecycleModes).length === 0) s.volumeLifecycleModes = ["Persistent"];
}

const rbacGroup = "rbac.authorization.k8s.io";

function defaultSubjects(o: Obj): void {
  for (const sub of arr(o.subjects)) {
    if (!isObj(sub) || sub.apiGroup) continue;
    if (sub.kind === "ServiceAccount") sub.apiGroup = "";
    else if (sub.kind === "User" || sub.kind === "Group") sub.apiGroup = rbacGroup;
  }
  // An empty apiGroup is omitted on the wire.
  for (const sub of arr(o.subjects)) if (isObj(sub) && sub.apiGroup === "") delete sub.apiGroup;
}

export function defaultBinding(o: Obj): void {
  const ref = isObj(o.roleRef) ? o.roleRef : (o.roleRef = {});
  setDefaultStr(ref, "apiGroup", rbacGroup);
  defaultSubjects(o);
}

export function defaultRole(o: Obj): void {
  // `rules` has no omitempty upstream: an absent list serialises as null.
  if (o.rules === undefined) o.rules = null;
}

export function defaultFlowSchema(o: Obj): void {
  const s = spec(o);
  if (!s.matchingPrecedence) s.matchingPrecedence = 1000;
}

export function defaultPriorityLevelConfiguration(o: Obj): void {
  const s = spec(o);
  if (isObj(s.limited)) {
    const l = s.limited;
    setDefault(l, "nominalConcurrencyShares", 30);
    setDefault(l, "lendablePercent", 0);
    if (isObj(l.limitResponse) && isObj(l.limitResponse.queuing)) {
      const q = l.limitResponse.queuing;
      if (!q.handSize) q.handSize = 8;
      if (!q.queues) q.queues = 64;
      if (!q.queueLengthLimit) q.queueLengthLimit = 50;
    }
  }
  if (isObj(s.exempt)) {
    setDefault(s.exempt, "nominalConcurrencyShares", 0);
    setDefault(s.exempt, "lendablePercent", 0);
  }
}

export function defaultLease(o: Obj): void {
  spec(o);
}

export function defaultPDB(o: Obj): void {
  spec(o);
}

/** discovery.k8s.io/v1 EndpointSlice: a port's unset name is "" and its unset protocol TCP (both pointers upstream, so "" stays). */
export function defaultEndpointSlice(o: Obj): void {
  for (const p of arr(o.ports)) {
    if (!isObj(p)) continue;
    setDefault(p, "name", "");
    setDefault(p, "protocol", "TCP");
  }
}
