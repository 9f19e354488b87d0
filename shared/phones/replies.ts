/**
 * SMS replies to the service's number (the two-way channel, through SNS): a person acts on the
 * incident a page named by its short code, or manages their SMS pages.
 *   `<n>a` acknowledge (method `sms`, as that person, by the page's right, as an e-mailed link does),
 *   `<n>r` resolve (with the person's rights on the incident, as through the API), `<n>e` escalate to
 *   the next step now — case and spaces ignored (` 12 A ` is `12a`);
 *   STOP and the carriers' synonyms: that number's SMS methods are disabled, on every account;
 *   START / UNSTOP: enabled again; HELP: the commands.
 * Anything else, or a number no account has: the help text, and nothing changes. Every answer goes
 * back by SMS through the same channel pages use.
 */
import type { Caller } from '../platform/caller.js';
import { tableName } from '../platform/db/client.js';
import { keys } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';
import { BadRequestError, NotFoundError } from '../platform/errors.js';
import { countMetric } from '../platform/observability/metrics.js';
import { smsChannel } from '../channels/sms.js';
import { isE164 } from '../channels/phone.js';
import { acknowledgeAsPaged, resolveIncident } from '../incidents/service.js';
import { incidentForReplyCode } from '../incidents/reply-codes.js';
import { escalateNow } from '../paging/escalate-now.js';
import { holdersOf, setSmsDisabled, type NumberHolder } from './numbers.js';
import type { TwoWayMessage } from './payloads.js';

/** Opt-out words: AWS's list (ARRET, CANCEL, END, OPT-OUT, OPTOUT, QUIT, REMOVE, STOP, TD, UNSUBSCRIBE) and the CTIA's STOPALL. */
export const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT-OUT', 'REMOVE', 'ARRET', 'TD']);
/** Opt-in words (US carriers: START and UNSTOP). */
export const START_WORDS = new Set(['START', 'UNSTOP']);
export const HELP_WORDS = new Set(['HELP', 'INFO']);

export const replyTexts = {
  help: 'Incident pages: reply 12a to acknowledge, 12r to resolve, 12e to escalate (12: the number in the page). STOP ends SMS pages, START resumes.',
  stopped: 'SMS pages to this number are off. Reply START to turn them back on.',
  started: 'SMS pages to this number are on again. Reply STOP to end them.',
  acknowledged: (code: number) => `[${code}] acknowledged.`,
  resolved: (code: number) => `[${code}] resolved.`,
  escalating: (code: number, step: number) => `[${code}] escalating to step ${step} now.`,
  noMoreSteps: (code: number) => `[${code}] has no further escalation step.`,
  alreadyAcknowledged: (code: number) => `[${code}] is already acknowledged.`,
  closed: (code: number) => `[${code}] is already acknowledged or resolved.`,
  noIncident: (code: number) => `No open incident ${code} for this number. Reply HELP for the commands.`,
  notAllowed: (code: number) => `You may no longer change incident ${code}.`,
  ambiguous: (code: number) => `${code} names incidents of more than one account on this number: use the link in the page's e-mail.`,
} as const;

export type ReplyAction = 'acknowledge' | 'resolve' | 'escalate';
export type Command = { kind: 'stop' | 'start' | 'help' } | { kind: 'action'; code: number; action: ReplyAction } | { kind: 'unknown' };

const ACTIONS: Record<string, ReplyAction> = { a: 'acknowledge', r: 'resolve', e: 'escalate' };

/** What a message asks, case and spaces ignored. */
export function parseCommand(body: string): Command {
  const compact = body.replace(/\s+/g, '').toUpperCase();
  if (STOP_WORDS.has(compact)) return { kind: 'stop' };
  if (START_WORDS.has(compact)) return { kind: 'start' };
  if (HELP_WORDS.has(compact)) return { kind: 'help' };
  const action = /^([1-9]\d{0,2})([ARE])$/.exec(compact);
  if (action) return { kind: 'action', code: Number(action[1]), action: ACTIONS[action[2]!.toLowerCase()]! };
  return { kind: 'unknown' };
}

export type ReplyOutcome =
  | 'help'
  | 'unknown_number'
  | 'stopped'
  | 'started'
  | 'acknowledged'
  | 'resolved'
  | 'escalating'
  | 'no_more_steps'
  | 'already_closed'
  | 'no_incident'
  | 'ambiguous'
  | 'not_allowed';

/** Handles one inbound SMS; the answer sent back (undefined: SMS is not set up here, nothing was sent). */
export async function handleReply(message: TwoWayMessage): Promise<{ outcome: ReplyOutcome; reply: string }> {
  const from = message.originationNumber;
  const command = parseCommand(message.messageBody);
  const holders = isE164(from) ? await holdersOf(from) : [];
  const { outcome, reply } = holders.length === 0 ? { outcome: 'unknown_number' as const, reply: replyTexts.help } : await answer(from, command, holders);
  countMetric('SmsReply', { outcome });
  if (isE164(from) && smsChannel.available()) await smsChannel.send({ to: from, text: reply, tags: { kind: 'sms_reply' } });
  return { outcome, reply };
}

async function answer(from: string, command: Command, holders: NumberHolder[]): Promise<{ outcome: ReplyOutcome; reply: string }> {
  switch (command.kind) {
    case 'stop':
      await setSmsDisabled(from, holders, true);
      return { outcome: 'stopped', reply: replyTexts.stopped };
    case 'start':
      await setSmsDisabled(from, holders, false);
      return { outcome: 'started', reply: replyTexts.started };
    case 'help':
    case 'unknown':
      return { outcome: 'help', reply: replyTexts.help };
    case 'action':
      return act(command.code, command.action, holders);
  }
}

/**
 * The person is whoever on this number holds the code for an open incident: the accounts with a
 * verified SMS or voice method on it (a voice page says to reply by text). Two accounts sharing the
 * number and both holding the code: nothing is done (which one meant it cannot be known).
 */
async function act(code: number, action: ReplyAction, holders: NumberHolder[]): Promise<{ outcome: ReplyOutcome; reply: string }> {
  const people = [...new Set(holders.filter((holder) => holder.verified).map((holder) => holder.user_id))];
  const named = (await Promise.all(people.map(async (userId) => ({ userId, incidentId: await incidentForReplyCode(userId, code) })))).filter(
    (candidate): candidate is { userId: string; incidentId: string } => candidate.incidentId !== undefined,
  );
  if (named.length === 0) return { outcome: 'no_incident', reply: replyTexts.noIncident(code) };
  if (named.length > 1) return { outcome: 'ambiguous', reply: replyTexts.ambiguous(code) };
  const { userId, incidentId } = named[0]!;
  const caller: Caller = { userId };
  try {
    if (action === 'acknowledge') {
      // The page is the right to acknowledge (as the e-mailed link's token is): the person's code still
      // naming the incident, checked in the acknowledgement's own transaction.
      const proof: TransactItem = {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.replyCode(userId, code),
          ConditionExpression: 'incident_id = :incident',
          ExpressionAttributeValues: { ':incident': incidentId },
        },
      };
      const acknowledged = await acknowledgeAsPaged(userId, incidentId, 'sms', proof);
      if (acknowledged === 'acknowledged') return { outcome: 'acknowledged', reply: replyTexts.acknowledged(code) };
      if (acknowledged === 'already_acknowledged') return { outcome: 'already_closed', reply: replyTexts.alreadyAcknowledged(code) };
      if (acknowledged === 'resolved') return { outcome: 'already_closed', reply: replyTexts.closed(code) };
      return { outcome: 'no_incident', reply: replyTexts.noIncident(code) };
    }
    if (action === 'resolve') {
      await resolveIncident(caller, incidentId);
      return { outcome: 'resolved', reply: replyTexts.resolved(code) };
    }
    const escalated = await escalateNow(incidentId);
    if (escalated.outcome === 'escalating') return { outcome: 'escalating', reply: replyTexts.escalating(code, escalated.step_order) };
    if (escalated.outcome === 'no_more_steps') return { outcome: 'no_more_steps', reply: replyTexts.noMoreSteps(code) };
    if (escalated.outcome === 'closed') return { outcome: 'already_closed', reply: replyTexts.closed(code) };
    return { outcome: 'no_incident', reply: replyTexts.noIncident(code) };
  } catch (error) {
    if (error instanceof BadRequestError && /already acknowledged/i.test(error.message)) return { outcome: 'already_closed', reply: replyTexts.alreadyAcknowledged(code) };
    if (error instanceof NotFoundError) return { outcome: 'not_allowed', reply: replyTexts.notAllowed(code) };
    throw error;
  }
}
