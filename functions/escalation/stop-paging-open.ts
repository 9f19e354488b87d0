import { unsubscribeParams } from '../../shared/subscribers/model.js';
import { inspectStopLink } from '../../shared/paging/outside.js';
import { publicHtmlRoute } from '../lib/http.js';
import { stopPagingPage, STOP_PAGING_PAGE_ERRORS } from './stop-paging-page.js';

/** Opening the link shows what it would stop and one button; it never stops anything (mail scanners follow links). */
export const handler = publicHtmlRoute(
  {
    summary: "Open a page's \"stop paging this address\" link (public; an HTML page with one button, which POSTs; never stops)",
    params: unsubscribeParams,
    errors: STOP_PAGING_PAGE_ERRORS,
    failure: 'Opening the link failed',
  },
  async ({ token }) => stopPagingPage(await inspectStopLink(token)),
);
