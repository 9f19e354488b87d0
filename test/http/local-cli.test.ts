/**
 * `npm start`, `npm run token` and `npm run invoke` as a user runs them: processes of their own,
 * on ports other than the defaults, with `.data/` in a temporary directory (LOCAL_DATA_DIR); and
 * the walk-throughs (the README's Try it, then docs/walkthroughs.md), every block verbatim, top to bottom,
 * in one shell, with PORT and LOCAL_SES_PORT as a reader's second terminal has them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_LIVED_JVM } from '../../infra/local/aws/dynamodb-local.js';
import { freePort } from '../../infra/local/runtime/ports.js';
import { repositoryRoot } from '../../infra/paths.js';
import { confirmFromMailbox, type ReadMail } from '../../infra/testing/scenarios.js';
import { eventually } from '../support/api.js';
import { within } from '../support/deadlines.js';

const dataDir = mkdtempSync(join(tmpdir(), 'local-cli-'));
const runtimeFile = join(dataDir, 'runtime.json');
let start: ChildProcess;
let output = '';
let exited: Promise<number | null>;
let running: { url: string; pid: number; dynamodb: { endpoint: string; pid: number } };
let port: number;
let mailboxPort: number;
/** The console's port this runtime is told (never listened on here: the console is not part of this test). */
const CONSOLE_PORT = 4555;

const scripts = (JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
/** The module an npm script runs with tsx (`"token": "tsx infra/local/cli/token.ts"`). */
const scriptModule = (name: 'start' | 'token' | 'invoke') => scripts[name]!.replace(/^tsx /, '');

/** Runs one of the helper scripts as `npm run` would (tsx), without PORT, finding the runtime by its file. */
function helper(script: 'token' | 'invoke', args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', scriptModule(script), ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, PORT: '', LOCAL_DATA_DIR: dataDir, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Where the walk-throughs are: the README's "Try it" section, then docs/walkthroughs.md, which continues its shell. */
const WALK_THROUGHS = [
  { file: 'README.md', from: '\n## Try it\n' },
  { file: 'docs/walkthroughs.md', from: '' },
];

/**
 * The walk-throughs' shell blocks, in order, each after a marker line, as one script, unchanged: they
 * derive their URLs from PORT and LOCAL_SES_PORT, which the shell gets (this runtime's, not 3000/8005).
 */
function walkThroughs() {
  const sections = WALK_THROUGHS.map(({ file, from }) => {
    const text = readFileSync(join(repositoryRoot, file), 'utf8');
    const start = text.indexOf(from);
    if (start < 0) throw new Error(`${file} no longer has the walk-throughs' section "${from.trim()}"`);
    const end = from ? text.indexOf('\n## ', start + from.length) : -1;
    return text.slice(start, end < 0 ? undefined : end);
  });
  const text = sections.join('\n');
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  const script = blocks.map((block, index) => `echo '@@ walk-through block ${index + 1}'\n${block}`).join('\n');
  return { script, blocks: blocks.length, text };
}

/** What the walk-throughs say their commands print, in order (their `#` comments). */
const README_SAYS = [
  '{"message":"Incident resolved"}',
  '"kind":"note"',
  '<h1>Subscription confirmed</h1>',
  '"outcome":"incident_opened"',
  '"outcome":"incident_already_open"',
  '<h1>Incident acknowledged</h1>',
  '410',
  "method: 'email'",
  '"reason":"bounce"',
  '"key_hint"',
  '{"status":"success","message":"Event processed","dedup_key":"checkout-5xx"}',
  '{"message":"Heartbeat recorded"}',
  '"status":"enabled"',
  '"state":"succeeded"',
  'received incident.created Webhook demo',
  '{"message":"Successfully joined team"}',
  '{"message":"Member removed"}',
  '{"message":"Team deleted"}',
  "[ 'Card payments failing' ]",
  '{"error":"Not authorized"}',
  "user_name: 'Carol'",
  '{"error":"Incident not found"}',
  'rel="next"',
  "[ 'Flap one' ]",
  'HTTP/1.1 201 Created',
  'HTTP/1.1 201 Created',
  'idempotent-replayed: true',
  '"verified":true',
  '[1] CRITICAL Disk almost full on db1 - reply 1a to acknowledge, 1r to resolve http',
  '[1] acknowledged.',
  "{ user_name: 'Dana', method: 'sms' }",
  'sms +1•••0142 delivered',
];

/** The ports the webhook walk-through tells the reader to name when starting the runtime (`LOCAL_WEBHOOK_PORTS=9000 npm start`). */
const webhookPorts = /`LOCAL_WEBHOOK_PORTS=([\d,]+) npm start`/.exec(readFileSync(join(repositoryRoot, 'docs/walkthroughs.md'), 'utf8'))?.[1];

beforeAll(async () => {
  if (!webhookPorts) throw new Error('docs/walkthroughs.md no longer says which ports its webhook walk-through names (`LOCAL_WEBHOOK_PORTS=… npm start`)');
  port = await freePort();
  start = spawn(process.execPath, ['--import', 'tsx', scriptModule('start'), '--in-memory'], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PORT: String(port),
      DYNAMODB_PORT: String(await freePort()),
      LOCAL_SES_PORT: String((mailboxPort = await freePort())),
      LOCAL_DATA_DIR: dataDir,
      HOST: '',
      // As the webhook walk-through says to start it (its receiver's port).
      LOCAL_WEBHOOK_PORTS: webhookPorts,
      // The console on a port of its own: the sign-in's redirect URI and the one origin CORS allows.
      CONSOLE_PORT: String(CONSOLE_PORT),
      // The functions log as they do under npm start (the test run silences its own).
      POWERTOOLS_LOG_LEVEL: 'INFO',
      // Its DynamoDB Local lives for this file only: the test pool's JVM options (quick JIT tier, serial
      // collector), through the variable every JVM reads.
      JAVA_TOOL_OPTIONS: SHORT_LIVED_JVM.join(' '),
    },
  });
  start.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  start.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  exited = new Promise((resolve) => start.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + within(90_000);
  while (!existsSync(runtimeFile)) {
    if (Date.now() > deadline || start.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  running = JSON.parse(readFileSync(runtimeFile, 'utf8'));
});
afterAll(async () => {
  if (start.exitCode === null) {
    start.kill('SIGTERM');
    await exited;
  }
});

describe('npm start on another port', () => {
  it('records where it runs, and serves an OpenAPI document whose local server is itself', async () => {
    expect(running).toMatchObject({ url: `http://localhost:${port}`, pid: start.pid });
    // For this user only (it lives in LOCAL_DATA_DIR beside the signing key).
    expect(statSync(runtimeFile).mode & 0o777).toBe(0o600);
    const document = (await (await fetch(`${running.url}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(document.servers[0]!.url).toBe(`http://localhost:${port}`);
    expect(document.servers.some((server) => server.url.includes(':3000'))).toBe(false);
  });

  it('names its OIDC issuer after its own origin, prints the discovery URL, and allows CORS from CONSOLE_PORT\'s origin only', async () => {
    const discovery = `${running.url}/.well-known/openid-configuration`;
    await eventually(async () => output, (printed) => printed.includes('Press Ctrl-C to stop.'));
    expect(output).toContain(`OIDC sign-in       ${discovery}`);
    expect(output).toContain(`(client incident-console, redirect URI http://localhost:${CONSOLE_PORT}/callback; the API allows CORS from http://localhost:${CONSOLE_PORT} only)`);
    const metadata = (await (await fetch(discovery)).json()) as { issuer: string; token_endpoint: string };
    expect(metadata).toMatchObject({ issuer: running.url, token_endpoint: `${running.url}/oauth2/token` });
    const preflight = (origin: string) => fetch(`${running.url}/api/teams`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
    expect((await preflight(`http://localhost:${CONSOLE_PORT}`)).headers.get('access-control-allow-origin')).toBe(`http://localhost:${CONSOLE_PORT}`);
    expect((await preflight('http://localhost:3001')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is found by npm run token and npm run invoke without PORT', async () => {
    const token = await helper('token', ['--email', 'cli-user@example.com']);
    expect(token.code).toBe(0);
    expect(token.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    // A function that answers ok: false makes invoke exit 1 (with the answer printed).
    const payload = join(dataDir, 'bad-check.json');
    writeFileSync(payload, JSON.stringify({ monitorId: 'nope' }));
    const invoke = await helper('invoke', ['monitor-check', payload]);
    expect(invoke.code).toBe(1);
    expect(JSON.parse(invoke.stdout)).toMatchObject({ ok: false, error: 'Validation errors' });
  });

  // Before the tests below, so that its work is long done when DynamoDB Local is killed at the end.
  it("runs the README's and docs/walkthroughs.md's walk-throughs verbatim, top to bottom, in one shell", async () => {
    const { script, blocks, text } = walkThroughs();
    expect(blocks).toBeGreaterThanOrEqual(10);
    // Every URL of this machine comes from PORT and LOCAL_SES_PORT (`export PORT=3400` reaches them all):
    // no block names the default ports but as those variables' defaults.
    const named = script.replaceAll('${PORT:-3000}', '').replaceAll('${LOCAL_SES_PORT:-8005}', '');
    expect(named.match(/^.*(?:localhost|127\.0\.0\.1):(?:3000|8005)\b.*$/gm) ?? []).toEqual([]);
    // Through a pipe of the shell's own, as a terminal would be a device: `aws … /dev/stdout` can
    // open neither a socket (what Node.js gives a child for its output) nor a file without truncating it.
    const shell = spawn('bash', ['-c', `set -o pipefail\n{\n${script}\n} 2>&1 | cat`], {
      cwd: repositoryRoot,
      // A second terminal beside `npm start`, as the README says: the same PORT, LOCAL_SES_PORT and LOCAL_DATA_DIR.
      env: { ...process.env, PORT: String(port), LOCAL_SES_PORT: String(mailboxPort), LOCAL_DATA_DIR: dataDir },
    });
    let printed = '';
    shell.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => shell.once('close', resolve));
    expect(code, printed).toBe(0);
    // What each walk-through says it prints, in its order.
    let from = 0;
    for (const expected of README_SAYS) {
      const at = printed.indexOf(expected, from);
      expect(at, `"${expected}" after position ${from} of:\n${printed}`).toBeGreaterThanOrEqual(0);
      from = at + expected.length;
    }
    // Nothing a newcomer would stop at: no shell or script error, and no error answer but those the
    // walk-throughs say they print.
    const stops = printed.split('\n').filter((line) => /command not found|^\s*(\w+)?Error\b|Uncaught|EADDRINUSE|Internal Server Error|refused:/.test(line));
    expect(stops).toEqual([]);
    const unexpected = [...printed.matchAll(/"error":"([^"]+)"/g)].map((match) => match[1]!).filter((error) => !text.includes(error));
    expect(unexpected).toEqual([]);
    // A deadline, not an expectation: the README's commands one after another, each a process of its own
    // (npm, tsx, curl, node): 37 s alone on a busy machine, over 60 s beside the whole suite under stress-ng.
  }, within(240_000));

  it('runs the stream, the bus and the notifier in its background thread: a down check reaches the mailbox', async () => {
    const token = (await helper('token', ['--email', 'cli-owner@example.com'])).stdout.trim();
    const call = async (method: string, path: string, body: unknown) =>
      (await fetch(`${running.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;
    const policy = (await call('POST', '/api/escalation-policies', { name: 'CLI', steps: [{ delay_minutes: 0, emails: ['cli-oncall@example.com'] }, { delay_minutes: 5, emails: ['cli-lead@example.com'] }] })).escalation_policy;
    const monitor = (await call('POST', '/api/monitors', { name: 'CLI checkout', failure_threshold: 1, escalation_policy_id: policy.id })).monitor;
    await call('POST', `/api/monitors/${monitor.id}/subscribers`, { email: 'cli-subscriber@example.com' });
    const mailbox = `http://127.0.0.1:${mailboxPort}`;
    const readMail = async () => ((await (await fetch(`${mailbox}/store`)).json()) as { emails: Awaited<ReturnType<ReadMail>> }).emails;
    await confirmFromMailbox(readMail, (path) => fetch(`${running.url}${path}`, { method: 'POST' }))('cli-subscriber@example.com');
    const payload = join(dataDir, 'down.json');
    writeFileSync(payload, JSON.stringify({ monitorId: monitor.id, status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() }));
    const invoked = await helper('invoke', ['monitor-check', payload]);
    expect(invoked.code).toBe(0);
    expect(JSON.parse(invoked.stdout)).toMatchObject({ ok: true, outcome: 'incident_opened' });
    let subjects: string[] = [];
    for (const deadline = Date.now() + within(60_000); Date.now() < deadline && subjects.length < 3; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const { emails } = (await (await fetch(`${mailbox}/store`)).json()) as { emails: { destination: { to: string[] }; subject: string }[] };
      subjects = emails.filter((email) => email.destination.to.some((to) => to.startsWith('cli-'))).map((email) => `${email.destination.to.join(',')}: ${email.subject}`).sort();
    }
    expect(subjects).toEqual([
      'cli-oncall@example.com: [Escalation step 1] CLI checkout is down',
      'cli-subscriber@example.com: Confirm your subscription to CLI checkout',
      'cli-subscriber@example.com: New incident: CLI checkout is down',
    ]);
    // The background thread prints its functions' log lines itself (infra/local/perf/worker-stdio.ts).
    // Two notifier invocations (the subscriber's and the step's) may run at once: wait for the cold
    // start's own line, which can come second.
    const coldStart = /"function_name":"notifier","cold_start":true/;
    for (const deadline = Date.now() + within(30_000); Date.now() < deadline && !coldStart.test(output); ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).toMatch(coldStart);
    expect(output).not.toMatch(/background thread failed/);
  });

  it.each([
    ['token' as const, ['--email', 'a@example.com', '--bogus'], {}, /Unknown option '--bogus'/],
    // `npm run token --email x` (no --): npm keeps --email for itself and passes x alone.
    ['token' as const, ['x@example.com'], { npm_config_email: 'true' }, /put -- between npm run token and its options/i],
    ['token' as const, [], {}, /^Usage: npm run token/m],
    ['invoke' as const, ['monitor-check', join(dataDir, 'missing.json')], {}, /Cannot read the payload file .*missing\.json: ENOENT/],
    ['invoke' as const, [], {}, /^Usage: npm run invoke/m],
    ['invoke' as const, ['monitor-check', '--verbose'], {}, /Unknown option '--verbose'/],
  ])('%s %j: prints the usage line and exits 2, without a stack trace', async (script, args, env, message) => {
    const result = await helper(script, args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^Usage: /m);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('stops with exit code 1 and one line when DynamoDB Local dies', async () => {
    process.kill(running.dynamodb.pid, 'SIGKILL');
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), within(60_000)))]);
    expect(code).toBe(1);
    const lines = output.split('\n').filter((line) => line.includes('DynamoDB Local'));
    expect(lines.filter((line) => /exited/.test(line))).toEqual([expect.stringMatching(/^DynamoDB Local \(port \d+\) exited on SIGKILL\. Stopping the runtime/)]);
    expect(output).not.toMatch(/ECONNREFUSED[\s\S]*ECONNREFUSED[\s\S]*ECONNREFUSED/);
    expect(existsSync(runtimeFile)).toBe(false);
  });
});
