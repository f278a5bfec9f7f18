// The field manager of kube-controller-manager's controllers run in process. Upstream they are
// clients of the API server and their writes are recorded under the name their user agent starts
// with; recording them (rather than writing around the field manager) also takes the fields a
// controller removes (an owner reference, a finalizer) out of the other managers' entries.
export const controllerManagerFieldManager = "kube-controller-manager";
