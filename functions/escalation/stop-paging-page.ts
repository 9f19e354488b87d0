/** The pages of a "stop paging this address" link (`shared/paging/outside.ts`), one per state. */
import type { StopLinkState } from '../../shared/paging/outside.js';
import { htmlPage, type ErrorTexts, type HttpResult } from '../lib/http.js';

/** The pages besides 200 that both link routes answer (documented in the OpenAPI document). */
export const STOP_PAGING_PAGE_ERRORS: ErrorTexts = {
  404: ['This link is not valid'],
  410: ['This link has expired'],
};

/** 200 for a link that stops pages (or just did), 410 for an expired one, 404 for one that never existed. */
export function stopPagingPage(stop: StopLinkState): HttpResult {
  switch (stop.state) {
    case 'unknown':
      return htmlPage(404, 'This link is not valid', 'There is no such link: it is incomplete, or too old to be kept.');
    case 'expired':
      return htmlPage(410, 'This link has expired', 'Stop links work for 90 days. The link in any newer page from the same account works too.');
    case 'valid':
      return htmlPage(
        200,
        `Stop paging ${stop.link.email}?`,
        `${stop.link.email} is named as an escalation target by the account that owns ${stop.link.monitor_name}. Once stopped, that account can no longer page this address.`,
        { button: 'Stop paging this address' },
      );
    case 'stopped':
      return htmlPage(200, 'Paging stopped', `${stop.link.email} will receive no more pages from the account that owns ${stop.link.monitor_name}.`);
  }
}
