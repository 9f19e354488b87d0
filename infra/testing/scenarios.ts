/** Set-ups that go through the API, shared by tests and the bench. */
import { randomUUID } from 'node:crypto';
import { within } from './deadlines.js';

/** Sends one API request as some caller and answers its JSON body (the caller checks the status). */
export type Send = (method: string, path: string, body: unknown) => Promise<any>;

/** Confirms a new subscription of an address (double opt-in), as its owner would. */
export type Confirm = (email: string) => Promise<void>;

/** What a mailbox holds (the local SES mailbox's `GET /store`). */
export type ReadMail = () => Promise<{ destination: { to: string[] }; subject: string; body: { text?: string } }[]>;

/**
 * Confirms through the link of the confirmation e-mail the mailbox holds for the address, once it has
 * arrived: `post` POSTs a path of the API (the page's button). It waits 30 s at most, times the run's
 * deadline factor (test/support/deadlines.ts): the e-mail comes from the background, which a busy
 * machine starves first.
 */
export const confirmFromMailbox =
  (readMail: ReadMail, post: (path: string) => Promise<unknown>): Confirm =>
  async (email) => {
    const timeoutMs = within(30_000);
    for (const deadline = Date.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const mail = (await readMail()).find((candidate) => candidate.destination.to.includes(email) && candidate.subject.startsWith('Confirm your subscription'));
      const path = mail && /https?:\/\/\S+?(\/confirm\/[A-Za-z0-9_-]{43})/.exec(mail.body.text ?? '')?.[1];
      if (path) return void (await post(path));
      if (Date.now() > deadline) throw new Error(`No confirmation e-mail to ${email} within ${timeoutMs / 1000} s`);
    }
  };

export interface PagingMonitor {
  /** In every name and address below, so that a run finds its own mail. */
  tag: string;
  subscriber: string;
  oncall: string;
  policyId: string;
  monitorId: string;
}

/**
 * A monitor whose first failed check opens an incident, with an escalation policy that pages
 * `oncall` at once and one subscriber: the whole e-mail path of a down check.
 */
export async function pagingMonitor(send: Send, confirm: Confirm, domain = 'example.com'): Promise<PagingMonitor> {
  const tag = randomUUID().slice(0, 8);
  const [subscriber, oncall] = [`sub-${tag}@${domain}`, `oncall-${tag}@${domain}`];
  const policy = (await send('POST', '/api/escalation-policies', { name: `Pages ${tag}`, steps: [{ delay_minutes: 0, emails: [oncall] }] })).escalation_policy;
  const monitor = (await send('POST', '/api/monitors', { name: `Check ${tag}`, failure_threshold: 1, escalation_policy_id: policy.id })).monitor;
  await send('POST', `/api/monitors/${monitor.id}/subscribers`, { email: subscriber });
  await confirm(subscriber);
  return { tag, subscriber, oncall, policyId: policy.id, monitorId: monitor.id };
}
