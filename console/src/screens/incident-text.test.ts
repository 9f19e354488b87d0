import { describe, expect, it } from 'vitest';
import { describeNotification, escalatedText } from './incident-text.js';

describe('incident screen texts', () => {
  it('says who was paged how and whether it arrived', () => {
    expect(describeNotification({ channel: 'sms', user_name: 'Sam', address: '+1650•••0100', status: 'delivered' })).toBe('SMS to Sam (+1650•••0100): delivered');
    expect(describeNotification({ channel: 'voice', user_name: 'Sam', status: 'failed' })).toBe('Call to Sam: not delivered');
    expect(describeNotification({ channel: 'email', address: 'a@example.com' })).toBe('E-mail to a@example.com: sent, not yet confirmed');
    expect(escalatedText(2)).toBe('Escalating to step 2 now.');
  });
});
