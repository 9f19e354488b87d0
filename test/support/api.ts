/** HTTP tests drive the local runtime (local API Gateway + JWT authorizer + real handlers) over real HTTP. */
import { startRuntime, type Runtime, type RuntimeOptions } from '../../infra/local/runtime/runtime.js';
import { TABLE_NAME_ENV } from '../../shared/system.js';
import { checkContract } from './contract.js';
import { advanceClock } from '../../shared/platform/clock.js';
import { within } from './deadlines.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface User {
  id: string;
  email: string;
  name: string;
  token: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON and the like). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** The DynamoDB Local this test file leased (test/support/table-per-file.ts). */
export function dynamodbEndpoint(): string {
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  if (!endpoint) throw new Error('No DynamoDB Local: this test file is not in a project with test/support/table-per-file.ts');
  return endpoint;
}

export class Api {
  private constructor(readonly runtime: Runtime) {}

  static async start(overrides: Partial<RuntimeOptions> = {}): Promise<Api> {
    const runtime = await startRuntime({
      port: 0,
      dynamodbEndpoint: dynamodbEndpoint(),
      tableName: process.env[TABLE_NAME_ENV],
      sesPort: 0,
      log: () => undefined,
      ...overrides,
    });
    return new Api(runtime);
  }

  get url() {
    return this.runtime.url;
  }

  close() {
    return this.runtime.close();
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    checkContract(method, response.url, response.status, response.headers.get('content-type'), parsed);
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  /** Signs a user up through the local accounts endpoint and returns it with a token. */
  async signUp(email: string, name = email.split('@')[0] ?? email): Promise<User> {
    const response = await this.request('POST', '/local/users', { body: { email, name } });
    if (response.status !== 201) throw new Error(`sign-up failed: ${response.status} ${JSON.stringify(response.body)}`);
    return { ...response.body.user, token: response.body.token };
  }
}

let counter = 0;
/** A unique e-mail address per call, so tests never collide. */
export const uniqueEmail = (prefix = 'user') => `${prefix}-${process.pid}-${Date.now()}-${counter++}@example.com`;

/**
 * Polls `read` until `done` holds, or fails after `baseMs` × the run's deadline factor
 * (test/support/deadlines.ts; deliveries are asynchronous, and slower on a slower or busier machine).
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, baseMs = 30_000): Promise<T> {
  const timeoutMs = within(baseMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every e-mail the local SES mailbox holds for `to`. */
export async function allMailTo(api: Api, to: string) {
  const emails = await api.runtime.mailbox.emails();
  return emails.filter((email) => email.destination.to.some((address) => address.toLowerCase() === to.toLowerCase()));
}

const isConfirmation = (email: { subject: string }) => email.subject.startsWith('Confirm your subscription');
const isVerificationCode = (email: { subject: string }) => email.subject.startsWith('Your verification code is');
/** A shift notice (issue 45 §3): whoever is on call in a schedule is told when a shift starts. */
const isShiftNotice = (email: { subject: string }) => email.subject.startsWith('You are on call for ');

/**
 * The e-mails the local SES mailbox holds for `to`, but for its subscription's confirmation (which
 * `subscribeConfirmed` reads), a contact method's verification code (`support/contacts.ts`) and shift
 * notices (`shift-notices.test.ts`); `allMailTo` has them too.
 */
export async function mailTo(api: Api, to: string) {
  return (await allMailTo(api, to)).filter((email) => !isConfirmation(email) && !isVerificationCode(email) && !isShiftNotice(email));
}

/** Waits until `to` has at least `count` e-mails, and returns them. */
export const awaitMail = (api: Api, to: string, count = 1) =>
  eventually(() => mailTo(api, to), (emails) => emails.length >= count);

/** Moves the service clock and lets the scheduler and the event flow catch up. */
export async function advance(api: Api, ms: number) {
  advanceClock(ms);
  await api.runtime.scheduler.tick();
  await settle(api);
}

/** Lets every event under way settle: the stream read, the bus deliveries. */
export async function settle(api: Api) {
  await api.runtime.alertStream.pollOnce();
  await api.runtime.stream.pollOnce();
  await api.runtime.bus.idle();
  await api.runtime.stream.pollOnce();
  await api.runtime.bus.idle();
}

/**
 * Follows `next_cursor` from the first page of a list to the last, checking each page's envelope
 * and `Link` header; answers every item in order and the number of pages.
 */
export async function walk<T = any>(api: Api, token: string, path: string, key: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let pages = 0;
  let next: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const response: ApiResponse = await api.request('GET', next === null ? path : `${path}${separator}cursor=${encodeURIComponent(next)}`, { token });
    if (response.status !== 200) throw new Error(`page ${pages + 1} of ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    items.push(...(response.body[key] as T[]));
    next = response.body.next_cursor as string | null;
    const link = response.headers.get('link');
    if ((next === null) !== (link === null)) throw new Error(`page ${pages + 1} of ${path}: next_cursor ${next} but Link ${link}`);
    pages++;
  } while (next !== null);
  return { items, pages };
}

/** The confirmation link e-mailed to `email` (double opt-in), once it has arrived: its path on the API. */
export async function confirmationLink(api: Api, email: string): Promise<string> {
  const [mail] = await eventually(
    async () => (await allMailTo(api, email)).filter(isConfirmation),
    (emails) => emails.length > 0,
  );
  const link = /https?:\/\/\S+?(\/confirm\/[A-Za-z0-9_-]{43})/.exec(mail!.body.text ?? '');
  if (!link) throw new Error(`no confirmation link in the e-mail to ${email}`);
  return link[1]!;
}

/**
 * Subscribes `email` to a monitor with `token` and confirms it as its owner would, through the link of
 * the confirmation e-mail (its page's button); answers the subscriber, now confirmed.
 */
export async function subscribeConfirmed(api: Api, token: string, monitorId: string, email: string) {
  const created = await api.request('POST', `/api/monitors/${monitorId}/subscribers`, { token, body: { email } });
  if (created.status !== 201) throw new Error(`subscribing failed: ${created.status} ${JSON.stringify(created.body)}`);
  const confirmed = await api.request('POST', await confirmationLink(api, email));
  if (confirmed.status !== 200) throw new Error(`confirming failed: ${confirmed.status}`);
  return { ...created.body.subscriber, status: 'confirmed' } as { id: string; monitor_id: string; email: string; created_at: string; status: 'confirmed' };
}
