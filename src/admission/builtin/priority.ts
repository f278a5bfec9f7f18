// Priority (upstream plugin/pkg/admission/priority): a pod's priority comes from its
// PriorityClass (or the global default class, else 0), never from the client; its
// preemptionPolicy too when the class has one. Updates keep what creation resolved. A second
// globalDefault class is refused, and so is deleting a system class.
import { badRequest, forbidden, internalError } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { admissionForbidden } from "./forbidden.js";
import { objectLookup } from "./lookup.js";
import { isObj, isPods, str, type Obj } from "./pod-shape.js";
import { systemPriorityClasses } from "./system-priority-classes.js";

/** scheduling.DefaultPriorityWhenNoDefaultClassExists */
const defaultPriority = 0;

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

export function priorityPlugin(parts: () => AdmissionParts): AdmissionPlugin {
  const classes = objectLookup(parts, "scheduling.k8s.io", "priorityclasses");

  /** The global default class; of several (a race), the lowest value. */
  async function defaultClass(): Promise<KObject | undefined> {
    let found: KObject | undefined;
    for (const pc of await classes.list()) {
      if ((pc as Obj).globalDefault !== true) continue;
      if (!found || (num((found as Obj).value) ?? 0) > (num((pc as Obj).value) ?? 0)) found = pc;
    }
    return found;
  }

  return {
    name: "Priority",
    operations: ["CREATE", "UPDATE", "DELETE"],
    resources: [{ group: "", resource: "pods" }, { group: "scheduling.k8s.io", resource: "priorityclasses" }],
    async admit(a) {
      if (!isPods(a) || !a.object || a.operation === "DELETE") return;
      const pod = a.object as Obj;
      if (!isObj(pod.spec)) throw badRequest("resource was marked with kind Pod but was unable to be converted");
      const spec = pod.spec;
      if (a.operation === "UPDATE") {
        // Priority and preemptionPolicy are immutable: an update that drops them keeps the old ones.
        const old = isObj(a.oldObject?.spec) ? (a.oldObject!.spec as Obj) : {};
        if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
        if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      let priority: number;
      let policy: string | undefined;
      const className = str(spec.priorityClassName);
      if (!className) {
        const dpc = await defaultClass();
        if (dpc) {
          spec.priorityClassName = dpc.metadata.name;
          priority = num((dpc as Obj).value) ?? 0;
          policy = str((dpc as Obj).preemptionPolicy) || undefined;
        } else {
          priority = defaultPriority;
          policy = "PreemptLowerPriority";
        }
      } else {
        let pc: KObject | undefined;
        try {
          pc = await classes.get("", className, { live: true });
        } catch (e) {
          throw internalError(new Error(`failed to get PriorityClass with name ${className}: ${(e as Error).message}`));
        }
        if (!pc) throw admissionForbidden(a, `no PriorityClass with name ${className} was found`);
        priority = num((pc as Obj).value) ?? 0;
        policy = str((pc as Obj).preemptionPolicy) || undefined;
      }
      if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
        throw admissionForbidden(a, `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
      }
      spec.priority = priority;
      if (policy !== undefined) {
        if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy) {
          throw admissionForbidden(a, `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
        }
        spec.preemptionPolicy = policy;
      }
    },
    async validate(a) {
      if (a.subresource !== "" || a.type.group !== "scheduling.k8s.io" || a.type.resource !== "priorityclasses") return;
      // Upstream refuses this in the PriorityClass registry itself; here it rides on the plugin that owns the classes.
      if (a.operation === "DELETE" && systemPriorityClasses.some((pc) => pc.metadata.name === a.name)) {
        throw forbidden(a.type.gr, a.name, "this is a system priority class and cannot be deleted");
      }
      if (a.operation === "DELETE" || !a.object || (a.object as Obj).globalDefault !== true) return;
      const dpc = await defaultClass();
      if (!dpc) return;
      if (a.operation === "CREATE" || dpc.metadata.name !== a.object.metadata.name) {
        throw admissionForbidden(a, `PriorityClass ${dpc.metadata.name} is already marked as default. Only one default can exist`);
      }
    },
  };
}
