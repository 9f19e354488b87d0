/**
 * Each user's on-call shifts as an iCalendar feed (RFC 5545) that calendar apps subscribe to (issue 31 §4):
 * `GET /calendars/<token>.ics`, public, the token a secret of the user's (`POST /api/me/calendar-token` gives
 * a fresh one and retires the previous). The feed holds their final shifts (as `/shifts` renders them) in
 * every schedule they can see and every schedule of another's that names them, from 7 days back to 90 days
 * ahead, as UTC `VEVENT`s whose `UID` is stable for a shift (its schedule, start and person, never the
 * window), so an app updates rather than duplicates them.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { env } from '../system.js';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { requireEnv } from '../platform/config.js';
import { db, tableName } from '../platform/db/client.js';
import { itemPresent, keys, ownerIndex, teamIndex } from '../platform/db/keys.js';
import { batchGet, queryIndex, transactOutcome, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { NotFoundError } from '../platform/errors.js';
import { LINK_TOKEN_PATTERN, linkTokenHash } from '../platform/emailed-link.js';
import { readScopes } from '../teams/access.js';
import { scheduleItem, type Schedule } from './model.js';
import { onCallAt, renderShifts, ON_CALL_HORIZON_DAYS } from './render.js';
import { renderingOf } from './service.js';

const DAY_MS = 86_400_000;
export const CALENDAR_DAYS_BACK = 7;
export const CALENDAR_DAYS_AHEAD = 90;

const calendarNotFound = () => new NotFoundError('Calendar not found');

/** A fresh secret calendar URL for the caller; the previous one stops working in the same write. */
export async function newCalendarToken(caller: Caller) {
  const token = randomBytes(32).toString('base64url');
  const hash = linkTokenHash(token);
  return retryOnConflict(async () => {
    const { Item: account } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.account(caller.userId), ConsistentRead: true }));
    // Every signed-in user has an account (written at sign-up, before any token).
    if (!account) throw new Error(`No account ${caller.userId} for a signed-in caller`);
    const previous = typeof account.calendar_token_hash === 'string' ? account.calendar_token_hash : undefined;
    const items: (readonly ['changed', TransactItem])[] = [
      [
        'changed',
        {
          Update: {
            TableName: tableName(),
            Key: keys.account(caller.userId),
            UpdateExpression: 'SET calendar_token_hash = :hash',
            ConditionExpression: `${itemPresent} AND ${previous ? 'calendar_token_hash = :previous' : 'attribute_not_exists(calendar_token_hash)'}`,
            ExpressionAttributeValues: { ':hash': hash, ...(previous ? { ':previous': previous } : {}) },
          },
        },
      ],
      ['changed', { Put: { TableName: tableName(), Item: { ...keys.calendarToken(hash), type: 'calendar_token', user_id: caller.userId } } }],
      ...(previous ? [['changed', { Delete: { TableName: tableName(), Key: keys.calendarToken(previous) } }] as const] : []),
    ];
    if ((await transactOutcome(items)).outcome === 'ok') {
      return { url: `${requireEnv(env.publicApiUrl).replace(/\/$/, '')}/calendars/${token}.ics` };
    }
    return undefined;
  }, (attempts) => `Account ${caller.userId} kept changing its calendar token; gave up after ${attempts} attempts`);
}

/** The feed of `file` (`<token>.ics`): `404 Calendar not found` for anything but a current token. */
export async function calendarFeed(file: string): Promise<string> {
  const token = file.endsWith('.ics') ? file.slice(0, -'.ics'.length) : '';
  if (!LINK_TOKEN_PATTERN.test(token)) throw calendarNotFound();
  const hash = linkTokenHash(token);
  const { Item: lookup } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.calendarToken(hash), ConsistentRead: true }));
  if (typeof lookup?.user_id !== 'string') throw calendarNotFound();
  const userId = lookup.user_id;
  const { Item: account } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.account(userId), ConsistentRead: true }));
  // A retired token whose lookup was left behind by a failure is dead too: the account names the current one.
  if (!account || account.calendar_token_hash !== hash) throw calendarNotFound();

  const now = clock.now().getTime();
  const from = new Date(now - CALENDAR_DAYS_BACK * DAY_MS).toISOString();
  const to = new Date(now + CALENDAR_DAYS_AHEAD * DAY_MS).toISOString();
  const scopes = await readScopes(
    userId,
    () => queryIndex(ownerIndex, ownerIndex.partition(userId), ownerIndex.schedulePrefix),
    (teamId) => queryIndex(teamIndex, teamIndex.partition(teamId), teamIndex.schedulePrefix),
  );
  const schedules = new Map<string, Schedule>();
  for (const item of [...(scopes.own ?? []), ...scopes.teams.flatMap(({ teamId, items }) => items.filter((entry) => entry.team_id === teamId))]) {
    const schedule = scheduleItem.parse(item) as Schedule;
    schedules.set(schedule.id, schedule);
  }
  // Schedules of others, of their owner alone, that name the user (`schedule_ids`, kept by their writes): one
  // BatchGetItem. One that was deleted, or has since moved to a team the user is not in, shows nothing of theirs.
  const named = account.schedule_ids instanceof Set ? [...(account.schedule_ids as Set<string>)].filter((id) => !schedules.has(id)) : [];
  for (const item of named.length ? await batchGet(named.map((id) => keys.schedule(id))) : []) {
    const schedule = scheduleItem.parse(item) as Schedule;
    if (!schedule.team_id) schedules.set(schedule.id, schedule);
  }
  // Overrides from 90 days before the window too, so a shift running at its start is found whole (its UID is its start).
  const lookBack = new Date(Date.parse(from) - ON_CALL_HORIZON_DAYS * DAY_MS - 1).toISOString();
  const events = await Promise.all(
    [...schedules.values()].map(async (schedule) => {
      const { rules, overrides } = await renderingOf(schedule, lookBack, to);
      return renderShifts(rules, overrides, from, to)
        .filter((shift) => shift.user_id === userId)
        .map((shift) => {
          if (shift.start !== from) return { schedule, shift, uid: shiftUid(schedule.id, shift.start, userId) };
          // Cut by the window: its real start, up to 90 days earlier; an older one is the user's ongoing shift there.
          const [running] = onCallAt(rules, overrides, from);
          const whole = running?.user_id === userId && running.from ? { ...shift, start: running.from, source: running.source, layer: running.layer ?? undefined } : undefined;
          return whole ? { schedule, shift: whole, uid: shiftUid(schedule.id, whole.start, userId) } : { schedule, shift, uid: `${schedule.id}-ongoing-${userId}@incident-service` };
        });
    }),
  );
  const stamp = icsTime(new Date(now).toISOString());
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//incident-service//on-call schedules//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${text(`On call: ${String(account.name)}`)}`,
    ...events.flat().flatMap(({ schedule, shift, uid }) => [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      `DTSTAMP:${stamp}`,
      `DTSTART:${icsTime(shift.start)}`,
      `DTEND:${icsTime(shift.end)}`,
      `SUMMARY:${text(`On call: ${schedule.name}${shift.source === 'layer' ? ` (${shift.layer})` : ' (override)'}`)}`,
      'TRANSP:TRANSPARENT',
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
  ];
  return lines.map(fold).join('\r\n') + '\r\n';
}

/**
 * A shift's UID: its schedule, its start and its person — never the feed's window, so a calendar that fetches
 * the feed again later updates the same events (a shift whose end moves keeps its UID; one that starts at
 * another time, or is someone else's, is another event).
 */
const shiftUid = (scheduleId: string, start: string, userId: string) => `${scheduleId}-${icsTime(start)}-${userId}@incident-service`;

/** `20261102T080000Z` (RFC 5545 UTC date-time). */
const icsTime = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** TEXT value escaping (RFC 5545 §3.3.11). */
const text = (value: string) => value.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** Lines longer than 75 octets are folded (RFC 5545 §3.1): CRLF and a space, never inside a character. */
function fold(line: string): string {
  const parts: string[] = [];
  let current = '';
  for (const char of line) {
    const limit = parts.length === 0 ? 75 : 74;
    if (Buffer.byteLength(current + char) > limit) {
      parts.push(current);
      current = '';
    }
    current += char;
  }
  parts.push(current);
  return parts.join('\r\n ');
}
