import { defineConfig } from "vitest/config";

// One run covers every workspace; tests sit beside the code they test.
export default defineConfig({
  test: {
    include: [
      "{lib,services/*,sdk/*,gateway,all-in-one,cli,bench}/src/**/*.test.ts",
      "dev/venue/src/**/*.test.ts",
      "test/**/*.test.ts",
      "deploy/idp/**/*.test.ts",
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two cores: more workers only queue on the CPU and on Postgres.
    maxWorkers: 2,
  },
});
