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

/** What the local phone inbox holds for a number, newest first (`GET /local/phones/messages?to=`). */
export type ReadPhone = (to: string) => Promise<{ channel: 'sms' | 'voice'; body: string }[]>;

export interface SmsPagedPerson {
  methodId: string;
  policyId: string;
  monitorId: string;
  /** An integration key of the monitor (Events API v2). */
  key: string;
}

/**
 * A person paged by SMS alone, set up through the API as the person does it (`send` is theirs): an SMS
 * method at `phone`, verified with the code the local phone inbox receives (30 s at most, times the run's
 * deadline factor: the code comes from the background); one rule on it, at once, for each urgency, in
 * place of the account's defaults; a policy of their own whose first step pages them (a `user` target);
 * a monitor on it, and an integration key of the monitor.
 */
export async function smsPagedPerson(send: Send, readPhone: ReadPhone, userId: string, phone: string): Promise<SmsPagedPerson> {
  const methodId = (await send('POST', '/api/me/contact-methods', { type: 'sms', address: phone })).contact_method.id as string;
  const timeoutMs = within(30_000);
  let code: string | undefined;
  for (const deadline = Date.now() + timeoutMs; !code; await new Promise((resolve) => setTimeout(resolve, 20))) {
    code = /verification code is (\d{6})/i.exec((await readPhone(phone)).find((message) => message.channel === 'sms')?.body ?? '')?.[1];
    if (!code && Date.now() > deadline) throw new Error(`No verification code to ${phone} within ${timeoutMs / 1000} s`);
  }
  await send('POST', `/api/me/contact-methods/${methodId}/verify`, { code });
  for (const rule of (await send('GET', '/api/me/notification-rules', undefined)).notification_rules as { id: string }[]) await send('DELETE', `/api/me/notification-rules/${rule.id}`, undefined);
  for (const urgency of ['high', 'low']) await send('POST', '/api/me/notification-rules', { contact_method_id: methodId, delay_minutes: 0, urgency });
  const policyId = (await send('POST', '/api/escalation-policies', { name: `SMS ${phone}`, steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: userId }] }] })).escalation_policy.id as string;
  const monitorId = (await send('POST', '/api/monitors', { name: `Paged by SMS ${phone}`, failure_threshold: 1, escalation_policy_id: policyId })).monitor.id as string;
  const key = (await send('POST', `/api/monitors/${monitorId}/integrations`, { name: 'Alerts' })).integration.key as string;
  return { methodId, policyId, monitorId, key };
}
