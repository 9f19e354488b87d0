/**
 * A contact method's verification code (issue 43 §2), sent through the method itself, once per event:
 * e-mail as an e-mail, SMS as a text, voice as a call that reads the digits twice. Nothing else is
 * ever sent to a method before it is verified.
 */
import type { EventDetail } from '../platform/events/model.js';
import { channelFor } from '../channels/index.js';
import { deliverOnce } from './delivery.js';
import { verificationEmail, verificationText } from './emails.js';

export async function sendVerificationCode(detail: EventDetail<'contact_method.verification_requested'>): Promise<'sent' | 'duplicate'> {
  const { type, address, id } = detail.contact_method;
  if (type === 'email') return deliverOnce(detail.event_id, channelFor('email'), verificationEmail(detail));
  const spoken = detail.code.split('').join(' ');
  const text = type === 'voice' ? `${verificationText(spoken)}. Again: ${spoken}.` : verificationText(detail.code);
  return deliverOnce(detail.event_id, channelFor(type), { to: address, text, tags: { kind: 'verification', contact_method: id } });
}
