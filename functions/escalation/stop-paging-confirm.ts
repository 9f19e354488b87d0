import { unsubscribeParams } from '../../shared/subscribers/model.js';
import { stopPaging } from '../../shared/paging/outside.js';
import { publicHtmlRoute } from '../lib/http.js';
import { stopPagingPage, STOP_PAGING_PAGE_ERRORS } from './stop-paging-page.js';

/** The stop page's button: the sending account may no longer page the address (any number of clicks). */
export const handler = publicHtmlRoute(
  {
    summary: "Stop an account's pages to an address through its page's link (public; the page's button; answers an HTML page)",
    params: unsubscribeParams,
    errors: STOP_PAGING_PAGE_ERRORS,
    failure: 'Stopping failed',
  },
  async ({ token }) => stopPagingPage(await stopPaging(token)),
);
