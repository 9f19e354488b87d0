/** The e-mails the service sends, as plain text and HTML. Pure functions of the event. */
import type { EventDetail, IncidentSnapshot } from '../platform/events/model.js';
import { escapeHtml } from '../platform/html.js';

/** What an e-mail was about, sent along as SES message tags so its bounce or complaint can be traced back. */
export type EmailTags =
  | { kind: 'subscriber'; monitor: string; subscriber: string; incident: string }
  | { kind: 'escalation'; incident: string; step: string }
  | { kind: 'invite'; team: string }
  /** To a webhook's owner: it was disabled. */
  | { kind: 'webhook'; webhook: string }
  /** A subscription's confirmation e-mail: a bounce or complaint suppresses the subscription, as for `subscriber`. */
  | { kind: 'confirmation'; monitor: string; subscriber: string }
  /** A contact method's verification code (issue 43 §2). */
  | { kind: 'verification'; contact_method: string }
  /** A shift notice (issue 45 §3): the schedule whose shift starts. */
  | { kind: 'shift_notice'; schedule: string };

export interface Email {
  to: string;
  subject: string;
  text: string;
  html: string;
  tags: EmailTags;
}

const SEVERITY_MEANING = {
  CRITICAL: 'complete service outage',
  HIGH: 'major functionality impacted',
  MEDIUM: 'partial degradation',
  LOW: 'minor issue, minimal impact',
} as const;

/**
 * A value that goes into a mail header: control characters (CR/LF above all, which would start a
 * new header) and Unicode line separators become a space, and bidirectional controls (which can
 * make a subject display other text than it holds) go. Titles and names are validated on the way
 * in; this also covers what was stored before, and names taken from a token's claims.
 */
export const headerValue = (value: string) => bodyText(value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ')).trim();

/**
 * Bidirectional controls: embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the
 * marks (LRM, RLM, ALM), which can make a line display other text than it holds.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]+/g;

/**
 * A value that goes into an e-mail's body (text and HTML) with its bidirectional controls removed
 * (issue 41, 11): an alert's text reaches a "New incident" e-mail as the incident's message, and what
 * a monitoring tool sends is not validated like what a person types.
 */
export const bodyText = (value: string) => value.replace(BIDI_CONTROLS, '');

/** One e-mail from a heading, labelled facts, paragraphs and an optional footer, in both formats. */
function compose(
  to: string,
  subject: string,
  tags: EmailTags,
  parts: { facts: [string, string][]; paragraphs: string[]; footer?: string; link?: { href: string; label: string }; secondLink?: { href: string; label: string } },
): Email {
  subject = headerValue(subject);
  to = headerValue(to);
  parts = {
    ...parts,
    facts: parts.facts.map(([label, value]) => [label, bodyText(value)]),
    paragraphs: parts.paragraphs.map(bodyText),
    footer: parts.footer === undefined ? undefined : bodyText(parts.footer),
  };
  const text = [
    subject,
    '',
    ...parts.facts.map(([label, value]) => `${label}: ${value}`),
    '',
    ...parts.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(parts.footer ? ['--', parts.footer] : []),
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1f2937">
<h2>${escapeHtml(subject)}</h2>
<table>${parts.facts.map(([label, value]) => `<tr><th align="left" style="padding-right:1em">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>
${parts.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
${parts.link ? `<p><a href="${escapeHtml(parts.link.href)}" style="display:inline-block;padding:.5em 1em;background:#1f2937;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(parts.link.label)}</a></p>` : ''}
${parts.secondLink ? `<p><a href="${escapeHtml(parts.secondLink.href)}">${escapeHtml(parts.secondLink.label)}</a></p>` : ''}
${parts.footer ? `<hr><p style="font-size:small;color:#6b7280">${escapeHtml(parts.footer)}</p>` : ''}
</body></html>`;
  return { to, subject, text, html, tags };
}

/** The facts that name an incident, in e-mails and on the pages of their links. */
export const incidentFacts = (incident: Pick<IncidentSnapshot, 'title' | 'monitor_name' | 'status' | 'severity' | 'started_at' | 'resolved_at'>): [string, string][] => [
  ['Incident', incident.title],
  ['Monitor', incident.monitor_name],
  ['Status', incident.status],
  ['Severity', `${incident.severity} (${SEVERITY_MEANING[incident.severity]})`],
  ['Started', incident.started_at],
  ...(incident.resolved_at ? ([['Resolved', incident.resolved_at]] as [string, string][]) : []),
];

export type SubscriberEventType = 'incident.created' | 'incident.status_changed' | 'incident.resolved' | 'incident.note_added';

const SUBJECT: Record<SubscriberEventType, string> = {
  'incident.created': 'New incident',
  'incident.status_changed': 'Incident update',
  'incident.note_added': 'Incident update',
  'incident.resolved': 'Incident resolved',
};

/** To a status-page subscriber of the monitor: New incident / Incident update / Incident resolved. */
export function subscriberEmail(
  type: SubscriberEventType,
  detail: EventDetail<SubscriberEventType>,
  subscriber: { email: string; id: string },
  unsubscribeUrl: string,
): Email {
  const { incident } = detail;
  const paragraphs: string[] = [];
  if (type === 'incident.created' && incident.message) paragraphs.push(incident.message);
  // The note posted with the update: what a status page says about it.
  if ('note' in detail && detail.note) paragraphs.push(detail.note.message);
  if ('previous_status' in detail) paragraphs.push(`The status changed from ${detail.previous_status} to ${incident.status}.`);
  const tags: EmailTags = { kind: 'subscriber', monitor: incident.monitor_id, subscriber: subscriber.id, incident: incident.id };
  return compose(subscriber.email, `${SUBJECT[type]}: ${incident.title}`, tags, {
    facts: incidentFacts(incident),
    paragraphs,
    footer: `You receive this because you subscribed to ${incident.monitor_name}. Unsubscribe: ${unsubscribeUrl}`,
  });
}

/**
 * To an address just subscribed to a monitor (double opt-in): the one e-mail it gets until it confirms,
 * with the link that confirms (single use, 7 days).
 */
export function confirmationEmail(detail: EventDetail<'subscriber.confirmation_requested'>, confirmUrl: string): Email {
  const { subscription } = detail;
  const tags: EmailTags = { kind: 'confirmation', monitor: subscription.monitor_id, subscriber: subscription.id };
  return compose(subscription.email, `Confirm your subscription to ${subscription.monitor_name}`, tags, {
    facts: [
      ['Monitor', subscription.monitor_name],
      ['Address', subscription.email],
    ],
    paragraphs: [
      `${subscription.email} was subscribed to incident notifications for ${subscription.monitor_name}. Nothing more is sent to it unless you confirm: ${confirmUrl}`,
      'The link works once, for 7 days. If you did not ask for this, ignore this e-mail.',
    ],
    link: { href: confirmUrl, label: 'Confirm the subscription' },
  });
}

/** The text of a contact method's verification code, as e-mail, SMS and voice send it. */
export const verificationText = (code: string) => `Your verification code is ${code}`;

/** A new e-mail contact method's code (issue 43 §2): the code, how long it lives, and that nothing else comes until it is used. */
export function verificationEmail(detail: EventDetail<'contact_method.verification_requested'>): Email {
  const { contact_method: method } = detail;
  return compose(method.address, verificationText(detail.code), { kind: 'verification', contact_method: method.id }, {
    facts: [['Address', method.address]],
    paragraphs: [
      `${verificationText(detail.code)}. Enter it to be notified of pages at ${method.address}; nothing else is sent here until you do.`,
      'The code works for 15 minutes. If you did not ask for this, ignore this e-mail.',
    ],
  });
}

/** To the invitee: team, inviter, role, the token and how to accept, the expiry. */
export function inviteEmail(detail: EventDetail<'team.invite_created'>, apiUrl: string): Email {
  const { invite, invited_by } = detail;
  const acceptUrl = `${apiUrl}/api/teams/invites/${invite.token}/accept`;
  return compose(invite.email, `${invited_by.name} invited you to join ${invite.team_name}`, { kind: 'invite', team: invite.team_id }, {
    facts: [
      ['Team', invite.team_name],
      ['Invited by', invited_by.email ? `${invited_by.name} <${invited_by.email}>` : invited_by.name],
      ['Role', invite.role],
      ['Invite token', invite.token],
      ['Expires', invite.expires_at],
    ],
    paragraphs: [
      `To accept, sign in with ${invite.email} and send POST ${acceptUrl} with your ID token as the bearer token (Authorization: Bearer <ID token>), the token this service's README names.`,
      'You need an account with this e-mail address; sign up first if you have none.',
    ],
  });
}

/** To a webhook's owner (their own account's address): it was disabled, why, and how to enable it again. */
export function webhookDisabledEmail(detail: EventDetail<'webhook.disabled'>, to: string, apiUrl: string): Email {
  const { webhook, reason } = detail;
  return compose(to, `Webhook disabled: ${webhook.description ?? webhook.url}`, { kind: 'webhook', webhook: webhook.id }, {
    facts: [
      ['Webhook', webhook.id],
      ['URL', webhook.url],
      ...(webhook.description ? ([['Description', webhook.description]] as [string, string][]) : []),
      ['Reason', reason],
      ['Disabled at', detail.occurred_at],
    ],
    paragraphs: [
      'No more messages are sent to it. Its deliveries, with each attempt and the response, are listed at ' +
        `GET ${apiUrl}/api/webhooks/${webhook.id}/deliveries.`,
      `Once the receiver works again, enable the webhook with PUT ${apiUrl}/api/webhooks/${webhook.id} (an empty JSON object will do).`,
    ],
  });
}

/**
 * To an escalation target: what is down, which step this is, and the link that acknowledges it
 * (single use, for this recipient, valid 24 hours or until the incident is acknowledged or resolved).
 * To an outside address (no account's own), also the link that stops pages to it (`stopUrl`).
 */
export function escalationEmail(
  detail: { incident: IncidentSnapshot; step: { step_order: number; delay_minutes: number; emails?: string[] } },
  to: string,
  acknowledgeUrl: string,
  stopUrl?: string,
  /** The incident's page in the console (issue 44), for a person with an account. */
  incidentUrl?: string,
): Email {
  const { incident, step } = detail;
  const tags: EmailTags = { kind: 'escalation', incident: incident.id, step: String(step.step_order) };
  return compose(to, `[Escalation step ${step.step_order}] ${incident.title}`, tags, {
    facts: [...incidentFacts(incident), ['Escalation step', `${step.step_order} (after ${step.delay_minutes} min)`]],
    paragraphs: [
      `${incident.monitor_name} has an unacknowledged ${incident.severity} incident.`,
      `Acknowledge it to stop further escalation: ${acknowledgeUrl}`,
      'The link is yours alone and works once, for 24 hours or until the incident is acknowledged or resolved.',
      ...(incidentUrl ? [`View the incident in the console: ${incidentUrl}`] : []),
    ],
    link: { href: acknowledgeUrl, label: 'Acknowledge the incident' },
    ...(incidentUrl ? { secondLink: { href: incidentUrl, label: 'View incident' } } : {}),
    ...(stopUrl
      ? {
          footer: `You receive this because an escalation policy of the account that owns ${incident.monitor_name} names this address. Stop paging this address: ${stopUrl}`,
        }
      : {}),
  });
}

/** A shift notice (issue 45 §3), to a person's low-urgency e-mail method. */
export function shiftNoticeEmail(to: string, schedule: { id: string; name: string; time_zone: string }, sentence: string): Email {
  return compose(to, sentence, { kind: 'shift_notice', schedule: schedule.id }, {
    facts: [
      ['Schedule', schedule.name],
      ['Time zone', schedule.time_zone],
    ],
    paragraphs: ['You get this notice through your low-urgency notification rules; change them to stop it.'],
  });
}
