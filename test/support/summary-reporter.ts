/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped; deadlines ×F (how)`, after
 * vitest's own report: the run's deadline factor (test/support/deadlines.ts) beside the tally.
 */
import type { Reporter, TestModule } from 'vitest/node';
import { runScale } from './deadlines.js';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    const scale = runScale();
    console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped; deadlines ×${scale.factor} (${scale.source})`);
  }
}
