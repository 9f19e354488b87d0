/**
 * `channelFor(type)`: the channel of a contact method's type. A minimal stand-in for the seam (issue 43
 * §1; the seam's own `email.ts`, `sms.ts`, `voice.ts` replace it): e-mail through SES; SMS and voice
 * available only where an origination identity is configured (`SMS_ORIGINATION_IDENTITY`), and not yet
 * sending here.
 */
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { env } from '../system.js';
import { sandboxClient } from '../platform/aws-client.js';
import { requireEnv } from '../platform/config.js';
import type { Channel, ChannelType, OutgoingMessage } from './model.js';

export type { Channel, ChannelType, OutgoingMessage } from './model.js';

/** `+` then 8–15 digits, the first 1–9 (E.164). */
const E164 = /^\+[1-9]\d{7,14}$/;
/** What people type around a number's digits: spaces, dashes, dots, parentheses. */
const PHONE_PUNCTUATION = /[\s().-]/g;

export function normalizePhone(raw: string): { address: string } | { error: string } {
  const address = raw.replace(PHONE_PUNCTUATION, '');
  return E164.test(address) ? { address } : { error: 'Must be a phone number in E.164 form: + then 8–15 digits (e.g. +14155550100)' };
}

export const maskPhone = (address: string) => `${address.slice(0, 2)}•••${address.slice(-4)}`;

const sesClient = sandboxClient(() => new SESClient({}));

const email: Channel = {
  type: 'email',
  normalizeAddress: (raw) => ({ address: raw.trim() }),
  mask: (address) => `${address.slice(0, 1)}•••${address.slice(address.indexOf('@'))}`,
  available: () => true,
  async send(message: OutgoingMessage) {
    const sent = await sesClient().send(
      new SendEmailCommand({
        Source: requireEnv(env.senderEmail),
        Destination: { ToAddresses: [message.to] },
        ConfigurationSetName: requireEnv(env.sesConfigurationSet),
        Tags: Object.entries(message.tags ?? {}).map(([Name, Value]) => ({ Name, Value })),
        Message: {
          Subject: { Data: message.subject ?? '', Charset: 'UTF-8' },
          Body: { Text: { Data: message.text, Charset: 'UTF-8' }, ...(message.html ? { Html: { Data: message.html, Charset: 'UTF-8' } } : {}) },
        },
      }),
    );
    return { messageId: sent.MessageId ?? '' };
  },
};

/** What SMS and voice share: E.164 numbers, masked; available where an origination identity is configured. */
const phoneChannel = {
  normalizeAddress: normalizePhone,
  mask: maskPhone,
  available: () => Boolean(process.env[env.smsOriginationIdentity]),
};

const sms: Channel = {
  ...phoneChannel,
  type: 'sms',
  async send() {
    throw new Error('Sending by SMS is not built into this version yet');
  },
};

const voice: Channel = {
  ...phoneChannel,
  type: 'voice',
  async send() {
    throw new Error('Sending by voice is not built into this version yet');
  },
};

const channels: Record<ChannelType, Channel> = { email, sms, voice };

export const channelFor = (type: ChannelType): Channel => channels[type];
