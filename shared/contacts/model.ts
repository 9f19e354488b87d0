/**
 * Contact methods and notification rules of a person (issue 43 §2, §3): the addresses a page may
 * reach them at (e-mail, SMS, voice), each verified by a code before it is used, and the rules that say
 * which method is notified how long after a page, by urgency. Every account has its account e-mail
 * (verified) as a method, and a rule on it at 0 minutes for each urgency, from the start.
 */
import * as z from '../platform/zod.js';
import { described, Id, Text, Timestamp } from '../platform/api/common.js';
import { Urgency } from '../platform/vocabulary.js';
import { Email } from '../accounts/model.js';
import { normalizePhone } from '../channels/phone.js';

export { Urgency } from '../platform/vocabulary.js';

export const CONTACT_METHOD_TYPES = ['email', 'sms', 'voice'] as const;
export const ContactMethodType = z.enum(CONTACT_METHOD_TYPES);
export type ContactMethodType = z.output<typeof ContactMethodType>;

/** At most this many contact methods per account (the account e-mail included). */
export const CONTACT_METHOD_LIMIT = 10;
/** At most this many notification rules per account. */
export const NOTIFICATION_RULE_LIMIT = 20;
/** A verification code lives this long. */
export const CODE_VALIDITY_MS = 15 * 60_000;
/** Wrong tries that void a code. */
export const CODE_MAX_ATTEMPTS = 5;
/** At most one code a minute per method. */
export const CODE_RESEND_INTERVAL_MS = 60_000;
/** The longest delay of a rule: a day. */
export const MAX_DELAY_MINUTES = 1440;

const MethodName = Text({ min: 1, max: 100, name: true });

const Address = described(z.string().check(z.maxLength(254)), {
  description:
    'For `email`: an e-mail address. For `sms` and `voice`: a phone number in E.164 form (`+`, then 8–15 digits, the first 1–9); spaces, dashes, dots and parentheses between the digits are dropped',
  example: '+14155550100',
});

/** The address in its canonical form for the type (a phone number in E.164), or the issue for `address`. */
function canonicalAddress(type: ContactMethodType, raw: string): { address: string } | { error: string } {
  if (type !== 'email') return normalizePhone(raw);
  const parsed = Email.safeParse(raw.trim());
  return parsed.success ? { address: parsed.data } : { error: parsed.error.issues[0]?.message ?? 'Invalid email address' };
}

export const createContactMethodInput = described(
  z.pipe(
    z.strictObject({ type: ContactMethodType, address: Address, name: z.optional(z.nullable(MethodName)) }),
    z.transform((input, context) => {
      const canonical = canonicalAddress(input.type, input.address);
      if ('error' in canonical) {
        context.issues.push({ code: 'custom', input: input.address, path: ['address'], message: canonical.error });
        return z.NEVER;
      }
      return { type: input.type, address: canonical.address, name: input.name ?? null };
    }),
  ),
  { id: 'CreateContactMethod', example: { type: 'sms', address: '+14155550100', name: 'Work phone' } },
);
export type CreateContactMethodInput = z.output<typeof createContactMethodInput>;

/** `name` (null clears it) and `disabled`; an absent body is an empty update ("No updates provided"). */
export const updateContactMethodInput = z.prefault(
  described(z.partial(z.strictObject({ name: z.nullable(MethodName), disabled: z.boolean() })), {
    id: 'UpdateContactMethod',
    minProperties: 1,
    example: { name: 'On-call phone', disabled: false },
  }),
  {},
);
export type UpdateContactMethodInput = z.output<typeof updateContactMethodInput>;

export const verifyContactMethodInput = described(z.strictObject({ code: described(z.string().check(z.maxLength(20)), { description: 'The 6-digit code sent through the method', example: '123456' }) }), {
  id: 'VerifyContactMethod',
});

export const createNotificationRuleInput = described(
  z.strictObject({
    contact_method_id: z.uuid(),
    delay_minutes: z.int().check(z.minimum(0), z.maximum(MAX_DELAY_MINUTES)),
    urgency: Urgency,
  }),
  { id: 'CreateNotificationRule', example: { contact_method_id: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c', delay_minutes: 5, urgency: 'high' } },
);
export type CreateNotificationRuleInput = z.output<typeof createNotificationRuleInput>;

/** A contact method as stored (`USER#<uid>`, `CM#<id>`). */
export const contactMethodItem = z.object({
  id: z.string(),
  user_id: z.string(),
  method_type: ContactMethodType,
  address: z.string(),
  name: z.pipe(
    z.nullish(z.string()),
    z.transform((value) => value ?? null),
  ),
  verified: z.boolean(),
  disabled: z.boolean(),
  created_at: z.string(),
  /** The SHA-256 (hex) of the pending verification code, when and until when it was sent, its wrong tries. */
  code_hash: z.optional(z.string()),
  code_expires_at: z.optional(z.string()),
  code_attempts: z.optional(z.number()),
  code_sent_at: z.optional(z.string()),
  /** How many notification rules name it (what deleting it reads, and checks it deletes). */
  rule_count: z._default(z.number(), 0),
});
export type ContactMethod = z.output<typeof contactMethodItem>;

/** A notification rule as stored (`USER#<uid>`, `NR#<id>`). */
export const notificationRuleItem = z.object({
  id: z.string(),
  user_id: z.string(),
  contact_method_id: z.string(),
  delay_minutes: z.number(),
  urgency: Urgency,
  created_at: z.string(),
});
export type NotificationRule = z.output<typeof notificationRuleItem>;

export const ContactMethodBody = described(
  z.strictObject({
    id: Id,
    type: ContactMethodType,
    address: described(z.string(), { example: '+14155550100' }),
    name: described(z.nullable(z.string()), { example: 'Work phone' }),
    verified: described(z.boolean(), { description: 'Only a verified, enabled method is ever notified (its code aside)' }),
    disabled: described(z.boolean(), { description: 'A disabled method is never notified (a STOP reply to an SMS disables it)' }),
    created_at: Timestamp,
  }),
  { id: 'ContactMethod' },
);

export const NotificationRuleBody = described(
  z.strictObject({
    id: Id,
    contact_method_id: Id,
    delay_minutes: described(z.int().check(z.minimum(0), z.maximum(MAX_DELAY_MINUTES)), { description: 'Minutes after the page', example: 0 }),
    urgency: Urgency,
    created_at: Timestamp,
  }),
  { id: 'NotificationRule' },
);

export const contactMethodView = (method: ContactMethod): z.output<typeof ContactMethodBody> => ({
  id: method.id,
  type: method.method_type,
  address: method.address,
  name: method.name,
  verified: method.verified,
  disabled: method.disabled,
  created_at: method.created_at,
});

export const notificationRuleView = (rule: NotificationRule): z.output<typeof NotificationRuleBody> => ({
  id: rule.id,
  contact_method_id: rule.contact_method_id,
  delay_minutes: rule.delay_minutes,
  urgency: rule.urgency,
  created_at: rule.created_at,
});

export const contactMethodParams = z.strictObject({ id: z.uuid() });
