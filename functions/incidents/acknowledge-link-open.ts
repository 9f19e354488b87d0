import { acknowledgeLinkParams, inspectAcknowledgeLink } from '../../shared/incidents/acknowledge-link.js';
import { publicHtmlRoute } from '../lib/http.js';
import { acknowledgePage, LINK_PAGE_ERRORS } from './acknowledge-page.js';

/** Opening the link shows the incident and a button; it never acknowledges (mail scanners follow links). */
export const handler = publicHtmlRoute(
  {
    summary: "Open an escalation e-mail's acknowledge link (public; an HTML page with one button, which POSTs; never acknowledges)",
    params: acknowledgeLinkParams,
    errors: LINK_PAGE_ERRORS,
    failure: 'Opening the link failed',
  },
  async ({ token }) => acknowledgePage(await inspectAcknowledgeLink(token)),
);
