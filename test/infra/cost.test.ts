/**
 * The cost table of docs/deployment.md#what-it-costs is what `npm run cost` computes from the templates
 * (issue 46 §7): it cannot drift from what a deploy creates. And one idle stage stays within a small
 * team's budget.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../../infra/paths.js';
import { alarmMetricCount, costTable, documentedTable, idleStageCost, totalOf } from '../../infra/tools/cost.js';
import { synthStacks } from './templates.js';

const { merged } = synthStacks();
const lines = idleStageCost(merged.Resources);

describe('the cost of one idle stage', () => {
  it('is the table docs/deployment.md shows (npm run cost -- --write), and the README says its total', () => {
    expect(documentedTable()).toBe(costTable(lines));
    const total = `$${totalOf(lines).toFixed(2)}`;
    expect(readFileSync(join(repositoryRoot, 'README.md'), 'utf8')).toContain(`one idle stage costs about ${total} a month`);
  });

  it('stays at most $15 a month with at most 60 alarms, priced by the metrics they watch', () => {
    expect(totalOf(lines)).toBeLessThanOrEqual(15);
    const alarms = Object.values(merged.Resources).filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeLessThanOrEqual(60);
    const metrics = alarms.reduce((sum, alarm) => sum + alarmMetricCount(alarm), 0);
    expect(lines[0]!.usd).toBeCloseTo(metrics * 0.1, 10);
    // A metric-math alarm is billed by each metric it reads: the Api5xx alarm's two.
    expect(alarmMetricCount(Object.entries(merged.Resources).find(([id]) => id.startsWith('Api5xxAlarm'))![1])).toBe(2);
  });
});
