/** The audit log's forms and query (issue 45 §5). */
import * as z from '../platform/zod.js';
import { described, Id, NextCursor, Timestamp } from '../platform/api/common.js';
import { pageParams } from '../platform/api/pagination.js';
import { AUDIT_ACTIONS } from './entry.js';

const Instant = described(
  z.pipe(
    z.iso.datetime({ offset: true }),
    z.transform((value) => new Date(value).toISOString()),
  ),
  { example: '2026-11-01T00:00:00Z' },
);

export const AuditEntryBody = described(
  z.strictObject({
    id: Id,
    at: Timestamp,
    actor: z.strictObject({ user_id: z.string(), user_name: z.nullable(z.string()) }),
    action: described(z.enum(AUDIT_ACTIONS), { description: '`<resource type>.created|updated|deleted`, or a specific action' }),
    resource: z.strictObject({
      type: z.enum(['team', 'member', 'invitation', 'monitor', 'integration', 'escalation_policy', 'schedule', 'override', 'webhook', 'maintenance_window']),
      id: z.string(),
      name: z.nullable(z.string()),
    }),
    team_id: z.nullable(Id),
    changes: described(z.record(z.string(), z.strictObject({ from: z.unknown(), to: z.unknown() })), {
      description: 'The fields the change set, from → to (secrets show as "[set]")',
    }),
    request_id: z.nullable(z.string()),
  }),
  {
    id: 'AuditEntry',
    example: {
      id: '0c8a4f2e-7d51-4b3a-9e6f-2a1b3c4d5e6f',
      at: '2026-11-21T10:15:30.000Z',
      actor: { user_id: '5b7d9f1a-3c2e-4d6f-8a0b-1c2d3e4f5a6b', user_name: 'Ada Lovelace' },
      action: 'schedule.updated',
      resource: { type: 'schedule', id: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b', name: 'Primary on-call' },
      team_id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
      changes: { time_zone: { from: 'Europe/Berlin', to: 'UTC' } },
      request_id: 'Xy3kPgJ0oAMEbQw=',
    },
  },
);

export const AuditPage = z.strictObject({ entries: z.array(AuditEntryBody), next_cursor: NextCursor });

/** `from`/`to` bound the entries' time (inclusive); `action` and `resource_id` filter a page's key range. */
export const listAuditQuery = z
  .object({
    from: described(z.optional(Instant), { description: 'Entries at or after this time' }),
    to: described(z.optional(Instant), { description: 'Entries at or before this time' }),
    action: z.optional(z.enum(AUDIT_ACTIONS)),
    resource_id: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
    ...pageParams,
  })
  .check(
    z.refine((query) => !query.from || !query.to || query.from <= query.to, {
      path: ['to'],
      message: 'to must not be before from',
    }),
  );
export type ListAuditQuery = z.output<typeof listAuditQuery>;
