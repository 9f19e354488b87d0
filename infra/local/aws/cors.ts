/**
 * CORS as API Gateway (HTTP API) answers it with the system description's configuration
 * (`cors` in shared/system.ts, which the CDK stack gives API Gateway for its `corsOrigins`):
 * - a preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) is answered by the
 *   gateway itself, on any path, 204: from an allowed origin with the allowed origin, methods and
 *   headers and the max age; from any other origin with no CORS headers at all;
 * - any other request from an allowed origin gets `Access-Control-Allow-Origin` (that very origin,
 *   never `*`) and the exposed headers on its answer; from another origin, none.
 * Origins are compared exactly (scheme, host and port), as API Gateway compares them.
 * `Vary: Origin` goes on every answer to a request that names an origin: what it gets depends on it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { cors } from '../../../shared/system.js';

/** The origins allowed to call (exact `scheme://host:port`, no path). */
export type CorsOrigins = ReadonlySet<string>;

const allowMethods = cors.allowMethods.join(',');
const allowHeaders = cors.allowHeaders.join(',');
const exposeHeaders = cors.exposeHeaders.join(',');
const maxAge = String(cors.maxAgeSeconds);

export const isPreflight = (method: string, headers: IncomingHttpHeaders) => method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;

/** The headers of the gateway's answer to a preflight from `origin`. */
export function preflightHeaders(origin: string, allowed: CorsOrigins): Record<string, string> {
  if (!allowed.has(origin)) return { vary: 'origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': allowMethods,
    'access-control-allow-headers': allowHeaders,
    'access-control-max-age': maxAge,
    vary: 'origin',
  };
}

/** The headers added to any other answer to a request from `origin`. */
export function corsHeaders(origin: string, allowed: CorsOrigins): Record<string, string> {
  if (!allowed.has(origin)) return { vary: 'origin' };
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': exposeHeaders, vary: 'origin' };
}
