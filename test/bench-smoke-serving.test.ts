// Bench smoke, first half: GET, LIST, watch fan-out and p99 (see test/support/bench-smoke.ts).
import { benchSmoke, servingCaseNames } from "./support/bench-smoke.js";

benchSmoke(servingCaseNames);
