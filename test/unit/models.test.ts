import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createPolicyInput, incidentSteps } from '../../shared/escalation/model.js';
import { fieldErrors } from '../../shared/platform/validation.js';
import {
  acknowledgeIncidentInput,
  createIncidentInput,
  incidentDetailView,
  incidentListView,
  incidentView,
  updateIncidentInput,
  type Incident,
} from '../../shared/incidents/model.js';
import { keys, ownerIndex } from '../../shared/platform/db/keys.js';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';

const incident: Incident = {
  id: 'i',
  monitor_id: 'm',
  monitor_name: 'Monitor',
  owner_id: 'o',
  title: 'T',
  message: 'secret context',
  status: 'INVESTIGATING',
  severity: 'HIGH',
  acknowledged: false,
  automatic: true,
  started_at: '2026-01-01T00:00:00.000Z',
  resolved_at: null,
  escalation_policy_id: null,
  team_id: null,
  team_seq: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

describe('incident input schemas', () => {
  it('defaults severity to MEDIUM and the acknowledgement method to web', () => {
    const created = createIncidentInput.parse({ monitorId: '6f1c2a8e-3b0e-4f0e-9a59-8b0f5f0c1d2e', title: ' x ' });
    expect(created).toEqual({ monitorId: '6f1c2a8e-3b0e-4f0e-9a59-8b0f5f0c1d2e', title: 'x', severity: 'MEDIUM' });
    expect(acknowledgeIncidentInput.parse(undefined)).toEqual({ method: 'web' });
    expect(acknowledgeIncidentInput.parse({})).toEqual({ method: 'web' });
    expect(acknowledgeIncidentInput.safeParse({ method: 'fax' }).success).toBe(false);
  });

  it('treats an absent update body as an empty update', () => {
    expect(updateIncidentInput.parse(undefined)).toEqual({});
  });
});

describe('incident views', () => {
  it('give create/update/acknowledge exactly the eleven summary fields (urgency since issue 43, in_maintenance since issue 45)', () => {
    expect(Object.keys(incidentView(incident)).sort()).toEqual(
      ['acknowledged', 'created_at', 'id', 'in_maintenance', 'monitor_id', 'resolved_at', 'severity', 'started_at', 'status', 'title', 'urgency'],
    );
  });

  it('answer the urgency an incident opened with, and for one stored before urgencies its severity\'s', () => {
    const { urgency: _, ...before } = incident;
    expect((['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const).map((severity) => incidentView({ ...before, severity }).urgency)).toEqual(['high', 'high', 'low', 'low']);
    expect(incidentView({ ...before, severity: 'LOW', urgency: 'high' }).urgency).toBe('high');
    expect(incidentView({ ...before, severity: 'CRITICAL', urgency: 'low' }).urgency).toBe('low');
  });

  it('add monitor_name and escalation_policy_id in lists, never the message or owner', () => {
    const view = incidentListView(incident);
    expect(view).toMatchObject({ monitor_name: 'Monitor', escalation_policy_id: null });
    expect(view).not.toHaveProperty('message');
    expect(view).not.toHaveProperty('owner_id');
  });

  it('show escalation_steps only with a policy and acknowledgement only once acknowledged', () => {
    expect(incidentDetailView(incident, undefined, [])).not.toHaveProperty('escalation_steps');
    expect(incidentDetailView(incident, undefined, [])).not.toHaveProperty('acknowledgement');
    const withPolicy = incidentDetailView({ ...incident, escalation_policy_id: 'p' }, undefined, [
      { step_order: 1, delay_minutes: 0, emails: ['a@example.com'], sent_at: '2026-01-01T00:00:00.000Z' },
      { step_order: 2, delay_minutes: 15, emails: ['b@example.com'] },
    ]);
    expect(withPolicy.escalation_steps).toEqual([
      { step_order: 1, delay_minutes: 0 },
      { step_order: 2, delay_minutes: 15 },
    ]);
  });
});

describe('keys', () => {
  it('build the documented formats', () => {
    expect(keys.incident('1')).toEqual({ pk: 'INCIDENT#1', sk: 'INCIDENT' });
    expect(keys.incidentAcknowledgement('1')).toEqual({ pk: 'INCIDENT#1', sk: 'ACK' });
    expect(keys.accountEmail('A@Example.COM')).toEqual({ pk: 'EMAIL#a@example.com', sk: 'EMAIL' });
    expect(ownerIndex.incident('o', '2026-01-01T00:00:00.000Z', '1')).toEqual({
      gsi1pk: 'OWNER#o',
      gsi1sk: 'INCIDENT#2026-01-01T00:00:00.000Z#1',
    });
  });
});

describe('clock', () => {
  afterEach(() => resetClock());

  it('moves forward on demand and freezes for tests', () => {
    freezeClock(new Date('2026-01-01T00:00:00Z'));
    advanceClock(7 * 24 * 3600 * 1000);
    expect(clock.nowIso()).toBe('2026-01-08T00:00:00.000Z');
    resetClock();
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(1000);
  });
});

describe('escalation schedules', () => {
  it('round the step time up to the second, so a schedule never fires early', async () => {
    const { atExpression } = await import('../../shared/platform/scheduler.js');
    expect(atExpression('2026-01-01T10:05:00.000Z')).toBe('at(2026-01-01T10:05:00)');
    expect(atExpression('2026-01-01T10:05:00.001Z')).toBe('at(2026-01-01T10:05:01)');
    expect(atExpression('2026-12-31T23:59:59.500Z')).toBe('at(2027-01-01T00:00:00)');
  });
});

describe('escalation targets and repeat', () => {
  const id = '6f1c2a8e-3b0e-4f0e-9a59-8b0f5f0c1d2e';
  const fieldsOf = (body: unknown) => {
    const result = createPolicyInput.safeParse(body);
    if (result.success) throw new Error('expected errors');
    return fieldErrors(result.error, 'body');
  };
  it('takes targets or emails in a step, not both and not neither, and repeat 0–5', () => {
    expect(fieldsOf({ name: 'P', steps: [{ delay_minutes: 0, emails: ['a@example.com'], targets: [{ type: 'user', id }] }] })).toEqual([
      { field: 'steps.0.targets', message: 'Give either emails or targets' },
    ]);
    expect(fieldsOf({ name: 'P', steps: [{ delay_minutes: 0 }] })).toEqual([{ field: 'steps.0.targets', message: 'Required (or emails)' }]);
    expect(fieldsOf({ name: 'P', repeat: 6, steps: [{ delay_minutes: 0, targets: [{ type: 'email', address: 'a@example.com' }] }] }).map((error) => error.field)).toEqual(['repeat']);
    expect(fieldsOf({ name: 'P', steps: [{ delay_minutes: 0, targets: [{ type: 'team', id }] }] }).map((error) => error.field)).toEqual(['steps.0.targets.0.type']);
  });
  it('names at most 10 schedules and 20 people over its steps', () => {
    const many = (type: string, count: number) => Array.from({ length: count }, () => ({ type, id: randomUUID() }));
    const steps = (type: string, count: number) => [
      { delay_minutes: 0, targets: many(type, 10) },
      { delay_minutes: 5, targets: many(type, 10) },
      { delay_minutes: 10, targets: many(type, count - 20 > 0 ? count - 20 : 1) },
    ];
    expect(fieldsOf({ name: 'P', steps: steps('schedule', 21) })).toEqual([{ field: 'steps', message: 'A policy targets at most 10 schedules' }]);
    expect(fieldsOf({ name: 'P', steps: steps('user', 21) })).toEqual([{ field: 'steps', message: 'A policy targets at most 20 people' }]);
  });
  it('repeats the steps in rounds: until the last step has waited as long as the one before it, 30 minutes for one step', () => {
    const base = { id, name: 'P', owner_id: id, created_at: '', team_id: null, monitor_count: 0 };
    const steps = [
      { step_order: 1, delay_minutes: 0, emails: ['a@example.com'] },
      { step_order: 2, delay_minutes: 10, emails: ['b@example.com'] },
    ];
    expect(incidentSteps({ ...base, steps, repeat: 1 }).map((step) => [step.step_order, step.delay_minutes])).toEqual([[1, 0], [2, 10], [3, 20], [4, 30]]);
    expect(incidentSteps({ ...base, steps: steps.slice(0, 1), repeat: 2 }).map((step) => step.delay_minutes)).toEqual([0, 30, 60]);
    expect(incidentSteps({ ...base, steps })).toHaveLength(2);
  });
});
