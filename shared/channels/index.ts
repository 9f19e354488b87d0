/**
 * `channelFor(type)`: the channel of a contact method's type (issue 43 §1): e-mail through SES; SMS and
 * voice through End User Messaging SMS and Voice v2, available where an origination identity is
 * configured (`SMS_ORIGINATION_IDENTITY`).
 */
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { env } from '../system.js';
import { sandboxClient } from '../platform/aws-client.js';
import { requireEnv } from '../platform/config.js';
import type { Channel, ChannelType, OutgoingMessage } from './model.js';
import { smsChannel } from './sms.js';
import { voiceChannel } from './voice.js';

export type { Channel, ChannelType, OutgoingMessage } from './model.js';
export { maskPhone, normalizePhone } from './phone.js';

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

const channels: Record<ChannelType, Channel> = { email, sms: smsChannel, voice: voiceChannel };

export const channelFor = (type: ChannelType): Channel => channels[type];
