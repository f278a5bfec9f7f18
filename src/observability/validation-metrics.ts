// kube-apiserver 1.34's declarative validation families (apiserver/pkg/validation), registered as
// upstream registers them. kapi validates each type with one implementation, so there is no
// second result to differ from or to panic: both stay at zero.
import { CounterFamily } from "./metric-family.js";

export class ValidationMetrics {
  readonly mismatches = new CounterFamily({
    name: "apiserver_validation_declarative_validation_mismatch_total",
    help: "Times declarative and hand-written validation of a core type came to different results.",
    stability: "BETA",
  });
  readonly panics = new CounterFamily({ name: "apiserver_validation_declarative_validation_panic_total", help: "Times declarative validation panicked.", stability: "BETA" });
  readonly families = [this.mismatches, this.panics];
}
