/**
 * `npm run invoke -- <function> [payload.json]`: invokes a function of the running local runtime
 * through its Lambda Invoke API (as `aws lambda invoke --endpoint-url` would) and prints the result.
 * Exits 1 when the function fails or answers `ok: false`, 2 for a usage mistake.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runtimeUrl, usage } from './running.js';

const USAGE = 'npm run invoke -- <function-name> [payload.json]   (e.g. monitor-check check.json)';

let positionals: string[];
try {
  ({ positionals } = parseArgs({ allowPositionals: true, options: {} }));
} catch (error) {
  usage(USAGE, (error as Error).message);
}
const [name, file, ...extra] = positionals;
if (!name || extra.length > 0) usage(USAGE);
let payload = '{}';
if (file) {
  try {
    payload = readFileSync(file, 'utf8');
  } catch (error) {
    usage(USAGE, `Cannot read the payload file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const url = runtimeUrl();
let response: Response;
try {
  response = await fetch(`${url}/2015-03-31/functions/${encodeURIComponent(name)}/invocations`, { method: 'POST', body: payload });
} catch {
  console.error(`The local runtime is not running at ${url}; start it with npm start.`);
  process.exit(1);
}
const text = await response.text();
console.log(text);
let answeredNotOk = false;
try {
  const result = JSON.parse(text) as { ok?: unknown } | null;
  answeredNotOk = typeof result === 'object' && result !== null && result.ok === false;
} catch {
  // not JSON: the status says how it went
}
process.exit(response.ok && !response.headers.get('x-amz-function-error') && !answeredNotOk ? 0 : 1);
