/**
 * Links into the web console (issue 44): where the incident links of Slack messages and e-mails
 * point. The console's origin is the functions' `CONSOLE_URL` (shared/system.ts `env.consoleUrl`):
 * set locally by the runtime from its console origin, on AWS by the stack from the `consoleUrl`
 * context. The stack sets it empty, and says so at synth, for a deployment without a console: the
 * links are then the JSON API's, as before the console. Unset is a misconfiguration, and fails.
 */
import { env } from '../system.js';
import { requireEnv } from './config.js';

const trimmed = (url: string) => url.replace(/\/+$/, '');

/** The console's origin, or undefined for a deployment without a console. */
export function consoleOrigin(): string | undefined {
  const value = process.env[env.consoleUrl];
  if (value === undefined) throw new Error(`Missing required environment variable ${env.consoleUrl}`);
  return value === '' ? undefined : trimmed(value);
}

/** The incident's page: the console's `/incidents/<id>`, or (no console deployed) the API's JSON. */
export function incidentLink(incidentId: string): string {
  const origin = consoleOrigin();
  return origin ? `${origin}/incidents/${incidentId}` : `${trimmed(requireEnv(env.publicApiUrl))}/api/incidents/${incidentId}`;
}
