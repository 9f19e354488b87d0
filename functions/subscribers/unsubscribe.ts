import { unsubscribeParams } from '../../shared/subscribers/model.js';
import { unsubscribe } from '../../shared/subscribers/service.js';
import { htmlPage, publicHtmlRoute } from '../lib/http.js';

export const handler = publicHtmlRoute(
  {
    summary: 'Follow an unsubscribe link (public; answers an HTML page)',
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
