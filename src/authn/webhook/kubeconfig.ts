// Moved to src/webhook (shared by the token and authorization webhooks).
export * from "../../webhook/kubeconfig.js";
