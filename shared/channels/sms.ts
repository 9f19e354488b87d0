/** The SMS channel: AWS End User Messaging SMS and Voice v2 `SendTextMessage`, TRANSACTIONAL, with a price ceiling. */
import { SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import { paced, type Channel, type OutgoingMessage } from './model.js';
import { channelAvailable } from './availability.js';
import { maskPhone, normalizePhone } from './phone.js';
import { contextOf, messageIdOf, sendSettings, smsVoiceClient } from './sms-voice.js';

export const smsChannel: Channel = {
  type: 'sms',
  normalizeAddress: normalizePhone,
  mask: maskPhone,
  available: () => channelAvailable('sms'),
  async send(message: OutgoingMessage) {
    const command = new SendTextMessageCommand({
      DestinationPhoneNumber: message.to,
      ...sendSettings(),
      MessageBody: message.text,
      // Pages and codes are time-critical: carriers route TRANSACTIONAL ahead of PROMOTIONAL.
      MessageType: 'TRANSACTIONAL',
      MaxPrice: requireEnv(env.smsMaxPrice),
      Context: contextOf(message.tags),
    });
    return messageIdOf(await paced(() => smsVoiceClient().send(command)), 'text message');
  },
};
