// Bench smoke, second half: durable writes, start-up and memory (see test/support/bench-smoke.ts).
import { benchSmoke, storageCaseNames } from "./support/bench-smoke.js";

benchSmoke(storageCaseNames);
