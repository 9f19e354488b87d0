import { acknowledgeByLink, acknowledgeLinkParams } from '../../shared/incidents/acknowledge-link.js';
import { publicHtmlRoute } from '../lib/http.js';
import { acknowledgePage } from './acknowledge-page.js';

/** The acknowledge page's button: acknowledges as the recipient (method `email`), once. */
export const handler = publicHtmlRoute(
  {
    summary: "Acknowledge through an escalation e-mail's link (public; the page's button; answers an HTML page)",
    params: acknowledgeLinkParams,
    errors: {
      404: ['This link is not valid'],
      410: ['This link was already used', 'The incident is already acknowledged', 'The incident is resolved', 'This link has expired'],
    },
    failure: 'Acknowledging failed',
  },
  async ({ token }) => acknowledgePage(await acknowledgeByLink(token)),
);
