/**
 * `npm run token -- --email a@example.com --name "Alice"`: signs the user up with the running
 * local runtime (same e-mail → same user) and prints a fresh 24-hour token.
 */
import { parseArgs } from 'node:util';
import { runtimeUrl, usage } from './running.js';

const USAGE = 'npm run token -- --email a@example.com [--name "Alice"]';

let values: { email?: string; name?: string };
try {
  ({ values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } } }));
} catch (error) {
  usage(USAGE, `${(error as Error).message}${process.env.npm_config_email ? ' (put -- between npm run token and its options)' : ''}`);
}
if (!values.email) usage(USAGE, process.env.npm_config_email ? 'Put -- between npm run token and its options.' : undefined);

const url = runtimeUrl();
try {
  const response = await fetch(`${url}/local/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: values.email, name: values.name ?? values.email.split('@')[0] }),
  });
  const body = (await response.json()) as { token?: string; error?: string; details?: unknown };
  if (!response.ok || !body.token) {
    console.error(`Sign-up failed (${response.status}): ${JSON.stringify(body)}`);
    process.exit(1);
  }
  console.log(body.token);
} catch {
  console.error(`The local runtime is not running at ${url}; start it with npm start.`);
  process.exit(1);
}
