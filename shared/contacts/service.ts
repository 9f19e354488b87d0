/**
 * A person's own contact methods and notification rules (`/api/me/…`, issue 43 §2, §3). Everything is
 * in the caller's own item collection, so another account's id is simply not found there. Limits,
 * uniqueness, the code's expiry, its wrong tries and its resend pace are conditions of the writes.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { BadRequestError, ConflictError, NotFoundError, TooManyRequestsError } from '../platform/errors.js';
import { outboxPut } from '../platform/events/outbox.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { channelFor } from '../channels/index.js';
import {
  CODE_MAX_ATTEMPTS,
  CODE_RESEND_INTERVAL_MS,
  CODE_VALIDITY_MS,
  CONTACT_METHOD_LIMIT,
  contactMethodView,
  NOTIFICATION_RULE_LIMIT,
  notificationRuleView,
  type ContactMethod,
  type CreateContactMethodInput,
  type CreateNotificationRuleInput,
  type NotificationRule,
  type UpdateContactMethodInput,
} from './model.js';
import * as repository from './repository.js';
import { defaultMethodId, readContacts, ruleOrder, type Contacts } from './repository.js';

export const CONTACT_METHOD_NOT_FOUND = 'Contact method not found';
export const NOTIFICATION_RULE_NOT_FOUND = 'Notification rule not found';
export const CONTACT_METHOD_EXISTS = 'Contact method already exists';
export const NOTIFICATION_RULE_EXISTS = 'Notification rule already exists';
export const CONTACT_METHOD_LIMIT_TEXT = `Contact method limit reached: at most ${CONTACT_METHOD_LIMIT} per account`;
export const NOTIFICATION_RULE_LIMIT_TEXT = `Notification rule limit reached: at most ${NOTIFICATION_RULE_LIMIT} per account`;
export const SMS_NOT_SET_UP = 'SMS and voice are not set up on this deployment';
export const INVALID_CODE = 'Invalid verification code';
export const ALREADY_VERIFIED = 'Contact method already verified';
export const ACCOUNT_EMAIL_KEPT = "The account's e-mail address cannot be removed";
export const CODE_SENT_TEXT = 'Verification code sent';
export const CODE_TOO_SOON = 'A verification code was sent less than a minute ago';

const methodNotFound = () => new NotFoundError(CONTACT_METHOD_NOT_FOUND);
const ruleNotFound = () => new NotFoundError(NOTIFICATION_RULE_NOT_FOUND);
const gaveUp = (userId: string) => (attempts: number) => `Contacts of user ${userId} kept changing; gave up after ${attempts} attempts`;

/** The caller's account e-mail: the token's claim (what the default method is, before the account record is read). */
const claimedEmail = (caller: Caller) => caller.email ?? '';

const readOwn = (caller: Caller) => readContacts(caller.userId, claimedEmail(caller));

/** A fresh 6-digit code and what the table keeps of it. */
function newCode(now: Date) {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return { code, hash: codeHash(code), sent_at: now.toISOString(), expires_at: new Date(now.getTime() + CODE_VALIDITY_MS).toISOString() };
}

export const codeHash = (code: string) => createHash('sha256').update(code, 'utf8').digest('hex');

const verificationEvent = (method: ContactMethod, code: string, at: string) =>
  outboxPut('contact_method.verification_requested', { user_id: method.user_id, contact_method: { id: method.id, type: method.method_type, address: method.address }, code }, at);

export async function listContactMethods(caller: Caller) {
  return (await readOwn(caller)).methods.map(contactMethodView);
}

/**
 * A new method, unverified, with a code sent through it (the event, in the same transaction). SMS and
 * voice only where the deployment can send them.
 */
export async function createContactMethod(caller: Caller, input: CreateContactMethodInput) {
  if (input.type !== 'email' && !channelFor(input.type).available()) throw new BadRequestError(SMS_NOT_SET_UP);
  return retryOnConflict(async () => {
    const contacts = await readOwn(caller);
    const same = (method: ContactMethod) => method.method_type === input.type && method.address.toLowerCase() === input.address.toLowerCase();
    if (contacts.methods.some(same)) throw new ConflictError(CONTACT_METHOD_EXISTS);
    if (contacts.counts.methods >= CONTACT_METHOD_LIMIT) throw new BadRequestError(CONTACT_METHOD_LIMIT_TEXT);
    const now = clock.now();
    const code = newCode(now);
    const method: ContactMethod = {
      id: randomUUID(),
      user_id: caller.userId,
      method_type: input.type,
      address: input.address,
      name: input.name,
      verified: false,
      disabled: false,
      created_at: now.toISOString(),
      code_hash: code.hash,
      code_expires_at: code.expires_at,
      code_attempts: 0,
      code_sent_at: code.sent_at,
      rule_count: 0,
    };
    const { outcome } = await repository.insertMethod(contacts, method, [verificationEvent(method, code.code, code.sent_at)]);
    if (outcome === 'ok') return contactMethodView(method);
    if (outcome === 'limit') throw new BadRequestError(CONTACT_METHOD_LIMIT_TEXT);
    if (outcome === 'conflict') throw new ConflictError(CONTACT_METHOD_EXISTS);
    return undefined;
  }, gaveUp(caller.userId));
}

/** Verifies a method with its code: one conditional write decides; a wrong try is counted (5 void the code). */
export async function verifyContactMethod(caller: Caller, methodId: string, code: string) {
  if (methodId === defaultMethodId(caller.userId)) throw new ConflictError(ALREADY_VERIFIED);
  const result = await repository.verifyWithCode(caller.userId, methodId, codeHash(code), clock.nowIso(), CODE_MAX_ATTEMPTS);
  if ('verified' in result) return contactMethodView(result.verified);
  if (!result.refused) throw methodNotFound();
  if (result.refused.verified === true) throw new ConflictError(ALREADY_VERIFIED);
  await repository.countWrongTry(caller.userId, methodId, CODE_MAX_ATTEMPTS);
  throw new BadRequestError(INVALID_CODE);
}

/** A new code for an unverified method, at most one a minute (`429` with `Retry-After` before). */
export async function sendVerificationCode(caller: Caller, methodId: string) {
  if (methodId === defaultMethodId(caller.userId)) throw new ConflictError(ALREADY_VERIFIED);
  const now = clock.now();
  const code = newCode(now);
  const sentBefore = new Date(now.getTime() - CODE_RESEND_INTERVAL_MS).toISOString();
  // The method is read for its event (type and address); the write decides, on its own conditions.
  return retryOnConflict(async () => {
    const method = await methodForEvent(caller, methodId);
    if (!method) throw methodNotFound();
    if (method.verified) throw new ConflictError(ALREADY_VERIFIED);
    if (method.method_type !== 'email' && !channelFor(method.method_type).available()) throw new BadRequestError(SMS_NOT_SET_UP);
    const { outcome, item } = await repository.renewCode(caller.userId, methodId, code, sentBefore, verificationEvent(method, code.code, code.sent_at));
    if (outcome === 'ok') return { message: CODE_SENT_TEXT };
    if (!item) throw methodNotFound();
    if (item.verified === true) throw new ConflictError(ALREADY_VERIFIED);
    const sentAt = typeof item.code_sent_at === 'string' ? Date.parse(item.code_sent_at) : NaN;
    if (Number.isFinite(sentAt) && sentAt > Date.parse(sentBefore)) {
      throw new TooManyRequestsError(CODE_TOO_SOON, Math.max(1, Math.ceil((sentAt + CODE_RESEND_INTERVAL_MS - now.getTime()) / 1000)));
    }
    return undefined;
  }, gaveUp(caller.userId));
}

/** The method as stored (its type and address, for the code's event), by one consistent read of the contacts. */
async function methodForEvent(caller: Caller, methodId: string): Promise<ContactMethod | undefined> {
  return (await readOwn(caller)).methods.find((method) => method.id === methodId);
}

/** Renames, disables or enables a method (the account e-mail too: paging falls back to it whatever its rules). */
export async function updateContactMethod(caller: Caller, methodId: string, input: UpdateContactMethodInput) {
  if (input.name === undefined && input.disabled === undefined) throw new BadRequestError('No updates provided');
  return retryOnConflict(async () => {
    const updated = await repository.updateMethod(caller.userId, methodId, input);
    if (updated) return contactMethodView(updated);
    if (methodId !== defaultMethodId(caller.userId)) throw methodNotFound();
    // The account e-mail before anything was written: the defaults are written with the change.
    const contacts = await readOwn(caller);
    if (contacts.written) return undefined;
    const method = { ...contacts.methods[0]!, ...(input.name !== undefined ? { name: input.name } : {}), ...(input.disabled !== undefined ? { disabled: input.disabled } : {}) };
    const { outcome } = await repository.insertDefaultsWith(contacts, method);
    return outcome === 'ok' ? contactMethodView(method) : undefined;
  }, gaveUp(caller.userId));
}

/** Deletes a method and its rules at once. The account e-mail stays (409): paging falls back to it. */
export async function deleteContactMethod(caller: Caller, methodId: string) {
  if (methodId === defaultMethodId(caller.userId)) throw new ConflictError(ACCOUNT_EMAIL_KEPT);
  await retryOnConflict(async () => {
    const contacts = await readOwn(caller);
    const method = contacts.methods.find((candidate) => candidate.id === methodId);
    if (!method) throw methodNotFound();
    const rules = contacts.rules.filter((rule) => rule.contact_method_id === methodId);
    const { outcome } = await repository.deleteMethod(method, rules);
    return outcome === 'ok' ? DONE : undefined;
  }, gaveUp(caller.userId));
}

export async function listNotificationRules(caller: Caller) {
  return (await readOwn(caller)).rules.sort(ruleOrder).map(notificationRuleView);
}

/**
 * A rule on one of the caller's methods. A rule on an unverified or disabled method is kept, and fires
 * only once the method is verified and enabled.
 */
export async function createNotificationRule(caller: Caller, input: CreateNotificationRuleInput) {
  return retryOnConflict(async () => {
    const contacts: Contacts = await readOwn(caller);
    if (!contacts.methods.some((method) => method.id === input.contact_method_id)) throw methodNotFound();
    const same = (rule: NotificationRule) => rule.contact_method_id === input.contact_method_id && rule.delay_minutes === input.delay_minutes && rule.urgency === input.urgency;
    if (contacts.rules.some(same)) throw new ConflictError(NOTIFICATION_RULE_EXISTS);
    if (contacts.counts.rules >= NOTIFICATION_RULE_LIMIT) throw new BadRequestError(NOTIFICATION_RULE_LIMIT_TEXT);
    const rule: NotificationRule = { id: randomUUID(), user_id: caller.userId, ...input, created_at: clock.nowIso() };
    const { outcome } = await repository.insertRule(contacts, rule);
    if (outcome === 'ok') return notificationRuleView(rule);
    if (outcome === 'limit') throw new BadRequestError(NOTIFICATION_RULE_LIMIT_TEXT);
    if (outcome === 'conflict') throw new ConflictError(NOTIFICATION_RULE_EXISTS);
    if (outcome === 'method_gone') throw methodNotFound();
    return undefined;
  }, gaveUp(caller.userId));
}

export async function deleteNotificationRule(caller: Caller, ruleId: string) {
  await retryOnConflict(async () => {
    const contacts = await readOwn(caller);
    const rule = contacts.rules.find((candidate) => candidate.id === ruleId);
    if (!rule) throw ruleNotFound();
    const { outcome } = await repository.deleteRule(contacts, rule);
    return outcome === 'ok' ? DONE : undefined;
  }, gaveUp(caller.userId));
}
