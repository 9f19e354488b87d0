/** The pages of a subscription's confirmation link (`shared/subscribers/confirmation.ts`), one per state. */
import type { ConfirmationState } from '../../shared/subscribers/confirmation.js';
import { htmlPage, type ErrorTexts, type HttpResult } from '../lib/http.js';

/** The pages besides 200 that both link routes answer (documented in the OpenAPI document). */
export const CONFIRM_PAGE_ERRORS: ErrorTexts = {
  404: ['This link is not valid'],
  410: ['This link was already used', 'This link has expired'],
};

/** 200 for a link that confirms (or just did), 410 for one that no longer does, 404 for one that never existed or whose subscription is gone. */
export function confirmPage(confirmation: ConfirmationState): HttpResult {
  switch (confirmation.state) {
    case 'unknown':
      return htmlPage(404, 'This link is not valid', 'There is no such subscription to confirm: it was removed, or the link is incomplete.');
    case 'valid':
      return htmlPage(
        200,
        `Confirm your subscription to ${confirmation.link.monitor_name}?`,
        `${confirmation.link.email} will receive incident notifications for ${confirmation.link.monitor_name}.`,
        { button: 'Confirm the subscription' },
      );
    case 'confirmed':
      return htmlPage(200, 'Subscription confirmed', `${confirmation.link.email} will receive incident notifications for ${confirmation.link.monitor_name}.`);
    case 'used':
      return htmlPage(410, 'This link was already used', `The subscription of ${confirmation.link.email} to ${confirmation.link.monitor_name} was confirmed with it.`);
    case 'expired':
      return htmlPage(410, 'This link has expired', 'Confirmation links work for 7 days. Ask whoever subscribed you to remove the subscription and add it again.');
  }
}
