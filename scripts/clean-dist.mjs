// `npm run build`'s first step: dist/ starts empty, so that no output of an earlier build layout
// (the ~500-module tree tsc used to write, dist/cli/main.js among it) stays behind to be run.
import { rmSync } from "node:fs";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
