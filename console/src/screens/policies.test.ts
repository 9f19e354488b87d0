import { describe, expect, it } from 'vitest';
import { draftOf, nextStep, stepsBody, targetLabel, withTarget } from './policy-steps.js';

describe('escalation policy steps', () => {
  it('edits a step stored with e-mails alone as e-mail targets, in step order', () => {
    expect(
      draftOf([
        { step_order: 2, delay_minutes: 15, emails: ['lead@example.com'] },
        { step_order: 1, delay_minutes: 0, emails: [], targets: [{ type: 'schedule', id: 's1' }] },
      ]),
    ).toEqual([
      { delay_minutes: '0', targets: [{ type: 'schedule', id: 's1' }] },
      { delay_minutes: '15', targets: [{ type: 'email', address: 'lead@example.com' }] },
    ]);
  });

  it('starts at 0 and adds 15 minutes after the last step', () => {
    expect(nextStep([])).toEqual({ delay_minutes: '0', targets: [] });
    expect(nextStep([{ delay_minutes: '10', targets: [] }])).toEqual({ delay_minutes: '25', targets: [] });
  });

  it('adds a target once and sends delays as numbers', () => {
    const step = withTarget(withTarget({ delay_minutes: '5', targets: [] }, { type: 'email', address: 'A@example.com' }), { type: 'email', address: 'a@example.com' });
    expect(step.targets).toHaveLength(1);
    expect(stepsBody([step])).toEqual([{ delay_minutes: 5, targets: [{ type: 'email', address: 'A@example.com' }] }]);
    expect(stepsBody([{ delay_minutes: ' ', targets: [] }])[0]!.delay_minutes).toBeNaN();
  });

  it('names people and schedules it knows', () => {
    const names = { people: new Map([['u1', 'Riley (riley@example.com)']]), schedules: new Map([['s1', 'Primary']]) };
    expect(targetLabel({ type: 'user', id: 'u1' }, names)).toBe('Riley (riley@example.com)');
    expect(targetLabel({ type: 'schedule', id: 's1' }, names)).toBe('Schedule: Primary');
    expect(targetLabel({ type: 'user', id: 'u2' }, names)).toBe('Person u2');
  });
});
