/**
 * The bundles the CDK deploys answer exactly as the sources the other tests run. A bundle leaves out
 * the `shared/` constants its function never reads (`infra/build/pure-constants.ts`) and carries its
 * own copy of every module, zod's English messages included; this runs the very files Lambda gets
 * against DynamoDB Local, beside the source handlers, request by request.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleAll } from '../../infra/build/bundling.js';
import { invoke, lambdaContext, loadHandler } from '../../infra/local/aws/functions.js';
import { allFunctions, routes } from '../../shared/system.js';
import { signUp } from '../../shared/accounts/service.js';
import { httpEvent, type EventOptions } from '../../infra/testing/events.js';
import { within } from '../support/deadlines.js';

let dir: string;

/**
 * Runs requests through the deployed bundles in a Node process of their own, as Lambda loads them:
 * nothing of this process (zod's global configuration, the sources' modules) reaches them.
 */
const RUNNER = `
const requests = JSON.parse(process.argv[2]);
const answers = [];
for (const { name, event, context } of requests) {
  const { handler } = await import('./' + name + '.mjs');
  try {
    answers.push(await handler(event, { ...context, getRemainingTimeInMillis: () => 10000 }));
  } catch (error) {
    answers.push({ thrown: error.name, message: error.message });
  }
}
process.stdout.write(JSON.stringify(answers));
`;

/** Loads every bundle it is given, in a fresh process, and says what each exports as `handler`. */
const LOADER = `
const loaded = {};
for (const name of process.argv.slice(2)) loaded[name] = typeof (await import('./' + name + '.mjs')).handler;
process.stdout.write(JSON.stringify(loaded));
`;

let everyFunction: string[] = [];

beforeAll(async () => {
  const { functions } = await bundleAll();
  dir = mkdtempSync(join(tmpdir(), 'deployed-bundles-'));
  for (const bundle of functions) writeFileSync(join(dir, `${bundle.name}.mjs`), bundle.code);
  everyFunction = functions.map((bundle) => bundle.name);
  writeFileSync(join(dir, 'run.mjs'), RUNNER);
  writeFileSync(join(dir, 'load.mjs'), LOADER);
}, within(180_000));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Answer = { statusCode: number; body: string };
type Request = [name: string, options: EventOptions];

const route = (name: string) => routes.find((candidate) => candidate.name === name)!;
const event = (name: string, options: EventOptions) => ({ ...httpEvent({ routeKey: `${route(name).method} ${route(name).path}`, ...options }), body: options.body });
const parsed = (answer: Answer) => ({ status: answer.statusCode, body: JSON.parse(answer.body) });

/** The answers of the deployed bundles, in order. */
function deployed(requests: Request[]) {
  const batch = requests.map(([name, options]) => ({ name, event: event(name, options), context: lambdaContext(name, 'bundle-test', 10) }));
  const output = execFileSync(process.execPath, [join(dir, 'run.mjs'), JSON.stringify(batch)], { cwd: dir, env: process.env, encoding: 'utf8' });
  return (JSON.parse(output) as Answer[]).map(parsed);
}

/** The answers of the sources (what every other test runs), in order. */
async function fromSources(requests: Request[]) {
  const answers = [];
  for (const [name, options] of requests) answers.push(parsed((await invoke(await loadHandler(route(name)), name, event(name, options))) as Answer));
  return answers;
}

describe('the deployed bundles', () => {
  it('load, every one of them, and export a handler', () => {
    expect(everyFunction.length).toBe(allFunctions.length);
    const output = execFileSync(process.execPath, [join(dir, 'load.mjs'), ...everyFunction], { cwd: dir, env: process.env, encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual(Object.fromEntries(everyFunction.map((name) => [name, 'function'])));
  });

  it('refuse a worker\'s bad event as the sources do, in English (zod/mini loads no messages of its own)', async () => {
    const bad = { incident_id: 'nope', step_order: 0 };
    const batch = [{ name: 'escalation-step', event: bad, context: lambdaContext('escalation-step', 'bundle-test', 10) }];
    const output = execFileSync(process.execPath, [join(dir, 'run.mjs'), JSON.stringify(batch)], { cwd: dir, env: process.env, encoding: 'utf8' });
    const [fromBundle] = JSON.parse(output) as { thrown: string; message: string }[];
    const fromSource = await invoke(await loadHandler({ handler: 'functions/escalation/step.ts' }), 'escalation-step', bad).then(
      () => undefined,
      (error: Error) => ({ thrown: error.name, message: error.message }),
    );
    expect(fromBundle).toEqual(fromSource);
    expect(fromBundle!.message).toContain('Invalid UUID');
    expect(fromBundle!.message).toContain('Too small: expected number to be >=1');
  });

  it('validate, read and write exactly as the sources do', async () => {
    const owner = await signUp({ email: `bundles-${Date.now()}@example.com`, name: 'Bundle owner' });
    const sub = owner.id;
    const [monitor] = deployed([['monitors-create', { sub, body: JSON.stringify({ name: 'Bundled monitor' }) }]]);
    expect(monitor!.status).toBe(201);
    const [created] = deployed([['incidents-create', { sub, body: JSON.stringify({ monitorId: monitor!.body.monitor.id, title: '  Checkout down  ', severity: 'HIGH' }) }]]);
    expect(created).toMatchObject({ status: 201, body: { incident: { title: 'Checkout down', severity: 'HIGH', status: 'INVESTIGATING' } } });
    const id = created!.body.incident.id as string;

    const requests: Request[] = [
      ['incidents-get', { sub, pathParameters: { id } }],
      ['incidents-list', { sub, queryStringParameters: { severity: 'HIGH', limit: '5' } }],
      ['incidents-updates-list', { sub, pathParameters: { id } }],
      // zod's English messages, refinements, unknown fields and coerced query parameters.
      ['incidents-get', { sub, pathParameters: { id: 'not-a-uuid' } }],
      ['incidents-create', { sub, body: JSON.stringify({ monitorId: monitor!.body.monitor.id, title: '\u200B ', severity: 'URGENT', extra: 1 }) }],
      ['incidents-update', { sub, pathParameters: { id }, body: JSON.stringify({ title: 'x'.repeat(201) }) }],
      ['incidents-update', { sub, pathParameters: { id }, body: '{}' }],
      ['incidents-list', { sub, queryStringParameters: { limit: '0', since: '2026-11-02T00:00:00Z', until: '2026-11-01T00:00:00Z' } }],
      ['teams-invite', { sub, pathParameters: { id }, body: JSON.stringify({ email: '0@com', role: 'OWNER' }) }],
    ];
    const answers = deployed(requests);
    expect(answers).toEqual(await fromSources(requests));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 400, 400, 400, 400, 400, 400]);
    expect(answers[0]!.body.incident).toMatchObject({ id, monitor_name: 'Bundled monitor' });
    expect(answers[1]!.body.incidents).toHaveLength(1);
    expect(answers[3]!.body.details).toEqual([{ field: 'id', message: 'Invalid UUID' }]);

    const [renamed, read] = deployed([
      ['incidents-update', { sub, pathParameters: { id }, body: JSON.stringify({ title: 'Checkout recovering' }) }],
      ['incidents-get', { sub, pathParameters: { id } }],
    ]);
    expect(renamed).toMatchObject({ status: 200, body: { incident: { id, title: 'Checkout recovering' } } });
    expect(read).toEqual((await fromSources([['incidents-get', { sub, pathParameters: { id } }]]))[0]);
  });
});
