import { confirmParams } from '../../shared/subscribers/model.js';
import { confirmSubscription } from '../../shared/subscribers/confirmation.js';
import { publicHtmlRoute } from '../lib/http.js';
import { confirmPage, CONFIRM_PAGE_ERRORS } from './confirm-page.js';

/** The confirmation page's button: confirms the subscription (double opt-in), once. */
export const handler = publicHtmlRoute(
  {
    summary: "Confirm a subscription through its e-mail's link (public; the page's button; answers an HTML page)",
    params: confirmParams,
    errors: CONFIRM_PAGE_ERRORS,
    failure: 'Confirming failed',
  },
  async ({ token }) => confirmPage(await confirmSubscription(token)),
);
