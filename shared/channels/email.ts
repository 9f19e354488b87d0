/** The e-mail channel: SES, through the service's configuration set (bounces and complaints come back tagged). */
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { env } from '../system.js';
import { sandboxClient } from '../platform/aws-client.js';
import { requireEnv } from '../platform/config.js';
import { paced, type Channel, type OutgoingMessage } from './model.js';

/** The SES client, created once per cold start. */
export const sesClient = sandboxClient(() => new SESClient({}));

/** The shape the API accepts everywhere (zod's e-mail check is the 400's; this is the channel's own guard). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const sendCommand = (message: OutgoingMessage) =>
  new SendEmailCommand({
    Source: requireEnv(env.senderEmail),
    Destination: { ToAddresses: [message.to] },
    // Bounces and complaints come back through the configuration set, tagged with what the e-mail was about.
    ConfigurationSetName: requireEnv(env.sesConfigurationSet),
    Tags: Object.entries(message.tags ?? {}).map(([Name, Value]) => ({ Name, Value })),
    Message: {
      Subject: { Data: message.subject ?? '', Charset: 'UTF-8' },
      Body: { Text: { Data: message.text, Charset: 'UTF-8' }, ...(message.html ? { Html: { Data: message.html, Charset: 'UTF-8' } } : {}) },
    },
  });

export const emailChannel: Channel = {
  type: 'email',
  normalizeAddress: (raw) => (EMAIL.test(raw.trim()) ? { address: raw.trim() } : { error: 'Invalid e-mail address' }),
  /** `a•••@example.com`: the first character of the local part, the domain. */
  mask: (address) => {
    const at = address.lastIndexOf('@');
    return at <= 0 ? '•••' : `${address[0]}•••${address.slice(at)}`;
  },
  available: () => true,
  send: async (message) => {
    const sent = await paced(() => sesClient().send(sendCommand(message)));
    return { messageId: sent.MessageId ?? '' };
  },
};
