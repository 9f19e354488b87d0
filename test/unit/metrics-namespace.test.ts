/**
 * Business metrics land in the stage's namespace, read from POWERTOOLS_METRICS_NAMESPACE (the stack sets
 * the stack's name): never a namespace the code picks, which another stage's alarms would watch (issue 46 §6).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../functions/lib/observability.js';
import { countMetric } from '../../shared/platform/observability/metrics.js';

/** What the process printed while `act` ran, as lines per stream. */
function printedBy(act: () => void) {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  try {
    act();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return { out, err };
}

afterEach(() => vi.unstubAllEnvs());

describe("metrics in the stage's namespace", () => {
  it('emits into the namespace the environment names, with the service dimension', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'IncidentService-staging');
    const { out } = printedBy(() => countMetric('EscalationTargetBounced'));
    expect(out.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        service: 'incident-service',
        EscalationTargetBounced: 1,
        _aws: expect.objectContaining({ CloudWatchMetrics: [{ Namespace: 'IncidentService-staging', Dimensions: [['service']], Metrics: [{ Name: 'EscalationTargetBounced', Unit: 'Count' }] }] }),
      }),
    ]);
  });

  it('emits nothing without a namespace, and says so once as an error', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', '');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
    const { out, err } = printedBy(() => {
      countMetric('EscalationTargetBounced');
      countMetric('ScheduleNobodyOnCall');
    });
    expect(out).toEqual([]);
    expect(err.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ level: 'ERROR', message: 'POWERTOOLS_METRICS_NAMESPACE is not set: metrics are not emitted', metric: 'EscalationTargetBounced' })]);
  });
});
