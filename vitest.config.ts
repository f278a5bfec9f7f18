import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One fork per core: integration tests mostly wait on sockets, timers and child processes.
    // (vitest's default leaves a core free: a single fork, files one after another, on 2 cores.)
    maxWorkers: availableParallelism(),
  },
});
