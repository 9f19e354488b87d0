/** The pages of an acknowledge link: one per state of the link (`shared/incidents/acknowledge-link.ts`). */
import type { Acknowledgement } from '../../shared/incidents/model.js';
import { incidentFacts } from '../../shared/notifications/emails.js';
import type { LinkState } from '../../shared/incidents/acknowledge-link.js';
import { htmlPage, type ErrorTexts, type HttpResult } from '../lib/http.js';
import { consoleOrigin } from '../../shared/platform/console-links.js';

/** The incident's page in the console (issue 44), where there is one. */
const inConsole = (incidentId: string) => {
  const origin = consoleOrigin();
  return origin ? { link: { href: `${origin}/incidents/${incidentId}`, label: 'View the incident in the console' } } : {};
};

const by = (acknowledgement: Acknowledgement | undefined) =>
  acknowledgement ? ` by ${acknowledgement.user_name} at ${acknowledgement.acknowledged_at} (${acknowledgement.method})` : '';

/** The pages besides 200 that both link routes answer (documented in the OpenAPI document). */
export const LINK_PAGE_ERRORS: ErrorTexts = {
  404: ['This link is not valid'],
  410: ['This link was already used', 'The incident is already acknowledged', 'The incident is resolved', 'This link has expired'],
};

/** 200 for a link that acknowledges (or just did), 410 for one that no longer does, 404 for one that never existed. */
export function acknowledgePage(link: LinkState): HttpResult {
  switch (link.state) {
    case 'unknown':
      return htmlPage(404, 'This link is not valid', 'There is no acknowledge link like this one. Check that you opened the whole link from the e-mail.');
    case 'valid':
      return htmlPage(200, `Acknowledge: ${link.incident.title}`, `You were paged by escalation step ${link.stepOrder} (${link.recipient}). Acknowledging stops further escalation for everyone.`, {
        facts: incidentFacts(link.incident),
        button: 'Acknowledge the incident',
      });
    case 'acknowledged':
      return htmlPage(200, 'Incident acknowledged', `Acknowledged${by(link.acknowledgement)}. Further escalation is stopped.`, { facts: incidentFacts(link.incident), ...inConsole(link.incident.id) });
    case 'used':
      return htmlPage(410, 'This link was already used', `The incident was acknowledged${by(link.acknowledgement)}.`, { facts: incidentFacts(link.incident) });
    case 'already_acknowledged':
      return htmlPage(410, 'The incident is already acknowledged', `It was acknowledged${by(link.acknowledgement)}; this link no longer works.`, { facts: incidentFacts(link.incident) });
    case 'resolved':
      return htmlPage(410, 'The incident is resolved', `It was resolved at ${link.incident.resolved_at ?? link.incident.last_resolved_at} after this page was sent; this link no longer works.`, {
        facts: incidentFacts(link.incident),
      });
    case 'expired':
      return htmlPage(410, 'This link has expired', 'Acknowledge links work for 24 hours. Acknowledge the incident in the dashboard or through the API instead.', { facts: incidentFacts(link.incident) });
  }
}
