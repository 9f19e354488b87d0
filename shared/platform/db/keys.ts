/**
 * Every key format of the single table, in one place. Attribute and index names come
 * from the system description (`shared/system.ts`).
 */
import { table, type IncidentFilterDimension } from '../../system.js';

const [ownerIndexDescription, teamIndexDescription, monitorIndexDescription] = table.globalIndexes;

export type Key = Record<string, string>;

export const attributes = {
  pk: table.partitionKey.name,
  sk: table.sortKey.name,
  ttl: table.timeToLiveAttribute,
} as const;

const key = (pk: string, sk: string): Key => ({ [attributes.pk]: pk, [attributes.sk]: sk });

/** Sort-key values inside an incident's item collection. */
export const incidentItemSk = {
  incident: 'INCIDENT',
  /** The free-text message, kept apart so that no index (and no list page) carries it. */
  message: 'MESSAGE',
  acknowledgement: 'ACK',
  escalationStepPrefix: 'ESC#',
  /** Timeline entries sort after every other item of the collection (`getIncidentCollection` stops before them). */
  updatePrefix: 'UPDATE#',
} as const;

const incidentPartition = (incidentId: string) => `INCIDENT#${incidentId}`;
const teamPartition = (teamId: string) => `TEAM#${teamId}`;

/** Sort-key values inside a team's item collection. */
export const teamItemSk = {
  team: 'TEAM',
  /** Links to the monitors and policies shared with the team (what deleting the team gives back). */
  sharedPrefix: 'SHARED#',
  sharedMonitorPrefix: 'SHARED#MONITOR#',
  sharedPolicyPrefix: 'SHARED#POLICY#',
  sharedSchedulePrefix: 'SHARED#SCHEDULE#',
  memberPrefix: 'MEMBER#',
  membershipPrefix: 'USER#',
  /** A person removed from the team, and when (what keeps their past on-call shifts in the team's schedules). */
  formerMemberPrefix: 'FORMER#',
  invitePrefix: 'INVITE#',
  pendingInvitePrefix: 'INVITEEMAIL#',
} as const;

/**
 * Sort-key values inside a user's item collection (`USER#<id>`): the account (`PROFILE`), its contact
 * methods and notification rules. `CM` … `PROFILE` spans the contact items and the account at once.
 */
export const userItemSk = {
  account: 'PROFILE',
  contactMethodPrefix: 'CM#',
  contactMethodAddressPrefix: 'CMADDR#',
  contactCount: 'CM-COUNT',
  notificationRulePrefix: 'NR#',
  notificationRuleShapePrefix: 'NRKEY#',
  /** The lowest sort key of the contact items. */
  contactsFrom: 'CM',
} as const;

/** Sort-key values inside a schedule's item collection. */
export const scheduleItemSk = {
  schedule: 'SCHEDULE',
  /** Overrides, by start instant (`toISOString`, so text order is time order) and id. */
  overridePrefix: 'OVERRIDE#',
  /** Finds an override by its id (what deleting one names). */
  overrideIdPrefix: 'OVERRIDEID#',
  /** A policy one of whose steps targets the schedule (what refuses its deletion, and names the policy). */
  targetedByPrefix: 'TARGETEDBY#',
  /** Its shift notices' cursor and next shift start (issue 45 §3), in the due index while a start is planned. */
  shiftNotices: 'SHIFTNOTICES',
} as const;

const schedulePartition = (scheduleId: string) => `SCHEDULE#${scheduleId}`;

/** Sort-key values inside a monitor's item collection. */
export const monitorItemSk = {
  monitor: 'MONITOR',
  subscriberPrefix: 'SUB#',
  integrationPrefix: 'INTEGRATION#',
  alertPrefix: 'ALERT#',
} as const;

/**
 * Audit entries (issue 45 §5): a team's changes in the partition `AUDIT#TEAM#<teamId>`, a change to a
 * resource outside any team in `AUDIT#USER#<ownerId>`; sort key `ENTRY#<at>#<entryId>` (newest first read
 * backwards; `from`/`to` are bounds of the key). Never in the team's own collection, which every team read
 * and the team's deletion read whole.
 */
export const auditItem = {
  teamPartition: (teamId: string) => `AUDIT#TEAM#${teamId}`,
  ownerPartition: (ownerId: string) => `AUDIT#USER#${ownerId}`,
  entryPrefix: 'ENTRY#',
  entrySk: (at: string, entryId: string) => `ENTRY#${at}#${entryId}`,
} as const;

/** `OUTBOX#2026-11-23T10#a`: one hour (UTC, `yyyy-mm-ddThh`), one of 16 shards. */
export const outboxPartition = (hour: string, shard: string) => `OUTBOX#${hour}#${shard}`;
export const OUTBOX_SHARDS = '0123456789abcdef';

export const keys = {
  account: (userId: string) => key(`USER#${userId}`, 'PROFILE'),
  /** An Idempotency-Key, scoped to its caller (the key itself is hashed: any printable text, up to 255 characters). */
  idempotency: (userId: string, keyHash: string) => key(`IDEMPOTENCY#${userId}#${keyHash}`, 'IDEMPOTENCY'),
  /** Uniqueness claim of an e-mail address (lower-cased), pointing at the account. */
  accountEmail: (email: string) => key(`EMAIL#${email.toLowerCase()}`, 'EMAIL'),
  monitor: (monitorId: string) => key(`MONITOR#${monitorId}`, 'MONITOR'),
  /** The incident's item collection: the incident, its acknowledgement, its escalation steps. */
  incidentPartition,
  incident: (incidentId: string) => key(incidentPartition(incidentId), incidentItemSk.incident),
  incidentMessage: (incidentId: string) => key(incidentPartition(incidentId), incidentItemSk.message),
  incidentAcknowledgement: (incidentId: string) =>
    key(incidentPartition(incidentId), incidentItemSk.acknowledgement),
  /** The team's item collection: team, members, memberships, invites, pending-invite claims. */
  teamPartition,
  team: (teamId: string) => key(teamPartition(teamId), teamItemSk.team),
  /** Uniqueness claim of a team slug, pointing at the team. */
  teamSlug: (slug: string) => key(`SLUG#${slug}`, 'SLUG'),
  /** The link of a monitor shared with the team. */
  teamSharedMonitor: (teamId: string, monitorId: string) => key(teamPartition(teamId), `${teamItemSk.sharedMonitorPrefix}${monitorId}`),
  /** The link of an escalation policy shared with the team. */
  teamSharedPolicy: (teamId: string, policyId: string) => key(teamPartition(teamId), `${teamItemSk.sharedPolicyPrefix}${policyId}`),
  /** A member, addressed by member id (member paths). */
  teamMember: (teamId: string, memberId: string) => key(teamPartition(teamId), `${teamItemSk.memberPrefix}${memberId}`),
  /** A user's membership, addressed by user id (authorization, the user's team list). */
  teamMembership: (teamId: string, userId: string) =>
    key(teamPartition(teamId), `${teamItemSk.membershipPrefix}${userId}`),
  /** The last removal of a user from the team (kept after it: the team's schedules render their past turns). */
  teamFormerMember: (teamId: string, userId: string) => key(teamPartition(teamId), `${teamItemSk.formerMemberPrefix}${userId}`),
  teamInvite: (teamId: string, inviteId: string) => key(teamPartition(teamId), `${teamItemSk.invitePrefix}${inviteId}`),
  /** One pending invite per (team, lower-cased e-mail). */
  teamPendingInvite: (teamId: string, email: string) =>
    key(teamPartition(teamId), `${teamItemSk.pendingInvitePrefix}${email.toLowerCase()}`),
  /** Finds an invite by its token. */
  inviteToken: (token: string) => key(`INVITETOKEN#${token}`, 'INVITETOKEN'),
  /**
   * An event in the outbox (published from the table's stream), findable by time for a replay: the
   * hour it occurred in, spread over 16 partitions by the first hex digit of its (random) id.
   */
  outbox: (eventId: string, occurredAt: string) => key(outboxPartition(occurredAt.slice(0, 13), eventId[0]!), `${occurredAt}#${eventId}`),
  /** The monitor's open automatic incident: at most one, held by a conditional write. */
  monitorOpenIncident: (monitorId: string) => key(`MONITOR#${monitorId}`, 'OPEN_INCIDENT'),
  monitorPartition: (monitorId: string) => `MONITOR#${monitorId}`,
  /**
   * A monitor's heartbeat: its period, last ping and deadline (epoch seconds); while armed, in the
   * heartbeat-due index under one of 16 shards (the first hex digit of the monitor's id).
   */
  monitorHeartbeat: (monitorId: string) => key(`MONITOR#${monitorId}`, 'HEARTBEAT'),
  /** The monitor's open "missed its heartbeat" incident: at most one, held by a conditional write. */
  monitorHeartbeatIncident: (monitorId: string) => key(`MONITOR#${monitorId}`, 'HEARTBEAT_INCIDENT'),
  /** An integration (a key monitoring tools send alerts with) of a monitor. */
  integration: (monitorId: string, integrationId: string) => key(`MONITOR#${monitorId}`, `${monitorItemSk.integrationPrefix}${integrationId}`),
  /**
   * Finds an integration by the SHA-256 of its key (the key itself is never stored); also holds the
   * key's rate window and its last accepted event.
   */
  integrationKey: (keyHash: string) => key(`INTEGRATIONKEY#${keyHash}`, 'INTEGRATIONKEY'),
  /**
   * The open incident of one dedup key of a monitor's alerts: at most one, claimed with a conditional
   * write in the transaction that opens it, released in the one that resolves it.
   */
  alertDedup: (monitorId: string, dedupKey: string) => key(`MONITOR#${monitorId}`, `${monitorItemSk.alertPrefix}${dedupKey}`),
  /**
   * A part of an Alertmanager or Grafana notification taken for processing (issue 41 §3): written by the
   * request, processed from the table's stream (`alert-processor`), kept a week.
   */
  alertBatch: (batchId: string) => key(`ALERTBATCH#${batchId}`, 'ALERTBATCH'),
  /** A status-page subscriber of a monitor. */
  subscriber: (monitorId: string, subscriberId: string) => key(`MONITOR#${monitorId}`, `SUB#${subscriberId}`),
  /** One subscription per (monitor, lower-cased e-mail). */
  subscriberEmail: (monitorId: string, email: string) => key(`MONITOR#${monitorId}`, `SUBEMAIL#${email.toLowerCase()}`),
  /** Finds a subscription by its unsubscribe token. */
  unsubscribeToken: (token: string) => key(`UNSUB#${token}`, 'UNSUB'),
  escalationPolicy: (policyId: string) => key(`POLICY#${policyId}`, 'POLICY'),
  /** The link of an on-call schedule shared with the team. */
  teamSharedSchedule: (teamId: string, scheduleId: string) => key(teamPartition(teamId), `${teamItemSk.sharedSchedulePrefix}${scheduleId}`),
  /** An on-call schedule's item collection: the schedule, its overrides, the policies that target it. */
  schedulePartition,
  schedule: (scheduleId: string) => key(schedulePartition(scheduleId), scheduleItemSk.schedule),
  scheduleOverride: (scheduleId: string, start: string, overrideId: string) =>
    key(schedulePartition(scheduleId), `${scheduleItemSk.overridePrefix}${start}#${overrideId}`),
  scheduleOverrideId: (scheduleId: string, overrideId: string) => key(schedulePartition(scheduleId), `${scheduleItemSk.overrideIdPrefix}${overrideId}`),
  /** The schedule's shift notices (issue 45 §3): up to when they are decided, and when the next shift starts (the due index). */
  scheduleShiftNotices: (scheduleId: string) => key(schedulePartition(scheduleId), scheduleItemSk.shiftNotices),
  scheduleTargetedBy: (scheduleId: string, policyId: string) => key(schedulePartition(scheduleId), `${scheduleItemSk.targetedByPrefix}${policyId}`),
  /** An incident's escalation step: plan, due time and whether it was sent. */
  escalationStep: (incidentId: string, stepOrder: number) =>
    key(incidentPartition(incidentId), `${incidentItemSk.escalationStepPrefix}${String(stepOrder).padStart(2, '0')}`),
  /**
   * An entry of the incident's timeline, in the order it happened: its time, then its place among
   * the entries one write made at once (a created incident and its first page), then its id.
   */
  incidentUpdate: (incidentId: string, createdAt: string, ordinal: number, entryId: string) =>
    key(incidentPartition(incidentId), `${incidentItemSk.updatePrefix}${createdAt}#${String(ordinal).padStart(2, '0')}#${entryId}`),
  /** An acknowledge link, by the SHA-256 of its token (the token itself is only in the e-mail). */
  acknowledgeLink: (tokenHash: string) => key(`ACKLINK#${tokenHash}`, 'ACKLINK'),
  /** A user's calendar feed, by the SHA-256 of its secret token (the token itself is only in the URL given to its user). */
  calendarToken: (tokenHash: string) => key(`CALTOKEN#${tokenHash}`, 'CALTOKEN'),
  /** A subscription's confirmation link, by the SHA-256 of its token (the token itself is only in the e-mail). */
  subscriptionConfirmation: (tokenHash: string) => key(`SUBCONFIRM#${tokenHash}`, 'SUBCONFIRM'),
  /** How many of one kind of mail-sending action an account did on one UTC day (`yyyy-mm-dd`). */
  dailyQuota: (userId: string, kind: string, day: string) => key(`QUOTA#${userId}`, `${kind}#${day}`),
  /** How many e-mails of one kind one address (lower-cased) was sent on one UTC day, by any account. */
  recipientQuota: (email: string, kind: string, day: string) => key(`QUOTA#TO#${email.toLowerCase()}`, `${kind}#${day}`),
  /** One outside address (lower-cased) an account paged on one UTC day: what counts it once among the day's distinct addresses. */
  pagedAddress: (userId: string, day: string, email: string) => key(`QUOTA#${userId}`, `paged_address#${day}#${email.toLowerCase()}`),
  /** An address (lower-cased) that asked an account to stop paging it (its page's link). */
  pagingStopped: (userId: string, email: string) => key(`PAGESTOP#${userId}#${email.toLowerCase()}`, 'PAGESTOP'),
  /** A "stop paging this address" link, by the SHA-256 of its token (the token itself is only in the e-mail). */
  stopPagingLink: (tokenHash: string) => key(`PAGESTOPLINK#${tokenHash}`, 'PAGESTOPLINK'),
  /** Whether one page of one event to one outside address was let through or withheld (and why): decided once. */
  pagePermit: (eventId: string, recipient: string) => key(`DELIVERY#${eventId}`, `PERMIT#${recipient.toLowerCase()}`),
  /** An outgoing webhook; its item collection also holds its messages and their per-incident queues. */
  webhookPartition: (webhookId: string) => `WEBHOOK#${webhookId}`,
  webhook: (webhookId: string) => key(`WEBHOOK#${webhookId}`, 'WEBHOOK'),
  /** One message (one event, or a ping) to one webhook: its body, attempts and retry state. */
  webhookMessage: (webhookId: string, messageId: string) => key(`WEBHOOK#${webhookId}`, `MSG#${messageId}`),
  /** How many webhooks one scope holds (`monitor`, `team`, `owner`): the counter the webhook limits are checked against. */
  webhookCount: (scope: 'monitor' | 'team' | 'owner', id: string) => key(`WEBHOOK#COUNT#${scope}#${id}`, 'COUNT'),
  /**
   * A message still to be delivered, queued behind the earlier messages of the same incident: the
   * head of `QUEUE#<incident>#` (the oldest event) is the only one sent until it succeeds or fails.
   */
  webhookQueuePrefix: (incidentId: string) => `QUEUE#${incidentId}#`,
  webhookQueue: (webhookId: string, incidentId: string, occurredAt: string, messageId: string) =>
    key(`WEBHOOK#${webhookId}`, `QUEUE#${incidentId}#${occurredAt}#${messageId}`),
  /** A contact method of a user (issue 43 §2): its address, whether verified or disabled, its verification code's state. */
  contactMethod: (userId: string, contactMethodId: string) => key(`USER#${userId}`, `${userItemSk.contactMethodPrefix}${contactMethodId}`),
  /** One contact method per (type, lower-cased address) of a user. */
  contactMethodAddress: (userId: string, type: string, address: string) => key(`USER#${userId}`, `${userItemSk.contactMethodAddressPrefix}${type}#${address.toLowerCase()}`),
  /** How many contact methods and notification rules a user has (the limits); its presence marks the defaults written. */
  contactCount: (userId: string) => key(`USER#${userId}`, userItemSk.contactCount),
  /** A notification rule of a user: a contact method, a delay and an urgency. */
  notificationRule: (userId: string, ruleId: string) => key(`USER#${userId}`, `${userItemSk.notificationRulePrefix}${ruleId}`),
  /** One rule per (contact method, delay, urgency) of a user. */
  notificationRuleShape: (userId: string, contactMethodId: string, delayMinutes: number, urgency: string) =>
    key(`USER#${userId}`, `${userItemSk.notificationRuleShapePrefix}${contactMethodId}#${String(delayMinutes).padStart(4, '0')}#${urgency}`),
  /** Finds the accounts having a phone number among their SMS or voice methods (inbound SMS: STOP, replies). */
  phoneContact: (e164: string, userId: string, contactMethodId: string) => key(`PHONE#${e164}`, `USER#${userId}#CM#${contactMethodId}`),
  /** A person's reply code `n` (SMS replies `<n>a`…): which incident it names. */
  replyCode: (userId: string, code: number) => key(`USER#${userId}`, `REPLY#${code}`),
  /** The reverse: a person's code for an incident (not in the incident's partition, which `getIncidentCollection` reads whole). */
  incidentReplyCode: (incidentId: string, userId: string) => key(`REPLYCODE#${incidentId}#${userId}`, 'REPLYCODE'),
  /** A sent message's provider id → its notification timeline entry (delivery receipts update its status). */
  notificationMessage: (messageId: string) => key(`MESSAGE#${messageId}`, 'MESSAGE'),
  /**
   * Since issue 43's throttles, one lookup item per timeline entry a message stands for (a combined
   * message names several incidents): the receipts worker reads the message's whole partition (which
   * holds `notificationMessage`'s single item for messages sent before).
   */
  notificationMessageEntry: (messageId: string, incidentId: string, entrySk: string) => key(`MESSAGE#${messageId}`, `ENTRY#${incidentId}#${entrySk}`),
  notificationMessagePartition: (messageId: string) => `MESSAGE#${messageId}`,
  /**
   * A phone contact method's send ledger (issue 43 §4's throttles): the instants of its last hour's
   * sends, a version every write conditions on, and, while pages are held, when they go out (`flush_at`).
   */
  throttleLedger: (contactMethodId: string) => key(`THROTTLE#${contactMethodId}`, 'LEDGER'),
  /** A page held past the method's throttle, keyed by its delivery (page event and recipient key): a redelivery holds nothing twice. */
  heldPage: (contactMethodId: string, eventId: string, recipientKey: string) => key(`THROTTLE#${contactMethodId}`, `HELD#${eventId}#${recipientKey.toLowerCase()}`),
  throttlePartition: (contactMethodId: string) => `THROTTLE#${contactMethodId}`,
  /** Marks one e-mail of one event as delivered (the notifier's idempotency). */
  delivery: (eventId: string, recipient: string) => key(`DELIVERY#${eventId}`, recipient.toLowerCase()),
  /** The partition of a phone number's lookup items: one per (account, sms/voice method) on the number. */
  phonePartition: (e164: string) => `PHONE#${e164}`,
} as const;

/** The index attributes of an item: its partition and sort key in that index. */
const indexKey = (description: { partitionKey: { name: string }; sortKey: { name: string } }, pk: string, sk: string): Key => ({
  [description.partitionKey.name]: pk,
  [description.sortKey.name]: sk,
});

const ownerPartition = (ownerId: string) => `OWNER#${ownerId}`;
const ownerKey = (ownerId: string, sk: string): Key => indexKey(ownerIndexDescription, ownerPartition(ownerId), sk);

/** Owner index: everything one user owns, by type prefix and time. */
export const ownerIndex = {
  name: ownerIndexDescription.name,
  pk: ownerIndexDescription.partitionKey.name,
  sk: ownerIndexDescription.sortKey.name,
  partition: ownerPartition,
  monitorPrefix: 'MONITOR#',
  incidentPrefix: 'INCIDENT#',
  membershipPrefix: 'MEMBERSHIP#',
  policyPrefix: 'POLICY#',
  schedulePrefix: 'SCHEDULE#',
  schedule: (ownerId: string, createdAt: string, scheduleId: string) => ownerKey(ownerId, `SCHEDULE#${createdAt}#${scheduleId}`),
  webhookPrefix: 'WEBHOOK#',
  /** Audit entries of changes to the owner's own resources (issue 45 §5), newest first by `<at>#<id>`. */
  auditPrefix: 'AUDIT#',
  audit: (ownerId: string, at: string, entryId: string) => ownerKey(ownerId, `AUDIT#${at}#${entryId}`),
  monitor: (ownerId: string, createdAt: string, monitorId: string) =>
    ownerKey(ownerId, `MONITOR#${createdAt}#${monitorId}`),
  /** The integrations a user created, on any monitor (what their removal from a team reviews). */
  integrationPrefix: 'INTEGRATION#',
  integration: (creatorId: string, createdAt: string, integrationId: string) => ownerKey(creatorId, `INTEGRATION#${createdAt}#${integrationId}`),
  /** The owner's own webhooks and the webhooks of the monitors they own (team webhooks are in the team index only). */
  webhook: (ownerId: string, createdAt: string, webhookId: string) => ownerKey(ownerId, `WEBHOOK#${createdAt}#${webhookId}`),
  incident: (ownerId: string, startedAt: string, incidentId: string) =>
    ownerKey(ownerId, `INCIDENT#${startedAt}#${incidentId}`),
  policy: (ownerId: string, createdAt: string, policyId: string) => ownerKey(ownerId, `POLICY#${createdAt}#${policyId}`),
  /** A user's team membership (the user's teams, newest joined first). */
  membership: (userId: string, joinedAt: string, teamId: string) =>
    ownerKey(userId, `MEMBERSHIP#${joinedAt}#${teamId}`),
} as const;

const teamScopePartition = (teamId: string) => `TEAM#${teamId}`;

/**
 * Team index (sparse): what is shared with one team, by type prefix and time. An item leaves it
 * when it is taken out of the team (its `gsi2` attributes are removed).
 */
export const teamIndex = {
  name: teamIndexDescription.name,
  pk: teamIndexDescription.partitionKey.name,
  sk: teamIndexDescription.sortKey.name,
  partition: teamScopePartition,
  monitorPrefix: 'MONITOR#',
  incidentPrefix: 'INCIDENT#',
  policyPrefix: 'POLICY#',
  schedulePrefix: 'SCHEDULE#',
  schedule: (teamId: string, createdAt: string, scheduleId: string) =>
    indexKey(teamIndexDescription, teamScopePartition(teamId), `SCHEDULE#${createdAt}#${scheduleId}`),
  webhookPrefix: 'WEBHOOK#',
  monitor: (teamId: string, createdAt: string, monitorId: string) =>
    indexKey(teamIndexDescription, teamScopePartition(teamId), `MONITOR#${createdAt}#${monitorId}`),
  webhook: (teamId: string, createdAt: string, webhookId: string) =>
    indexKey(teamIndexDescription, teamScopePartition(teamId), `WEBHOOK#${createdAt}#${webhookId}`),
  incident: (teamId: string, startedAt: string, incidentId: string) =>
    indexKey(teamIndexDescription, teamScopePartition(teamId), `INCIDENT#${startedAt}#${incidentId}`),
  policy: (teamId: string, createdAt: string, policyId: string) =>
    indexKey(teamIndexDescription, teamScopePartition(teamId), `POLICY#${createdAt}#${policyId}`),
} as const;

/**
 * Monitor index: every incident of one monitor, by start time, and the monitor's webhooks. Its
 * `WEBHOOK#` partitions list one webhook's messages (deliveries), newest first.
 */
export const monitorIndex = {
  name: monitorIndexDescription.name,
  pk: monitorIndexDescription.partitionKey.name,
  sk: monitorIndexDescription.sortKey.name,
  partition: (monitorId: string) => `MONITOR#${monitorId}`,
  incidentPrefix: 'INCIDENT#',
  webhookPrefix: 'WEBHOOK#',
  incident: (monitorId: string, startedAt: string, incidentId: string) =>
    indexKey(monitorIndexDescription, `MONITOR#${monitorId}`, `INCIDENT#${startedAt}#${incidentId}`),
  webhook: (monitorId: string, createdAt: string, webhookId: string) =>
    indexKey(monitorIndexDescription, `MONITOR#${monitorId}`, `WEBHOOK#${createdAt}#${webhookId}`),
  deliveriesPartition: (webhookId: string) => `WEBHOOK#${webhookId}`,
  deliveryPrefix: 'DELIVERY#',
  delivery: (webhookId: string, createdAt: string, messageId: string) =>
    indexKey(monitorIndexDescription, `WEBHOOK#${webhookId}`, `DELIVERY#${createdAt}#${messageId}`),
} as const;

export type Scope = 'owner' | 'team';

/**
 * Filter indexes: one per scope and filter dimension (`shared/system.ts`). The partition names
 * the scope and the value (`OWNER#<id>#severity#HIGH`, `TEAM#<id>#open#OPEN`); the sort key is the
 * scope index's (`INCIDENT#<started_at>#<id>`).
 */
export function filterIndex(scope: Scope, dimension: IncidentFilterDimension) {
  const description = table.globalIndexes.find((index) => index.name === `${scope}-${dimension}`)!;
  return { name: description.name, pk: description.partitionKey.name, sk: description.sortKey.name };
}

export const filterPartition = (scope: Scope, scopeId: string, dimension: IncidentFilterDimension, value: string) =>
  `${scope === 'owner' ? ownerPartition(scopeId) : teamScopePartition(scopeId)}#${dimension}#${value}`;

/**
 * Attribute of a team item that marks one monitor moving into or out of the team while its
 * incidents are re-scoped: `{ seq, to_team_id }` (see `shared/teams/scopes.ts`).
 */
export const transitAttributePrefix = 'transit_';
export const transitAttribute = (monitorId: string) => `${transitAttributePrefix}${monitorId}`;

/** Condition expressions on an item's existence. */
export const itemAbsent = `attribute_not_exists(${attributes.pk})`;
export const itemPresent = `attribute_exists(${attributes.pk})`;
/** `team_seq = <placeholder>`, an absent `team_seq` counting as 0: the item is still in the scope it was read in. */
export const teamSeqIs = (seq: number, placeholder: string) =>
  seq === 0 ? `(attribute_not_exists(team_seq) OR team_seq = ${placeholder})` : `team_seq = ${placeholder}`;

/** Condition: the item exists and belongs to `ownerId` (placeholders `#owner_id`, `:caller`). */
export const ownedBy = (ownerId: string) => ({
  expression: `${itemPresent} AND #owner_id = :caller`,
  names: { '#owner_id': 'owner_id' },
  values: { ':caller': ownerId },
});
