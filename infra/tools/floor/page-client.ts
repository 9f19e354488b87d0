/**
 * The bench's client for "trigger → first page e-mail" (issue 33), a process of its own: it sends a
 * trigger to the service (the Lambda Invoke API of `monitor-check`, or `POST /v2/enqueue`) and to the
 * page-path floor (floor/page-path.ts: `POST /check`, `POST /v2/enqueue`), run by run, alternating
 * which side goes first, and times each from the trigger's request to the page's arrival in the local
 * mailbox (emptied before each run, polled over a kept-alive connection).
 * `node --import tsx infra/tools/floor/page-client.ts <plan.json> <result.json>`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { ClientRow, Side } from './client.js';

export interface PageClientPlan {
  serviceUrl: string;
  floorUrl: string;
  mailboxUrl: string;
  /** Step 1's address (the mailbox is emptied before each run, so one address serves every run). */
  oncall: string;
  runs: number;
  /** The "service" side is another page-path floor (a variant: a guarantee's cost measured), triggered as the floor is. */
  serviceIsFloor?: boolean;
  /** Which rows: both by default. */
  kinds?: ('check' | 'alert')[];
  /** Monitors paging `oncall` at once, one per run and side (a down check opens one incident each). */
  monitors: Record<Side, string[]>;
  /** Integration keys of a monitor paging `oncall`, per side (each trigger a dedup key of its own). */
  keys: Record<Side, string>;
}

/**
 * `node:http` over kept-alive connections, one per side, the same for both (the mailbox and the
 * runtime's Lambda API answer without Content-Length, which the load client does not read).
 */
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

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const PATIENCE_MS = 10_000;

export async function runPageClient(plan: PageClientPlan): Promise<ClientRow[]> {
  const clients = { service: new KeptAlive(plan.serviceUrl), floor: new KeptAlive(plan.floorUrl) };
  const mailbox = new KeptAlive(plan.mailboxUrl);
  const json = { 'content-type': 'application/json' };
  const store = mailbox.prepare('GET', '/store');
  const clear = mailbox.prepare('POST', '/clear-store');
  const arrived = async () => {
    for (const deadline = Date.now() + PATIENCE_MS; ; ) {
      const { emails } = JSON.parse((await store()).body) as { emails: { destination: { to: string[] } }[] };
      if (emails.some((email) => email.destination.to.includes(plan.oncall))) return;
      if (Date.now() > deadline) throw new Error(`No page to ${plan.oncall} in the mailbox after ${PATIENCE_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const expect = async (what: string, answer: Promise<{ status: number; body: string }>, status: number, contains: string) => {
    const got = await answer;
    if (got.status !== status || !got.body.includes(contains)) throw new Error(`${what}: ${got.status} ${got.body.slice(0, 300)}`);
  };
  const checks = { service: [...plan.monitors.service], floor: [...plan.monitors.floor] };
  const trigger = {
    check: (side: Side) => {
      const monitorId = checks[side].shift();
      if (!monitorId) throw new Error(`${side}: the bench ran out of monitors`);
      const payload = JSON.stringify({ monitorId, status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() });
      return side === 'service' && !plan.serviceIsFloor
        ? expect('service monitor-check', clients.service.request('POST', '/2015-03-31/functions/monitor-check/invocations', json, payload), 200, 'incident_opened')
        : expect(`${side} floor check`, clients[side].request('POST', '/check', json, payload), 200, 'incident_opened');
    },
    alert: (side: Side) => {
      const body = JSON.stringify({ routing_key: plan.keys[side], event_action: 'trigger', dedup_key: `bench-${randomUUID()}`, payload: { summary: 'Disk full on db-1', source: 'db-1', severity: 'critical' } });
      return expect(`${side} /v2/enqueue`, clients[side].request('POST', '/v2/enqueue', json, body), 202, 'success');
    },
  };
  const timed = async (kind: 'check' | 'alert', side: Side) => {
    await clear();
    const started = performance.now();
    await Promise.all([trigger[kind](side), arrived()]);
    const elapsed = performance.now() - started;
    // The side's background work after its page (the delivery record marked sent, later steps, the
    // subscribers) settles before the other side's run: a few polls of an empty mailbox's store.
    for (let index = 0; index < 5; index++) await store();
    return elapsed;
  };
  const rows: ClientRow[] = [];
  for (const kind of plan.kinds ?? (['check', 'alert'] as const)) {
    // One untimed run a side first: the paths' first calls (connections, the functions' first invocation).
    await timed(kind, 'service');
    await timed(kind, 'floor');
    const times: Record<Side, number[]> = { service: [], floor: [] };
    for (let run = 0; run < plan.runs; run++) {
      const order: Side[] = run % 2 === 0 ? ['service', 'floor'] : ['floor', 'service'];
      for (const side of order) times[side].push(await timed(kind, side));
    }
    const of = (side: Side) => ({ p50: percentile(times[side], 0.5), p99: percentile(times[side], 0.99) });
    rows.push({
      figure: kind === 'check' ? 'monitor check → first page e-mail (step 1) in the mailbox' : 'alert trigger (Events API v2) → first page e-mail in the mailbox',
      goal: '≤ 2×',
      service: of('service'),
      floor: of('floor'),
    });
  }
  for (const client of [clients.service, clients.floor, mailbox]) client.close();
  return rows;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [planFile, resultFile] = process.argv.slice(2);
  const rows = await runPageClient(JSON.parse(readFileSync(planFile!, 'utf8')) as PageClientPlan);
  writeFileSync(resultFile!, JSON.stringify(rows));
  process.exit(0);
}
