/**
 * The one description of the system.
 *
 * Everything that exists both locally and on AWS is declared here exactly once:
 * the DynamoDB table (keys, indexes, TTL, stream) and the HTTP routes (method,
 * path, handler module, table access). The local runtime (`infra/local/`) and
 * the CDK stack are both built from this module, and the domain code reads its
 * attribute and index names from here, so a key schema is never written twice.
 *
 * This module is plain data: it must stay free of CDK and runtime imports,
 * because handler bundles include it.
 */

export type KeyType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: KeyType;
}

export interface GlobalIndex {
  readonly name: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
}

export interface TableDescription {
  /** Suffix of the physical table name; the stage prefix is added by the deployer. */
  readonly name: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly globalIndexes: readonly GlobalIndex[];
  /** Attribute holding the expiry time in epoch seconds. */
  readonly timeToLiveAttribute: string;
  readonly stream: 'NEW_AND_OLD_IMAGES';
}

/** The incident filters that have an index of their own, per scope. */
export const incidentFilterDimensions = ['severity', 'status', 'open', 'acknowledged'] as const;
export type IncidentFilterDimension = (typeof incidentFilterDimensions)[number];

function filterIndexes<S extends 'owner' | 'team'>(scope: S, sortKey: 'gsi1sk' | 'gsi2sk') {
  return incidentFilterDimensions.map((dimension) => ({
    name: `${scope}-${dimension}` as const,
    partitionKey: { name: `${scope}_${dimension}_pk` as const, type: 'S' as const },
    sortKey: { name: sortKey, type: 'S' as const },
  }));
}

export const table = {
  name: 'incident-service',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalIndexes: [
    {
      // Owner index: monitors and incidents of one owner, sorted by creation / start time.
      name: 'gsi1',
      partitionKey: { name: 'gsi1pk', type: 'S' },
      sortKey: { name: 'gsi1sk', type: 'S' },
    },
    {
      // Team index (sparse): monitors, incidents and escalation policies shared with one team.
      name: 'gsi2',
      partitionKey: { name: 'gsi2pk', type: 'S' },
      sortKey: { name: 'gsi2sk', type: 'S' },
    },
    {
      // Monitor index: every incident of one monitor, by start time (moving a monitor re-scopes them).
      name: 'gsi3',
      partitionKey: { name: 'gsi3pk', type: 'S' },
      sortKey: { name: 'gsi3sk', type: 'S' },
    },
    {
      // Heartbeat-due index (sparse), the table's due-by-time index: armed heartbeats by deadline (epoch
      // seconds), over 16 shards (`HEARTBEAT#<first hex digit of the monitor id>`), and schedules by their
      // next shift's start (`SHIFTSTART#<first hex digit of the schedule id>`, issue 45 §3); each sweep
      // queries its own shards for what is due.
      name: 'heartbeat-due',
      partitionKey: { name: 'hb_due_pk', type: 'S' },
      sortKey: { name: 'hb_deadline', type: 'N' },
    },
    // Filter indexes: the incidents of one scope (an owner's, or a team's) with one severity, one
    // status, still open, or (not) acknowledged, newest first. Their sort keys are the owner and
    // team indexes' own, so a filtered page is one key condition, time bounds and cursor included.
    ...filterIndexes('owner', 'gsi1sk'),
    ...filterIndexes('team', 'gsi2sk'),
  ],
  timeToLiveAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
} as const satisfies TableDescription;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type GlobalIndexName = (typeof table.globalIndexes)[number]['name'];

/** What a function may do to the table: exactly this is granted on AWS. */
export type TableAccess = 'none' | 'read' | 'readwrite';

/** What else a function may do; each is granted on AWS, scoped to the one resource it names. */
export type Capability =
  /** events:PutEvents on the service's bus. */
  | 'publish-events'
  /** ses:SendEmail from the sender identity. */
  | 'send-email'
  /** sms-voice:SendTextMessage and SendVoiceMessage from the origination identity (End User Messaging SMS and Voice v2). */
  | 'send-sms-voice'
  /** scheduler:CreateSchedule in the escalation group (schedules delete themselves), iam:PassRole of its role. */
  | 'manage-schedules';

export interface FunctionDescription {
  /** Stable function name (also the Lambda's logical id and the local invoke name). */
  readonly name: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly table: TableAccess;
  readonly capabilities?: readonly Capability[];
  /** Reads the table's stream, receiving only these changes (a Lambda event filter on AWS). */
  readonly stream?: StreamFilter;
  /** Overrides `functionDefaults.timeoutSeconds`. */
  readonly timeoutSeconds?: number;
  /** Deletes whole item collections with BatchWriteItem (granted only to these). */
  readonly batchWrite?: boolean;
  /**
   * The only partition-key prefixes the function may touch (an IAM `dynamodb:LeadingKeys`
   * condition on AWS); unset: the whole table. Must match the key builders of `shared/platform/db/keys.ts`.
   */
  readonly leadingKeys?: readonly string[];
  /**
   * The indexes a function confined to `leadingKeys` may Query (and only Query): a grant of its own,
   * without the condition, since an index's partitions are owners, teams and monitors, not the table's.
   */
  readonly indexes?: readonly GlobalIndexName[];
  /**
   * The only index partition-key prefixes those Queries may name: an IAM `dynamodb:LeadingKeys` condition on
   * the index statement (for a Query of an index, the condition reads the index's partition key). Required
   * with `indexes`. The indexes' partitions: `OWNER#<user>` (gsi1, owner-*), `TEAM#<team>` (gsi2, team-*),
   * `MONITOR#<monitor>` and `WEBHOOK#<webhook>` (gsi3), `HEARTBEAT#<n>` and `SHIFTSTART#<n>` (heartbeat-due).
   */
  readonly indexLeadingKeys?: readonly string[];
  /**
   * On the paging path (a failing check to an on-call person's e-mail): given reserved concurrency
   * on AWS when the deployer asks for it (`-c pagingConcurrency=N`), so no flood elsewhere starves a page.
   */
  readonly paging?: boolean;
}

/** Each index's partition-key prefixes (shared/platform/db/keys.ts's builders): what `indexLeadingKeys` may name. */
export const indexPartitionPrefixes = {
  gsi1: ['OWNER#'],
  gsi2: ['TEAM#'],
  gsi3: ['MONITOR#', 'WEBHOOK#'],
  'heartbeat-due': ['HEARTBEAT#', 'SHIFTSTART#'],
  'owner-severity': ['OWNER#'],
  'owner-status': ['OWNER#'],
  'owner-open': ['OWNER#'],
  'owner-acknowledged': ['OWNER#'],
  'team-severity': ['TEAM#'],
  'team-status': ['TEAM#'],
  'team-open': ['TEAM#'],
  'team-acknowledged': ['TEAM#'],
} as const satisfies Record<GlobalIndexName, readonly string[]>;

/** The DynamoDB actions a description grants (on the table, and on its indexes unless `leadingKeys` confines it). */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  /** Only for functions that delete whole collections (`batchWrite`). */
  batchWrite: ['dynamodb:BatchWriteItem'],
} as const;

export function grantedTableActions(description: Pick<FunctionDescription, 'table' | 'batchWrite'>): string[] {
  if (description.table === 'none') return [];
  return [
    ...tableActions.read,
    ...(description.table === 'readwrite' ? tableActions.write : []),
    ...(description.batchWrite ? tableActions.batchWrite : []),
  ];
}

export interface StreamFilter {
  readonly eventNames: readonly ('INSERT' | 'MODIFY' | 'REMOVE')[];
  /** Values of the new image's `type` attribute. */
  readonly itemTypes: readonly string[];
}

export interface RouteDescription extends FunctionDescription {
  readonly method: HttpMethod;
  /** API Gateway route path, with `{param}` placeholders. */
  readonly path: string;
  /** `jwt` (the default): the JWT authorizer guards it. `none`: public (unsubscribe links, alerts in). */
  readonly auth: 'jwt' | 'none';
  /**
   * A public route's own throttling on AWS: `links` (the default: links in e-mails, a person's pace) or
   * `alerts` (monitoring tools' events, higher; each key's rate is also held in the table).
   */
  readonly throttle?: 'links' | 'alerts';
}

// Marked free of side effects so a function's bundle, which imports this module for its table and
// environment names, leaves the route table out (esbuild drops unused calls only when told so).
/* @__NO_SIDE_EFFECTS__ */
const route = (
  name: string,
  method: HttpMethod,
  path: string,
  handler: string,
  tableAccess: TableAccess,
  options: Partial<Pick<RouteDescription, 'auth' | 'leadingKeys' | 'indexes' | 'indexLeadingKeys' | 'batchWrite' | 'throttle' | 'paging' | 'timeoutSeconds' | 'capabilities'>> = {},
): RouteDescription => ({ name, method, path, handler, table: tableAccess, auth: 'jwt', ...options });

/** The HTTP API. Every `/api` route is protected by the JWT authorizer. */
export const routes: readonly RouteDescription[] = [
  // Lists: the caller's own and their teams' index partitions; the table for memberships, monitors, teams.
  route('incidents-list', 'GET', '/api/incidents', 'functions/incidents/list.ts', 'read', {
    leadingKeys: ['MONITOR#', 'TEAM#'],
    indexes: /* @__PURE__ */ table.globalIndexes.map((index) => index.name),
    indexLeadingKeys: ['OWNER#', 'TEAM#', 'MONITOR#'],
  }),
  route('incidents-get', 'GET', '/api/incidents/{id}', 'functions/incidents/get.ts', 'read', { leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#'] }),
  route('incidents-create', 'POST', '/api/incidents', 'functions/incidents/create.ts', 'readwrite', { leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#', 'USER#', 'OUTBOX#', 'IDEMPOTENCY#', 'QUOTA#'] }),
  route('incidents-update', 'PUT', '/api/incidents/{id}', 'functions/incidents/update.ts', 'readwrite', { leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#', 'USER#', 'OUTBOX#'] }),
  route(
    'incidents-acknowledge',
    'POST',
    '/api/incidents/{id}/acknowledge',
    'functions/incidents/acknowledge.ts',
    'readwrite',
    { leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#', 'USER#', 'OUTBOX#'] },
  ),
  route('incidents-resolve', 'DELETE', '/api/incidents/{id}', 'functions/incidents/resolve.ts', 'readwrite', { leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#', 'USER#', 'OUTBOX#'] }),
  // Escalate now: the acknowledger's right, then the next step's "now" schedule (as an SMS reply `<n>e`).
  route('incidents-escalate', 'POST', '/api/incidents/{id}/escalate', 'functions/incidents/escalate.ts', 'read', {
    leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#'],
    capabilities: ['manage-schedules'],
  }),
  route('incidents-updates-list', 'GET', '/api/incidents/{id}/updates', 'functions/incidents/list-updates.ts', 'read', { leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#'] }),
  route('incidents-updates-create', 'POST', '/api/incidents/{id}/updates', 'functions/incidents/post-update.ts', 'readwrite', { leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#', 'USER#', 'OUTBOX#', 'IDEMPOTENCY#'] }),
  // Reports (issue 45 §4): one Query per scope over the range of start times (owner, team, monitor indexes);
  // the monitor and the caller's teams for rights. Up to API Gateway's 30 s: a year of 10,000 incidents.
  route('reports-incidents', 'GET', '/api/reports/incidents', 'functions/reports/incidents.ts', 'read', {
    leadingKeys: ['MONITOR#', 'TEAM#'],
    indexes: ['gsi1', 'gsi2', 'gsi3'],
    indexLeadingKeys: ['OWNER#', 'TEAM#', 'MONITOR#'],
    timeoutSeconds: 29,
  }),
  // Public: the acknowledge link of an escalation e-mail. Opening it only reads; its page's button acknowledges.
  route('acknowledge-link-open', 'GET', '/acknowledge/{token}', 'functions/incidents/acknowledge-link-open.ts', 'read', { auth: 'none', leadingKeys: ['ACKLINK#', 'INCIDENT#', 'EMAIL#'] }),
  route('acknowledge-link-confirm', 'POST', '/acknowledge/{token}', 'functions/incidents/acknowledge-link-confirm.ts', 'readwrite', { auth: 'none', leadingKeys: ['ACKLINK#', 'INCIDENT#', 'EMAIL#', 'USER#', 'OUTBOX#'] }),

  // MONITOR#: the heartbeat items of the page's heartbeat monitors (their `last_ping_at`).
  route('monitors-list', 'GET', '/api/monitors', 'functions/monitors/list.ts', 'read', { leadingKeys: ['TEAM#', 'MONITOR#'], indexes: ['gsi1', 'gsi2'], indexLeadingKeys: ['OWNER#', 'TEAM#'] }),
  route('monitors-get', 'GET', '/api/monitors/{id}', 'functions/monitors/get.ts', 'read', { leadingKeys: ['MONITOR#', 'TEAM#'] }),
  route('monitors-create', 'POST', '/api/monitors', 'functions/monitors/create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'MONITOR#', 'TEAM#', 'POLICY#', 'IDEMPOTENCY#'] }),
  // Turning a heartbeat off, or deleting its monitor, resolves an open missed-heartbeat incident in
  // the same transaction (the incident, its timeline, the outbox).
  route('monitors-update', 'PUT', '/api/monitors/{id}', 'functions/monitors/update.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'MONITOR#', 'TEAM#', 'POLICY#', 'OUTBOX#', 'INCIDENT#'] }),
  route('monitors-delete', 'DELETE', '/api/monitors/{id}', 'functions/monitors/delete.ts', 'readwrite', { batchWrite: true, leadingKeys: ['AUDIT#', 'MONITOR#', 'TEAM#', 'POLICY#', 'UNSUB#', 'INTEGRATIONKEY#', 'INCIDENT#', 'OUTBOX#'] }),

  route('teams-list', 'GET', '/api/teams', 'functions/teams/list.ts', 'read', { leadingKeys: ['TEAM#'], indexes: ['gsi1'], indexLeadingKeys: ['OWNER#'] }),
  route('teams-create', 'POST', '/api/teams', 'functions/teams/create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'TEAM#', 'SLUG#', 'USER#', 'IDEMPOTENCY#'] }),
  route('teams-get', 'GET', '/api/teams/{id}', 'functions/teams/get.ts', 'read', { leadingKeys: ['TEAM#'] }),
  route('teams-update', 'PUT', '/api/teams/{id}', 'functions/teams/update.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'TEAM#', 'USER#'] }),
  route('teams-delete', 'DELETE', '/api/teams/{id}', 'functions/teams/delete.ts', 'readwrite', { batchWrite: true, leadingKeys: ['AUDIT#', 'TEAM#', 'SLUG#', 'INVITETOKEN#', 'MONITOR#', 'POLICY#', 'SCHEDULE#', 'OUTBOX#', 'USER#'] }),
  route('teams-invite', 'POST', '/api/teams/{id}/invite', 'functions/teams/invite.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'TEAM#', 'INVITETOKEN#', 'EMAIL#', 'OUTBOX#', 'IDEMPOTENCY#', 'QUOTA#', 'USER#'] }),
  route('teams-invite-cancel', 'DELETE', '/api/teams/{id}/invite/{inviteId}', 'functions/teams/cancel-invite.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'TEAM#', 'INVITETOKEN#', 'USER#'] }),
  route(
    'teams-invite-accept',
    'POST',
    '/api/teams/invites/{token}/accept',
    'functions/teams/accept-invite.ts',
    'readwrite',
    { leadingKeys: ['AUDIT#', 'TEAM#', 'INVITETOKEN#', 'EMAIL#', 'USER#'] },
  ),
  // WEBHOOK#, MONITOR#, gsi1/gsi2: what the removed member created for the team (their webhooks disabled, their integrations named).
  route('teams-member-remove', 'DELETE', '/api/teams/{id}/members/{memberId}', 'functions/teams/remove-member.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'TEAM#', 'WEBHOOK#', 'MONITOR#', 'USER#'], indexes: ['gsi1', 'gsi2'], indexLeadingKeys: ['OWNER#', 'TEAM#'] }),
  // The audit log (issue 45 §5): a team's partition of entries (and the caller's role), the caller's partition of the owner index.
  route('audit-team', 'GET', '/api/teams/{id}/audit', 'functions/audit/team.ts', 'read', { leadingKeys: ['TEAM#', 'AUDIT#'] }),
  route('audit-me', 'GET', '/api/me/audit', 'functions/audit/me.ts', 'read', { leadingKeys: ['AUDIT#'], indexes: ['gsi1'], indexLeadingKeys: ['OWNER#'] }),
  route('teams-member-update', 'PUT', '/api/teams/{id}/members/{memberId}', 'functions/teams/update-member.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'TEAM#', 'USER#'] }),

  route('policies-list', 'GET', '/api/escalation-policies', 'functions/escalation-policies/list.ts', 'read', { leadingKeys: ['TEAM#'], indexes: ['gsi1', 'gsi2'], indexLeadingKeys: ['OWNER#', 'TEAM#'] }),
  route('policies-create', 'POST', '/api/escalation-policies', 'functions/escalation-policies/create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'POLICY#', 'TEAM#', 'SCHEDULE#', 'USER#'], indexes: ['gsi1'], indexLeadingKeys: ['OWNER#'] }),
  route('policies-get', 'GET', '/api/escalation-policies/{id}', 'functions/escalation-policies/get.ts', 'read', { leadingKeys: ['POLICY#', 'TEAM#'] }),
  route('policies-update', 'PUT', '/api/escalation-policies/{id}', 'functions/escalation-policies/update.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'POLICY#', 'TEAM#', 'SCHEDULE#', 'USER#'], indexes: ['gsi1'], indexLeadingKeys: ['OWNER#'] }),
  route('policies-delete', 'DELETE', '/api/escalation-policies/{id}', 'functions/escalation-policies/delete.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'POLICY#', 'TEAM#', 'SCHEDULE#'] }),

  // On-call schedules: the schedule's collection (overrides, the policies targeting it), accounts and memberships (who may be named, who is on call).
  route('schedules-list', 'GET', '/api/schedules', 'functions/schedules/list.ts', 'read', { leadingKeys: ['TEAM#'], indexes: ['gsi1', 'gsi2'], indexLeadingKeys: ['OWNER#', 'TEAM#'] }),
  route('schedules-create', 'POST', '/api/schedules', 'functions/schedules/create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'SCHEDULE#', 'TEAM#', 'USER#'], indexes: ['gsi1'], indexLeadingKeys: ['OWNER#'] }),
  route('schedules-get', 'GET', '/api/schedules/{id}', 'functions/schedules/get.ts', 'read', { leadingKeys: ['SCHEDULE#', 'TEAM#'] }),
  route('schedules-update', 'PUT', '/api/schedules/{id}', 'functions/schedules/update.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'SCHEDULE#', 'TEAM#', 'USER#'], indexes: ['gsi1'], indexLeadingKeys: ['OWNER#'] }),
  route('schedules-delete', 'DELETE', '/api/schedules/{id}', 'functions/schedules/delete.ts', 'readwrite', { batchWrite: true, leadingKeys: ['AUDIT#', 'SCHEDULE#', 'TEAM#'] }),
  route('schedules-overrides-create', 'POST', '/api/schedules/{id}/overrides', 'functions/schedules/override-create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'SCHEDULE#', 'TEAM#', 'USER#'], indexes: ['gsi1'], indexLeadingKeys: ['OWNER#'] }),
  route('schedules-overrides-list', 'GET', '/api/schedules/{id}/overrides', 'functions/schedules/override-list.ts', 'read', { leadingKeys: ['SCHEDULE#', 'TEAM#'] }),
  route(
    'schedules-overrides-delete',
    'DELETE',
    '/api/schedules/{id}/overrides/{overrideId}',
    'functions/schedules/override-delete.ts',
    'readwrite',
    { leadingKeys: ['AUDIT#', 'SCHEDULE#', 'TEAM#'] },
  ),
  route('schedules-on-call', 'GET', '/api/schedules/{id}/on-call', 'functions/schedules/on-call.ts', 'read', { leadingKeys: ['SCHEDULE#', 'TEAM#', 'USER#'] }),
  route('schedules-shifts', 'GET', '/api/schedules/{id}/shifts', 'functions/schedules/shifts.ts', 'read', { leadingKeys: ['SCHEDULE#', 'TEAM#', 'USER#'] }),

  // Calendars: a fresh secret URL (the account and its token lookups); the public feed reads the token, the
  // account, the user's schedules (owner and team indexes, memberships) and each one's overrides and people.
  route('calendars-token', 'POST', '/api/me/calendar-token', 'functions/schedules/calendar-token.ts', 'readwrite', { leadingKeys: ['USER#', 'CALTOKEN#'] }),
  route('calendars-feed', 'GET', '/calendars/{file}', 'functions/schedules/calendar.ts', 'read', {
    auth: 'none',
    leadingKeys: ['CALTOKEN#', 'USER#', 'TEAM#', 'SCHEDULE#'],
    indexes: ['gsi1', 'gsi2'],
    indexLeadingKeys: ['OWNER#', 'TEAM#'],
  }),

  // A person's own contact methods and notification rules (issue 43 §2, §3): their item collection (with the
  // account); a method's code event; an SMS or voice method's number lookup.
  route('contact-methods-list', 'GET', '/api/me/contact-methods', 'functions/contacts/list.ts', 'read', { leadingKeys: ['USER#'] }),
  route('contact-methods-create', 'POST', '/api/me/contact-methods', 'functions/contacts/create.ts', 'readwrite', { leadingKeys: ['USER#', 'PHONE#', 'OUTBOX#'] }),
  route('contact-methods-update', 'PUT', '/api/me/contact-methods/{id}', 'functions/contacts/update.ts', 'readwrite', { leadingKeys: ['USER#'] }),
  route('contact-methods-delete', 'DELETE', '/api/me/contact-methods/{id}', 'functions/contacts/delete.ts', 'readwrite', { leadingKeys: ['USER#', 'PHONE#'] }),
  route('contact-methods-verify', 'POST', '/api/me/contact-methods/{id}/verify', 'functions/contacts/verify.ts', 'readwrite', { leadingKeys: ['USER#'] }),
  route('contact-methods-send-code', 'POST', '/api/me/contact-methods/{id}/send-code', 'functions/contacts/send-code.ts', 'readwrite', { leadingKeys: ['USER#', 'OUTBOX#'] }),
  route('notification-rules-list', 'GET', '/api/me/notification-rules', 'functions/contacts/rules-list.ts', 'read', { leadingKeys: ['USER#'] }),
  route('notification-rules-create', 'POST', '/api/me/notification-rules', 'functions/contacts/rules-create.ts', 'readwrite', { leadingKeys: ['USER#'] }),
  route('notification-rules-delete', 'DELETE', '/api/me/notification-rules/{id}', 'functions/contacts/rules-delete.ts', 'readwrite', { leadingKeys: ['USER#'] }),

  route('subscribers-list', 'GET', '/api/monitors/{id}/subscribers', 'functions/subscribers/list.ts', 'read', { leadingKeys: ['MONITOR#', 'TEAM#'] }),
  route('subscribers-create', 'POST', '/api/monitors/{id}/subscribers', 'functions/subscribers/create.ts', 'readwrite', { leadingKeys: ['MONITOR#', 'TEAM#', 'OUTBOX#', 'QUOTA#'] }),
  route(
    'subscribers-delete',
    'DELETE',
    '/api/monitors/{id}/subscribers/{subscriberId}',
    'functions/subscribers/delete.ts',
    'readwrite',
    { leadingKeys: ['MONITOR#', 'TEAM#', 'UNSUB#'] },
  ),
  // Issue 45 §1: maintenance windows (the monitor's, and its team's: MONITOR#, TEAM#; the ending's event: OUTBOX#; the change's audit entry: AUDIT#).
  route('maintenance-windows-list', 'GET', '/api/monitors/{id}/maintenance-windows', 'functions/maintenance-windows/list.ts', 'read', { leadingKeys: ['MONITOR#', 'TEAM#'] }),
  route('maintenance-windows-create', 'POST', '/api/monitors/{id}/maintenance-windows', 'functions/maintenance-windows/create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'MONITOR#', 'TEAM#', 'IDEMPOTENCY#'] }),
  route(
    'maintenance-windows-delete',
    'DELETE',
    '/api/monitors/{id}/maintenance-windows/{windowId}',
    'functions/maintenance-windows/delete.ts',
    'readwrite',
    { leadingKeys: ['AUDIT#', 'MONITOR#', 'TEAM#', 'OUTBOX#'] },
  ),
  route('team-maintenance-windows-create', 'POST', '/api/teams/{id}/maintenance-windows', 'functions/maintenance-windows/team-create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'TEAM#', 'IDEMPOTENCY#'] }),
  route('integrations-list', 'GET', '/api/monitors/{id}/integrations', 'functions/integrations/list.ts', 'read', { leadingKeys: ['MONITOR#', 'TEAM#', 'INTEGRATIONKEY#'] }),
  route('integrations-create', 'POST', '/api/monitors/{id}/integrations', 'functions/integrations/create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'MONITOR#', 'TEAM#', 'INTEGRATIONKEY#'] }),
  route(
    'integrations-delete',
    'DELETE',
    '/api/monitors/{id}/integrations/{integrationId}',
    'functions/integrations/delete.ts',
    'readwrite',
    { leadingKeys: ['AUDIT#', 'MONITOR#', 'TEAM#', 'INTEGRATIONKEY#'] },
  ),
  // Public: alerts in from monitoring tools. The integration key in the body (Events API v2) or in
  // `Authorization` (webhooks) authenticates; each may touch its key's lookup, the key's monitor
  // (its dedup items), the incidents it opens or changes, their policy, the people a step due at once
  // pages (their accounts and team memberships: `paging/open.ts`) and the outbox.
  // On the paging path: an alert pages as a failed check does.
  route('alerts-enqueue', 'POST', '/v2/enqueue', 'functions/alerts/enqueue.ts', 'readwrite', {
    auth: 'none',
    throttle: 'alerts',
    paging: true,
    leadingKeys: ['INTEGRATIONKEY#', 'MONITOR#', 'INCIDENT#', 'POLICY#', 'OUTBOX#', 'USER#', 'TEAM#'],
  }),
  // Takes a notification's alerts (issue 41 §3): admits the key, writes them as alert batches (BatchWriteItem).
  route('alerts-alertmanager', 'POST', '/integrations/alertmanager', 'functions/alerts/alertmanager.ts', 'readwrite', {
    auth: 'none',
    throttle: 'alerts',
    paging: true,
    batchWrite: true,
    leadingKeys: ['INTEGRATIONKEY#', 'ALERTBATCH#'],
  }),
  // Outgoing webhooks: a monitor's, a team's, or the caller's own. Reads reach the monitor and team for rights.
  route('webhooks-list', 'GET', '/api/webhooks', 'functions/webhooks/list.ts', 'read', { leadingKeys: ['TEAM#'], indexes: ['gsi1', 'gsi2'], indexLeadingKeys: ['OWNER#', 'TEAM#'] }),
  route('webhooks-create', 'POST', '/api/webhooks', 'functions/webhooks/create.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'WEBHOOK#', 'MONITOR#', 'TEAM#', 'IDEMPOTENCY#'] }),
  route('webhooks-get', 'GET', '/api/webhooks/{id}', 'functions/webhooks/get.ts', 'read', { leadingKeys: ['WEBHOOK#', 'MONITOR#', 'TEAM#'] }),
  route('webhooks-update', 'PUT', '/api/webhooks/{id}', 'functions/webhooks/update.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'WEBHOOK#', 'MONITOR#', 'TEAM#'] }),
  route('webhooks-delete', 'DELETE', '/api/webhooks/{id}', 'functions/webhooks/delete.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'WEBHOOK#', 'MONITOR#', 'TEAM#'] }),
  route('webhooks-deliveries', 'GET', '/api/webhooks/{id}/deliveries', 'functions/webhooks/deliveries.ts', 'read', { leadingKeys: ['WEBHOOK#', 'MONITOR#', 'TEAM#'], indexes: ['gsi3'], indexLeadingKeys: ['WEBHOOK#'] }),
  // Sending now: the 10 s request limit and the writes around it.
  route('webhooks-redeliver', 'POST', '/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', 'functions/webhooks/redeliver.ts', 'readwrite', { leadingKeys: ['WEBHOOK#', 'MONITOR#', 'TEAM#', 'OUTBOX#'], timeoutSeconds: 20 }),
  route('webhooks-test', 'POST', '/api/webhooks/{id}/test', 'functions/webhooks/test.ts', 'readwrite', { leadingKeys: ['WEBHOOK#', 'MONITOR#', 'TEAM#', 'OUTBOX#'], timeoutSeconds: 20 }),
  route('webhooks-rotate-secret', 'POST', '/api/webhooks/{id}/rotate-secret', 'functions/webhooks/rotate-secret.ts', 'readwrite', { leadingKeys: ['AUDIT#', 'WEBHOOK#', 'MONITOR#', 'TEAM#'] }),

  // Public: a heartbeat ping (issue 30 §4). The integration key in the path authenticates (the URL
  // is a secret); it reads the key's lookup and writes the monitor's heartbeat; a ping after a miss
  // resolves the "missed its heartbeat" incident (the incident, its monitor, the outbox).
  route('heartbeats-ping', 'POST', '/heartbeats/{key}', 'functions/heartbeats/ping.ts', 'readwrite', {
    auth: 'none',
    throttle: 'alerts',
    leadingKeys: ['INTEGRATIONKEY#', 'MONITOR#', 'INCIDENT#', 'OUTBOX#'],
  }),
  // Public: the unsubscribe link of a subscriber's e-mail. Opening it reads its token only; its page's
  // button may touch only unsubscribe tokens and the subscriptions in monitors' collections.
  route('unsubscribe', 'GET', '/unsubscribe/{token}', 'functions/subscribers/unsubscribe.ts', 'read', { auth: 'none', leadingKeys: ['UNSUB#'] }),
  route('unsubscribe-confirm', 'POST', '/unsubscribe/{token}', 'functions/subscribers/unsubscribe-confirm.ts', 'readwrite', { auth: 'none', leadingKeys: ['UNSUB#', 'MONITOR#'] }),
  // Public: the confirmation link of a new subscription (double opt-in). Opening it reads the link only;
  // its page's button may touch only confirmation links and the subscriptions in monitors' collections.
  route('subscription-confirm-open', 'GET', '/confirm/{token}', 'functions/subscribers/confirm-open.ts', 'read', { auth: 'none', leadingKeys: ['SUBCONFIRM#'] }),
  route('subscription-confirm', 'POST', '/confirm/{token}', 'functions/subscribers/confirm.ts', 'readwrite', { auth: 'none', leadingKeys: ['SUBCONFIRM#', 'MONITOR#'] }),
  // Public: the "stop paging this address" link of a page to an outside address (issue 41). Opening it
  // reads the link only; its page's button may write only the address's suppression for the account.
  route('stop-paging-open', 'GET', '/stop-paging/{token}', 'functions/escalation/stop-paging-open.ts', 'read', { auth: 'none', throttle: 'links', leadingKeys: ['PAGESTOPLINK#'] }),
  route('stop-paging-confirm', 'POST', '/stop-paging/{token}', 'functions/escalation/stop-paging-confirm.ts', 'readwrite', { auth: 'none', throttle: 'links', leadingKeys: ['PAGESTOPLINK#', 'PAGESTOP#'] }),
];

/**
 * The HTTP API's CORS configuration for the origins it is given (the console's): what API Gateway
 * answers a preflight with and adds to the answers to an allowed origin. The CDK stack configures
 * API Gateway with it; the local gateway answers the same way (`infra/local/aws/cors.ts`).
 */
export const cors = {
  /** The request headers a browser may send: the bearer token, JSON bodies, safe retries of creating POSTs. */
  allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
  /** Browsers may read the request id (support) and the next page's link. */
  exposeHeaders: ['x-request-id', 'link'],
  allowMethods: ['GET', 'POST', 'PUT', 'DELETE'] satisfies readonly HttpMethod[],
  maxAgeSeconds: 3600,
} as const;

/**
 * The web console's hosting, declared once: the local host (`infra/local/aws/console-host.ts`) and
 * CloudFront's response headers policy (`infra/cdk/console.ts`) answer with these headers. Every page
 * runs under a strict Content-Security-Policy: no inline script or style, scripts and styles from the
 * console's own origin only, and calls only to the API and the sign-in's origin.
 */
export const consoleHosting = {
  /** The runtime settings' file beside the build: written by the deployment (the local host serves them), never built in. */
  configFile: 'config.json',
  /** The path the sign-in redirects back to with its code (the app client's callback URL). */
  callbackPath: '/callback',
  /** The Content-Security-Policy of every page, calling `connectOrigins` (the API's, the sign-in's). */
  contentSecurityPolicy: (connectOrigins: readonly string[]) =>
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "font-src 'self'",
      "manifest-src 'self'",
      `connect-src 'self' ${connectOrigins.join(' ')}`,
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  /** The other security headers of every answer. */
  securityHeaders: {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  },
  /** Content-hashed files are kept a year; the page and the settings are asked for again every time. */
  immutableAssets: 'public, max-age=31536000, immutable',
  revalidate: 'no-cache',
} as const;

/** The console's runtime settings (`config.json`): where the API answers and how to sign in (OIDC code + PKCE). */
export interface ConsoleConfig {
  /** The API's origin, as `https://abc.execute-api.eu-west-1.amazonaws.com` (no trailing slash). */
  apiUrl: string;
  auth: {
    clientId: string;
    authorizeUrl: string;
    tokenUrl: string;
    /** Cognito's sign-out (`?client_id&logout_uri`), which ends the provider's session too. */
    logoutUrl: string;
    scopes: string;
  };
}

/**
 * The notifier's timeout (it sends at SES's pace). A constant of its own, which its delivery leases
 * read (shared/notifications/delivery.ts): reading it through `workers` would bundle the whole
 * description of the workers into the notifier.
 */
export const NOTIFIER_TIMEOUT_SECONDS = 300;
/**
 * The timeouts of the other workers that deliver at least once (their handlers pass them to
 * `deliverAtLeastOnce` as its pending lease, shared/notifications/delivery.ts), constants of their own
 * for the same reason.
 */
export const PERSON_NOTIFICATION_TIMEOUT_SECONDS = 120;
export const SHIFT_NOTICES_TIMEOUT_SECONDS = 120;

/** Functions that are not behind the HTTP API. */
export const workers = {
  /**
   * Applies the alerts of webhook notifications (issue 41 §3) from the table's stream, one alert batch
   * (at most ALERT_BATCH_SIZE alerts) an invocation, with the stream mapping's retries and on-failure queue.
   */
  alertProcessor: {
    name: 'alert-processor',
    paging: true,
    handler: 'functions/alerts/process.ts',
    table: 'readwrite',
    stream: { eventNames: ['INSERT'], itemTypes: ['alert_batch'] },
    timeoutSeconds: 120,
    // ALERTBATCH#: the rest of a batch it had no time for, handed on as a batch of its own (issue 46 §4).
    leadingKeys: ['INTEGRATIONKEY#', 'MONITOR#', 'INCIDENT#', 'POLICY#', 'OUTBOX#', 'USER#', 'TEAM#', 'ALERTBATCH#'],
  },
  /** Invoked directly by the monitoring system with a check result. */
  monitorCheck: {
    name: 'monitor-check',
    paging: true,
    handler: 'functions/monitors/check.ts',
    table: 'readwrite',
    leadingKeys: ['MONITOR#', 'INCIDENT#', 'POLICY#', 'OUTBOX#', 'USER#', 'TEAM#'],
  },
  /** Reads the table's stream and publishes outbox records to the event bus. */
  publisher: {
    name: 'outbox-publisher',
    paging: true,
    handler: 'functions/events/publisher.ts',
    table: 'none',
    capabilities: ['publish-events'],
    stream: { eventNames: ['INSERT'], itemTypes: ['outbox'] },
  },
  /**
   * Turns events into e-mails (subscribers, invitees, escalation targets). Sends at SES's pace
   * (about 14 a second by default), so it may take minutes for a large status page.
   */
  notifier: {
    name: 'notifier',
    paging: true,
    handler: 'functions/notifier/handler.ts',
    table: 'readwrite',
    capabilities: ['send-email'],
    timeoutSeconds: NOTIFIER_TIMEOUT_SECONDS,
    // Pages to outside addresses: stop links and suppressions, the sending account's quotas, the
    // `page_withheld` timeline entry (issue 41). The event says who are people: no account is read
    // (people are paged by person-notification, issue 43).
    leadingKeys: ['MONITOR#', 'DELIVERY#', 'ACKLINK#', 'SUBCONFIRM#', 'UNSUB#', 'USER#', 'PAGESTOPLINK#', 'PAGESTOP#', 'QUOTA#', 'INCIDENT#'],
  },
  /**
   * Creates one one-time schedule per escalation step of a new automatic incident (pages due steps at
   * once), and one per delayed notification rule of a page's people (issue 43).
   */
  escalationScheduler: {
    name: 'escalation-scheduler',
    paging: true,
    handler: 'functions/escalation/schedule.ts',
    table: 'readwrite',
    capabilities: ['manage-schedules'],
    // A due step's targets are resolved at its page: on-call schedules, accounts, team memberships.
    // MONITOR#, TEAM#: maintenance (issue 45 §1): the windows' summaries, held markers.
    leadingKeys: ['INCIDENT#', 'OUTBOX#', 'SCHEDULE#', 'USER#', 'TEAM#', 'MONITOR#'],
  },
  /**
   * Every minute (`periodicRules`): opens a "missed its heartbeat" incident for each armed heartbeat
   * whose deadline has passed (the heartbeat-due index), as a failed check opens one. Works until 10 s
   * of its minute are left (issue 46 §4), eight misses at once; what is still due is the next run's.
   */
  heartbeatSweep: {
    name: 'heartbeat-sweep',
    paging: true,
    handler: 'functions/heartbeats/sweep.ts',
    table: 'readwrite',
    timeoutSeconds: 60,
    leadingKeys: ['MONITOR#', 'INCIDENT#', 'POLICY#', 'OUTBOX#', 'USER#', 'TEAM#'],
    indexes: ['heartbeat-due'],
    indexLeadingKeys: ['HEARTBEAT#'],
  },
  /**
   * Every minute (`periodicRules`): tells each person whose shift has started, through their
   * low-urgency notification rules (issue 45 §3), the schedules due found in the due index; renders
   * each one's shifts (its collection, accounts, team memberships) and sends through the person's
   * contact methods (delivery records, phone throttles).
   */
  shiftNotices: {
    name: 'shift-notices',
    handler: 'functions/schedules/shift-notices.ts',
    table: 'readwrite',
    capabilities: ['send-email', 'send-sms-voice'],
    timeoutSeconds: SHIFT_NOTICES_TIMEOUT_SECONDS,
    leadingKeys: ['SCHEDULE#', 'TEAM#', 'USER#', 'DELIVERY#', 'THROTTLE#'],
    indexes: ['heartbeat-due'],
    indexLeadingKeys: ['SHIFTSTART#'],
  },
  /** Cognito post-confirmation trigger: creates the account record of a new user (AWS only). */
  accountsPostConfirmation: {
    name: 'accounts-post-confirmation',
    handler: 'functions/accounts/post-confirmation.ts',
    table: 'readwrite',
    leadingKeys: ['USER#', 'EMAIL#'],
  },
  /** Moves a monitor's incidents and webhooks to the team the monitor was moved to (team index entries). */
  incidentRescoper: {
    name: 'incident-rescoper',
    handler: 'functions/monitors/rescope.ts',
    table: 'readwrite',
    leadingKeys: ['INCIDENT#', 'MONITOR#', 'TEAM#', 'WEBHOOK#'],
    indexes: ['gsi3'],
    indexLeadingKeys: ['MONITOR#'],
  },
  /** Target of the schedules: pages a step unless the incident was acknowledged or resolved. */
  escalationStep: {
    name: 'escalation-step',
    paging: true,
    handler: 'functions/escalation/step.ts',
    table: 'readwrite',
    // Issue 45 §1: a release still covered by maintenance schedules itself again, at the new end.
    capabilities: ['manage-schedules'],
    leadingKeys: ['INCIDENT#', 'OUTBOX#', 'SCHEDULE#', 'USER#', 'TEAM#', 'MONITOR#'],
  },
  /**
   * Pages people by their notification rules (issue 43 §3), apart from the notifier (so no status
   * page's e-mails delay them): a page's rules due at once (a target of `incident.escalation_step`), and
   * each delayed rule at its time (the target of its one-time schedule), unless the incident was
   * acknowledged or resolved meanwhile. E-mail, SMS and calls; no Scheduler client (its
   * `person.notifications_delayed` event asks the escalation scheduler for the schedules).
   */
  personNotification: {
    name: 'person-notification',
    paging: true,
    handler: 'functions/paging/notify-person.ts',
    table: 'readwrite',
    capabilities: ['send-email', 'send-sms-voice'],
    timeoutSeconds: PERSON_NOTIFICATION_TIMEOUT_SECONDS,
    leadingKeys: ['INCIDENT#', 'USER#', 'DELIVERY#', 'ACKLINK#', 'REPLYCODE#', 'MESSAGE#', 'OUTBOX#', 'THROTTLE#'],
  },
  /**
   * SES bounce and complaint events: suppresses the subscriber who bounced or complained (their
   * record, in the monitor's collection); logs and counts a bounced escalation target or invitee.
   */
  emailFeedback: {
    name: 'email-feedback',
    handler: 'functions/notifier/feedback.ts',
    table: 'readwrite',
    leadingKeys: ['MONITOR#'],
  },
  /**
   * Outgoing webhooks: incident events become messages (retry state in the webhook's collection),
   * sent in order per (webhook, incident); retries are one-time schedules invoking it again. Not on
   * the paging path, and apart from the notifier: a slow receiver never delays an e-mail.
   */
  webhookDelivery: {
    name: 'webhook-delivery',
    handler: 'functions/webhooks/deliver.ts',
    table: 'readwrite',
    capabilities: ['manage-schedules'],
    // Up to 20 requests of 10 s each per pair and invocation (a drain stops 15 s before the end).
    timeoutSeconds: 120,
    // TEAM#: the creator's membership, read and checked before each message.
    leadingKeys: ['WEBHOOK#', 'MONITOR#', 'INCIDENT#', 'OUTBOX#', 'TEAM#'],
    indexes: ['gsi1', 'gsi2', 'gsi3'],
    indexLeadingKeys: ['OWNER#', 'TEAM#', 'MONITOR#'],
  },
  /**
   * SMS replies to the service's number (issue 43): AWS End User Messaging publishes them to the
   * number's two-way SNS topic, which invokes this. Acts as the person who holds the reply code
   * (acknowledge, resolve: the incident, its monitor and team; escalate: a schedule of the next step, due now), turns a
   * number's SMS methods off (STOP) and on (START), and answers by SMS.
   */
  smsInbound: {
    name: 'sms-inbound',
    handler: 'functions/phones/inbound.ts',
    table: 'readwrite',
    // Escalating now is a one-time schedule of the step, due at once (escalation-step pages it).
    capabilities: ['send-sms-voice', 'manage-schedules'],
    leadingKeys: ['PHONE#', 'USER#', 'INCIDENT#', 'MONITOR#', 'TEAM#', 'OUTBOX#'],
  },
  /**
   * Delivery receipts of SMS and calls (issue 43): the configuration set's SNS event destination
   * invokes this; a final event marks its notification's timeline entry delivered or failed.
   */
  smsReceipts: {
    name: 'sms-receipts',
    handler: 'functions/phones/receipts.ts',
    table: 'readwrite',
    leadingKeys: ['MESSAGE#', 'INCIDENT#'],
  },
} as const satisfies Record<string, FunctionDescription>;

export type WorkerName = (typeof workers)[keyof typeof workers]['name'];

/** The custom event bus and the source of every event the service publishes. */
export const eventBus = { name: 'incident-service', source: 'incident-service' } as const;

/** What SES publishes about the e-mails sent through the service's configuration set. */
export const sesEvents = {
  /** SES publishes to the account's default bus only. */
  bus: 'default',
  source: 'aws.ses',
  bounced: 'Email Bounced',
  complained: 'Email Complaint Received',
} as const;

export interface EventRule {
  readonly name: string;
  /** `service` (the default): the service's own bus and source; `ses`: SES's events on the default bus. */
  readonly from?: 'service' | 'ses';
  readonly detailTypes: readonly string[];
  readonly target: WorkerName;
}

/** Which events go where: the local bus and the CDK rules are both built from this. */
// (Built in a function call marked pure: the rules read the workers' names, property reads esbuild
// must keep, so as a plain array they would bundle the whole description into every function that
// imports anything from here; unused, the call goes, and the description with it.)
export const eventRules: readonly EventRule[] = /* @__PURE__ */ (() => [
  {
    name: 'notify',
    detailTypes: [
      'incident.created',
      'incident.escalation_restarted',
      'incident.status_changed',
      'incident.resolved',
      'incident.note_added',
      'incident.escalation_step',
      'team.invite_created',
      'subscriber.confirmation_requested',
      'webhook.disabled',
    ],
    target: workers.notifier.name,
  },
  { name: 'reach-people', detailTypes: ['incident.escalation_step', 'contact_method.verification_requested'], target: workers.personNotification.name },
  { name: 'schedule-escalation', detailTypes: ['incident.created', 'incident.escalation_restarted', 'incident.acknowledged', 'maintenance_window.ended', 'person.notifications_delayed', 'person.messages_held'], target: workers.escalationScheduler.name },
  {
    name: 'deliver-webhooks',
    detailTypes: ['incident.created', 'incident.updated', 'incident.acknowledged', 'incident.resolved', 'incident.note_added', 'incident.escalation_step'],
    target: workers.webhookDelivery.name,
  },
  { name: 'rescope-incidents', detailTypes: ['monitor.team_changed'], target: workers.incidentRescoper.name },
  { name: 'email-feedback', from: 'ses', detailTypes: [sesEvents.bounced, sesEvents.complained], target: workers.emailFeedback.name },
])();

export interface PeriodicRule {
  readonly name: string;
  /** Minutes between two invocations (EventBridge `rate(n minutes)`; the local runtime's timer). */
  readonly everyMinutes: number;
  readonly target: WorkerName;
}

/** Work run on a timer: CDK makes an EventBridge rule of each, the local runtime a timer on the service clock. */
export const periodicRules: readonly PeriodicRule[] = /* @__PURE__ */ (() => [
  { name: 'heartbeat-sweep', everyMinutes: 1, target: workers.heartbeatSweep.name },
  { name: 'shift-notices', everyMinutes: 1, target: workers.shiftNotices.name },
])();

/** Environment variables the functions read (set by the CDK stack and by the local runtime). */
export const env = {
  tableName: 'TABLE_NAME',
  eventBusName: 'EVENT_BUS_NAME',
  senderEmail: 'SENDER_EMAIL',
  /** The Cognito pre-sign-up trigger's allowed e-mail domains, comma-separated (`allowedSignUpDomains`). */
  allowedSignUpDomains: 'ALLOWED_SIGN_UP_DOMAINS',
  /** The SES configuration set every e-mail is sent with (its bounce and complaint events come back). */
  sesConfigurationSet: 'SES_CONFIGURATION_SET',
  /** Base URL of the API, for links in e-mails (unsubscribe, acknowledge, confirming a subscription, accepting an invite). */
  publicApiUrl: 'PUBLIC_API_URL',
  /**
   * The web console's origin (issue 44), for the incident links of Slack messages and e-mails
   * (`<origin>/incidents/<id>`): locally the runtime's console origin; on AWS the `consoleUrl` context.
   * Empty: deployed without a console (the stack says so at synth), the links are the JSON API's.
   */
  consoleUrl: 'CONSOLE_URL',
  schedulerGroup: 'SCHEDULER_GROUP_NAME',
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
  escalationStepArn: 'ESCALATION_STEP_FUNCTION_ARN',
  /** Where a schedule's event goes when the escalation-step target keeps failing. */
  escalationDlqArn: 'ESCALATION_DLQ_ARN',
  /** Target of a person's delayed notification rule's one-time schedule (the person-notification worker). */
  personNotificationArn: 'PERSON_NOTIFICATION_FUNCTION_ARN',
  /** Where such a schedule's event goes when the person-notification target keeps failing. */
  personNotificationDlqArn: 'PERSON_NOTIFICATION_DLQ_ARN',
  /**
   * End User Messaging SMS and Voice v2 (issue 43): the origination identity (a phone number, or a
   * pool's ARN or id) SMS and voice are sent from. Absent or empty: SMS and voice are not set up on
   * this deployment (their contact methods are refused; e-mail keeps working).
   */
  smsOriginationIdentity: 'SMS_ORIGINATION_IDENTITY',
  /** The configuration set every SMS and call is sent with (its event destination feeds delivery receipts). */
  smsConfigurationSet: 'SMS_CONFIGURATION_SET',
  /** The most one SMS may cost (USD per message part, e.g. "0.10"): `MaxPrice` on every send. */
  smsMaxPrice: 'SMS_MAX_PRICE',
  /** The most a call may cost per minute (USD, e.g. "0.10"): `MaxPricePerMinute` on every call. */
  voiceMaxPricePerMinute: 'VOICE_MAX_PRICE_PER_MINUTE',
  /** Where a webhook retry's schedule goes when invoking webhook-delivery keeps failing (its on-failure queue). */
  webhookRetryDlqArn: 'WEBHOOK_RETRY_DLQ_ARN',
  /** The webhook retry queue's URL (`queues.webhookRetries`): retries and continuations due within 15 minutes (issue 46 §5). */
  webhookRetryQueueUrl: 'WEBHOOK_RETRY_QUEUE_URL',
  /**
   * Only in the local runtime: the ports of this machine webhooks may also target (comma-separated,
   * those its user named in LOCAL_WEBHOOK_PORTS). The deployed stack never sets it: no loopback there.
   */
  webhooksLoopbackPorts: 'WEBHOOKS_LOOPBACK_PORTS',
} as const;

/**
 * SQS's longest message delay (`DelaySeconds`): work due within it goes through a queue, to the second;
 * later work through EventBridge Scheduler (to the minute, issue 46 §5).
 */
export const MAX_QUEUE_DELAY_SECONDS = 900;

export interface QueueDescription {
  readonly name: string;
  /** The worker an event source mapping hands each message to (one message an invocation). */
  readonly consumer: WorkerName;
  /** The only functions granted sqs:SendMessage on it. */
  readonly producers: readonly WorkerName[];
  /** The environment variable its producers read its URL from (`env`). */
  readonly urlEnv: string;
  /** How long a message handed to the consumer stays invisible: at least the consumer's timeout (AWS's advice: six times). */
  readonly visibilityTimeoutSeconds: number;
  /** Receives of a message before it goes to the queue's alarmed dead-letter queue. */
  readonly maxReceiveCount: number;
}

/**
 * Queues with per-message delays (SQS on AWS, `infra/local/aws/queue.ts` locally on the service clock),
 * each consumed by one worker through an event source mapping, with a dead-letter queue and its alarm.
 */
export const queues = /* @__PURE__ */ (() => ({
  /** Webhook retries and continuations due within 15 minutes: `{webhook_id, incident_id}`, sent on at the second. */
  webhookRetries: {
    name: 'webhook-retries',
    consumer: workers.webhookDelivery.name,
    producers: [workers.webhookDelivery.name],
    urlEnv: env.webhookRetryQueueUrl,
    visibilityTimeoutSeconds: 6 * workers.webhookDelivery.timeoutSeconds,
    maxReceiveCount: 5,
  },
}) satisfies Record<string, QueueDescription>)();

/** Environment variable through which every function learns the table name. */
export const TABLE_NAME_ENV = env.tableName;

/** Defaults every function shares (the CDK function construct and the local runtime read these). */
export const functionDefaults = {
  timeoutSeconds: 10,
  memoryMb: 512,
} as const;

/** Every function of the system: the API routes and the workers. */
// (`concat`, marked pure, rather than spreads, which esbuild must keep: see `route`.)
export const allFunctions: readonly FunctionDescription[] = /* @__PURE__ */ (routes as readonly FunctionDescription[]).concat(
  /* @__PURE__ */ Object.values(workers) as FunctionDescription[],
);

/** The escalation schedules' group (EventBridge Scheduler). */
export const scheduleGroup = 'incident-service-escalation';
