import { defineConfig } from "vitest/config";

// Tests import the built packages (`dist`), as users do: `npm test` builds first.
export default defineConfig({
  test: {
    include: [
      "core/test/**/*.test.ts",
      "plugins/*/test/**/*.test.ts",
      "server/test/**/*.test.ts",
      "test/**/*.test.ts",
      "examples/*/test/**/*.test.mjs",
    ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
