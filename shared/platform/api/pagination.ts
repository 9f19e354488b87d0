/**
 * Cursor pagination for every list: `limit` (1-100, default 50) and an opaque `cursor`; the
 * response adds `next_cursor` (null on the last page) and a `Link: <…>; rel="next"` header.
 *
 * A cursor carries only a position in the list's order (a sort key) and a check over the
 * position, the endpoint, the caller and the filters. It grants nothing: it is only ever used as
 * a bound in a key condition of the caller's own scopes. The check makes a malformed, tampered or
 * foreign cursor (another caller, endpoint or filters) a `400 Validation errors` on `cursor`.
 */
import { createHash } from 'node:crypto';
import * as z from '../zod.js';
import { ValidationError } from '../errors.js';
import { described } from './common.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** `limit` and `cursor`, to spread into a list's query schema. */
export const pageParams = {
  limit: described(z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(MAX_PAGE_SIZE)), DEFAULT_PAGE_SIZE), {
    description: `Page size, 1-${MAX_PAGE_SIZE}`,
    example: 25,
  }),
  cursor: described(z.optional(z.string().check(z.minLength(1), z.maxLength(1024))), { description: 'The next_cursor of the previous page' }),
};

/** The query of a list with no filters. */
export const pageQuery = z.object(pageParams);

export interface PageRequest {
  limit: number;
  cursor?: string;
}

/** What a cursor is bound to: the list (endpoint), the caller, and the filters in force. */
export interface CursorBinding {
  list: string;
  callerId: string;
  filters?: Record<string, unknown>;
}

const canonical = (binding: CursorBinding) =>
  JSON.stringify([
    binding.list,
    binding.callerId,
    Object.entries(binding.filters ?? {})
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  ]);

const check = (position: string, binding: CursorBinding) =>
  createHash('sha256').update(position).update('\0').update(canonical(binding)).digest('base64url').slice(0, 22);

export function encodeCursor(position: string, binding: CursorBinding): string {
  return Buffer.from(JSON.stringify({ v: 1, p: position, c: check(position, binding) })).toString('base64url');
}

const invalidCursor = () =>
  new ValidationError([{ field: 'cursor', message: 'Invalid cursor: pass the next_cursor of the previous page of this list, with the same filters' }]);

/** Positions are sort keys: printable ASCII, well inside DynamoDB's 1,024-byte key limit. */
const cursorShape = z.strictObject({ v: z.literal(1), p: z.string().check(z.regex(/^[\x20-\x7e]{1,200}$/)), c: z.string() });

/** The position a cursor holds, if it is one this list issued to this caller with these filters. */
export function decodeCursor(cursor: string | undefined, binding: CursorBinding): string | undefined {
  if (cursor === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const result = cursorShape.safeParse(parsed);
  if (!result.success || result.data.c !== check(result.data.p, binding)) throw invalidCursor();
  return result.data.p;
}

/** A page of a list: the items, and where the next page starts (undefined: this is the last). */
export interface Page<T> {
  items: T[];
  next?: string;
}

export interface PageView<T> {
  items: T[];
  next_cursor: string | null;
}

/** The page as a response carries it: `next_cursor` bound to this list, caller and filters. */
export function pageView<I, T>(page: Page<I>, binding: CursorBinding, view: (item: I) => T): PageView<T> {
  return { items: page.items.map(view), next_cursor: page.next === undefined ? null : encodeCursor(page.next, binding) };
}
