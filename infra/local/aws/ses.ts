/**
 * The local SES endpoint: the functions' SES client talks to the runtime, which hands every call to
 * the local mailbox (aws-ses-v2-local) unchanged and then plays SES's mailbox simulator, as SES does
 * on AWS: a message to bounce@simulator.amazonses.com (or bounce+anything@…) hard-bounces, one to
 * complaint@simulator.amazonses.com draws a complaint. The resulting "Email Bounced" / "Email
 * Complaint Received" event goes on the local bus as SES puts it on the default bus, tags and all,
 * so the same email-feedback function handles it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sesEvents } from '../../../shared/system.js';
import type { PutEventsEntry } from './bus.js';

/** An AWS API's answer, as the local runtime's HTTP server writes it. */
export interface AwsApiResponse {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

const SIMULATOR = /^(bounce|complaint)(\+[^@]*)?@simulator\.amazonses\.com$/i;

/** `Prefix.member.N` values of a query-protocol request, in order. */
const members = (params: URLSearchParams, prefix: string) =>
  [...params.entries()].filter(([name]) => name.startsWith(`${prefix}.member.`) && /\.member\.\d+$/.test(name)).map(([, value]) => value);

/** `Tags.member.N.Name` / `.Value` as SES reports them on events: each name with its values. */
function tagsOf(params: URLSearchParams): Record<string, string[]> {
  const tags: Record<string, string[]> = {};
  for (let index = 1; params.has(`Tags.member.${index}.Name`); index++) {
    tags[params.get(`Tags.member.${index}.Name`)!] = [params.get(`Tags.member.${index}.Value`) ?? ''];
  }
  const configurationSet = params.get('ConfigurationSetName');
  if (configurationSet) tags['ses:configuration-set'] = [configurationSet];
  return tags;
}

/** The SES event the simulator address draws for this message. */
export function simulatedFeedback(params: URLSearchParams, messageId: string, recipient: string, now = new Date()) {
  const complaint = SIMULATOR.exec(recipient)![1]!.toLowerCase() === 'complaint';
  const timestamp = now.toISOString();
  const mail = {
    timestamp,
    source: params.get('Source') ?? '',
    sendingAccountId: '000000000000',
    messageId,
    destination: [...members(params, 'Destination.ToAddresses'), ...members(params, 'Destination.CcAddresses'), ...members(params, 'Destination.BccAddresses')],
    tags: tagsOf(params),
  };
  return complaint
    ? {
        detailType: sesEvents.complained,
        detail: {
          eventType: 'Complaint',
          mail,
          complaint: { complainedRecipients: [{ emailAddress: recipient }], timestamp, feedbackId: randomUUID(), complaintFeedbackType: 'abuse' },
        },
      }
    : {
        detailType: sesEvents.bounced,
        detail: {
          eventType: 'Bounce',
          mail,
          bounce: {
            bounceType: 'Permanent',
            bounceSubType: 'General',
            bouncedRecipients: [{ emailAddress: recipient, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
            timestamp,
            feedbackId: randomUUID(),
          },
        },
      };
}

/** Answers an SES (query protocol) request through the mailbox, then simulates feedback. Undefined: not SES. */
export async function localSes(request: IncomingMessage, body: Buffer, mailboxUrl: string, background: { putEvents(entries: PutEventsEntry[]): unknown }): Promise<AwsApiResponse | undefined> {
  const params = new URLSearchParams(body.toString('utf8'));
  const action = params.get('Action');
  if (!action) return undefined;
  // The signed request as it came (the mailbox, like SES, wants its authorization), minus hop-by-hop headers.
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(entry[0]),
    ),
  );
  const answer = await fetch(`${mailboxUrl}/`, { method: 'POST', headers, body });
  const text = await answer.text();
  if (answer.ok && action === 'SendEmail') {
    const messageId = /<MessageId>([^<]+)<\/MessageId>/.exec(text)?.[1] ?? randomUUID();
    const simulated = members(params, 'Destination.ToAddresses').filter((recipient) => SIMULATOR.test(recipient));
    if (simulated.length > 0) {
      await background.putEvents(
        simulated.map((recipient) => {
          const { detailType, detail } = simulatedFeedback(params, messageId, recipient);
          return { EventBusName: sesEvents.bus, Source: sesEvents.source, DetailType: detailType, Detail: JSON.stringify(detail) };
        }),
      );
    }
  }
  return { status: answer.status, headers: { 'content-type': answer.headers.get('content-type') ?? 'text/xml' }, body: text };
}
