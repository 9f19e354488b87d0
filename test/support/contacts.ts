/**
 * A person's contact methods and notification rules, set up through the API as a person does it
 * (issue 43 §2, §3): a method is added, its code read where it arrives (the local SES mailbox, or the
 * local phone inbox), and verified; rules replace the account's defaults.
 */
import { expect } from 'vitest';
import type { PhoneMessage } from '../../infra/local/aws/phones.js';
import { allMailTo, eventually, type Api, type User } from './api.js';

export type MethodType = 'email' | 'sms' | 'voice';

export type { PhoneMessage };

/** The messages of the local phone inbox to `to`, newest first. */
export async function phoneMessages(api: Api, to: string): Promise<PhoneMessage[]> {
  const response = await api.request('GET', `/local/phones/messages?to=${encodeURIComponent(to)}`);
  expect(response.status).toBe(200);
  return response.body.messages as PhoneMessage[];
}

/** Waits until the local phone inbox holds a message to `to` that `matches`, and returns it. */
export async function awaitPhoneMessage(api: Api, to: string, matches: (message: PhoneMessage) => boolean = () => true): Promise<PhoneMessage> {
  const found = await eventually(
    async () => (await phoneMessages(api, to)).filter(matches),
    (messages) => messages.length > 0,
  );
  return found[0]!;
}

/** The ids of the verification codes `address` has received through `type` so far. */
async function codesReceived(api: Api, type: MethodType, address: string): Promise<Set<string>> {
  if (type === 'email') return new Set((await allMailTo(api, address)).filter((mail) => mail.subject.startsWith('Your verification code is')).map((mail) => mail.messageId));
  return new Set((await phoneMessages(api, address)).filter((message) => message.channel === type && /verification code/i.test(message.body)).map((message) => message.id));
}

/**
 * The verification code sent to `address` through `type` since `before` was taken (an address two
 * accounts share has had another's code already).
 */
async function codeSentTo(api: Api, type: MethodType, address: string, before: Set<string>): Promise<string> {
  if (type === 'email') {
    const mails = await eventually(
      async () => (await allMailTo(api, address)).filter((mail) => mail.subject.startsWith('Your verification code is') && !before.has(mail.messageId)),
      (found) => found.length > 0,
    );
    return /(\d{6})$/.exec(mails.sort((a, b) => b.at - a.at)[0]!.subject)![1]!;
  }
  // A call reads the digits one by one: keep the digits of the first reading.
  const message = await awaitPhoneMessage(api, address, (candidate) => candidate.channel === type && /verification code/i.test(candidate.body) && !before.has(candidate.id));
  return message.body.replace(/\D/g, '').slice(0, 6);
}

/** Adds a contact method, verified unless asked otherwise (and disabled if asked); its id. */
export async function addContactMethod(api: Api, user: User, type: MethodType, address: string, options: { verified?: boolean; disabled?: boolean } = {}): Promise<string> {
  const before = await codesReceived(api, type, address);
  const created = await api.request('POST', '/api/me/contact-methods', { token: user.token, body: { type, address } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.contact_method.id as string;
  if (options.verified ?? true) {
    const verified = await api.request('POST', `/api/me/contact-methods/${id}/verify`, { token: user.token, body: { code: await codeSentTo(api, type, address, before) } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  }
  if (options.disabled) {
    const disabled = await api.request('PUT', `/api/me/contact-methods/${id}`, { token: user.token, body: { disabled: true } });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
  }
  return id;
}

export interface RuleSpec {
  contact_method_id: string;
  delay_minutes: number;
  urgency: 'high' | 'low';
}

/** Replaces the person's notification rules (the account's defaults included) with `rules`. */
export async function replaceRules(api: Api, user: User, rules: RuleSpec[]): Promise<void> {
  const existing = await api.request('GET', '/api/me/notification-rules', { token: user.token });
  expect(existing.status).toBe(200);
  for (const rule of existing.body.notification_rules as { id: string }[]) {
    expect((await api.request('DELETE', `/api/me/notification-rules/${rule.id}`, { token: user.token })).status).toBe(200);
  }
  for (const rule of rules) {
    const created = await api.request('POST', '/api/me/notification-rules', { token: user.token, body: rule });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
}

/** The id of the person's account e-mail method (listed first). */
export async function accountEmailMethod(api: Api, user: User): Promise<string> {
  const listed = await api.request('GET', '/api/me/contact-methods', { token: user.token });
  expect(listed.status).toBe(200);
  return listed.body.contact_methods[0].id as string;
}
