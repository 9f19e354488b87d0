import { describe, expect, it } from 'vitest';
import { escalationEmail, inviteEmail, subscriberEmail } from '../../shared/notifications/emails.js';
import type { EventDetail, IncidentSnapshot } from '../../shared/platform/events/model.js';

const incident: IncidentSnapshot = {
  id: 'i-1',
  monitor_id: 'm-1',
  monitor_name: 'API <prod>',
  owner_id: 'o',
  title: 'Errors & timeouts',
  message: null,
  status: 'RESOLVED',
  severity: 'LOW',
  automatic: true,
  acknowledged: false,
  started_at: '2026-01-01T00:00:00.000Z',
  resolved_at: '2026-01-01T01:00:00.000Z',
  escalation_policy_id: null,
};
const envelope = { version: 1 as const, event_id: 'e', occurred_at: '2026-01-01T01:00:00.000Z' };

describe('e-mails', () => {
  it('drop bidirectional controls that a title stored before they were refused could carry into a subject', () => {
    const spoofed = { ...incident, title: 'Invoice \u202Egnp.exe', monitor_name: 'API \u2067prod\u2069' };
    const email = subscriberEmail('incident.resolved', { ...envelope, incident: spoofed, previous_status: 'MONITORING' }, { email: 's@example.com', id: 's-1' }, 'http://x/unsubscribe/t');
    expect(email.subject).toBe('Incident resolved: Invoice gnp.exe');
    expect(email.subject).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  });

  it('drop bidirectional controls and marks from the body: an alert\'s text in a New incident e-mail (issue 41, 11)', () => {
    const fromAlert = { ...incident, status: 'INVESTIGATING' as const, resolved_at: null, title: 'Disk \u200Ffull', message: 'Pay \u202Egnp.exe\u202C now \u2067x\u2069 \u200E\u061C done', monitor_name: 'DB \u2066eu\u2069' };
    const email = subscriberEmail('incident.created', { ...envelope, incident: fromAlert, escalation: null } as EventDetail<'incident.created'>, { email: 's@example.com', id: 's' }, 'https://x/unsubscribe/t');
    for (const text of [email.subject, email.text, email.html]) expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/);
    expect(email.text).toContain('Pay gnp.exe now x  done');
    expect(email.text).toContain('Incident: Disk full');
    expect(email.text).toContain('Monitor: DB eu');
  });

  it('escape HTML and carry both formats', () => {
    const email = subscriberEmail('incident.resolved', { ...envelope, incident, previous_status: 'MONITORING' }, { email: 's@example.com', id: 's-1' }, 'http://x/unsubscribe/t');
    expect(email.to).toBe('s@example.com');
    // Tagged so that SES's bounce or complaint names the subscription.
    expect(email.tags).toEqual({ kind: 'subscriber', monitor: incident.monitor_id, subscriber: 's-1', incident: 'i-1' });
    expect(email.subject).toBe('Incident resolved: Errors & timeouts');
    expect(email.html).toContain('Errors &#38; timeouts');
    expect(email.html).not.toContain('<prod>');
    expect(email.text).toContain('Monitor: API <prod>');
    expect(email.text).toContain('Resolved: 2026-01-01T01:00:00.000Z');
    expect(email.text).toContain('Unsubscribe: http://x/unsubscribe/t');
  });

  it('tell the invitee how to accept and the escalation target how to acknowledge', () => {
    const invite = inviteEmail(
      {
        ...envelope,
        invite: { id: 'v', team_id: 't', team_name: 'Ops', email: 'new@example.com', role: 'VIEWER', token: 'tok', expires_at: '2026-01-08T00:00:00.000Z' },
        invited_by: { id: 'u', name: 'Ann', email: 'ann@example.com' },
      },
      'https://api.example.com',
    );
    expect(invite.to).toBe('new@example.com');
    expect(invite.text).toContain('POST https://api.example.com/api/teams/invites/tok/accept');
    // The same token the README names (Cognito's ID token: the authorizer checks its audience).
    expect(invite.text).toContain('ID token');
    expect(invite.text).not.toContain('access token');
    expect(invite.tags).toEqual({ kind: 'invite', team: 't' });
    const page = escalationEmail(
      { ...envelope, incident: { ...incident, status: 'INVESTIGATING', resolved_at: null }, step: { step_order: 2, delay_minutes: 5, emails: ['a@example.com'] } },
      'a@example.com',
      'https://api.example.com/acknowledge/tok&en',
    );
    expect(page.subject).toBe('[Escalation step 2] Errors & timeouts');
    expect(page.text).toContain('Acknowledge it to stop further escalation: https://api.example.com/acknowledge/tok&en');
    expect(page.html).toContain('<a href="https://api.example.com/acknowledge/tok&#38;en"');
    expect(page.tags).toEqual({ kind: 'escalation', incident: 'i-1', step: '2' });
  });

  it('never carry a control character into a header, whatever was stored or claimed', () => {
    const injected = { ...incident, title: 'Subj\r\nBcc: x@evil.example', monitor_name: 'M\u2028X' };
    const emails = [
      subscriberEmail('incident.resolved', { ...envelope, incident: injected, previous_status: 'MONITORING' }, { email: 's@example.com', id: 's-1' }, 'http://x/u'),
      escalationEmail({ ...envelope, incident: injected, step: { step_order: 1, delay_minutes: 0, emails: ['a@example.com'] } }, 'a@example.com', 'http://x'),
      inviteEmail(
        {
          ...envelope,
          invite: { id: 'v', team_id: 't', team_name: 'Ops\r\nBcc: y@evil.example', email: 'new@example.com', role: 'VIEWER', token: 'tok', expires_at: '2026-01-08T00:00:00.000Z' },
          invited_by: { id: 'u', name: 'Ann\nBcc: z@evil.example', email: 'ann@example.com' },
        },
        'http://x',
      ),
    ];
    for (const email of emails) {
      expect(email.subject).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/);
      expect(email.to).not.toMatch(/[\r\n]/);
    }
    expect(emails[0]!.subject).toBe('Incident resolved: Subj Bcc: x@evil.example');
  });
});
