/**
 * `npm run token -- --email a@example.com --name "Alice"`: signs the user up with the running
 * local runtime (same e-mail → same user) and prints a fresh 24-hour token.
 */
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } } });
const port = Number(process.env.PORT ?? 3000);
const url = `http://localhost:${port}/local/users`;

if (!values.email) {
  console.error('Usage: npm run token -- --email a@example.com [--name "Alice"]');
  process.exit(2);
}

try {
  const response = await fetch(url, {
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
  console.error(`The local runtime is not running at http://localhost:${port}; start it with npm start.`);
  process.exit(1);
}
