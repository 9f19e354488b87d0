/**
 * The local AWS End User Messaging SMS and Voice v2 (issue 43 §6): the SDK's SendTextMessage and
 * SendVoiceMessage answered by the runtime, every message kept in the phone inbox (its JSON, its
 * page), a person's reply validated and handed on, and each send's receipt handed to sms-receipts
 * (failed for destinations ending in 0000).
 */
import { PinpointSMSVoiceV2Client, SendTextMessageCommand, SendVoiceMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { smsChannel } from '../../shared/channels/sms.js';
import { voiceChannel } from '../../shared/channels/voice.js';
import { env, workers } from '../../shared/system.js';
import { failNextDynamoCall } from '../../infra/testing/ddb-calls.js';
import { Api, eventually } from '../support/api.js';
import { captureLogs } from '../support/logs.js';

vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');

let api: Api;
let client: PinpointSMSVoiceV2Client;
let jsonLines: () => Record<string, any>[];

beforeAll(async () => {
  jsonLines = captureLogs().jsonLines;
  api = await Api.start();
  // After the start: the runtime points the SDK at itself (AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2).
  client = new PinpointSMSVoiceV2Client({});
});
afterAll(async () => {
  client.destroy();
  await api.close();
  vi.restoreAllMocks();
});

const LOCAL_NUMBER = '+18005550100';
let next = 0;
/** A fresh number per test (a 555-01xx number of its own), ending in `ending` when given. */
const phone = (ending?: string) => `+1415${String(process.pid % 1000).padStart(3, '0')}${ending ?? String(1000 + next++).slice(-4)}`;

type Message = { id: string; channel: 'sms' | 'voice'; to: string; from: string; body: string; sent_at: string };
const messages = async (to?: string) => {
  const response = await api.request('GET', `/local/phones/messages${to ? `?to=${encodeURIComponent(to)}` : ''}`);
  expect(response.status).toBe(200);
  return response.body.messages as Message[];
};

describe('the local End User Messaging SMS and Voice v2', () => {
  it('configures its own origination number and configuration set, and SMS and voice are available', () => {
    expect(process.env[env.smsOriginationIdentity]).toBe(LOCAL_NUMBER);
    expect(process.env[env.smsConfigurationSet]).toBe('incident-service-local');
    expect(process.env.AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2).toBe(api.url.replace('localhost', '127.0.0.1'));
    expect(smsChannel.available()).toBe(true);
    expect(voiceChannel.available()).toBe(true);
  });

  it('keeps what the channels send, newest first, and filters by destination', async () => {
    const [alice, bob] = [phone(), phone()];
    const first = await smsChannel.send({ to: alice, text: '[1] CRITICAL Checkout 5xx — reply 1a to acknowledge' });
    const second = await voiceChannel.send({ to: bob, text: 'Incident 1, critical: Checkout 5xx.' });
    const third = await smsChannel.send({ to: alice, text: 'second to alice' });
    expect(new Set([first.messageId, second.messageId, third.messageId]).size).toBe(3);

    const all = await messages();
    const ids = all.map((message) => message.id);
    expect(ids.indexOf(third.messageId)).toBeLessThan(ids.indexOf(second.messageId));
    expect(ids.indexOf(second.messageId)).toBeLessThan(ids.indexOf(first.messageId));
    expect(all.find((message) => message.id === second.messageId)).toEqual({
      id: second.messageId,
      channel: 'voice',
      to: bob,
      from: LOCAL_NUMBER,
      body: 'Incident 1, critical: Checkout 5xx.',
      sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await messages(alice)).map((message) => message.id)).toEqual([third.messageId, first.messageId]);
    // The number as typed, its + unencoded.
    expect((await api.request('GET', `/local/phones/messages?to=${alice}`)).body.messages.map((message: Message) => message.id)).toEqual([third.messageId, first.messageId]);
    expect((await messages(bob)).map((message) => [message.channel, message.body])).toEqual([['voice', 'Incident 1, critical: Checkout 5xx.']]);
    expect(api.runtime.phones.messages(alice).map((message) => message.id)).toEqual([third.messageId, first.messageId]);
  });

  it('refuses a filter that is not a phone number', async () => {
    const response = await api.request('GET', '/local/phones/messages?to=alice');
    expect(response).toMatchObject({
      status: 400,
      body: { error: 'Validation errors', details: [{ field: 'to', message: 'must be a phone number in E.164 form: + and 8 to 15 digits, as in +14155550100' }] },
    });
  });

  it('answers as AWS does to what it refuses: a bad destination, no body, an unknown origination identity or configuration set', async () => {
    const text = (input: Partial<ConstructorParameters<typeof SendTextMessageCommand>[0]>) =>
      client.send(new SendTextMessageCommand({ DestinationPhoneNumber: phone(), OriginationIdentity: LOCAL_NUMBER, MessageBody: 'hello', ...input }));
    await expect(text({ DestinationPhoneNumber: '4155550100' })).rejects.toMatchObject({
      name: 'ValidationException',
      Reason: 'INVALID_PARAMETER',
      Fields: [{ Name: 'DestinationPhoneNumber', Message: "Value '4155550100' is not a valid E.164 phone number" }],
    });
    await expect(text({ MessageBody: undefined })).rejects.toMatchObject({ name: 'ValidationException', Fields: [{ Name: 'MessageBody', Message: 'MessageBody is required' }] });
    await expect(text({ MaxPrice: '1' })).rejects.toMatchObject({ name: 'ValidationException', Fields: [{ Name: 'MaxPrice' }] });
    await expect(text({ OriginationIdentity: '+18005550199' })).rejects.toMatchObject({ name: 'ResourceNotFoundException', ResourceType: 'phone-number', ResourceId: '+18005550199' });
    await expect(text({ ConfigurationSetName: 'other' })).rejects.toMatchObject({ name: 'ResourceNotFoundException', ResourceType: 'configuration-set' });
    await expect(
      client.send(new SendVoiceMessageCommand({ DestinationPhoneNumber: phone(), OriginationIdentity: undefined as unknown as string, MessageBody: 'hi' })),
    ).rejects.toMatchObject({ name: 'ValidationException', Fields: [{ Name: 'OriginationIdentity', Message: 'OriginationIdentity is required' }] });
    await expect(
      client.send(new SendVoiceMessageCommand({ DestinationPhoneNumber: phone(), OriginationIdentity: LOCAL_NUMBER, MessageBody: 'hi', VoiceId: 'NOBODY' as 'JOANNA' })),
    ).rejects.toMatchObject({ name: 'ValidationException', Fields: [{ Name: 'VoiceId' }] });
  });

  it('renders the page: an inbox per number, with a reply box, escaped', async () => {
    const to = phone();
    await smsChannel.send({ to, text: 'CRITICAL <script>alert(1)</script> & more' });
    const response = await fetch(`${api.url}/local/phones`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await response.text();
    expect(page).toContain(`<h2>${to}</h2>`);
    expect(page).toContain(`<form data-from="${to}">`);
    expect(page).toContain('CRITICAL &#60;script&#62;alert(1)&#60;/script&#62; &#38; more');
    expect(page).not.toContain('<script>alert(1)</script>');
  });

  it.each([
    ['no from', { body: '12a' }, [{ field: 'from', message: 'Invalid input: expected string, received undefined' }]],
    ['a from that is not E.164', { from: '4155550100', body: '12a' }, [{ field: 'from', message: 'must be a phone number in E.164 form: + and 8 to 15 digits, as in +14155550100' }]],
    ['an empty body', { from: '+14155550100', body: '' }, [{ field: 'body', message: 'must not be empty' }]],
    ['a body too long', { from: '+14155550100', body: 'x'.repeat(1601) }, [{ field: 'body', message: 'must be at most 1600 characters' }]],
    ['an unknown field', { from: '+14155550100', body: '12a', to: '+1' }, [{ field: 'to', message: 'Unknown field' }]],
  ])('refuses a reply with %s', async (_, body, details) => {
    const response = await api.request('POST', '/local/phones/reply', { body });
    expect(response).toMatchObject({ status: 400, body: { error: 'Validation errors', details } });
  });

  it('refuses a reply that is not a JSON object', async () => {
    for (const rawBody of ['[]', '"12a"', '']) {
      const response = await api.request('POST', '/local/phones/reply', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response).toMatchObject({ status: 400, body: { error: 'The body must be a JSON object such as {"from":"+14155550100","body":"12a"}' } });
    }
    const malformed = await api.request('POST', '/local/phones/reply', { rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { error: 'Malformed JSON' } });
  });

  it("hands each send's receipt to sms-receipts: delivered, failed for a destination ending in 0000 (still kept)", async () => {
    const failing = phone('0000');
    const delivered = await smsChannel.send({ to: phone(), text: 'ok' });
    const failed = await smsChannel.send({ to: failing, text: 'to a dead phone' });
    const call = await voiceChannel.send({ to: failing, text: 'a call to a dead phone' });
    await api.runtime.idle();
    const receipts = () => jsonLines().filter((line) => line.message === 'receipt of a message the service does not know: ignored');
    const of = (id: string) => receipts().find((line) => line.message_id === id);
    await eventually(async () => receipts(), () => [delivered, failed, call].every(({ messageId }) => of(messageId) !== undefined));
    expect(of(delivered.messageId)).toMatchObject({ status: 'delivered', event_type: 'TEXT_DELIVERED' });
    expect(of(failed.messageId)).toMatchObject({ status: 'failed', event_type: 'TEXT_UNREACHABLE' });
    expect(of(call.messageId)).toMatchObject({ status: 'failed', event_type: 'VOICE_FAILED' });
    expect((await messages(failing)).map((message) => message.id)).toEqual([call.messageId, failed.messageId]);
    // The metrics AWS alarms on (issue 43 §5): every failed message, a page's or not (these name no
    // timeline entry), and each message's spend from its final receipt (the stand-in's price is 0).
    const metric = (name: string) => jsonLines().filter((line) => line._aws?.CloudWatchMetrics?.[0]?.Metrics?.some((m: { Name: string }) => m.Name === name));
    expect(metric('PhoneMessageFailed')).toHaveLength(2);
    expect(metric('PhoneMessageFailed')[0]).toMatchObject({ service: 'incident-service', PhoneMessageFailed: 1, _aws: { CloudWatchMetrics: [{ Namespace: 'IncidentService', Dimensions: [['service']], Metrics: [{ Name: 'PhoneMessageFailed', Unit: 'Count' }] }] } });
    // (One per receipt the worker took, this test's three and the earlier tests' sends.)
    expect(metric('PhoneSpendUSD')).toHaveLength(receipts().length);
    expect(receipts().length).toBeGreaterThanOrEqual(3);
    for (const line of metric('PhoneSpendUSD')) expect(line).toMatchObject({ service: 'incident-service', PhoneSpendUSD: 0, _aws: { CloudWatchMetrics: [{ Namespace: 'IncidentService', Dimensions: [['service']], Metrics: [{ Name: 'PhoneSpendUSD', Unit: 'None' }] }] } });
  });

  it('retries a failed sms-receipts invocation, as Lambda retries an asynchronous one', async () => {
    failNextDynamoCall(workers.smsReceipts.name);
    const sent = await smsChannel.send({ to: phone(), text: 'receipt on the second try' });
    await api.runtime.idle();
    const taken = await eventually(
      async () => jsonLines().filter((line) => line.message === 'receipt of a message the service does not know: ignored' && line.message_id === sent.messageId),
      (lines) => lines.length > 0,
    );
    expect(taken).toHaveLength(1);
    expect(jsonLines().filter((line) => line.message === 'invocation failed' && line.function_name === workers.smsReceipts.name)).toHaveLength(1);
  });

  it('empties the inbox on DELETE', async () => {
    await smsChannel.send({ to: phone(), text: 'gone soon' });
    expect((await api.request('DELETE', '/local/phones/messages')).status).toBe(200);
    expect(await messages()).toEqual([]);
  });
});
