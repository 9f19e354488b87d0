/**
 * Shift notices (issue 45 §3): a person whose shift starts is told so ("You are on call for Platform
 * from Mon 09:00 until Mon 09:00 next week (Europe/Berlin)") through their low-urgency notification
 * rules, at its start, once per shift — a shift that begins with an override included.
 *
 * The `shift-notices` sweep runs every minute (a periodic rule of the system description). It Queries
 * the due index for the schedules whose next shift has started (`../schedules/notices.ts`: one Query
 * per shard, whatever the number of schedules), and for each one renders its shifts from its cursor
 * (the instant up to which notices are decided) to now and a month on: it tells each shift that started
 * after the cursor and still runs, then moves the cursor to now and the item to the next start. A change
 * to the schedule makes it due at once, so the next run plans it anew; a shift that had already started
 * when a change moved it lies before the cursor and is told nothing.
 *
 * Exactly once per shift: each message's delivery record is keyed by the schedule, the person, the
 * shift's start and the contact method (`deliverAtLeastOnce`'s conditional claim), so a second run, an
 * overlapping one, or a run after a failure (the cursor moves only when every notice of the schedule
 * went out) finds it sent. Through the send seam every page uses: only verified, enabled methods whose
 * channel is set up (`usable`), SMS and calls within the method's throttle (a notice past it is not
 * sent on that method), a STOPped number disabled.
 */
import { clock } from '../platform/clock.js';
import { settleEach } from '../platform/concurrency.js';
import { countMetric } from '../platform/observability/metrics.js';
import { channelFor, type OutgoingMessage } from '../channels/index.js';
import { contactsOf } from '../contacts/repository.js';
import type { ContactMethod } from '../contacts/model.js';
import { usable } from '../paging/notify-person.js';
import { getSchedule } from '../schedules/repository.js';
import { renderingOf } from '../schedules/service.js';
import type { Schedule } from '../schedules/model.js';
import {
  advanceNotices,
  dropNotices,
  dueNotices,
  NOTICE_CATCH_UP_MS,
  NOTICE_LOOKAHEAD_DAYS,
  plan,
  SHIFT_NOTICE_SHARDS,
  shiftWhen,
  type DueNotices,
  type StartedShift,
} from '../schedules/notices.js';
import { deliverAtLeastOnce, type AtLeastOnceOptions, type AtLeastOnceOutcome } from './delivery.js';
import { shiftNoticeEmail } from './emails.js';
import { shiftNoticeSentence, shiftNoticeSms, shiftNoticeVoice } from './texts.js';
import { noticeGate, throttled } from './throttle.js';

const DAY_MS = 86_400_000;
/** Schedules handled at once by a run. */
const SCHEDULE_CONCURRENCY = 4;

export interface SweepResult {
  schedules: number;
  notices: number;
}

/** The sweep: every schedule whose next shift has started, shard by shard. Failures are thrown at the end (those schedules stay due: the next run tries again). */
export async function sweepShiftNotices(options: AtLeastOnceOptions): Promise<SweepResult> {
  const nowMs = clock.now().getTime();
  const result: SweepResult = { schedules: 0, notices: 0 };
  const failures: unknown[] = [];
  for (const shard of SHIFT_NOTICE_SHARDS) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dueNotices(shard, nowMs, start);
      const outcomes = await settleEach(page.items, SCHEDULE_CONCURRENCY, (due) => noticeSchedule(due, nowMs, options));
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') failures.push(outcome.reason);
        else (result.schedules += 1), (result.notices += outcome.value);
      }
      start = page.next;
    } while (start);
  }
  if (failures.length > 0) throw new AggregateError(failures, `Shift notices: ${failures.length} schedules failed; they are tried again by the next run`);
  return result;
}

/** One due schedule: its shifts started since the cursor told, then the cursor and the next start moved. Answers the messages sent. */
async function noticeSchedule(due: DueNotices, nowMs: number, options: AtLeastOnceOptions): Promise<number> {
  const schedule = await getSchedule(due.schedule_id);
  if (!schedule) {
    await dropNotices(due.schedule_id);
    return 0;
  }
  // After an outage, a day back at most: older starts are no news any more.
  const cursorMs = Math.max(Date.parse(due.cursor), nowMs - NOTICE_CATCH_UP_MS);
  const { rules, overrides, people } = await renderingOf(schedule, new Date(cursorMs).toISOString(), new Date(nowMs + NOTICE_LOOKAHEAD_DAYS * DAY_MS).toISOString());
  const { started, nextStartMs } = plan(rules, overrides, cursorMs, nowMs);
  let sent = 0;
  for (const shift of started) {
    const person = people.get(shift.user_id);
    if (person) sent += await noticePerson(schedule, shift, { user_id: shift.user_id, email: person.email }, options);
  }
  // Every notice went out (a failure threw): notices are decided up to now.
  await advanceNotices(due, new Date(nowMs).toISOString(), nextStartMs);
  return sent;
}

/** The person's low-urgency rules' methods that may be used, each once (two rules on one method send one message). */
async function noticeMethods(person: { user_id: string; email: string }): Promise<ContactMethod[]> {
  const { methods, rules } = await contactsOf(person.user_id, person.email);
  const byId = new Map(methods.map((method) => [method.id, method]));
  const chosen = new Map<string, ContactMethod>();
  for (const rule of rules) {
    const method = byId.get(rule.contact_method_id);
    if (rule.urgency === 'low' && usable(method)) chosen.set(method.id, method);
  }
  return [...chosen.values()];
}

/** The notice of one shift to its person, through each method of their low-urgency rules, at once (a notice waits for no acknowledgement). */
async function noticePerson(schedule: Schedule, shift: StartedShift, person: { user_id: string; email: string }, options: AtLeastOnceOptions): Promise<number> {
  const methods = await noticeMethods(person);
  if (methods.length === 0) return 0;
  const when = shiftWhen(schedule.time_zone, Date.parse(shift.start), shift.end === null ? null : Date.parse(shift.end));
  const sentence = shiftNoticeSentence(schedule.name, when);
  // The shift's identity: schedule, person, start. A second run finds each method's record.
  const noticeId = `SHIFTNOTICE#${schedule.id}#${person.user_id}#${shift.start}`;
  let sent = 0;
  for (const method of methods) {
    const channel = channelFor(method.method_type);
    const tags = { kind: 'shift_notice', schedule: schedule.id };
    const message: OutgoingMessage =
      method.method_type === 'email'
        ? shiftNoticeEmail(method.address, schedule, sentence)
        : { to: method.address, text: method.method_type === 'sms' ? shiftNoticeSms(schedule.name, when) : shiftNoticeVoice(schedule.name, when), tags };
    const gate = throttled(method.method_type) ? noticeGate(method.id, method.method_type, person.user_id) : undefined;
    const outcome: AtLeastOnceOutcome = await deliverAtLeastOnce(noticeId, channel, message, [], { ...options, recipientKey: `method:${method.id}`, ...(gate ? { gate } : {}) });
    if (outcome === 'held') countMetric('ShiftNoticeThrottled', { channel: method.method_type });
    else if (outcome !== 'duplicate') {
      countMetric('ShiftNoticeSent', { channel: method.method_type });
      sent += 1;
    }
  }
  return sent;
}
