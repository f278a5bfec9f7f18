import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { chooseClientNode, clientNodePackage } from "./test/support/client-node-choice.js";

const clientNode = chooseClientNode(process.env.CLIENT_NODE, process.versions.node);

export default defineConfig({
  // Test files import "@kubernetes/client-node"; this sends them to the major chosen for this run.
  resolve: { alias: [{ find: /^@kubernetes\/client-node$/, replacement: clientNodePackage[clientNode] }] },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One fork per core: integration tests mostly wait on sockets, timers and child processes.
    // (vitest's default leaves a core free: a single fork, files one after another, on 2 cores.)
    maxWorkers: availableParallelism(),
    env: { KAPI_TEST_CLIENT_NODE: String(clientNode) },
  },
});
