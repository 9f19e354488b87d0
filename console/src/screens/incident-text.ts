/** Words of the incident screen that need no DOM (pure: tested beside it). */
const CHANNELS: Record<string, string> = { email: 'E-mail', sms: 'SMS', voice: 'Call' };
const STATUSES: Record<string, string> = { sent: 'sent, not yet confirmed', delivered: 'delivered', failed: 'not delivered' };

/** A `notification` entry: who was paged how, and whether it arrived. */
export function describeNotification(details: { channel?: string | null; user_name?: string | null; address?: string | null; status?: string | null }): string {
  const channel = CHANNELS[details.channel ?? ''] ?? 'Notification';
  const who = details.user_name ? `${details.user_name}${details.address ? ` (${details.address})` : ''}` : (details.address ?? 'someone');
  return `${channel} to ${who}: ${STATUSES[details.status ?? 'sent'] ?? details.status}`;
}

export const escalatedText = (stepOrder: number) => `Escalating to step ${stepOrder} now.`;
