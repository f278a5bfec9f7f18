// The store's admission when the chain is built after the store: admission plugins read through
// the store (quota, limit ranges, service accounts, …), so the server makes the store first and
// hands it this forwarder, then binds the chain once its plugins exist. Start-up writes nothing
// before that, so an unbound forwarder is a wiring mistake and fails loudly.
import type { Admission, AdmissionAttributes } from "../registry/admission.js";

export class DeferredAdmission implements Admission {
  private chain: Admission | undefined;

  /** Makes `chain` the admission every write passes from now on (once). */
  bind(chain: Admission): void {
    if (this.chain) throw new Error("the admission chain is already bound");
    this.chain = chain;
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    return this.bound().admit(attributes);
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    return this.bound().validate(attributes);
  }

  private bound(): Admission {
    if (!this.chain) throw new Error("a write reached admission before the admission chain was built");
    return this.chain;
  }
}
