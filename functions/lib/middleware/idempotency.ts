/**
 * Idempotency-Key: runs a creating route once per key (when the request has one); a repeat with the
 * same key and request gets the first success again, marked `Idempotent-Replayed: true`. Only a
 * success is kept, the one answer a retry could never change (what it created exists); a refusal
 * (404, 403, 400, 409, 429: each depends on what exists, who belongs where or what is left of a
 * quota) and an unexpected failure give the key up, so a retry runs again.
 *
 * It wraps the route's domain call rather than being a middy middleware with a `before`: middy skips
 * every `after` when a `before` answers early, and a replayed answer still gets its log line and
 * `x-request-id` from the middlewares around it.
 */
import type { Caller } from '../../../shared/platform/caller.js';
import { claim, complete, parseIdempotencyKey, release, requestFingerprint } from '../../../shared/platform/idempotency/service.js';
import type { HttpEvent, HttpResult } from './types.js';

/** `body` is the validated body (the request's fingerprint, with route and path); `run` the route's domain call and response. */
export async function idempotently(event: HttpEvent, caller: Caller, body: unknown, run: () => Promise<HttpResult>): Promise<HttpResult> {
  const key = parseIdempotencyKey(event.headers?.['idempotency-key']);
  if (key === undefined) return run();
  const outcome = await claim(caller.userId, key, requestFingerprint(event.routeKey, event.rawPath, body));
  if (!outcome.run) {
    return { statusCode: outcome.answer.status, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' }, body: outcome.answer.body };
  }
  let response: HttpResult;
  try {
    response = await run();
  } catch (error) {
    await release(outcome.held);
    throw error;
  }
  const status = response.statusCode ?? 200;
  if (status >= 200 && status < 300) await complete(outcome.held, { status, body: String(response.body ?? '') });
  else await release(outcome.held);
  return response;
}
