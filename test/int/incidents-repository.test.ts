/** The incident repository against DynamoDB Local: conditional writes, item collection, owner index. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerIndex } from '../../shared/platform/db/keys.js';
import { queryAll, queryOwnerIndex } from '../../shared/platform/db/ops.js';
import { createdEntry, timelinePut } from '../../shared/incidents/timeline.js';
import { readSource } from '../../shared/platform/db/pagination.js';
import * as repository from '../../shared/incidents/repository.js';
import type { Acknowledgement, Incident } from '../../shared/incidents/model.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';
import { openedIncident } from '../../infra/testing/seed.js';

const calls = dynamoCalls();

function newIncident(ownerId: string, overrides: Partial<Incident> = {}): Incident {
  return openedIncident({ id: randomUUID(), name: 'M', owner_id: ownerId, team_id: null }, new Date().toISOString(), { title: 'T', ...overrides });
}

const acknowledgement = (incident: Incident, userId: string): Acknowledgement => ({
  id: randomUUID(),
  incident_id: incident.id,
  user_id: userId,
  user_name: 'U',
  user_email: 'u@example.com',
  method: 'api',
  acknowledged_at: new Date().toISOString(),
});

describe('incident repository', () => {
  it('round-trips an incident, storing null resolved_at as absent', async () => {
    const owner = randomUUID();
    const incident = newIncident(owner, { message: 'context' });
    await repository.insertIncident(incident, []);
    const collection = await repository.getIncidentCollection(incident.id);
    expect(collection).toEqual({ incident, acknowledgement: undefined, escalationSteps: [] });
  });

  it('refuses to overwrite an existing incident id', async () => {
    const incident = newIncident(randomUUID());
    await repository.insertIncident(incident, []);
    expect((await repository.insertIncident({ ...incident, title: 'other' }, [])).outcome).toBe('conflict');
    expect((await repository.getIncident(incident.id))?.title).toBe('T');
  });

  it('acknowledges exactly once under concurrency, with one acknowledgement record', async () => {
    const owner = randomUUID();
    const incident = newIncident(owner);
    await repository.insertIncident(incident, []);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, async () => (await repository.acknowledgeIncident(incident, acknowledgement(incident, owner), new Date().toISOString(), [], [])).outcome),
    );
    expect(outcomes.filter((outcome) => outcome === 'acknowledged')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'already_acknowledged')).toHaveLength(9);
    const items = await queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `INCIDENT#${incident.id}` },
    });
    expect(items.map((item) => item.sk).sort()).toEqual(['ACK', 'INCIDENT']);
  });

  it('reports not_found for a missing incident, writing nothing', async () => {
    const owner = randomUUID();
    const ghost = newIncident(owner);
    expect((await repository.acknowledgeIncident(ghost, acknowledgement(ghost, owner), new Date().toISOString(), [], [])).outcome).toBe('not_found');
    expect(await repository.getIncidentCollection(ghost.id)).toBeUndefined();
  });

  it('reads the incident collection without its timeline, and the timeline alone in order', async () => {
    const owner = randomUUID();
    const incident = newIncident(owner);
    const at = incident.created_at;
    await repository.insertIncident(incident, [
      ['conflict', timelinePut({ ...createdEntry(incident, { id: owner, name: 'Owner' }), ordinal: 0 })],
      ['conflict', timelinePut({ kind: 'note', incident, at, actor: null, message: 'second', ordinal: 1 })],
    ]);
    const collection = await repository.getIncidentCollection(incident.id);
    expect(collection?.incident.id).toBe(incident.id);
    const page = await readSource(repository.timelineSource(incident.id), { limit: 10, order: 'asc' });
    expect(page.items.map((item) => item.kind)).toEqual(['created', 'note']);
  });

  it('lists newest first on the owner index, following pages until complete', async () => {
    const owner = randomUUID();
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const incident = newIncident(owner, { started_at: `2026-03-0${index + 1}T00:00:00.000Z` });
      ids.push(incident.id);
      await repository.insertIncident(incident, []);
    }
    calls.reset();
    const paged = await queryAll({
      IndexName: ownerIndex.name,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': ownerIndex.partition(owner) },
      ScanIndexForward: false,
      Limit: 2,
    });
    expect(paged.map((item) => item.id)).toEqual([...ids].reverse());
    expect(calls.commands).toEqual(['QueryCommand', 'QueryCommand', 'QueryCommand']);
    const listed = await queryOwnerIndex(owner, ownerIndex.incidentPrefix);
    expect(listed.map((incident) => incident.id)).toEqual([...ids].reverse());
  });
});

describe('incident status changes', () => {
  it('write only over the state they read, so two writers never both change the status', async () => {
    const owner = randomUUID();
    const incident = newIncident(owner);
    await repository.insertIncident(incident, []);
    const later = repository.writeInstant(incident);
    const resolved = { ...incident, status: 'RESOLVED' as const, resolved_at: later, updated_at: later };
    const results = await Promise.all([
      repository.writeIncidentChange(incident, resolved, []),
      repository.writeIncidentChange(incident, { ...resolved, status: 'MONITORING', resolved_at: null }, []),
    ]);
    expect(results.map((result) => result.outcome).sort()).toEqual(['changed', 'ok']);
    const stored = (await repository.getIncident(incident.id))!;
    expect(['RESOLVED', 'MONITORING']).toContain(stored.status);
    expect(stored.resolved_at).toBe(stored.status === 'RESOLVED' ? later : null);
  });

  it('commit in the order of their times: a write older than the last one is refused', async () => {
    const incident = newIncident(randomUUID());
    await repository.insertIncident(incident, []);
    const at = (ms: number) => new Date(Date.parse(incident.updated_at) + ms).toISOString();
    const newer = { ...incident, severity: 'LOW' as const, updated_at: at(20) };
    expect((await repository.writeIncidentChange(incident, newer, [])).outcome).toBe('ok');
    // Read before the newer write, timed before it, committed after it: refused (then read again).
    expect((await repository.writeIncidentChange({ ...incident, severity: 'LOW' }, { ...newer, title: 'Late', updated_at: at(10) }, [])).outcome).toBe('changed');
    expect(repository.writeInstant(newer) > newer.updated_at).toBe(true);
  });
});
