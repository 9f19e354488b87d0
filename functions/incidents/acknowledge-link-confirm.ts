import { acknowledgeByLink, acknowledgeLinkParams } from '../../shared/incidents/acknowledge-link.js';
import { publicHtmlRoute } from '../lib/http.js';
import { acknowledgePage, LINK_PAGE_ERRORS } from './acknowledge-page.js';

/** The acknowledge page's button: acknowledges as the recipient (method `email`), once. */
export const handler = publicHtmlRoute(
  {
    summary: "Acknowledge through an escalation e-mail's link (public; the page's button; answers an HTML page)",
    params: acknowledgeLinkParams,
    errors: LINK_PAGE_ERRORS,
    failure: 'Acknowledging failed',
  },
  async ({ token }) => acknowledgePage(await acknowledgeByLink(token)),
);
