/**
 * The local AWS End User Messaging SMS and Voice v2 (issue 43): the functions' SDK client talks to
 * the runtime (AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2), which answers `SendTextMessage` and
 * `SendVoiceMessage` (AWS JSON 1.0, `X-Amz-Target: PinpointSMSVoiceV2.<operation>`) as AWS does, keeps
 * every message in a phone inbox, and plays the two SNS topics AWS publishes to:
 * - the configuration set's event destination: after each send, the `sms-receipts` function gets the
 *   message's final event (delivered; failed for a destination ending in 0000, whose message is
 *   still kept in the inbox);
 * - the number's two-way channel: `POST /local/phones/reply {"from","body"}` (or the page's reply box)
 *   hands the `sms-inbound` function AWS's two-way payload, as a person's SMS to the local number.
 * With a state folder (npm start: `.data/`) the inbox is kept in `phones/messages.json` (0600) across
 * restarts. Its page and JSON are the runtime's (`../runtime/phones.ts`).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { clock } from '../../../shared/platform/clock.js';
import { isE164 } from '../../../shared/channels/phone.js';
import { workers } from '../../../shared/system.js';
import { writePrivateFile } from './private-files.js';
import type { AwsApiResponse } from './ses.js';

/** The number the local runtime sends from (SMS_ORIGINATION_IDENTITY locally): a 555-01xx number, never a real one. */
export const LOCAL_ORIGINATION_NUMBER = '+18005550100';
/** The configuration set messages are sent with locally. */
export const LOCAL_SMS_CONFIGURATION_SET = 'incident-service-local';

const ACCOUNT = '000000000000';
const REGION = 'local';
export const TWO_WAY_TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:incident-service-sms-inbound`;
export const EVENTS_TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:incident-service-sms-events`;

export interface PhoneMessage {
  id: string;
  channel: 'sms' | 'voice';
  to: string;
  from: string;
  body: string;
  sent_at: string;
}

/**
 * How long after a send its receipt is handed on. AWS's come seconds later; at once, a page's receipt
 * would nearly always beat its timeline entry (written when the send has answered) and be taken only
 * on a retry, an error in the log each time.
 */
const RECEIPT_DELAY_MS = 250;

/** The waits before Lambda's two retries of a failed asynchronous invocation, shortened for a local run. */
const ASYNC_RETRY_DELAYS_MS = [500, 2_000];

/** The inbox keeps the newest this many messages (a page's worth of a long session). */
const KEPT = 1000;

type Invoke = (functionName: string, event: unknown) => Promise<unknown>;

export class PhoneInbox {
  private messages: PhoneMessage[] = [];
  private readonly file: string | undefined;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly invoke: Invoke,
    options: { stateDir?: string; log?: (line: string) => void } = {},
  ) {
    this.log = options.log ?? (() => undefined);
    this.file = options.stateDir && join(options.stateDir, 'phones', 'messages.json');
    if (this.file) {
      try {
        const kept = JSON.parse(readFileSync(this.file, 'utf8')) as { messages?: PhoneMessage[] };
        this.messages = Array.isArray(kept.messages) ? kept.messages : [];
      } catch {
        this.messages = [];
      }
    }
  }

  private readonly log: (line: string) => void;

  /** Newest first; only those to `to` when given. */
  list(to?: string): PhoneMessage[] {
    const all = [...this.messages].reverse();
    return to === undefined ? all : all.filter((message) => message.to === to);
  }

  clear() {
    this.messages = [];
    this.save();
  }

  /** Resolves once the receipts and replies under way have been handed to their functions. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  keep(message: Omit<PhoneMessage, 'id' | 'sent_at'> & { id?: string }): PhoneMessage {
    const kept: PhoneMessage = { ...message, id: message.id ?? randomUUID(), sent_at: clock.nowIso() };
    this.messages.push(kept);
    if (this.messages.length > KEPT) this.messages.splice(0, this.messages.length - KEPT);
    this.save();
    return kept;
  }

  private save() {
    if (this.file) writePrivateFile(this.file, JSON.stringify({ messages: this.messages }));
  }

  /** Runs `work` in the background (as SNS delivers: after the send's answer), tracked for `idle`. */
  track(work: Promise<unknown>) {
    const tracked = work.catch((error: unknown) => this.log(`phones: ${error instanceof Error ? error.message : String(error)}`)).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Hands `message` to `functionName` as SNS delivers a topic's notification to a Lambda subscription. */
  publish(functionName: string, topicArn: string, message: unknown): Promise<unknown> {
    return this.invoke(functionName, snsNotification(topicArn, message));
  }

  /**
   * `publish`, retried as Lambda retries a failed asynchronous invocation (SNS invokes its subscribed
   * functions so): twice, here 0.5 s and 2 s later (on AWS about a minute and two); the last failure throws.
   */
  async publishRetried(functionName: string, topicArn: string, message: unknown): Promise<unknown> {
    for (const delayMs of ASYNC_RETRY_DELAYS_MS) {
      try {
        return await this.publish(functionName, topicArn, message);
      } catch (error) {
        this.log(`phones: ${functionName} failed (${error instanceof Error ? error.message : String(error)}); retrying in ${delayMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
    return this.publish(functionName, topicArn, message);
  }
}

/** The SNS event a Lambda subscription receives (one record). */
export function snsNotification(topicArn: string, message: unknown) {
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${topicArn}:${randomUUID()}`,
        Sns: {
          Type: 'Notification',
          MessageId: randomUUID(),
          TopicArn: topicArn,
          Subject: null,
          Message: JSON.stringify(message),
          Timestamp: clock.nowIso(),
          SignatureVersion: '1',
          Signature: 'local',
          SigningCertUrl: 'https://sns.local.amazonaws.com/local.pem',
          UnsubscribeUrl: 'https://sns.local.amazonaws.com/?Action=Unsubscribe',
          MessageAttributes: {},
        },
      },
    ],
  };
}

// ---- The API (AWS JSON 1.0) ----

const awsJson = (status: number, body: unknown, errorType?: string): AwsApiResponse => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID(), ...(errorType ? { 'x-amzn-errortype': errorType } : {}) },
  body: JSON.stringify(body),
});

/** A `ValidationException` as the service answers it: a reason and the fields at fault. */
const validationError = (message: string, fields: { Name: string; Message: string }[], reason = 'INVALID_PARAMETER') =>
  awsJson(400, { __type: 'ValidationException', Message: message, message, Reason: reason, Fields: fields }, 'ValidationException');

const notFound = (resourceType: string, resourceId: string) =>
  awsJson(
    404,
    { __type: 'ResourceNotFoundException', Message: `Resource not found: ${resourceId}`, message: `Resource not found: ${resourceId}`, ResourceType: resourceType, ResourceId: resourceId },
    'ResourceNotFoundException',
  );

const PRICE = /^[0-9]{0,2}\.[0-9]{1,5}$/;
const VOICE_IDS = new Set(
  'AMY ASTRID BIANCA BRIAN CAMILA CARLA CARMEN CELINE CHANTAL CONCHITA CRISTIANO DORA EMMA ENRIQUE EWA FILIZ GERAINT GIORGIO GWYNETH HANS INES IVY JACEK JAN JOANNA JOEY JUSTIN KARL KENDRA KIMBERLY LEA LIV LOTTE LUCIA LUPE MADS MAJA MARLENE MATHIEU MATTHEW MAXIM MIA MIGUEL MIZUKI NAJA NICOLE PENELOPE RAVEENA RICARDO RUBEN RUSSELL SALLI SEOYEON TAKUMI TATYANA VICKI VITORIA ZEINA ZHIYU'.split(' '),
);

interface SendRequest {
  DestinationPhoneNumber?: unknown;
  OriginationIdentity?: unknown;
  MessageBody?: unknown;
  MessageBodyTextType?: unknown;
  VoiceId?: unknown;
  ConfigurationSetName?: unknown;
  MaxPrice?: unknown;
  MaxPricePerMinute?: unknown;
  Context?: unknown;
}

/** What AWS checks of a send that matters here: the numbers, the identity, the body, the prices. */
function checkSend(operation: 'SendTextMessage' | 'SendVoiceMessage', input: SendRequest): AwsApiResponse | undefined {
  const fields: { Name: string; Message: string }[] = [];
  if (typeof input.DestinationPhoneNumber !== 'string') fields.push({ Name: 'DestinationPhoneNumber', Message: 'DestinationPhoneNumber is required' });
  else if (!isE164(input.DestinationPhoneNumber)) {
    fields.push({ Name: 'DestinationPhoneNumber', Message: `Value '${input.DestinationPhoneNumber}' is not a valid E.164 phone number` });
  }
  if (operation === 'SendVoiceMessage' && typeof input.OriginationIdentity !== 'string') {
    fields.push({ Name: 'OriginationIdentity', Message: 'OriginationIdentity is required' });
  }
  const limit = operation === 'SendTextMessage' ? 1600 : input.MessageBodyTextType === 'SSML' ? 6000 : 3000;
  if (typeof input.MessageBody !== 'string' || input.MessageBody.trim() === '') fields.push({ Name: 'MessageBody', Message: 'MessageBody is required' });
  else if (input.MessageBody.length > limit) fields.push({ Name: 'MessageBody', Message: `MessageBody must be at most ${limit} characters` });
  if (operation === 'SendVoiceMessage') {
    if (input.MessageBodyTextType !== undefined && input.MessageBodyTextType !== 'TEXT' && input.MessageBodyTextType !== 'SSML') {
      fields.push({ Name: 'MessageBodyTextType', Message: "MessageBodyTextType must be 'TEXT' or 'SSML'" });
    }
    if (input.VoiceId !== undefined && !VOICE_IDS.has(String(input.VoiceId))) fields.push({ Name: 'VoiceId', Message: `Value '${String(input.VoiceId)}' is not a valid VoiceId` });
  }
  for (const name of ['MaxPrice', 'MaxPricePerMinute'] as const) {
    const value = input[name];
    if (value !== undefined && (typeof value !== 'string' || !PRICE.test(value))) fields.push({ Name: name, Message: `Value '${String(value)}' does not match the pattern [0-9]{0,2}\\.[0-9]{1,5}` });
  }
  if (fields.length > 0) return validationError(`${fields.length} validation error(s) detected: ${fields.map((field) => field.Message).join('; ')}`, fields);
  // The only origination identity (and configuration set) this account has.
  if (input.OriginationIdentity !== undefined && input.OriginationIdentity !== LOCAL_ORIGINATION_NUMBER) return notFound('phone-number', String(input.OriginationIdentity));
  if (input.ConfigurationSetName !== undefined && input.ConfigurationSetName !== LOCAL_SMS_CONFIGURATION_SET) return notFound('configuration-set', String(input.ConfigurationSetName));
  return undefined;
}

/** Whether a destination's messages fail (its receipt says so): numbers ending in 0000. */
export const failsDelivery = (destination: string) => destination.endsWith('0000');

const GSM7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà^{}\\[~\]|€]*$/;

/** The configuration set's event record for a sent message: its final status (the documented SMS / voice example logs). */
export function messageEventRecord(message: PhoneMessage, context: Record<string, string> | undefined, requestedAt: number) {
  const failed = failsDelivery(message.to);
  const common = {
    eventVersion: '1.0',
    eventTimestamp: clock.now().getTime(),
    isFinal: true,
    originationPhoneNumber: message.from,
    destinationPhoneNumber: message.to,
    messageId: message.id,
    messageRequestTimestamp: requestedAt,
    ...(context ? { context } : {}),
  };
  if (message.channel === 'voice') {
    return {
      ...common,
      eventType: failed ? 'VOICE_FAILED' : 'VOICE_COMPLETED',
      messageStatus: failed ? 'FAILED' : 'COMPLETED',
      messageStatusDescription: failed ? 'Call has failed' : 'Call has completed',
      totalDurationSeconds: failed ? 0 : 20,
      totalMinutesBilled: failed ? 0 : 1,
      totalMessagePrice: 0,
    };
  }
  const gsm = GSM7.test(message.body);
  return {
    ...common,
    eventType: failed ? 'TEXT_UNREACHABLE' : 'TEXT_DELIVERED',
    messageEncoding: gsm ? 'GSM' : 'UNICODE',
    messageType: 'TRANSACTIONAL',
    messageStatus: failed ? 'UNREACHABLE' : 'DELIVERED',
    messageStatusDescription: failed ? 'The destination phone number is unreachable' : 'Message has been accepted by phone',
    totalMessageParts: Math.max(1, Math.ceil(message.body.length / (gsm ? 153 : 67))),
    totalMessagePrice: 0,
    totalCarrierFee: 0,
  };
}

/** Answers an End User Messaging SMS and Voice v2 request; undefined: not one. */
export async function localPhonesApi(request: IncomingMessage, body: Buffer, inbox: PhoneInbox): Promise<AwsApiResponse | undefined> {
  const target = String(request.headers['x-amz-target']);
  if (!target.startsWith('PinpointSMSVoiceV2.')) return undefined;
  const operation = target.slice('PinpointSMSVoiceV2.'.length);
  if (operation !== 'SendTextMessage' && operation !== 'SendVoiceMessage') {
    return awsJson(400, { __type: 'UnknownOperationException', message: `The local End User Messaging answers SendTextMessage and SendVoiceMessage only, not ${operation}` }, 'UnknownOperationException');
  }
  let input: SendRequest;
  try {
    input = (body.length ? JSON.parse(body.toString('utf8')) : {}) as SendRequest;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new SyntaxError('not an object');
  } catch (error) {
    return awsJson(400, { __type: 'SerializationException', message: (error as Error).message }, 'SerializationException');
  }
  const refused = checkSend(operation, input);
  if (refused) return refused;
  const requestedAt = clock.now().getTime();
  const destination = String(input.DestinationPhoneNumber);
  const message = inbox.keep({
    channel: operation === 'SendTextMessage' ? 'sms' : 'voice',
    to: destination,
    from: typeof input.OriginationIdentity === 'string' ? input.OriginationIdentity : LOCAL_ORIGINATION_NUMBER,
    body: String(input.MessageBody),
  });
  const context = input.Context && typeof input.Context === 'object' ? (input.Context as Record<string, string>) : undefined;
  // Without a configuration set, "the API doesn't emit event records".
  if (input.ConfigurationSetName !== undefined) {
    const receipt = messageEventRecord(message, context, requestedAt);
    inbox.track(new Promise((resolve) => setTimeout(resolve, RECEIPT_DELAY_MS)).then(() => inbox.publishRetried(workers.smsReceipts.name, EVENTS_TOPIC, receipt)));
  }
  return awsJson(200, { MessageId: message.id });
}
