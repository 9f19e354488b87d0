/**
 * The bench's floor (infra/tools/floor.ts) answers what the service answers, row by
 * row, so the bench compares the service with a correct minimal implementation, not with a fast wrong
 * one: the reads answer the same bodies for the same items, the writes the same shapes, every answer
 * is valid against docs/openapi.json, and what the floor writes (incident, timeline entry, outbox
 * record) is what the service itself reads and publishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomInt } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { startFloor } from '../../infra/tools/floor.js';
import { TABLE_NAME_ENV } from '../../shared/system.js';
import { db } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { incidentForReplyCode } from '../../shared/incidents/reply-codes.js';
import { smsPagedPerson } from '../../infra/testing/scenarios.js';
import { eventDetails } from '../../shared/platform/events/model.js';
import { allMailTo, Api, eventually, uniqueEmail, type User } from '../support/api.js';
import { awaitPhoneMessage, phoneMessages } from '../support/contacts.js';
import { checkContract } from '../support/contract.js';
import { createMonitor } from '../support/teams.js';

let api: Api;
let floor: Awaited<ReturnType<typeof startFloor>>;
let owner: User;
let monitorId: string;

beforeAll(async () => {
  api = await Api.start();
  const issuer = api.runtime.issuer;
  floor = await startFloor({ tableName: process.env[TABLE_NAME_ENV]!, issuer: issuer.issuer, audience: issuer.audience, jwks: issuer.jwks(), awsUrl: api.runtime.url, publicUrl: api.runtime.url });
  owner = await api.signUp(uniqueEmail('floor'), 'Fiona Floor');
  monitorId = (await createMonitor(api, owner, { name: 'Floor monitor' })).id;
});
afterAll(async () => {
  await floor?.close();
  await api?.close();
});

/** A request to the floor, its answer checked against docs/openapi.json as the service's are. */
async function floorRequest(method: string, path: string, token: string | undefined, body?: unknown) {
  const response = await fetch(`${floor.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await response.json()) as any;
  if (response.status !== 401) checkContract(method, `http://floor${path}`, response.status, response.headers.get('content-type'), parsed);
  return { status: response.status, body: parsed, headers: response.headers };
}
const serviceRequest = (method: string, path: string, body?: unknown) => api.request(method, path, { token: owner.token, body });

/** The shape of a JSON value: its types, object keys, and every array element's shape. */
const shape = (value: unknown): unknown =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? [...new Set(value.map((element) => JSON.stringify(shape(element))))].map((text) => JSON.parse(text))
      : typeof value === 'object'
        ? Object.fromEntries(Object.entries(value as object).sort(([a], [b]) => a.localeCompare(b)).map(([key, inner]) => [key, shape(inner)]))
        : typeof value;

const create = async (title: string) => (await serviceRequest('POST', '/api/incidents', { monitorId, title, message: 'Context' })).body.incident.id as string;

describe('the bench floor answers as the service does', () => {
  it('refuses a request without a valid token as the gateway does', async () => {
    expect(await floorRequest('GET', '/api/incidents', undefined)).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
    expect((await floorRequest('GET', '/api/incidents', `${owner.token}x`)).status).toBe(401);
  });

  it('GET incident: the same body for the same items; 404 for another caller', async () => {
    const id = await create('Read me');
    expect((await serviceRequest('POST', `/api/incidents/${id}/acknowledge`, { method: 'api' })).status).toBe(200);
    const service = await serviceRequest('GET', `/api/incidents/${id}`);
    const direct = await floorRequest('GET', `/api/incidents/${id}`, owner.token);
    expect(direct.status).toBe(200);
    expect(direct.body).toEqual(service.body);
    expect(direct.body.incident.acknowledgement.method).toBe('api');
    const stranger = await api.signUp(uniqueEmail('stranger'));
    expect(await floorRequest('GET', `/api/incidents/${id}`, stranger.token)).toMatchObject({ status: 404, body: { error: 'Incident not found' } });
  });

  it('list (first page): the same incidents, a next cursor and Link when there is more', async () => {
    for (const title of ['One', 'Two', 'Three']) await create(title);
    const service = await serviceRequest('GET', '/api/incidents?limit=2');
    const direct = await floorRequest('GET', '/api/incidents?limit=2', owner.token);
    expect(direct.status).toBe(200);
    expect(direct.body.incidents).toEqual(service.body.incidents);
    expect(shape(direct.body)).toEqual(shape(service.body));
    expect(direct.headers.get('link')).toMatch(/rel="next"/);
    // The floor's own cursor walks on, as the service's does.
    const second = await floorRequest('GET', `/api/incidents?limit=2&cursor=${direct.body.next_cursor}`, owner.token);
    const serviceSecond = await serviceRequest('GET', `/api/incidents?limit=2&cursor=${service.body.next_cursor}`);
    expect(second.body.incidents).toEqual(serviceSecond.body.incidents);
  });

  it('timeline page: the same entries', async () => {
    const id = await create('Timeline');
    for (const message of ['first', 'second', 'third']) expect((await serviceRequest('POST', `/api/incidents/${id}/updates`, { message })).status).toBe(201);
    const service = await serviceRequest('GET', `/api/incidents/${id}/updates?limit=3`);
    const direct = await floorRequest('GET', `/api/incidents/${id}/updates?limit=3`, owner.token);
    expect(direct.status).toBe(200);
    expect(direct.body.updates).toEqual(service.body.updates);
    expect(shape(direct.body)).toEqual(shape(service.body));
    const rest = await floorRequest('GET', `/api/incidents/${id}/updates?limit=3&cursor=${direct.body.next_cursor}`, owner.token);
    expect(rest.body.updates).toEqual((await serviceRequest('GET', `/api/incidents/${id}/updates?limit=3&cursor=${service.body.next_cursor}`)).body.updates);
  });

  it('POST incident: the same shape; the service reads what the floor wrote, its timeline entry and its outbox record', async () => {
    const body = { monitorId, title: 'Floor made', message: 'Why', severity: 'HIGH' };
    const service = await serviceRequest('POST', '/api/incidents', body);
    const direct = await floorRequest('POST', '/api/incidents', owner.token, body);
    expect(direct.status).toBe(201);
    expect(shape(direct.body)).toEqual(shape(service.body));
    const id = direct.body.incident.id as string;
    const read = await serviceRequest('GET', `/api/incidents/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.incident).toMatchObject({ ...direct.body.incident, monitor_name: 'Floor monitor', escalation_policy_id: null });
    const entries = (await serviceRequest('GET', `/api/incidents/${id}/updates`)).body.updates;
    expect(entries).toMatchObject([{ kind: 'created', status: 'INVESTIGATING', user_name: 'Fiona Floor', message: 'Why' }]);
    const { Items = [] } = await db().send(new ScanCommand({ TableName: process.env[TABLE_NAME_ENV]!, FilterExpression: '#type = :outbox', ExpressionAttributeNames: { '#type': 'type' }, ExpressionAttributeValues: { ':outbox': 'outbox' } }));
    const record = Items.find((item) => item.detail?.incident?.id === id);
    expect(record?.event_type).toBe('incident.created');
    expect(() => eventDetails['incident.created'].parse(record!.detail)).not.toThrow();
    // The same refusals.
    expect(await floorRequest('POST', '/api/incidents', owner.token, { ...body, monitorId: crypto.randomUUID() })).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    expect(await floorRequest('POST', '/api/incidents', owner.token, { ...body, title: '' })).toMatchObject({ status: 400, body: { error: 'Validation errors' } });
  });

  it('PUT status and acknowledge: the same shapes and refusals', async () => {
    const [mine, theirs] = [await create('Floor put'), await create('Service put')];
    const direct = await floorRequest('PUT', `/api/incidents/${mine}`, owner.token, { status: 'IDENTIFIED' });
    const service = await serviceRequest('PUT', `/api/incidents/${theirs}`, { status: 'IDENTIFIED' });
    expect(direct.status).toBe(200);
    expect(shape(direct.body)).toEqual(shape(service.body));
    expect(direct.body.incident.status).toBe('IDENTIFIED');
    expect((await serviceRequest('GET', `/api/incidents/${mine}/updates`)).body.updates.map((entry: { kind: string }) => entry.kind)).toEqual(['created', 'status_changed']);
    expect(await floorRequest('PUT', `/api/incidents/${mine}`, owner.token, {})).toMatchObject({ status: 400, body: { error: 'No updates provided' } });

    const acknowledged = await floorRequest('POST', `/api/incidents/${mine}/acknowledge`, owner.token, { method: 'api' });
    const serviceAcknowledged = await serviceRequest('POST', `/api/incidents/${theirs}/acknowledge`, { method: 'api' });
    expect(acknowledged.status).toBe(200);
    expect(shape(acknowledged.body)).toEqual(shape(serviceAcknowledged.body));
    expect(acknowledged.body.incident.acknowledged).toBe(true);
    expect((await serviceRequest('GET', `/api/incidents/${mine}`)).body.incident.acknowledgement).toMatchObject({ method: 'api', user_name: 'Fiona Floor' });
    expect(await floorRequest('POST', `/api/incidents/${mine}/acknowledge`, owner.token)).toMatchObject({ status: 400, body: { error: 'Incident already acknowledged' } });
  });
});

describe("the floor's page path pages as the service does", () => {
  let lambda: LambdaClient;
  const oncall = uniqueEmail('floor-oncall');
  let policyId: string;

  beforeAll(async () => {
    lambda = new LambdaClient({ endpoint: api.url, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    policyId = (await serviceRequest('POST', '/api/escalation-policies', { name: 'Floor pages', steps: [{ delay_minutes: 0, emails: [oncall] }] })).body.escalation_policy.id;
  });
  afterAll(async () => {
    lambda?.destroy();
  });

  const newKey = async (monitorId: string) => (await serviceRequest('POST', `/api/monitors/${monitorId}/integrations`, { name: 'Tool' })).body.integration.key as string;
  const pagedMonitor = async (name: string) => (await serviceRequest('POST', '/api/monitors', { name, failure_threshold: 1, escalation_policy_id: policyId })).body.monitor.id as string;
  const floorPost = async (path: string, body: unknown) => {
    const response = await fetch(`${floor.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const down = (monitorId: string) => ({ monitorId, status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() });
  const pageFor = (incidentId: string) => eventually(() => allMailTo(api, oncall), (emails) => emails.some((email) => (email.body.text ?? '').includes(incidentId)));

  it('a down check: one transaction, then the page arrives through the stream and the bus with what a page needs; a second check is refused by the claim', async () => {
    const monitorId = await pagedMonitor('Floor paged');
    const opened = await floorPost('/check', down(monitorId));
    expect(opened).toMatchObject({ status: 200, body: { ok: true, outcome: 'incident_opened' } });
    const incidentId = opened.body.incident_id as string;
    const page = (await pageFor(incidentId)).find((email) => (email.body.text ?? '').includes(incidentId))!;
    expect(page.subject).toBe('[HIGH] Floor paged is down — you are paged (step 1)');
    expect(page.body.text).toContain('Monitor: Floor paged');
    expect(page.body.text).toMatch(new RegExp(`Acknowledge: ${api.runtime.url}/floor/acknowledge/${incidentId}\\.1\\.\\S+\\.\\d+\\.[A-Za-z0-9_-]{43}`));
    expect(page.body.text).toMatch(new RegExp(`Stop paging this address: ${api.runtime.url}/floor/stop-paging/${owner.id}\\.\\S+\\.\\d+\\.[A-Za-z0-9_-]{43}`));
    // The claim holds: the incident stays the only open one of the monitor.
    expect(await floorPost('/check', down(monitorId))).toMatchObject({ status: 200, body: { outcome: 'incident_already_open', incident_id: incidentId } });
    expect(await floorPost('/check', { ...down(monitorId), consecutiveFailures: 1 })).toMatchObject({ status: 200, body: { outcome: 'below_threshold' } });
  });

  it("admits a page to an outside address as the service must: an address that stopped the sending account is not paged, and each page counts against the account's day", async () => {
    const stopped = uniqueEmail('floor-stopped');
    const TableName = process.env[TABLE_NAME_ENV]!;
    const get = async (key: Record<string, string>) => (await db().send(new GetCommand({ TableName, Key: key }))).Item;
    await db().send(new PutCommand({ TableName, Item: { ...keys.pagingStopped(owner.id, stopped), type: 'paging_stopped' } }));
    const policy = (await serviceRequest('POST', '/api/escalation-policies', { name: 'Stopped pages', steps: [{ delay_minutes: 0, emails: [stopped] }] })).body.escalation_policy.id;
    const monitorId = (await serviceRequest('POST', '/api/monitors', { name: 'Floor stopped', failure_threshold: 1, escalation_policy_id: policy })).body.monitor.id as string;
    const opened = await floorPost('/check', down(monitorId));
    expect(opened).toMatchObject({ status: 200, body: { outcome: 'incident_opened' } });
    await eventually(() => get({ pk: `INCIDENT#${opened.body.incident_id}`, sk: `FLOORWITHHELD#${stopped.toLowerCase()}` }), (item) => item !== undefined);
    expect(await allMailTo(api, stopped)).toEqual([]);
    // The pages admitted so far (the earlier tests' to `oncall`) are counted on the account's day.
    const day = await get({ pk: `QUOTA#${owner.id}`, sk: `floor_outside#${new Date().toISOString().slice(0, 10)}` });
    expect(day).toMatchObject({ pages: expect.any(Number), addresses: new Set([oncall.toLowerCase()]) });
  });

  // (Not the other way round: the floor's incident item carries what its page needs, not all the service reads.)
  it("refuses to open a second incident where the service's is open: the same claim", async () => {
    const serviceFirst = await pagedMonitor('Service first');
    const invoke = async (payload: unknown) => JSON.parse(new TextDecoder().decode((await lambda.send(new InvokeCommand({ FunctionName: 'monitor-check', Payload: new TextEncoder().encode(JSON.stringify(payload)) }))).Payload));
    const service = await invoke(down(serviceFirst));
    expect(service.outcome).toBe('incident_opened');
    expect(await floorPost('/check', down(serviceFirst))).toMatchObject({ status: 200, body: { outcome: 'incident_already_open', incident_id: service.incident_id } });
  });

  it('an alert trigger (Events API v2): the key admitted, the page arrives; a bad key is refused', async () => {
    const monitorId = await pagedMonitor('Floor alerts');
    const key = (await serviceRequest('POST', `/api/monitors/${monitorId}/integrations`, { name: 'Tool' })).body.integration.key as string;
    const event = { routing_key: key, event_action: 'trigger', dedup_key: 'disk-1', payload: { summary: 'Disk full on db-1', source: 'db-1', severity: 'critical' } };
    expect(await floorPost('/v2/enqueue', event)).toMatchObject({ status: 202, body: { status: 'success', dedup_key: 'disk-1' } });
    const page = await eventually(() => allMailTo(api, oncall), (emails) => emails.some((email) => email.subject.startsWith('[CRITICAL] Disk full on db-1')));
    expect(page.find((email) => email.subject.startsWith('[CRITICAL] Disk full on db-1'))!.body.text).toContain('Monitor: Floor alerts');
    expect(await floorPost('/v2/enqueue', { ...event, routing_key: 'x'.repeat(32) })).toMatchObject({ status: 400, body: { message: 'Invalid routing key' } });
  });

  it("a repeat trigger of the open incident counts on it and on its key's rate, from any key of the monitor, and opens nothing", async () => {
    const monitorId = (await serviceRequest('POST', '/api/monitors', { name: 'Floor repeats' })).body.monitor.id as string;
    const [first, second] = [await newKey(monitorId), await newKey(monitorId)];
    const event = (key: string) => ({ routing_key: key, event_action: 'trigger', dedup_key: 'cpu-1', payload: { summary: 'CPU high', source: 'web-1', severity: 'warning' } });
    const TableName = process.env[TABLE_NAME_ENV]!;
    const get = async (pk: string, sk: string) => (await db().send(new GetCommand({ TableName, Key: { pk, sk } }))).Item;
    const minute = () => Math.floor(Date.now() / 60_000);
    const before = minute();
    for (const key of [first, first, second, first]) expect(await floorPost('/v2/enqueue', event(key))).toMatchObject({ status: 202, body: { status: 'success', dedup_key: 'cpu-1' } });
    // The rate counts in fixed one-minute windows: across a minute's turn, a key's count starts again.
    const counted = (count: number) => (minute() === before ? count : expect.any(Number));
    const incidentId = (await get(`MONITOR#${monitorId}`, 'ALERT#cpu-1'))!.incident_id as string;
    expect(await get(`INCIDENT#${incidentId}`, 'INCIDENT')).toMatchObject({ monitor_id: monitorId, dedup_key: 'cpu-1', status: 'INVESTIGATING', alert_count: 4 });
    const hash = (key: string) => createHash('sha256').update(key).digest('hex');
    expect(await get(`INTEGRATIONKEY#${hash(first)}`, 'INTEGRATIONKEY')).toMatchObject({ rate_count: counted(3) });
    expect(await get(`INTEGRATIONKEY#${hash(second)}`, 'INTEGRATIONKEY')).toMatchObject({ rate_count: counted(1) });
    // The service's open incident of a dedup key is the floor's too (the same claim): a repeat counts on it.
    const serviceEvent = { ...event(second), dedup_key: 'cpu-service' };
    expect((await api.request('POST', '/v2/enqueue', { body: serviceEvent })).status).toBe(202);
    for (const key of [first, first]) expect((await floorPost('/v2/enqueue', { ...event(key), dedup_key: 'cpu-service' })).status).toBe(202);
    const serviceIncident = (await get(`MONITOR#${monitorId}`, 'ALERT#cpu-service'))!.incident_id as string;
    expect((await serviceRequest('GET', `/api/incidents/${serviceIncident}`)).body.incident).toMatchObject({ alert_count: 3 });
  });

  it("pages a person by SMS as the service must: their reply code (the lowest free) and an acknowledge link in `[N] …`, the code's and the link's records, the notification on the timeline; no usable rule: their account's address", async () => {
    const person = await api.signUp(uniqueEmail('floor-sms'), 'Sam Sms');
    const send = async (method: string, path: string, body: unknown) => {
      const response = await api.request(method, path, { token: person.token, body });
      expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      return response.body;
    };
    const phone = `+1555${randomInt(1_000_000, 10_000_000)}1`;
    const paged = await smsPagedPerson(send, async (to) => api.runtime.phones.messages(to), person.id, phone);
    const TableName = process.env[TABLE_NAME_ENV]!;
    const trigger = async (dedupKey: string) => {
      const event = { routing_key: paged.key, event_action: 'trigger', dedup_key: dedupKey, payload: { summary: 'Disk full on db-2', source: 'db-2', severity: 'critical' } };
      expect(await floorPost('/v2/enqueue', event)).toMatchObject({ status: 202, body: { status: 'success' } });
      return (await db().send(new GetCommand({ TableName, Key: { pk: `MONITOR#${paged.monitorId}`, sk: `ALERT#${dedupKey}` } }))).Item!.incident_id as string;
    };
    const page = (code: number) => awaitPhoneMessage(api, phone, (message) => message.body.startsWith(`[${code}] `));

    const first = await trigger('sms-1');
    const sms = await page(1);
    const link = new RegExp(`^\\[1\\] CRITICAL Disk full on db-2 - reply 1a to acknowledge, 1r to resolve ${api.runtime.url}/floor/acknowledge/([A-Za-z0-9_-]{43})$`).exec(sms.body);
    expect(link, sms.body).not.toBeNull();
    expect(sms).toMatchObject({ channel: 'sms', from: '+18005550100' });
    // The service reads the code the floor took, and the link's record names the incident and the person.
    expect(await incidentForReplyCode(person.id, 1)).toBe(first);
    const record = await db().send(new GetCommand({ TableName, Key: { pk: `FLOORLINK#${createHash('sha256').update(link![1]!).digest('hex')}`, sk: 'LINK' } }));
    expect(record.Item).toMatchObject({ incident_id: first, user_id: person.id, recipient: phone });
    // Its notification entry was written before the send (a receipt may come before the send's answer).
    const entries = await db().send(new QueryCommand({ TableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :updates)', ExpressionAttributeValues: { ':pk': `INCIDENT#${first}`, ':updates': 'UPDATE#' } }));
    expect(entries.Items).toMatchObject([{ kind: 'notification', details: { channel: 'sms', address: `+1•••${phone.slice(-4)}`, user_id: person.id, user_name: 'Sam Sms', status: 'sent', step_order: 1 } }]);

    // Code 1 is held by an open incident: the next one is 2.
    expect(await incidentForReplyCode(person.id, 2)).toBeUndefined();
    const second = await trigger('sms-2');
    expect((await page(2)).body).toMatch(/^\[2\] CRITICAL Disk full on db-2 - reply 2a to acknowledge, 2r to resolve /);
    expect(await incidentForReplyCode(person.id, 2)).toBe(second);

    // The method disabled, no rule is usable: the person's account address, and no SMS.
    await send('PUT', `/api/me/contact-methods/${paged.methodId}`, { disabled: true });
    const third = await trigger('sms-3');
    const [mail] = await eventually(() => allMailTo(api, person.email), (emails) => emails.some((email) => (email.body.text ?? '').includes(third)));
    expect(mail!.subject).toBe('[CRITICAL] Disk full on db-2 — you are paged (step 1)');
    expect(mail!.body.text).toMatch(new RegExp(`Acknowledge: ${api.runtime.url}/floor/acknowledge/${third}\\.1\\.${person.id}\\.\\d+\\.[A-Za-z0-9_-]{43}`));
    expect(mail!.body.text).not.toContain('Stop paging');
    expect((await phoneMessages(api, phone)).filter((message) => message.body.includes('Disk full'))).toHaveLength(2);
  });
});
