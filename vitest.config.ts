import { defineConfig } from 'vitest/config';
import { runScale, SCALE_ENV } from './test/support/deadlines.js';

// Each file of these projects leases a DynamoDB Local from the run's one pool (started by the root's globalSetup).
// The files of a worker share its process and modules (`isolate: false`): loading the service's modules
// again for each file was about a sixth of their CPU. Each file starts as a new Lambda sandbox would
// (table-per-file.ts calls `newSandbox()`): its own SDK clients, table name, caches, cold starts and clock.
// A worker now lives for a third of the run, long enough for TurboFan to pay (`--no-opt` paid while each
// file had a process of a few seconds).
const withDynamoDb = { setupFiles: ['test/support/table-per-file.ts'], isolate: false };

// Taken once, as the run starts: TEST_DEADLINE_SCALE, or the machine's speed under its load then.
const { factor } = runScale();

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Functions log and emit metrics through Powertools; tests that check them turn them on.
    // Every test file reads the run's deadline factor from SCALE_ENV (test/support/deadlines.ts).
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true', [SCALE_ENV]: String(factor) },
    // Deadlines, not expectations: a minute and two on the quiet reference machine, times the run's factor
    // (at least 1) on a slower or busier one; a passing test never waits for them.
    testTimeout: 60_000 * factor,
    hookTimeout: 120_000 * factor,
    // Three files at once on any machine: the suite is bound by DynamoDB Local's CPU (about 1.2 cores
    // with one file at a time); a second and a third file overlap their start-up, bundling and HTTP
    // work with it (2 workers: 179 s, 3: 170 s on a quiet 2-core machine). Each file's runtime has its
    // own ports, table and DynamoDB Local lease.
    maxWorkers: 3,
    projects: [
      // `extends: true`: each project takes the root's options (env, timeouts) and adds its own.
      // Tests beside what they test (functions/lib/middleware/) run here too.
      // Unit files share their worker's modules (no table, no runtime, no process-wide state a file
      // leaves behind: a file that moves the clock puts it back after each test): a fresh process per
      // file cost about 0.3 s of start-up each, 40 % of the tier's CPU. They pass in any order
      // (`--sequence.shuffle`).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'functions/**/*.test.ts', 'console/src/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 300_000 } },
      { extends: true, test: { name: 'int', include: ['test/int/**/*.test.ts'], ...withDynamoDb } },
      { extends: true, test: { name: 'http', include: ['test/http/**/*.test.ts'], ...withDynamoDb } },
      // Slow for a reason each file names (500 subscribers under SES throttling, 1,000 incidents
      // moved three times, a team of 1,000 members deleted); the rest should stay fast.
      // The web console in a real Chromium (test/support/console.ts).
      { extends: true, test: { name: 'console', include: ['test/console/**/*.test.ts'], ...withDynamoDb } },
      { extends: true, test: { name: 'heavy', include: ['test/heavy/**/*.test.ts'], ...withDynamoDb } },
    ],
  },
});
