/**
 * Acknowledging from an escalation page. Each message (an e-mail, an SMS) carries a link with a random
 * token (256 bits) bound to the incident, the step and the recipient: a person (issue 43: the link
 * acknowledges as that person, whatever address or number it was sent to) or a bare address. The table keeps only the token's
 * SHA-256, with a TTL. Opening the link (GET) only shows the incident; the page's button (POST)
 * acknowledges, with method `email`, in one transaction that uses the link up, on the conditions
 * that the link is unused and unexpired and that the incident is neither acknowledged nor
 * resolved — so of a click and an API acknowledge at once exactly one wins.
 */
import { randomUUID } from 'node:crypto';
import * as z from '../platform/zod.js';
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { getByKeys, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import type { EventDetail } from '../platform/events/model.js';
import { nameBasedUuid } from '../platform/ids.js';
import { LINK_TOKEN_PATTERN, linkTokenHash, newEmailedLink } from '../platform/emailed-link.js';
import { accountItem } from '../accounts/model.js';
import { countMetric } from '../platform/observability/metrics.js';
import { acknowledgementItem, type Acknowledgement, type Incident } from './model.js';
import * as repository from './repository.js';
import { acknowledgementRecords } from './timeline.js';

/** A link acknowledges for 24 hours at most. */
export const ACKNOWLEDGE_LINK_VALIDITY_MS = 24 * 60 * 60 * 1000;

/**
 * The namespace of the ids that name outside recipients (an address on an escalation policy that
 * no account has): `user_id` is the name-based UUID of the lower-cased address in it.
 */
export const OUTSIDE_RECIPIENT_NAMESPACE = '8f4c2a61-3b7e-5d90-a1c4-0e6f9b2d7a35';

/**
 * Whom a link acknowledges as: a person (`user_id`; `address`, where the message went, for the record)
 * or a bare address (its account if it has one, otherwise the address itself).
 */
export type LinkRecipient = { user_id: string; address: string } | { user_id?: undefined; address: string };

/** The page a link belongs to: the paged step's event. */
export type PagedStep = Pick<EventDetail<'incident.escalation_step'>, 'event_id' | 'occurred_at'> & {
  incident: { id: string };
  step: { step_order: number };
};

/** A new link for one recipient of one paged step: the token for the message, and the record to write with its delivery. */
export function newAcknowledgeLink(detail: EventDetail<'incident.escalation_step'> | PagedStep, recipient: LinkRecipient): { token: string; record: TransactItem } {
  return newEmailedLink(keys.acknowledgeLink, ACKNOWLEDGE_LINK_VALIDITY_MS, {
    type: 'acknowledge_link',
    incident_id: detail.incident.id,
    step_order: detail.step.step_order,
    recipient: recipient.address,
    ...(recipient.user_id ? { user_id: recipient.user_id } : {}),
    event_id: detail.event_id,
    /** When the step was paged: a resolution after it kills the link, even if the incident is reopened. */
    paged_at: detail.occurred_at,
  });
}

interface LinkRecord {
  incident_id: string;
  step_order: number;
  recipient: string;
  /** A person's link (issue 43): acknowledges as them. Absent: a bare address's link. */
  user_id?: string;
  paged_at: string;
  expires_at: string;
  used_at?: string;
}

/** What a link leads to, for its page. */
export type LinkState =
  | { state: 'unknown' }
  | { state: 'expired'; incident: Incident }
  | { state: 'used' | 'already_acknowledged'; incident: Incident; acknowledgement?: Acknowledgement }
  | { state: 'resolved'; incident: Incident }
  | { state: 'valid'; incident: Incident; recipient: string; stepOrder: number }
  | { state: 'acknowledged'; incident: Incident; acknowledgement: Acknowledgement };

async function readLink(token: string): Promise<LinkRecord | undefined> {
  if (!LINK_TOKEN_PATTERN.test(token)) return undefined;
  const { link } = await getByKeys({ link: keys.acknowledgeLink(linkTokenHash(token)) });
  if (!link) return undefined;
  return {
    incident_id: String(link.incident_id),
    step_order: Number(link.step_order),
    recipient: String(link.recipient),
    user_id: typeof link.user_id === 'string' ? link.user_id : undefined,
    paged_at: String(link.paged_at),
    expires_at: String(link.expires_at),
    used_at: typeof link.used_at === 'string' ? link.used_at : undefined,
  };
}

/**
 * The link's incident (with its message and acknowledgement) and the recipient's account, if any: one
 * BatchGetItem (a person's link names the account; a bare address's is found by the address).
 */
async function readIncidentFor(link: LinkRecord) {
  const read = await getByKeys({
    incident: keys.incident(link.incident_id),
    message: keys.incidentMessage(link.incident_id),
    acknowledgement: keys.incidentAcknowledgement(link.incident_id),
    ...(link.user_id ? {} : { claim: keys.accountEmail(link.recipient) }),
  });
  const claimed = (read as { claim?: Record<string, unknown> }).claim?.user_id;
  return {
    incident: repository.withMessage(read.incident, read.message),
    acknowledgement: read.acknowledgement ? acknowledgementItem.parse(read.acknowledgement) : undefined,
    accountId: link.user_id ?? (typeof claimed === 'string' ? claimed : undefined),
  };
}

/**
 * Why a link no longer acknowledges, if it does not: used, expired, the incident acknowledged, or
 * resolved since the page (even if it was reopened after).
 */
function refusal(link: LinkRecord, incident: Incident, acknowledgement: Acknowledgement | undefined): LinkState | undefined {
  if (link.used_at) return { state: 'used', incident, acknowledgement };
  if (Date.parse(link.expires_at) <= clock.now().getTime()) return { state: 'expired', incident };
  if (incident.acknowledged) return { state: 'already_acknowledged', incident, acknowledgement };
  if (incident.status === 'RESOLVED' || (incident.last_resolved_at ?? '') >= link.paged_at) return { state: 'resolved', incident };
  return undefined;
}

/** Opening the link (GET): what it leads to. Never acknowledges. */
export async function inspectAcknowledgeLink(token: string): Promise<LinkState> {
  const link = await readLink(token);
  if (!link) return { state: 'unknown' };
  const { incident, acknowledgement } = await readIncidentFor(link);
  if (!incident) return { state: 'unknown' };
  return refusal(link, incident, acknowledgement) ?? { state: 'valid', incident, recipient: link.recipient, stepOrder: link.step_order };
}

/**
 * The page's button (POST): acknowledges as the recipient — the person a person's link names; for a
 * bare address's link, its account when the address has one, otherwise the address itself (see
 * `OUTSIDE_RECIPIENT_NAMESPACE`).
 */
export async function acknowledgeByLink(token: string): Promise<LinkState> {
  const link = await readLink(token);
  if (!link) return { state: 'unknown' };
  const linkKey = keys.acknowledgeLink(linkTokenHash(token));
  return retryOnConflict<LinkState>(async () => {
    const { incident, acknowledgement: existing, accountId } = await readIncidentFor(link);
    if (!incident) return { state: 'unknown' };
    const refused = refusal(link, incident, existing);
    if (refused) return refused;
    const account = accountId ? await getByKeys({ account: keys.account(accountId) }) : undefined;
    const person = account?.account ? accountItem.parse(account.account) : undefined;
    const now = repository.writeInstant(incident);
    const acknowledgement: Acknowledgement = {
      id: randomUUID(),
      incident_id: incident.id,
      user_id: person?.id ?? link.user_id ?? nameBasedUuid(OUTSIDE_RECIPIENT_NAMESPACE, link.recipient.toLowerCase()),
      user_name: person?.name ?? link.recipient,
      user_email: person?.email ?? link.recipient,
      method: 'email',
      acknowledged_at: now,
    };
    const useUp: TransactItem = {
      Update: {
        TableName: tableName(),
        Key: linkKey,
        UpdateExpression: 'SET used_at = :now',
        ConditionExpression: `${itemPresent} AND attribute_not_exists(used_at) AND expires_at > :now`,
        ExpressionAttributeValues: { ':now': now },
      },
    };
    const { outcome } = await repository.acknowledgeIncident(
      incident,
      acknowledgement,
      now,
      acknowledgementRecords(incident, acknowledgement, { step_order: link.step_order }),
      [['link', useUp]],
      { unresolvedSince: link.paged_at },
    );
    if (outcome === 'acknowledged') {
      countMetric('IncidentAcknowledged', { method: 'email' });
      return { state: 'acknowledged', incident: { ...incident, acknowledged: true }, acknowledgement };
    }
    if (outcome === 'not_found') return { state: 'unknown' };
    // Used, expired, acknowledged or resolved meanwhile (or re-scoped: nothing a link cares about): read again.
    const again = await readLink(token);
    if (!again) return { state: 'unknown' };
    Object.assign(link, again);
    return undefined;
  }, (attempts) => `Acknowledge link for incident ${link.incident_id}: kept changing; gave up after ${attempts} attempts`);
}

/** Any text: one that is not shaped like a token is simply unknown (a 404 page), not a validation error. */
export const acknowledgeLinkParams = z.strictObject({ token: z.string() });
