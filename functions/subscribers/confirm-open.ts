import { confirmParams } from '../../shared/subscribers/model.js';
import { inspectConfirmation } from '../../shared/subscribers/confirmation.js';
import { publicHtmlRoute } from '../lib/http.js';
import { confirmPage, CONFIRM_PAGE_ERRORS } from './confirm-page.js';

/** Opening the link shows what it would confirm and one button; it never confirms (mail scanners follow links). */
export const handler = publicHtmlRoute(
  {
    summary: "Open a subscription's confirmation link (public; an HTML page with one button, which POSTs; never confirms)",
    params: confirmParams,
    errors: CONFIRM_PAGE_ERRORS,
    failure: 'Opening the link failed',
  },
  async ({ token }) => confirmPage(await inspectConfirmation(token)),
);
