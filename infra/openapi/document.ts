/**
 * The OpenAPI 3.1 document, generated — never hand-written — from the route table and the zod
 * schemas each handler validates with and answers (their `contract`), plus the error texts of
 * the interface document. `npm run openapi` writes it to docs/openapi.json.
 */
import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { FieldError } from '../../shared/api/common.js';
import { monitorCheckInput } from '../../shared/monitors/check.js';
import type { RouteContract } from '../../functions/lib/http.js';
import { repositoryRoot } from '../local/paths.js';
import { routes, type RouteDescription } from '../system.js';

// `registry.register` needs `.openapi()` on schemas (the rest reads zod's own `.meta`).
extendZodWithOpenApi(z);

const ValidationError = z
  .object({ error: z.literal('Validation errors'), details: z.array(FieldError) })
  .meta({ id: 'ValidationError', description: 'The request does not match the schema; one entry per problem' });

const Unauthorized = z
  .union([
    z.strictObject({ message: z.literal('Unauthorized') }).meta({ description: 'From the JWT authorizer: missing, invalid or expired token' }),
    z.strictObject({ error: z.literal('Unauthorized') }).meta({ description: 'A verified token without a subject' }),
  ])
  .meta({ id: 'Unauthorized' });

const errorBody = (texts: string[]) => z.strictObject({ error: z.enum(texts as [string, ...string[]]) });

const ServerError = (failure: string) =>
  z.strictObject({
    error: z.literal(failure),
    request_id: z.string().meta({ description: 'Quote it when reporting the problem' }),
  });

const MonitorCheckResult = z
  .union([
    z.strictObject({
      ok: z.literal(true),
      outcome: z.enum(['below_threshold', 'incident_opened', 'incident_already_open', 'incident_resolved', 'no_open_incident']),
      incident_id: z.uuid().optional(),
    }),
    z.strictObject({ ok: z.literal(false), error: z.string(), details: z.array(FieldError).optional() }),
  ])
  .meta({ id: 'MonitorCheckResult', description: 'What the monitor-check function answers' });

const IdempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x20-\x7E]{1,255}$/)
    .optional()
    .meta({
      description:
        'Makes a retry safe: a repeat with the same key and the same request within 24 hours gets the first answer (status and body, with `Idempotent-Replayed: true`) and creates nothing. Scoped to the caller; 1–255 printable ASCII characters.',
      example: 'c1d2e3f4-retry-safe-key',
    }),
});

const TAGS: Record<string, string> = {
  incidents: 'Incidents',
  monitors: 'Monitors',
  teams: 'Teams',
  policies: 'Escalation policies',
  subscribers: 'Subscribers',
  unsubscribe: 'Subscribers',
  acknowledge: 'Incidents',
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  Incidents: 'Disruptions of a monitored target: status flow, severity, acknowledgement. Scoped to the caller\'s monitors.',
  Monitors: 'The incident-relevant part of a monitor: name, failure threshold, escalation policy.',
  Teams: 'Teams, roles (OWNER, ADMIN, MEMBER, VIEWER) and e-mail invitations with 7-day tokens.',
  'Escalation policies': 'Who is paged, and when, while an automatic incident stays unacknowledged.',
  Subscribers: 'Status-page subscribers of a monitor, e-mailed on new, updated and resolved incidents.',
};

const operationId = (name: string) => name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

const hasKeys = (schema: z.ZodType | undefined): schema is z.ZodObject =>
  schema instanceof z.ZodObject && Object.keys(schema.shape).length > 0;

async function contractOf(route: RouteDescription): Promise<RouteContract> {
  const module = (await import(pathToFileURL(join(repositoryRoot, route.handler)).href)) as { handler: { contract?: RouteContract } };
  if (!module.handler.contract) throw new Error(`${route.handler} declares no contract`);
  return module.handler.contract;
}

function responsesOf(route: RouteDescription, contract: RouteContract): Record<string, ResponseConfig> {
  const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
  const responses: Record<string, ResponseConfig> = {
    [contract.status]: {
      description: contract.contentType === 'text/html' ? 'An HTML page' : 'Success',
      content: { [contract.contentType]: { schema: contract.response } },
      ...(contract.paged
        ? {
            headers: {
              Link: {
                description: 'RFC 8288 link to the next page (`<…?cursor=…>; rel="next"`), present when next_cursor is not null',
                schema: { type: 'string' },
              },
            },
          }
        : {}),
    },
  };
  if (contract.contentType === 'text/html') {
    const page = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });
    responses[400] = page('An HTML page: the link is malformed');
    for (const [status, texts] of Object.entries(contract.errors)) responses[status] = page(`An HTML page: ${texts.join('; ')}`);
    responses[500] = page('An HTML page: try again in a moment');
    return responses;
  }
  const { 400: bad = [], 403: forbidden, 404: missing } = contract.errors;
  responses[400] = {
    description: ['Validation errors', ...bad].join('; '),
    content: json(bad.length ? z.union([ValidationError, errorBody(bad)]) : ValidationError),
  };
  if (route.auth === 'jwt') responses[401] = { description: 'Unauthorized', content: json(Unauthorized) };
  if (forbidden?.length) responses[403] = { description: forbidden.join('; '), content: json(errorBody(forbidden)) };
  if (missing?.length) responses[404] = { description: missing.join('; '), content: json(errorBody(missing)) };
  if (contract.idempotent) {
    responses[409] = {
      description: 'Request with this idempotency key is in progress (the first request with the key has not answered within 5 s)',
      content: json(errorBody(['Request with this idempotency key is in progress'])),
    };
    responses[422] = {
      description: 'Idempotency key reused with a different request (another route, path or body)',
      content: json(errorBody(['Idempotency key reused with a different request'])),
    };
    const success = responses[contract.status]!;
    success.headers = {
      ...(success.headers as object),
      'Idempotent-Replayed': {
        description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key (nothing was created again)',
        schema: { type: 'string', enum: ['true'] },
      },
    };
  }
  if (contract.body) {
    responses[413] = { description: 'Request body over 64 KiB', content: json(z.strictObject({ error: z.string() })) };
    responses[415] = { description: 'A body that is not JSON', content: json(z.strictObject({ error: z.literal('Content-Type must be application/json') })) };
  }
  responses[500] = { description: contract.failure, content: json(ServerError(contract.failure)) };
  return responses;
}

export async function buildDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An RS256 JWT from the service\'s issuer (Cognito ID token on AWS; `POST /local/users` locally).',
  });
  registry.register('MonitorCheckPayload', monitorCheckInput.meta({ id: 'MonitorCheckPayload', description: 'What the monitoring system sends to the monitor-check function' }));
  registry.register('MonitorCheckResult', MonitorCheckResult);

  for (const route of routes) {
    const contract = await contractOf(route);
    const body = contract.body;
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete',
      path: route.path,
      operationId: operationId(route.name),
      summary: contract.summary,
      tags: [TAGS[route.name.split('-')[0]!] ?? 'Other'],
      security: route.auth === 'jwt' ? [{ bearerAuth: [] }] : [],
      request: {
        ...(contract.idempotent ? { headers: IdempotencyHeader } : {}),
        ...(hasKeys(contract.params) ? { params: contract.params } : {}),
        ...(hasKeys(contract.query) ? { query: contract.query } : {}),
        ...(body
          ? { body: { required: !body.safeParse(undefined).success, content: { 'application/json': { schema: body } } } }
          : {}),
      },
      responses: responsesOf(route, contract),
    });
  }

  const version = (await import(pathToFileURL(join(repositoryRoot, 'package.json')).href, { with: { type: 'json' } })) as {
    default: { version: string };
  };
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Incident and team management service',
      version: version.default.version,
      description:
        'Incidents tied to monitors (status flow, severity, acknowledgement, escalation, subscriber e-mail) and teams ' +
        '(roles, e-mail invitations with expiring tokens). Errors are `{"error": "<text>"}`; validation errors add ' +
        '`details: [{field, message}]`. Timestamps are ISO 8601 UTC.',
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: 'http://localhost:3000', description: 'The local runtime (`npm start`)' },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: 'API Gateway (the `ApiUrl` stack output)',
        variables: { apiId: { default: 'abc123' }, region: { default: 'eu-west-1' } },
      },
    ],
    tags: Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
  });
  // An update body that needs a field (`minProperties: 1`) may be left out altogether (the request
  // says the body is optional); the `default: {}` zod derives from that would contradict it.
  for (const schema of Object.values(document.components?.schemas ?? {}) as Record<string, unknown>[]) {
    if (schema.minProperties && JSON.stringify(schema.default) === '{}') delete schema.default;
  }
  return document;
}

/** The document as committed: stable key order, two-space indentation, final newline. */
export const serialize = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;
