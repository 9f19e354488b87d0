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
  { id: 'AuditEntry' },
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
