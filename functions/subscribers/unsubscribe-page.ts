/** The pages of an unsubscribe link that both its routes answer. */
import { htmlPage } from '../lib/http.js';

export const UNSUBSCRIBE_PAGE_ERRORS = { 404: ['This link is not valid'] };

/** A token with no subscription behind it (already unsubscribed, or an incomplete link). */
export const linkNotValid = () => htmlPage(404, 'This link is not valid', 'The subscription was already removed, or the link is incomplete.');
