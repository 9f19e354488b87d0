/**
 * `npm run invoke -- <function> <payload.json>`: invokes a function of the running local runtime
 * through its Lambda Invoke API (as `aws lambda invoke --endpoint-url` would) and prints the result.
 */
import { readFileSync } from 'node:fs';

const [name, file] = process.argv.slice(2);
const port = Number(process.env.PORT ?? 3000);
if (!name) {
  console.error('Usage: npm run invoke -- <function-name> [payload.json]   (e.g. monitor-check check.json)');
  process.exit(2);
}
const payload = file ? readFileSync(file, 'utf8') : '{}';
try {
  const response = await fetch(`http://localhost:${port}/2015-03-31/functions/${encodeURIComponent(name)}/invocations`, {
    method: 'POST',
    body: payload,
  });
  const text = await response.text();
  const failed = response.headers.get('x-amz-function-error');
  console.log(text);
  process.exit(response.ok && !failed ? 0 : 1);
} catch {
  console.error(`The local runtime is not running at http://localhost:${port}; start it with npm start.`);
  process.exit(1);
}
