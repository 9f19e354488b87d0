import { unsubscribeParams } from '../../shared/subscribers/model.js';
import { inspectUnsubscribe } from '../../shared/subscribers/service.js';
import { htmlPage, publicHtmlRoute } from '../lib/http.js';
import { linkNotValid, UNSUBSCRIBE_PAGE_ERRORS } from './unsubscribe-page.js';

/** Opening the link shows what it would end and one button; it never unsubscribes (mail scanners follow links). */
export const handler = publicHtmlRoute(
  {
    summary: 'Open an unsubscribe link (public; an HTML page with one button, which POSTs; never unsubscribes)',
    params: unsubscribeParams,
    errors: UNSUBSCRIBE_PAGE_ERRORS,
    failure: 'Opening the link failed',
  },
  async ({ token }) => {
    const found = await inspectUnsubscribe(token);
    return found
      ? htmlPage(200, `Unsubscribe from ${found.monitorName}?`, `${found.email} will no longer receive incident notifications for ${found.monitorName}.`, { button: 'Unsubscribe' })
      : linkNotValid();
  },
);
