import { unsubscribeParams } from '../../shared/subscribers/model.js';
import { unsubscribe } from '../../shared/subscribers/service.js';
import { htmlPage, publicHtmlRoute } from '../lib/http.js';

/** The unsubscribe page's button: ends the subscription. */
export const handler = publicHtmlRoute(
  {
    summary: "Unsubscribe through an e-mail's link (public; the page's button; answers an HTML page)",
    params: unsubscribeParams,
    errors: { 404: ['This link is not valid'] },
    failure: 'Unsubscribing failed',
  },
  async ({ token }) => {
    const done = await unsubscribe(token);
    return done
      ? htmlPage(200, 'You are unsubscribed', `${done.email} will no longer receive incident notifications for ${done.monitorName}.`)
      : htmlPage(404, 'This link is not valid', 'The subscription was already removed, or the link is incomplete.');
  },
);
