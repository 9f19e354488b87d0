/**
 * What the bench's sections share: the one row every figure is (a side each, its goal), its tables, the
 * processes of their own (the floor, floor.ts, told apart by the port it prints; the client, client.ts,
 * given its plan in a file and answering its rows in another), a kept-alive `node:http` client for
 * setting up, and the section writer of docs/performance.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Service as Runtime } from '../local/perf/service.js';
import { repositoryRoot } from '../paths.js';

export type Side = 'service' | 'floor';

/** One figure of the bench: each side's value (a p50 unless `unit` says otherwise), its p99s where it has them. */
export interface Row extends Record<Side, number> {
  figure: string;
  goal: string;
  /** `ms`, `KB`, `ms/call`, `req/s` (higher is better), `×` (a growth: the goal holds the service's over the floor's). */
  unit: string;
  p99?: Record<Side, number>;
}

export const row = (figure: string, service: number, floor: number, unit: string, goal: string, p99?: Record<Side, number>): Row => ({ figure, goal, service, floor, unit, ...(p99 ? { p99 } : {}) });
export const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
export const median = (values: number[]) => percentile(values, 0.5);
const format = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2));
const higherIsBetter = (entry: Row) => entry.unit === 'req/s';
const ratioText = (entry: Row) => `${(entry.service / entry.floor).toFixed(2)}${higherIsBetter(entry) ? '' : '×'}`;
/** Whether the row meets its goal (undefined for a row shown for comparison). */
export function met(entry: Row): boolean | undefined {
  const limit = /[\d.]+/.exec(entry.goal);
  if (!limit) return undefined;
  const ratio = entry.service / entry.floor;
  return higherIsBetter(entry) ? ratio >= Number(limit[0]) : ratio <= Number(limit[0]);
}
const yes = (entry: Row) => ({ true: 'yes', false: 'no', undefined: '—' })[String(met(entry)) as 'true'];

/** The headline's table (p50 and p99 of each side, throughput, growth). */
export function headlineTable(rows: Row[]): string[] {
  return [
    '| Row | Service p50 | Floor p50 | Ratio | Service p99 | Floor p99 | p99 ratio | Goal | Met |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((entry) => {
      if (entry.unit === '×') return `| ${entry.figure} | ${entry.service.toFixed(2)}× | ${entry.floor.toFixed(2)}× | ${ratioText(entry)} | — | — | — | ${entry.goal} the floor's growth | ${yes(entry)} |`;
      if (!entry.p99) return `| ${entry.figure} | ${format(entry.service)} ${entry.unit} | ${format(entry.floor)} ${entry.unit} | ${ratioText(entry)} | — | — | — | ${entry.goal} | ${yes(entry)} |`;
      const { service, floor } = entry.p99;
      return `| ${entry.figure} | ${format(entry.service)} ms | ${format(entry.floor)} ms | ${ratioText(entry)} | ${format(service)} ms | ${format(floor)} ms | ${(service / floor).toFixed(2)}× | ${entry.goal} (p50) | ${yes(entry)} |`;
    }),
  ];
}

/** The other sections' table: each side's figure, the ratio, the goal. */
export function rowTable(rows: Row[]): string {
  return [
    '| Figure | Service | Floor | Ratio | Goal | Met |',
    '|---|---|---|---|---|---|',
    ...rows.map((entry) => `| ${entry.figure} | ${format(entry.service)} ${entry.unit} | ${format(entry.floor)} ${entry.unit} | ${ratioText(entry)} | ${entry.goal} | ${yes(entry)} |`),
  ].join('\n');
}

export const machine = () => `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}, DynamoDB Local in memory`;
export const today = () => new Date().toISOString().slice(0, 10);

/**
 * Replaces the section between `<!-- bench:<name>:begin/end -->` in docs/performance.md (or adds it under
 * `heading`: at the end, or right under the document's title with `top`).
 */
export function writeSection(name: string, heading: string, table: string, where: 'end' | 'top' = 'end') {
  const file = join(repositoryRoot, 'docs/performance.md');
  const [begin, end] = [`<!-- bench:${name}:begin -->`, `<!-- bench:${name}:end -->`];
  const current = readFileSync(file, 'utf8');
  const section = `${begin}\n${table}\n${end}`;
  const titleEnd = current.indexOf('\n') + 1;
  const next = current.includes(begin)
    ? current.slice(0, current.indexOf(begin)) + section + current.slice(current.indexOf(end) + end.length)
    : where === 'top'
      ? `${current.slice(0, titleEnd)}\n## ${heading}\n\n${section}\n${current.slice(titleEnd)}`
      : `${current.trimEnd()}\n\n## ${heading}\n\n${section}\n`;
  writeFileSync(file, next);
  console.log(`\nwrote the ${name} section of docs/performance.md`);
}

/** `node:http` over kept-alive connections: setting up, the mailbox, the phone inbox, the Lambda API (answers without a Content-Length, which the load client reads). */
export class KeptAlive {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });
  constructor(private readonly baseUrl: string) {}

  request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const sent = request(`${this.baseUrl}${path}`, { method, agent: this.agent, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      sent.on('error', reject);
      sent.end(body);
    });
  }

  prepare(method: string, path: string) {
    return () => this.request(method, path);
  }

  close() {
    this.agent.destroy();
  }
}

/** Polls `GET path` of `local` until its JSON answer `holds`; `what` names it in the error after `patienceMs`. */
async function arrived(local: KeptAlive, path: string, holds: (answer: any) => boolean, what: string, pauseMs: number, patienceMs: number) {
  for (const deadline = Date.now() + patienceMs; ; await new Promise((resolve) => setTimeout(resolve, pauseMs))) {
    if (holds(JSON.parse((await local.request('GET', path)).body))) return;
    if (Date.now() > deadline) throw new Error(`No ${what} after ${patienceMs} ms`);
  }
}

/** Polls the local mailbox (`GET /store`) until it holds an e-mail to `to`. */
export const mailTo = (mailbox: KeptAlive, to: string, pauseMs = 1, patienceMs = 10_000) =>
  arrived(mailbox, '/store', ({ emails }: { emails: { destination: { to: string[] } }[] }) => emails.some((email) => email.destination.to.includes(to)), `e-mail to ${to} in the mailbox`, pauseMs, patienceMs);

/** Polls the local phone inbox (the runtime's `GET /local/phones/messages?to=`) until it holds an SMS to `to`. */
export const smsTo = (runtime: KeptAlive, to: string, pauseMs = 1, patienceMs = 10_000) =>
  arrived(runtime, `/local/phones/messages?to=${encodeURIComponent(to)}`, ({ messages }: { messages: { channel: string }[] }) => messages.some((message) => message.channel === 'sms'), `SMS to ${to} in the phone inbox`, pauseMs, patienceMs);

const clients = new Map<string, KeptAlive>();
export const closeClients = () => {
  for (const client of clients.values()) client.close();
  clients.clear();
};

/** One request to the runtime; a non-2xx answer fails the bench. */
export async function call(runtime: Runtime, method: string, path: string, token?: string, body?: unknown): Promise<{ body: any; bytes: number }> {
  const client = clients.get(runtime.url) ?? clients.set(runtime.url, new KeptAlive(runtime.url)).get(runtime.url)!;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(payload ? { 'content-type': 'application/json' } : {}) };
  const { status, body: text } = await client.request(method, path, headers, payload);
  if (status < 200 || status > 299) throw new Error(`${method} ${path}: ${status} ${text}`);
  try {
    return { body: JSON.parse(text), bytes: Buffer.byteLength(text) };
  } catch (error) {
    throw new Error(`${method} ${path}: ${status} answered what is not JSON (${(error as Error).message}): ${text.slice(0, 200)}`);
  }
}

/** A new user of the runtime and their token. */
export async function signUp(runtime: Runtime, name: string) {
  const email = `${name.replace(/\W+/g, '-').toLowerCase()}-${randomUUID().slice(0, 8)}@bench.example`;
  const { body } = await call(runtime, 'POST', '/local/users', undefined, { email, name });
  return { id: body.user.id as string, email: body.user.email as string, token: body.token as string };
}

function spawnTs(file: string, args: string[], env: NodeJS.ProcessEnv, stdout: 'inherit' | 'pipe'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(repositoryRoot, file), ...args], { env: { ...env, NODE_OPTIONS: '' }, stdio: ['ignore', stdout, 'inherit'], cwd: repositoryRoot });
}

/** The floor (floor.ts) in a process of its own against the runtime's table, once it listens; `variant` adds guarantees. */
export async function startFloorProcess(runtime: Runtime, variant: string[] = []): Promise<{ url: string; stop(): Promise<void> }> {
  const { issuer } = runtime;
  const floor = { TABLE_NAME: runtime.tableName, FLOOR_ISSUER: issuer.issuer, FLOOR_AUDIENCE: issuer.audience, FLOOR_JWKS: JSON.stringify(issuer.jwks()), FLOOR_PORT: '0', FLOOR_WITH: variant.join(',') };
  // Its SES and End User Messaging are the runtime's APIs, in front of the same mailbox and phone inbox the service's pages go to.
  const child = spawnTs('infra/tools/floor.ts', [], { ...process.env, ...floor, FLOOR_AWS_URL: runtime.url.replace('localhost', '127.0.0.1'), FLOOR_PUBLIC_URL: runtime.url }, 'pipe');
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const line = /\{"port":(\d+)\}/.exec(out);
      if (line) resolve(Number(line[1]));
    });
    child.once('exit', (code) => reject(new Error(`the floor exited (${code}) before it listened: ${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs the client (client.ts) on `plan` in a process of its own and answers its rows. */
export async function runClient(plan: unknown): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-client-'));
  const [planFile, resultFile] = [join(dir, 'plan.json'), join(dir, 'result.json')];
  writeFileSync(planFile, JSON.stringify(plan));
  const client = spawnTs('infra/tools/client.ts', [planFile, resultFile], process.env, 'inherit');
  const code = await new Promise<number | null>((resolve) => client.once('exit', resolve));
  if (code !== 0) throw new Error(`the bench's client failed (exit ${code})`);
  return JSON.parse(readFileSync(resultFile, 'utf8')) as Row[];
}
