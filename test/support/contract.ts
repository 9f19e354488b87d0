/**
 * Every response the HTTP tests receive is checked against docs/openapi.json: the route and status
 * must be documented, and the body must match the documented schema for them. So the document
 * cannot drift from behaviour.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { matchRoute } from '../../infra/local/aws/routing.js';
import { repositoryRoot } from '../../infra/paths.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

const document = JSON.parse(readFileSync(join(repositoryRoot, 'docs', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: object;
};

const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
);

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// The components once, under the document's name: every response schema refers to them there, so each
// component is compiled once for the worker process (its files share it), not again inside every response's validator.
const COMPONENTS = 'openapi.json';
ajv.addSchema({ $id: COMPONENTS, components: document.components });
const validators = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${COMPONENTS}#/components/`)));
    validators.set(key, validate);
  }
  return validate;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/** Throws when a response of a documented route is not what docs/openapi.json says. */
export function checkContract(method: string, url: string, status: number, contentType: string | null, body: unknown) {
  const match = matchRoute(operations, method, new URL(url).pathname);
  if (!match) return; // not an API route (local sign-up, JWKS, the Lambda Invoke API)
  const { operation, path } = match.route;
  const response = operation.responses[String(status)];
  if (!response) throw new ContractViolation(`${method} ${path} answered ${status}, which docs/openapi.json does not list`);
  const mediaType = (contentType ?? '').split(';')[0]!.trim();
  const media = response.content?.[mediaType];
  if (!media) throw new ContractViolation(`${method} ${path} ${status} answered ${mediaType || 'no content type'}, not documented`);
  if (mediaType !== 'application/json' || !media.schema) return;
  const validate = validatorFor(`${method} ${path} ${status}`, media.schema);
  if (!validate(body)) {
    throw new ContractViolation(
      `${method} ${path} ${status} does not match docs/openapi.json: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 1000)}`,
    );
  }
}

const webhooks = (document as unknown as { webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }> }).webhooks;

/** Throws when a webhook body of `type` is not what docs/openapi.json's `webhooks` section says it is. */
export function checkWebhookBody(type: string, body: unknown) {
  const operation = webhooks[type];
  if (!operation) throw new ContractViolation(`docs/openapi.json documents no webhook ${type}`);
  const validate = validatorFor(`webhook ${type}`, operation.post.requestBody.content['application/json'].schema);
  if (!validate(body)) throw new ContractViolation(`webhook ${type} does not match docs/openapi.json: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 1000)}`);
}
