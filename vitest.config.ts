import { defineConfig } from 'vitest/config';

const withDynamoDb = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/table-per-file.ts'],
};

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Functions log and emit metrics through Powertools; tests that check them turn them on.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      // `extends: true`: each project takes the root's options (env, timeouts) and adds its own.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000 } },
      { extends: true, test: { name: 'int', include: ['test/int/**/*.test.ts'], ...withDynamoDb } },
      { extends: true, test: { name: 'http', include: ['test/http/**/*.test.ts'], ...withDynamoDb } },
    ],
  },
});
