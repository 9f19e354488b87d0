/**
 * The incident timeline: notes (optionally changing the status exactly as PUT does) and an entry
 * for everything that happens to an incident, written with the change itself; subscribers get the
 * note's message; who may post and read; paging; Idempotency-Key.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { Api, awaitMail, settle, uniqueEmail, walk, type User, subscribeConfirmed } from '../support/api.js';
import { holdCalls } from '../../infra/testing/ddb-calls.js';
import { createMonitor, teamWithRoles, type TeamWithRoles } from '../support/teams.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { entryRecord, timelineEntry } from '../../shared/incidents/timeline.js';

let api: Api;
let owner: User;
let roles: TeamWithRoles;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('timeline-owner'), 'Tina Timeline');
  roles = await teamWithRoles(api);
});
afterAll(() => api.close());
afterEach(() => resetClock());

interface Entry {
  id: string;
  incident_id: string;
  kind: string;
  status: string;
  message: string | null;
  user_id: string | null;
  user_name: string | null;
  created_at: string;
  details: Record<string, unknown> | null;
}

const timeline = async (incidentId: string, as: User = owner) => (await walk<Entry>(api, as.token, `/api/incidents/${incidentId}/updates?limit=3`, 'updates')).items;
/** A note by the owner on an open incident at `at` (ms), its item as a note's POST writes it. */
const noteItem = (incidentId: string, at: number, message: string) =>
  entryRecord(timelineEntry({ kind: 'note', incident: { id: incidentId, status: 'INVESTIGATING' }, at: new Date(at).toISOString(), actor: { id: owner.id, name: owner.name }, message }));
const writeNotes = (items: ReturnType<typeof noteItem>[]) => batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
const post = (incidentId: string, body: unknown, as: User = owner, headers: Record<string, string> = {}) =>
  api.request('POST', `/api/incidents/${incidentId}/updates`, { token: as.token, body, headers });

describe('incident timeline', () => {
  it('shows the whole life of an automatic incident: opened, paged, acknowledged by link, resolved by recovery', async () => {
    const pager = await api.signUp(uniqueEmail('pager'), 'Paula Pager');
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: 'Primary', steps: [{ delay_minutes: 0, emails: [pager.email] }, { delay_minutes: 10, emails: ['later@example.com'] }] },
    });
    const monitor = await createMonitor(api, owner, { name: 'Payments', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
    const opened = (await invokeFunction('monitor-check', {
      monitorId: monitor.id,
      status: 'down',
      consecutiveFailures: 3,
      checkedAt: new Date().toISOString(),
      message: 'HTTP 503 from /health',
    })) as { incident_id: string };
    await settle(api);
    const [mail] = await awaitMail(api, pager.email);
    const token = /\/acknowledge\/([A-Za-z0-9_-]{43})/.exec(mail!.body.text ?? '')![1]!;
    expect((await api.request('GET', `/acknowledge/${token}`)).status).toBe(200);
    expect((await api.request('POST', `/acknowledge/${token}`, { rawBody: '' })).status).toBe(200);
    advanceClock(60_000);
    await invokeFunction('monitor-check', { monitorId: monitor.id, status: 'up', consecutiveFailures: 0, checkedAt: new Date().toISOString() });

    const entries = await timeline(opened.incident_id);
    expect(entries.map((entry) => [entry.kind, entry.status, entry.user_id, entry.user_name])).toEqual([
      ['created', 'INVESTIGATING', null, null],
      ['escalation_paged', 'INVESTIGATING', null, null],
      ['acknowledged', 'INVESTIGATING', pager.id, 'Paula Pager'],
      ['resolved', 'RESOLVED', null, null],
    ]);
    expect(entries[0]).toMatchObject({ message: 'HTTP 503 from /health', details: { automatic: true, title: 'Payments is down', severity: 'HIGH' } });
    expect(entries[1]).toMatchObject({ message: null, details: { step_order: 1, recipients: [pager.email] } });
    expect(entries[2]).toMatchObject({ details: { method: 'email', user_email: pager.email, step_order: 1 } });
    expect(entries[3]).toMatchObject({ details: { previous_status: 'INVESTIGATING', by: 'recovery' } });
    for (const entry of entries) expect(entry.incident_id).toBe(opened.incident_id);
    // The created entry is at the incident's own creation time, the resolved one at its resolution.
    const incident = (await api.request('GET', `/api/incidents/${opened.incident_id}`, { token: owner.token })).body.incident;
    expect(entries[0]!.created_at).toBe(incident.created_at);
    expect(entries[3]!.created_at).toBe(incident.resolved_at);
  });

  it('records every change a person makes, and e-mails subscribers each note', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Checkout' });
    const subscriber = uniqueEmail('status-page');
    await subscribeConfirmed(api, owner.token, monitor.id, subscriber);
    const created = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Card errors', message: 'Since 10:05' } });
    const id = created.body.incident.id as string;
    expect((await api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { title: 'Card payments failing', severity: 'CRITICAL' } })).status).toBe(200);
    expect((await api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { status: 'IDENTIFIED' } })).status).toBe(200);
    // A PUT that changes nothing writes nothing.
    expect((await api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { status: 'IDENTIFIED' } })).status).toBe(200);

    const note = await post(id, { message: '  The card processor is failing over.  ' });
    expect(note.status).toBe(201);
    expect(note.body).toEqual({
      update: {
        id: expect.any(String),
        incident_id: id,
        kind: 'note',
        status: 'IDENTIFIED',
        message: 'The card processor is failing over.',
        user_id: owner.id,
        user_name: 'Tina Timeline',
        created_at: expect.any(String),
        details: null,
      },
    });
    const withStatus = await post(id, { message: 'Fix deployed; watching error rates.', status: 'MONITORING' });
    expect(withStatus.status).toBe(201);
    expect(withStatus.body.update).toMatchObject({ kind: 'note', status: 'MONITORING', details: null });
    // Exactly as PUT: the incident's status changed with the note.
    const afterNote = (await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body.incident;
    expect(afterNote).toMatchObject({ status: 'MONITORING', resolved_at: null });

    expect((await api.request('POST', `/api/incidents/${id}/acknowledge`, { token: owner.token, body: { method: 'api' } })).status).toBe(200);
    const resolving = await post(id, { message: 'All clear.', status: 'RESOLVED' });
    expect(resolving.body.update).toMatchObject({ status: 'RESOLVED', details: null });
    const resolved = (await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body.incident;
    expect(resolved.resolved_at).toBe(resolving.body.update.created_at);
    // A note on a resolved incident (a postmortem) keeps it resolved.
    expect((await post(id, { message: 'Postmortem: https://wiki.example.com/pm/42' })).body.update).toMatchObject({ status: 'RESOLVED', details: null });
    expect((await api.request('DELETE', `/api/incidents/${id}`, { token: owner.token })).status).toBe(200);

    const entries = await timeline(id);
    // A note that changes the status is followed by the service's own entry of the change.
    expect(entries.map((entry) => [entry.kind, entry.status])).toEqual([
      ['created', 'INVESTIGATING'],
      ['updated', 'INVESTIGATING'],
      ['status_changed', 'IDENTIFIED'],
      ['note', 'IDENTIFIED'],
      ['note', 'MONITORING'],
      ['status_changed', 'MONITORING'],
      ['acknowledged', 'MONITORING'],
      ['note', 'RESOLVED'],
      ['resolved', 'RESOLVED'],
      ['note', 'RESOLVED'],
    ]);
    expect(entries[5]).toMatchObject({ user_id: owner.id, created_at: entries[4]!.created_at, details: { previous_status: 'IDENTIFIED' } });
    expect(entries[8]).toMatchObject({ user_id: owner.id, created_at: entries[7]!.created_at, details: { previous_status: 'MONITORING', by: 'user' } });
    expect(entries[0]).toMatchObject({ message: 'Since 10:05', user_id: owner.id, user_name: 'Tina Timeline', details: { automatic: false, title: 'Card errors', severity: 'MEDIUM' } });
    expect(entries[1]!.details).toEqual({ changes: { title: { from: 'Card errors', to: 'Card payments failing' }, severity: { from: 'MEDIUM', to: 'CRITICAL' } } });
    expect(entries[2]!.details).toEqual({ previous_status: 'INVESTIGATING' });
    expect(entries[6]).toMatchObject({ user_id: owner.id, details: { method: 'api', user_email: owner.email } });

    // Subscribers: new incident, the status change, each note with its message (with or without a status change).
    await settle(api);
    const mails = await awaitMail(api, subscriber, 6);
    // Each event is its own notifier invocation, run side by side: the e-mails arrive in any order.
    expect(mails.map((mail) => mail.subject).sort()).toEqual(
      [
        'New incident: Card errors',
        'Incident update: Card payments failing',
        'Incident update: Card payments failing',
        'Incident update: Card payments failing',
        'Incident resolved: Card payments failing',
        'Incident update: Card payments failing',
      ].sort(),
    );
    const carrying = (text: string) => {
      const found = mails.filter((mail) => (mail.body.text ?? '').includes(text));
      expect(found, text).toHaveLength(1);
      return found[0]!;
    };
    const noted = carrying('The card processor is failing over.');
    expect(noted.subject).toBe('Incident update: Card payments failing');
    expect(noted.body.text ?? '').not.toContain('The status changed');
    expect(carrying('Fix deployed; watching error rates.').body.text ?? '').toContain('The status changed from IDENTIFIED to MONITORING.');
    expect(carrying('All clear.').subject).toBe('Incident resolved: Card payments failing');
    expect(carrying('Postmortem: https://wiki.example.com/pm/42').subject).toBe('Incident update: Card payments failing');
  });

  it('pages a step whose incident changed status between its read and its write, showing the new status', async () => {
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: 'Later', steps: [{ delay_minutes: 0, emails: [uniqueEmail('first')] }, { delay_minutes: 5, emails: [uniqueEmail('second')] }] },
    });
    const monitor = await createMonitor(api, owner, { name: 'Queue', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
    const opened = (await invokeFunction('monitor-check', { monitorId: monitor.id, status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() })) as { incident_id: string };
    await settle(api);
    const hold = holdCalls('escalation-step', 'TransactWriteItemsCommand');
    advanceClock(5 * 60_000 + 1_000);
    const ticking = api.runtime.scheduler.tick();
    await hold.arrived();
    expect((await api.request('PUT', `/api/incidents/${opened.incident_id}`, { token: owner.token, body: { status: 'IDENTIFIED' } })).status).toBe(200);
    hold.release();
    await ticking;
    await settle(api);
    const entries = await timeline(opened.incident_id);
    expect(entries.map((entry) => [entry.kind, entry.status, entry.details?.step_order ?? null])).toEqual([
      ['created', 'INVESTIGATING', null],
      ['escalation_paged', 'INVESTIGATING', 1],
      ['status_changed', 'IDENTIFIED', null],
      ['escalation_paged', 'IDENTIFIED', 2],
    ]);
  });

  it('lists entries in the order their changes committed, whatever order their times were taken in', async () => {
    const monitor = await createMonitor(api, owner);
    const id = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Order' } })).body.incident.id;
    // The status change has read the incident and taken its time; a note commits before it does.
    const hold = holdCalls('incidents-update', 'TransactWriteItemsCommand');
    const changing = api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { status: 'IDENTIFIED' } });
    await hold.arrived();
    expect((await post(id, { message: 'While it was being changed' })).status).toBe(201);
    hold.release();
    expect((await changing).status).toBe(200);
    const entries = await timeline(id);
    expect(entries.map((entry) => [entry.kind, entry.status])).toEqual([
      ['created', 'INVESTIGATING'],
      ['note', 'INVESTIGATING'],
      ['status_changed', 'IDENTIFIED'],
    ]);
    expect(entries[1]!.created_at < entries[2]!.created_at).toBe(true);
  });

  it('records DELETE and PUT RESOLVED as resolved by the person', async () => {
    const monitor = await createMonitor(api, owner);
    const id = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Blip' } })).body.incident.id;
    expect((await api.request('DELETE', `/api/incidents/${id}`, { token: owner.token })).status).toBe(200);
    const entries = await timeline(id);
    expect(entries.at(-1)).toMatchObject({ kind: 'resolved', status: 'RESOLVED', user_id: owner.id, details: { previous_status: 'INVESTIGATING', by: 'user' } });
  });

  it('refuses bad notes with 400 Validation errors, creating nothing', async () => {
    const monitor = await createMonitor(api, owner);
    const id = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Validation' } })).body.incident.id;
    for (const [body, field] of [
      [{}, 'message'],
      [{ message: '' }, 'message'],
      [{ message: ' \u200b ' }, 'message'],
      [{ message: 'x'.repeat(5_001) }, 'message'],
      [{ message: 42 }, 'message'],
      [{ message: 'ok', status: 'DONE' }, 'status'],
      [{ message: 'ok', extra: 1 }, 'extra'],
    ] as const) {
      const response = await post(id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      expect(response.body.details.map((detail: { field: string }) => detail.field), JSON.stringify(body)).toContain(field);
    }
    expect((await post(id, { message: 'x'.repeat(5_000) })).status).toBe(201);
    expect((await post('6f1c2d3e-0000-4000-8000-000000000000', { message: 'Nobody home' })).body).toEqual({ error: 'Incident not found' });
    expect((await api.request('GET', '/api/incidents/6f1c2d3e-0000-4000-8000-000000000000/updates', { token: owner.token })).body).toEqual({ error: 'Incident not found' });
    const entries = await timeline(id);
    expect(entries.map((entry) => entry.kind)).toEqual(['created', 'note']);
    expect((await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body.incident.status).toBe('INVESTIGATING');
  });

  it('lets OWNER, ADMIN and MEMBER of the team post; a VIEWER reads but gets 403; an outsider gets 404', async () => {
    const monitor = await createMonitor(api, roles.users.OWNER, { team_id: roles.team.id });
    const id = (await api.request('POST', '/api/incidents', { token: roles.users.OWNER.token, body: { monitorId: monitor.id, title: 'Team incident' } })).body.incident.id;
    for (const role of ['OWNER', 'ADMIN', 'MEMBER'] as const) {
      const response = await post(id, { message: `From ${role}` }, roles.users[role]);
      expect(response.status, role).toBe(201);
      expect(response.body.update.user_id).toBe(roles.users[role].id);
    }
    const viewer = await post(id, { message: 'From VIEWER', status: 'RESOLVED' }, roles.users.VIEWER);
    expect(viewer).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    const outsider = await post(id, { message: 'From outside' }, roles.users.NON_MEMBER);
    const unknown = await post('6f1c2d3e-0000-4000-8000-000000000001', { message: 'x' }, roles.users.NON_MEMBER);
    expect(outsider.status).toBe(404);
    expect(JSON.stringify(outsider.body)).toBe(JSON.stringify(unknown.body));
    const read = await api.request('GET', `/api/incidents/${id}/updates`, { token: roles.users.NON_MEMBER.token });
    expect(read).toMatchObject({ status: 404, body: { error: 'Incident not found' } });
    const entries = await timeline(id, roles.users.VIEWER);
    expect(entries.map((entry) => entry.message)).toEqual([null, 'From OWNER', 'From ADMIN', 'From MEMBER']);
    expect((await api.request('GET', `/api/incidents/${id}`, { token: roles.users.OWNER.token })).body.incident.status).toBe('INVESTIGATING');
  });

  it('pages oldest first with a cursor bound to the incident and the caller', async () => {
    const monitor = await createMonitor(api, owner);
    const incident = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Chatty' } })).body.incident;
    const id = incident.id as string;
    // The notes are what is paged, not what is tested (posting is, above), a millisecond apart.
    await writeNotes(Array.from({ length: 24 }, (_, index) => noteItem(id, Date.parse(incident.created_at) + index + 1, `note ${index}`)));
    const { items, pages } = await walk<Entry>(api, owner.token, `/api/incidents/${id}/updates?limit=7`, 'updates');
    expect(pages).toBe(4);
    expect(items.map((entry) => entry.message)).toEqual([null, ...Array.from({ length: 24 }, (_, index) => `note ${index}`)]);
    expect(new Set(items.map((entry) => entry.id)).size).toBe(25);
    const first = await api.request('GET', `/api/incidents/${id}/updates?limit=7`, { token: owner.token });
    const other = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Other' } })).body.incident.id;
    const foreign = await api.request('GET', `/api/incidents/${other}/updates?cursor=${first.body.next_cursor}`, { token: owner.token });
    expect(foreign.status).toBe(400);
    for (const limit of ['0', '101', 'x']) expect((await api.request('GET', `/api/incidents/${id}/updates?limit=${limit}`, { token: owner.token })).status).toBe(400);
  });

  it('ends a first page exactly where the entries do, with or without the incident\'s message, beside its acknowledgement', async () => {
    const monitor = await createMonitor(api, owner);
    for (const message of ['Opened with a message', undefined]) {
      const incident = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Edges', ...(message ? { message } : {}) } })).body.incident;
      const id = incident.id as string;
      // Each note a minute after the incident and in order (posting is tested above).
      const note = (index: number) => writeNotes([noteItem(id, Date.parse(incident.created_at) + 60_000 + index, `note ${index}`)]);
      // The acknowledgement (`ACK`) sorts before the incident's item, the message after it, the entries last.
      expect((await api.request('POST', `/api/incidents/${id}/acknowledge`, { token: owner.token, body: { method: 'api' } })).status).toBe(200);
      for (let count = 2; count <= 6; count++) {
        const first = await api.request('GET', `/api/incidents/${id}/updates?limit=3`, { token: owner.token });
        expect(first.status).toBe(200);
        expect(first.body.updates.map((entry: Entry) => entry.kind)).toEqual(['created', 'acknowledged', ...Array.from({ length: count - 2 }, () => 'note')].slice(0, 3));
        expect(first.body.updates[0].message).toBe(message ?? null);
        expect(first.body.next_cursor === null, `${count} entries`).toBe(count <= 3);
        if (count > 3) {
          const rest = await api.request('GET', `/api/incidents/${id}/updates?limit=3&cursor=${first.body.next_cursor}`, { token: owner.token });
          expect(rest.body.updates.map((entry: Entry) => entry.message)).toEqual(Array.from({ length: count - 3 }, (_, index) => `note ${index + 2}`));
          expect(rest.body.next_cursor).toBeNull();
        }
        await note(count - 1);
      }
    }
  });

  it('takes notes and changes from many people at once, losing none', async () => {
    const monitor = await createMonitor(api, owner);
    const id = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Busy' } })).body.incident.id;
    const writes = await Promise.all([
      ...Array.from({ length: 16 }, (_, index) => post(id, { message: `note ${index}` })),
      ...Array.from({ length: 4 }, (_, index) => api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { title: `Busy ${index}` } })),
      api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { severity: 'CRITICAL' } }),
      post(id, { message: 'Found it', status: 'IDENTIFIED' }),
    ]);
    expect(writes.map((response) => response.status).filter((status) => status >= 300)).toEqual([]);
    const entries = await timeline(id);
    expect(entries.filter((entry) => entry.kind === 'note')).toHaveLength(17);
    // Every rename is recorded from the title it replaced: the titles form one chain.
    const renames = entries.filter((entry) => entry.kind === 'updated' && entry.details?.changes && 'title' in (entry.details.changes as object));
    expect(renames).toHaveLength(4);
    const chain = renames.map((entry) => (entry.details!.changes as { title: { from: string; to: string } }).title);
    chain.forEach((link, index) => expect(link.from).toBe(index === 0 ? 'Busy' : chain[index - 1]!.to));
    const incident = (await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body.incident;
    expect(incident).toMatchObject({ title: chain.at(-1)!.to, severity: 'CRITICAL', status: 'IDENTIFIED' });
    // The note that changed the status is followed by the service's entry of the change.
    const changedAt = entries.findIndex((entry) => entry.kind === 'status_changed');
    expect(entries.filter((entry) => entry.kind === 'status_changed')).toHaveLength(1);
    expect(entries[changedAt]).toMatchObject({ status: 'IDENTIFIED', details: { previous_status: 'INVESTIGATING' } });
    expect(entries.find((entry) => entry.message === 'Found it')).toMatchObject({ status: 'IDENTIFIED', created_at: entries[changedAt]!.created_at });
  });

  it('posts a note once per Idempotency-Key', async () => {
    const monitor = await createMonitor(api, owner);
    const id = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Retries' } })).body.incident.id;
    const responses = await Promise.all(Array.from({ length: 5 }, () => post(id, { message: 'Once only' }, owner, { 'idempotency-key': `note-${id}` })));
    const created = responses.filter((response) => response.status === 201);
    expect(new Set(created.map((response) => response.body.update.id)).size).toBe(1);
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === 'true').length).toBe(created.length - 1);
    const reused = await post(id, { message: 'Something else' }, owner, { 'idempotency-key': `note-${id}` });
    expect(reused).toMatchObject({ status: 422, body: { error: 'Idempotency key reused with a different request' } });
    expect((await timeline(id)).filter((entry) => entry.kind === 'note')).toHaveLength(1);
  });
});
