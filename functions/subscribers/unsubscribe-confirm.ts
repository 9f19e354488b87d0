import { unsubscribeParams } from '../../shared/subscribers/model.js';
import { unsubscribe } from '../../shared/subscribers/service.js';
import { htmlPage, publicHtmlRoute } from '../lib/http.js';
import { linkNotValid, UNSUBSCRIBE_PAGE_ERRORS } from './unsubscribe-page.js';

/** The unsubscribe page's button: ends the subscription. */
export const handler = publicHtmlRoute(
  {
    summary: "Unsubscribe through an e-mail's link (public; the page's button; answers an HTML page)",
    params: unsubscribeParams,
    errors: UNSUBSCRIBE_PAGE_ERRORS,
    failure: 'Unsubscribing failed',
  },
  async ({ token }) => {
    const done = await unsubscribe(token);
    return done
      ? htmlPage(200, 'You are unsubscribed', `${done.email} will no longer receive incident notifications for ${done.monitorName}.`)
      : linkNotValid();
  },
);
