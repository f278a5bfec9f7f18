// Every benchmark, in the order they run (get-h2 before p99: p99 reuses its rate; create before
// update: update's goal is relative to create's ratio).
import type { BenchCase } from "../core/types.js";
import { getAuthz } from "./authz.js";
import { createCrCel } from "./crd.js";
import { getH1, getH2 } from "./get.js";
import { list } from "./list.js";
import { memory } from "./memory.js";
import { p99 } from "./p99.js";
import { createVap, createVapSequential } from "./policy.js";
import { startup10k, startupEmpty, startupFirst } from "./startup.js";
import { watch } from "./watch.js";
import { createEtcd, getEtcd } from "./etcd.js";
import { watchReplicasEtcd } from "./etcd-replicas.js";
import { create, update } from "./writes.js";
import { createWebhook } from "./webhook.js";
import { createAudit, getAudit } from "./operating.js";

export const allCases: BenchCase[] = [getH2, getH1, getAuthz, create, update, createCrCel, createWebhook, createVap, createVapSequential, createEtcd, getEtcd, watchReplicasEtcd, getAudit, createAudit, list, watch, startupFirst, startupEmpty, startup10k, memory, p99];
