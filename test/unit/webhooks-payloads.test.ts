import { describe, expect, it } from 'vitest';
import type { IncidentDetailView } from '../../shared/incidents/model.js';
import {
  escapeMrkdwn,
  MAX_BODY_BYTES,
  messageBody,
  mrkdwnWithin,
  plainWithin,
  slackBody,
  standardBody,
  TRUNCATION_MARKER,
  type WebhookEvent,
  type WebhookNote,
} from '../../shared/webhooks/payloads.js';

const incident: IncidentDetailView = {
  id: '2d8b5e3a-8e4c-4f3b-9c7a-4b9f0e1d3c01',
  monitor_id: '1c7a4d2f-7d3b-4e2a-8b6f-3a8e9d0c2b01',
  title: 'Checkout API is down',
  status: 'INVESTIGATING',
  urgency: 'high',
  severity: 'HIGH',
  acknowledged: false,
  in_maintenance: false,
  started_at: '2026-11-21T10:05:00.000Z',
  resolved_at: null,
  created_at: '2026-11-21T10:05:00.000Z',
  monitor_name: 'Checkout API',
  escalation_policy_id: '3e9c6f4b-9f5d-4a4c-8d8b-5c0a1f2e4d01',
  escalation_steps: [
    { step_order: 1, delay_minutes: 0 },
    { step_order: 2, delay_minutes: 15 },
  ],
};
const timestamp = '2026-11-21T10:06:00.000Z';
const note: WebhookNote = {
  id: '019aa5d6-1f40-7a3c-9b2e-6f1d0c8e5a01',
  message: 'Payments return 502s; looking at the gateway.',
  user_id: '0b6f3c1e-6c2a-4d1f-9a5e-2f7d8c9b1a01',
  user_name: 'Alice Example',
  created_at: timestamp,
};
const links = { incident_url: 'https://api.example.com/api/incidents/2d8b5e3a-8e4c-4f3b-9c7a-4b9f0e1d3c01', acknowledge_url: 'https://api.example.com/acknowledge/tok_123' };

const events: WebhookEvent[] = [
  { type: 'incident.created', timestamp, data: { incident } },
  {
    type: 'incident.updated',
    timestamp,
    data: {
      incident: { ...incident, status: 'IDENTIFIED', severity: 'CRITICAL' },
      changes: { status: { from: 'INVESTIGATING', to: 'IDENTIFIED' }, severity: { from: 'HIGH', to: 'CRITICAL' }, title: { from: 'Checkout slow', to: incident.title } },
    },
  },
  {
    type: 'incident.acknowledged',
    timestamp,
    data: { incident: { ...incident, acknowledged: true }, acknowledgement: { user_id: note.user_id, user_name: 'Alice Example', method: 'email', acknowledged_at: timestamp } },
  },
  { type: 'incident.resolved', timestamp, data: { incident: { ...incident, status: 'RESOLVED', resolved_at: timestamp }, previous_status: 'MONITORING', note } },
  { type: 'incident.note_added', timestamp, data: { incident, note } },
  { type: 'incident.escalated', timestamp, data: { incident, step: { step_order: 2, delay_minutes: 15, emails: ['lead@example.com', 'cto@example.com'] } } },
  { type: 'ping', timestamp, data: { webhook_id: 'w-1', message: 'This is a test message from the incident service.' } },
];

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const noteEvent = (message: string, title = incident.title): WebhookEvent => ({
  type: 'incident.note_added',
  timestamp,
  data: { incident: { ...incident, title }, note: { ...note, message } },
});

describe('standard bodies', () => {
  it.each(events.map((event) => [event.type, event] as const))('%s: {"type","timestamp","data"} with the event as given', (_type, event) => {
    const body = standardBody(event);
    expect(Object.keys(JSON.parse(body))).toEqual(['type', 'timestamp', 'data']);
    expect(JSON.parse(body)).toEqual(event);
    expect(body).toBe(JSON.stringify(event));
  });

  it('an incident event carries the incident as the get endpoint returns it', () => {
    const body = JSON.parse(standardBody(events[0]!));
    expect(body.data.incident).toEqual(incident);
  });

  it('a body over 256 KB has its long text cut with a marker, listed in data.truncated, valid JSON under the cap', () => {
    const body = standardBody(noteEvent('x'.repeat(300_000)));
    expect(bytes(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    // The largest cut that fits: little room is left unused.
    expect(bytes(body)).toBeGreaterThan(MAX_BODY_BYTES - 100);
    const parsed = JSON.parse(body);
    expect(parsed.type).toBe('incident.note_added');
    expect(parsed.data.truncated).toEqual(['note.message']);
    expect(parsed.data.note.message.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(parsed.data.note.message.startsWith('xxxx')).toBe(true);
    // Everything else whole.
    expect(parsed.data.incident).toEqual(incident);
    expect({ ...parsed.data.note, message: undefined }).toEqual({ ...note, message: undefined });
  });

  it('counts bytes, not characters, and never leaves half a character', () => {
    const body = standardBody(noteEvent('é😀'.repeat(100_000)));
    expect(bytes(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(body).not.toMatch(/\\ud[89a-f]/i);
    const message: string = JSON.parse(body).data.note.message;
    expect(message.slice(0, -TRUNCATION_MARKER.length)).toMatch(/^(é😀)+é?$/u);
  });

  it('cuts the longest texts to one common length, leaving shorter ones whole', () => {
    const body = standardBody(noteEvent('n'.repeat(200_000), 't'.repeat(200_000)), 100_000);
    expect(bytes(body)).toBeLessThanOrEqual(100_000);
    const parsed = JSON.parse(body);
    expect(parsed.data.truncated).toEqual(['incident.title', 'note.message']);
    expect(parsed.data.incident.title.length).toBe(parsed.data.note.message.length);
    expect(parsed.data.incident.monitor_name).toBe('Checkout API');
    expect(parsed.data.note.user_name).toBe('Alice Example');
  });

  it('a body at the cap is sent whole, without the list', () => {
    const event = noteEvent('');
    const room = MAX_BODY_BYTES - bytes(JSON.stringify(event));
    const body = standardBody(noteEvent('z'.repeat(room)));
    expect(bytes(body)).toBe(MAX_BODY_BYTES);
    expect(JSON.parse(body).data.truncated).toBeUndefined();
    expect(JSON.parse(standardBody(noteEvent('z'.repeat(room + 1)))).data.truncated).toEqual(['note.message']);
  });

  it('never cuts identifiers, times or enums; a body that cannot fit is an error', () => {
    const longId = 'i'.repeat(5000);
    const event: WebhookEvent = {
      type: 'incident.note_added',
      timestamp,
      data: { incident: { ...incident, id: longId, started_at: 's'.repeat(3000) }, note: { ...note, user_id: 'u'.repeat(3000), message: 'm'.repeat(20_000) } },
    };
    const parsed = JSON.parse(standardBody(event, 14_000));
    expect(parsed.data.truncated).toEqual(['note.message']);
    expect([parsed.data.incident.id, parsed.data.incident.started_at, parsed.data.note.user_id]).toEqual([longId, 's'.repeat(3000), 'u'.repeat(3000)]);
    expect(() => standardBody(events[0]!, 100)).toThrow('A webhook body cannot be cut to 100 bytes');
  });
});

describe('slack bodies', () => {
  type Block = { type: string; text?: { type: string; text: string; emoji?: boolean }; fields?: Array<{ type: string; text: string }> };
  const parse = (body: string) => JSON.parse(body) as { text: string; blocks: Block[] };
  const mrkdwnTexts = (message: { blocks: Block[] }) =>
    message.blocks.flatMap((block) => [...(block.text?.type === 'mrkdwn' ? [block.text.text] : []), ...(block.fields ?? []).map((field) => field.text)]);

  it('a new incident: header with the title, what happened, severity, status, monitor, the links', () => {
    const message = parse(slackBody(events[0]!, { incident_url: links.incident_url }));
    expect(message.blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'Checkout API is down', emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: '*New incident*' } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*Severity*\nHigh' },
          { type: 'mrkdwn', text: '*Status*\nInvestigating' },
          { type: 'mrkdwn', text: '*Monitor*\nCheckout API' },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: `<${links.incident_url}|View incident>` } },
    ]);
    expect(message.text).toBe(
      [
        'New incident: Checkout API is down',
        'Severity: High · Status: Investigating · Monitor: Checkout API',
        `View incident: ${links.incident_url}`,
      ].join('\n'),
    );
  });

  it('offers the acknowledge link only where the event has one', () => {
    const escalated = parse(slackBody(events[5]!, links));
    expect(escalated.blocks.at(-1)).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: `<${links.incident_url}|View incident>  ·  <${links.acknowledge_url}|Acknowledge>` },
    });
    expect(escalated.text).toContain(`Acknowledge: ${links.acknowledge_url}`);
    const created = parse(slackBody(events[0]!, { incident_url: links.incident_url }));
    expect(JSON.stringify(created)).not.toContain('Acknowledge');
  });

  it.each([
    ['incident.updated', '*Incident updated*\nChanged: status Investigating → Identified; severity High → Critical; title was "Checkout slow"'],
    ['incident.acknowledged', '*Acknowledged by Alice Example (email)*'],
    ['incident.resolved', '*Incident resolved*\nNote from Alice Example: Payments return 502s; looking at the gateway.'],
    ['incident.note_added', '*Note from Alice Example*\nPayments return 502s; looking at the gateway.'],
    ['incident.escalated', '*Escalated: step 2 paged*\nPaged: lead@example.com, cto@example.com'],
  ])('%s says what happened', (type, text) => {
    const message = parse(slackBody(events.find((event) => event.type === type)!, links));
    expect(message.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text } });
    expect(message.text.startsWith(`${text.split('\n')[0]!.replace(/\*/g, '')}: `)).toBe(true);
  });

  it('shows status, acknowledgement and severity as people read them', () => {
    const fields = parse(slackBody(events[2]!)).blocks[2]!.fields!;
    expect(fields.map((field) => field.text)).toEqual(['*Severity*\nHigh', '*Status*\nInvestigating (acknowledged)', '*Monitor*\nCheckout API']);
  });

  it('a ping: a header and its message, no incident', () => {
    const message = parse(slackBody(events[6]!));
    expect(message.blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'Webhook test', emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: 'This is a test message from the incident service.' } },
    ]);
    expect(message.text).toBe('Webhook test\nThis is a test message from the incident service.');
  });

  it('escapes &, < and > of user text in mrkdwn (no mention or link can be smuggled in); plain text stays as written', () => {
    const event: WebhookEvent = {
      type: 'incident.note_added',
      timestamp,
      data: {
        incident: { ...incident, title: 'Errors & <timeouts>', monitor_name: 'API <prod>' },
        note: { ...note, user_name: 'Eve <!here>', message: '<!channel> see <https://evil.example|this> & that' },
      },
    };
    const message = parse(slackBody(event, links));
    expect(message.blocks[0]!.text!.text).toBe('Errors & <timeouts>');
    const mrkdwn = mrkdwnTexts(message).join('\n');
    expect(mrkdwn).toContain('*Note from Eve &lt;!here&gt;*\n&lt;!channel&gt; see &lt;https://evil.example|this&gt; &amp; that');
    expect(mrkdwn).toContain('*Monitor*\nAPI &lt;prod&gt;');
    expect(mrkdwn).not.toContain('<!');
    expect(message.text).toContain('Note from Eve &lt;!here&gt;: Errors &amp; &lt;timeouts&gt;');
    expect(message.text).not.toMatch(/<(?!\/)/);
  });

  it('keeps Block Kit limits: header 150, section 3000, and the fallback text 3000 with its links first', () => {
    const long: WebhookEvent = noteEvent('&'.repeat(5000), 'T'.repeat(200));
    const message = parse(slackBody(long, links));
    const header = message.blocks[0]!.text!.text;
    expect(header).toHaveLength(150);
    expect(header.endsWith('…')).toBe(true);
    const section = message.blocks[1]!.text!.text;
    expect(section.length).toBeLessThanOrEqual(3000);
    expect(section).toMatch(/^\*Note from Alice Example\*\n(&amp;)+…$/);
    expect(message.text.length).toBeLessThanOrEqual(3000);
    expect(message.text).toMatch(/(&amp;)+…$/);
    expect(message.text).toContain(`Acknowledge: ${links.acknowledge_url}`);
  });

  it('escapes a link URL, and encodes a | in it', () => {
    const message = parse(slackBody(events[0]!, { incident_url: 'https://x.example/i?a=1&b=<2>|3' }));
    expect(message.blocks.at(-1)!.text!.text).toBe('<https://x.example/i?a=1&amp;b=&lt;2&gt;%7C3|View incident>');
  });

  it('messageBody picks the format', () => {
    expect(messageBody('standard', events[0]!)).toBe(standardBody(events[0]!));
    expect(messageBody('slack', events[0]!, links)).toBe(slackBody(events[0]!, links));
  });
});

describe('mrkdwn helpers', () => {
  it('escape the three characters only', () => {
    expect(escapeMrkdwn('a & b < c > d *e* _f_ "g"')).toBe('a &amp; b &lt; c &gt; d *e* _f_ "g"');
  });
  it('cut within a limit, never inside an entity or a surrogate pair', () => {
    expect(mrkdwnWithin('short & sweet', 100)).toBe('short &amp; sweet');
    expect(mrkdwnWithin('ab&cd', 6)).toBe('ab…');
    expect(mrkdwnWithin('ab&cd', 7)).toBe('ab…');
    expect(mrkdwnWithin('ab&cd', 8)).toBe('ab&amp;…');
    expect(mrkdwnWithin('😀😀😀', 4)).toBe('😀…');
    expect(plainWithin('😀😀😀', 4)).toBe('😀…');
    expect(plainWithin('abcdef', 4)).toBe('abc…');
    expect(plainWithin('abcd', 4)).toBe('abcd');
  });
});
