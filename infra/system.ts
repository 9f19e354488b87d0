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
  ],
  timeToLiveAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
} as const satisfies TableDescription;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a function may do to the table: exactly this is granted on AWS. */
export type TableAccess = 'read' | 'readwrite';

export interface RouteDescription {
  /** Stable function name (also the Lambda's logical id). */
  readonly name: string;
  readonly method: HttpMethod;
  /** API Gateway route path, with `{param}` placeholders. */
  readonly path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly table: TableAccess;
}

const route = (
  name: string,
  method: HttpMethod,
  path: string,
  handler: string,
  tableAccess: TableAccess,
): RouteDescription => ({ name, method, path, handler, table: tableAccess });

/** Every route is protected by the JWT authorizer. */
export const routes: readonly RouteDescription[] = [
  route('incidents-list', 'GET', '/api/incidents', 'functions/incidents/list.ts', 'read'),
  route('incidents-get', 'GET', '/api/incidents/{id}', 'functions/incidents/get.ts', 'read'),
  route('incidents-create', 'POST', '/api/incidents', 'functions/incidents/create.ts', 'readwrite'),
  route('incidents-update', 'PUT', '/api/incidents/{id}', 'functions/incidents/update.ts', 'readwrite'),
  route(
    'incidents-acknowledge',
    'POST',
    '/api/incidents/{id}/acknowledge',
    'functions/incidents/acknowledge.ts',
    'readwrite',
  ),
  route('incidents-resolve', 'DELETE', '/api/incidents/{id}', 'functions/incidents/resolve.ts', 'readwrite'),

  route('monitors-list', 'GET', '/api/monitors', 'functions/monitors/list.ts', 'read'),
  route('monitors-get', 'GET', '/api/monitors/{id}', 'functions/monitors/get.ts', 'read'),
  route('monitors-create', 'POST', '/api/monitors', 'functions/monitors/create.ts', 'readwrite'),
  route('monitors-update', 'PUT', '/api/monitors/{id}', 'functions/monitors/update.ts', 'readwrite'),
  route('monitors-delete', 'DELETE', '/api/monitors/{id}', 'functions/monitors/delete.ts', 'readwrite'),

  route('teams-list', 'GET', '/api/teams', 'functions/teams/list.ts', 'read'),
  route('teams-create', 'POST', '/api/teams', 'functions/teams/create.ts', 'readwrite'),
  route('teams-get', 'GET', '/api/teams/{id}', 'functions/teams/get.ts', 'read'),
  route('teams-update', 'PUT', '/api/teams/{id}', 'functions/teams/update.ts', 'readwrite'),
  route('teams-delete', 'DELETE', '/api/teams/{id}', 'functions/teams/delete.ts', 'readwrite'),
  route('teams-invite', 'POST', '/api/teams/{id}/invite', 'functions/teams/invite.ts', 'readwrite'),
  route('teams-invite-cancel', 'DELETE', '/api/teams/{id}/invite/{inviteId}', 'functions/teams/cancel-invite.ts', 'readwrite'),
  route(
    'teams-invite-accept',
    'POST',
    '/api/teams/invites/{token}/accept',
    'functions/teams/accept-invite.ts',
    'readwrite',
  ),
  route('teams-member-remove', 'DELETE', '/api/teams/{id}/members/{memberId}', 'functions/teams/remove-member.ts', 'readwrite'),
  route('teams-member-update', 'PUT', '/api/teams/{id}/members/{memberId}', 'functions/teams/update-member.ts', 'readwrite'),
];

/** Environment variable through which every function learns the table name. */
export const TABLE_NAME_ENV = 'TABLE_NAME';

/** Defaults every function shares (the CDK function construct and the local runtime read these). */
export const functionDefaults = {
  timeoutSeconds: 10,
  memoryMb: 512,
} as const;
