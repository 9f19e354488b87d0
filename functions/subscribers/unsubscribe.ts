import { unsubscribeParams } from '../../shared/subscribers/model.js';
import { inspectUnsubscribe } from '../../shared/subscribers/service.js';
import { htmlPage, publicHtmlRoute } from '../lib/http.js';

/** Opening the link shows what it would end and one button; it never unsubscribes (mail scanners follow links). */
export const handler = publicHtmlRoute(
  {
    summary: 'Open an unsubscribe link (public; an HTML page with one button, which POSTs; never unsubscribes)',
    params: unsubscribeParams,
    errors: { 404: ['This link is not valid'] },
    failure: 'Opening the link failed',
  },
  async ({ token }) => {
    const found = await inspectUnsubscribe(token);
    return found
      ? htmlPage(200, `Unsubscribe from ${found.monitorName}?`, `${found.email} will no longer receive incident notifications for ${found.monitorName}.`, { button: 'Unsubscribe' })
      : htmlPage(404, 'This link is not valid', 'The subscription was already removed, or the link is incomplete.');
  },
);
