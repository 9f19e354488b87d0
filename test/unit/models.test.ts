import { describe, expect, it } from 'vitest';
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
  it('give create/update/acknowledge exactly the nine summary fields', () => {
    expect(Object.keys(incidentView(incident)).sort()).toEqual(
      ['acknowledged', 'created_at', 'id', 'monitor_id', 'resolved_at', 'severity', 'started_at', 'status', 'title'],
    );
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
    const { atExpression } = await import('../../shared/escalation/scheduling.js');
    expect(atExpression('2026-01-01T10:05:00.000Z')).toBe('at(2026-01-01T10:05:00)');
    expect(atExpression('2026-01-01T10:05:00.001Z')).toBe('at(2026-01-01T10:05:01)');
    expect(atExpression('2026-12-31T23:59:59.500Z')).toBe('at(2027-01-01T00:00:00)');
  });
});
