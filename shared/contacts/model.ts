/**
 * Contact methods and notification rules (issue 43 §2, §3), as items. MINIMAL (seam helper's tree):
 * the contacts helper's version, with the API, wins at merge; the item shapes and defaults are the
 * shared design's.
 */
import { nameBasedUuid } from '../platform/ids.js';
import type { ChannelType } from '../channels/model.js';

export type Urgency = 'high' | 'low';
export const URGENCIES = ['high', 'low'] as const satisfies readonly Urgency[];

export interface ContactMethod {
  id: string;
  user_id: string;
  method_type: ChannelType;
  address: string;
  name: string | null;
  verified: boolean;
  disabled: boolean;
  created_at: string;
}

export interface NotificationRule {
  id: string;
  user_id: string;
  contact_method_id: string;
  delay_minutes: number;
  urgency: Urgency;
  created_at: string;
}

/** The namespace of the default method's and rules' ids (name-based, so their lazy creation is idempotent). */
export const DEFAULT_CONTACTS_NAMESPACE = '3d6f0b8e-2c41-5a7d-9e13-6b0f4c8a2d57';

export const defaultMethodId = (userId: string) => nameBasedUuid(DEFAULT_CONTACTS_NAMESPACE, `${userId}#email`);
export const defaultRuleId = (userId: string, urgency: Urgency) => nameBasedUuid(DEFAULT_CONTACTS_NAMESPACE, `${userId}#rule#${urgency}`);

/** The account's own e-mail method: verified from the start. */
export const defaultMethod = (userId: string, accountEmail: string): ContactMethod => ({
  id: defaultMethodId(userId),
  user_id: userId,
  method_type: 'email',
  address: accountEmail,
  name: null,
  verified: true,
  disabled: false,
  created_at: '1970-01-01T00:00:00.000Z',
});

/** Its two rules: at once, for both urgencies. */
export const defaultRules = (userId: string): NotificationRule[] =>
  URGENCIES.map((urgency) => ({
    id: defaultRuleId(userId, urgency),
    user_id: userId,
    contact_method_id: defaultMethodId(userId),
    delay_minutes: 0,
    urgency,
    created_at: '1970-01-01T00:00:00.000Z',
  }));
