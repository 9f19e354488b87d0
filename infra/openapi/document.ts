/**
 * The OpenAPI 3.1 document, generated — never hand-written — from the route table and the zod
 * schemas each handler validates with and answers (their `contract`), plus the error texts of
 * the interface document. `npm run openapi` writes it to docs/openapi.json.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from '../../shared/platform/zod.js';
import { described, FieldError } from '../../shared/platform/api/common.js';
import { monitorCheckInput } from '../../shared/paging/check.js';
import { webhookMessages } from '../../shared/webhooks/model.js';
import type { RouteContract } from '../../functions/lib/http.js';
import { repositoryRoot } from '../paths.js';
import { incidentDetailExample, routeExamples, schemaExamples } from './examples.js';
import { routes, type RouteDescription } from '../../shared/system.js';

type JsonSchema = Record<string, unknown>;
type Schema = z.ZodMiniType;

const ValidationError = described(z.object({ error: z.literal('Validation errors'), details: z.array(FieldError) }), {
  id: 'ValidationError',
  description: 'The request does not match the schema; one entry per problem',
});

const Unauthorized = described(
  z.union([
    described(z.strictObject({ message: z.literal('Unauthorized') }), { description: 'From the JWT authorizer: missing, invalid or expired token' }),
    described(z.strictObject({ error: z.literal('Unauthorized') }), { description: 'A verified token without a subject' }),
  ]),
  { id: 'Unauthorized' },
);

const errorBody = (texts: string[]) => z.strictObject({ error: z.enum(texts as [string, ...string[]]) });

const ServerError = (failure: string) =>
  z.strictObject({
    error: z.literal(failure),
    request_id: described(z.string(), { description: 'Quote it when reporting the problem' }),
  });

const MonitorCheckResult = described(
  z.union([
    z.strictObject({
      ok: z.literal(true),
      outcome: z.enum(['below_threshold', 'incident_opened', 'incident_already_open', 'incident_resolved', 'no_open_incident']),
      incident_id: z.optional(z.uuid()),
    }),
    z.strictObject({ ok: z.literal(false), error: z.string(), details: z.optional(z.array(FieldError)) }),
  ]),
  { id: 'MonitorCheckResult', description: 'What the monitor-check function answers' },
);

const IdempotencyHeader = z.object({
  'Idempotency-Key': described(z.optional(z.string().check(z.regex(/^[\x20-\x7E]{1,255}$/))), {
    description:
      'Makes a retry safe: a repeat with the same key and the same request within 24 hours gets the first answer (status and body, with `Idempotent-Replayed: true`) and creates nothing. Scoped to the caller; 1–255 printable ASCII characters.',
    example: 'c1d2e3f4-retry-safe-key',
  }),
});

const COMPONENT = '#/components/schemas/';

/**
 * JSON Schemas of the contracts' zod schemas, by zod's own converter: a request's as it is sent
 * (`input`: defaults optional), a response's as it is answered (`output`). A schema whose
 * metadata names an `id` becomes a component, referred to by `$ref` wherever it appears.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  /** The JSON Schema of `schema`, or a `$ref` to it when it is a named component. */
  of(schema: Schema, io: 'input' | 'output'): JsonSchema {
    const { $schema: _, $defs = {}, ...root } = z.toJSONSchema(schema, { io, metadata: z.globalRegistry, reused: 'inline' }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    // A named schema comes back as a `$ref` into `$defs`, itself included.
    for (const [id, definition] of Object.entries($defs)) this.add(id, definition);
    return tidy(root) as JsonSchema;
  }

  /**
   * A request body's schema. An update body that needs a field (`minProperties: 1`) may be left out
   * altogether (the request says the body is optional); the `default: {}` zod derives from that
   * would contradict it.
   */
  body(schema: Schema): JsonSchema {
    const json = this.of(schema, 'input');
    const target = typeof json.$ref === 'string' ? this.schemas[json.$ref.slice(COMPONENT.length)] : json;
    if (!target?.minProperties || JSON.stringify(json.default) !== '{}') return json;
    const { default: _, ...withoutDefault } = json;
    return withoutDefault;
  }

  /** A named schema as a component, with its example from `./examples.ts` (the models name it only). */
  private add(id: string, schema: JsonSchema) {
    const example = schemaExamples[id];
    if (example !== undefined && 'example' in schema) throw new Error(`${id} has an example of its own and one in infra/openapi/examples.ts; keep one`);
    const component = tidy(example === undefined ? schema : { ...schema, example }) as JsonSchema;
    const existing = this.schemas[id];
    if (existing && JSON.stringify(existing) !== JSON.stringify(component)) {
      throw new Error(`Two different schemas are named ${id} (a request's and a response's?); give one another id`);
    }
    this.schemas[id] = component;
  }
}

/** Formats whose pattern zod spells out in full; the format says the same in a word. */
const PATTERN_IMPLIED = new Set(['uuid', 'date-time']);

/**
 * What zod's converter writes, as a reader of the reference wants it: named sub-schemas (in the
 * schema's own `$defs`) as components; no pattern that a format already says, nor the safe-integer
 * bounds of every integer; a nullable scalar as `type: [t, "null"]` rather than an `anyOf`.
 */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (!value || typeof value !== 'object') return value;
  const schema = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? inner.replace(/^#\/\$defs\//, COMPONENT) : tidy(inner),
    ]),
  ) as JsonSchema;
  if (PATTERN_IMPLIED.has(schema.format as string)) delete schema.pattern;
  if (schema.type === 'integer') {
    if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
    if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  }
  const branches = schema.anyOf as JsonSchema[] | undefined;
  if (branches?.length === 2 && branches[1]!.type === 'null' && Object.keys(branches[1]!).length === 1) {
    const { anyOf: _, ...outer } = schema;
    const scalar = branches[0]!;
    if (typeof scalar.type === 'string' && scalar.type !== 'object' && scalar.type !== 'array' && !('const' in scalar)) {
      return {
        ...scalar,
        type: [scalar.type, 'null'],
        ...(Array.isArray(scalar.enum) ? { enum: [...scalar.enum, null] } : {}),
        ...outer,
      };
    }
  }
  return schema;
}

/** The parameters an object schema of path, query or header fields describes. */
function parametersOf(components: Components, schema: Schema | undefined, location: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const json = components.of(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    schema: property,
    required: location === 'path' || (json.required ?? []).includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    name,
    in: location,
  }));
}

const TAGS: Record<string, string> = {
  incidents: 'Incidents',
  monitors: 'Monitors',
  teams: 'Teams',
  policies: 'Escalation policies',
  schedules: 'Schedules',
  calendars: 'Schedules',
  subscribers: 'Subscribers',
  unsubscribe: 'Subscribers',
  subscription: 'Subscribers',
  acknowledge: 'Incidents',
  stop: 'Escalation policies',
  integrations: 'Integrations',
  alerts: 'Integrations',
  webhooks: 'Webhooks',
  heartbeats: 'Integrations',
  contact: 'Contact methods and notification rules',
  notification: 'Contact methods and notification rules',
  reports: 'Reports',
  audit: 'Audit log',
  maintenance: 'Monitors',
  team: 'Monitors',
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  'Audit log':
    'Who changed what: an entry, written in the same transaction, for every accepted change to a team, its members and invitations, monitors, integrations, escalation policies, schedules and webhooks; secrets show as "[set]"; kept a year.',
  Incidents: 'Disruptions of a monitored target: status flow, severity, acknowledgement. Scoped to the caller\'s monitors.',
  Monitors: 'The incident-relevant part of a monitor: name, failure threshold, escalation policy.',
  Teams: 'Teams, roles (OWNER, ADMIN, MEMBER, VIEWER) and e-mail invitations with 7-day tokens.',
  Schedules: 'On-call schedules: rotations in layers, restrictions and overrides in an IANA time zone, exact across DST; who is on call, rendered shifts.',
  'Escalation policies': 'Who is paged, and when, while an automatic incident stays unacknowledged.',
  Integrations:
    "Alerts in from the monitoring tools teams run: a monitor's integration keys, a PagerDuty Events API v2-compatible endpoint and an Alertmanager/Grafana webhook endpoint, both authenticated by a key.",
  Webhooks:
    'Signed outgoing webhooks (Standard Webhooks) and Slack-compatible chat messages for the incidents of a monitor, of a team\'s monitors or of all the caller\'s own monitors. The message bodies are described under `webhooks` and in docs/events.md.',
  'Contact methods and notification rules':
    "The caller's own ways of being reached (their account e-mail from the start; more e-mail addresses, SMS and voice numbers, each verified by a code sent through it) and the rules that say which is notified how long after a page, by the incident's urgency.",
  Reports: "Figures over the incidents the caller may read that opened in a range (acknowledge and resolve times, severities, pages per responder), as JSON or, with `Accept: text/csv`, one CSV row per incident.",
  Subscribers: 'Status-page subscribers of a monitor, e-mailed on new, updated and resolved incidents once they confirm through the link of their one confirmation e-mail.',
};

/** The Standard Webhooks headers every message carries. */
const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: 'The message id (`msg_…`): the same on every retry and redelivery of one message; deduplicate by it', example: 'msg_5f0c2b1d-4c7e-5a6f-9d2e-3f4a5b6c7d8e' },
  { name: 'webhook-timestamp', description: "The attempt's time, integer Unix seconds", example: '1795604524' },
  {
    name: 'webhook-signature',
    description: '`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the secret\'s base64-decoded bytes (after `whsec_`); two, space-separated, for 24 hours after a secret rotation',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/** OpenAPI 3.1 `webhooks`: what a webhook's URL receives, per event type (the `standard` format). */
function webhooksOf(components: Components) {
  return Object.fromEntries(
    webhookMessages(incidentDetailExample).map((schema) => {
      const type = (schema.def.shape.type as unknown as { def: { values: string[] } }).def.values[0]!;
      return [
        type,
        {
          post: {
            operationId: `webhook${type.replace(/(^|[._])(\w)/g, (_: string, __: string, letter: string) => letter.toUpperCase())}`,
            summary: `${type}: ${z.globalRegistry.get(schema)?.description ?? ''}`,
            tags: ['Webhooks'],
            // The receiver authenticates us by the signature, not by a scheme of its own.
            security: [],
            parameters: WEBHOOK_HEADERS.map(({ name, description, example }) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example })),
            requestBody: { required: true, content: { 'application/json': { schema: components.of(schema, 'output') } } },
            responses: {
              '2XX': { description: 'Accepted (within 10 s)' },
              '410': { description: 'Disables the webhook at once' },
              default: { description: 'A timeout, 408, 429 or 5xx is retried on the backoff schedule; any other status fails the message' },
            },
          },
        },
      ];
    }),
  );
}

const operationId = (name: string) => name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

async function contractOf(route: RouteDescription): Promise<RouteContract> {
  const module = (await import(pathToFileURL(join(repositoryRoot, route.handler)).href)) as { handler: { contract?: RouteContract } };
  if (!module.handler.contract) throw new Error(`${route.handler} declares no contract`);
  return module.handler.contract;
}

type Response = { description: string; content?: Record<string, { schema: JsonSchema; example?: unknown }>; headers?: Record<string, object> };

function responsesOf(components: Components, route: RouteDescription, contract: RouteContract): Record<string, Response> {
  const json = (schema: Schema) => ({ 'application/json': { schema: components.of(schema, 'output') } });
  if (contract.responses) {
    // A raw route documents its own answers (a peer protocol's, word for word), and its 500.
    const declared: Record<string, Response> = Object.fromEntries(
      Object.entries(contract.responses).map(([status, answer]) => [
        status,
        {
          description: answer.description,
          content: json(answer.schema),
          ...(answer.headers
            ? { headers: Object.fromEntries(Object.entries(answer.headers).map(([name, description]) => [name, { description, schema: { type: 'integer', minimum: 1 } }])) }
            : {}),
        },
      ]),
    );
    declared[500] = { description: contract.failure, content: json(ServerError(contract.failure)) };
    return withResponseHeaders(declared);
  }
  const responses: Record<string, Response> = {
    [contract.status]: {
      description: contract.contentType === 'text/html' ? 'An HTML page' : 'Success',
      content: {
        [contract.contentType]: {
          schema: components.of(contract.response, 'output'),
          ...(routeExamples[route.name] === undefined ? {} : { example: routeExamples[route.name] }),
        },
        ...Object.fromEntries(
          Object.entries(contract.alternatives ?? {}).map(([contentType, description]) => [contentType, { schema: { type: 'string', description } }]),
        ),
      },
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
    const page = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
    responses[400] = page('An HTML page: the link is malformed');
    for (const [status, texts] of Object.entries(contract.errors)) responses[status] = page(`An HTML page: ${texts.join('; ')}`);
    responses[500] = page('An HTML page: try again in a moment');
    return withResponseHeaders(responses);
  }
  const { 400: bad = [], 403: forbidden, 404: missing, 409: conflict, 429: quota } = contract.errors;
  responses[400] = {
    description: ['Validation errors', ...bad].join('; '),
    content: json(bad.length ? z.union([ValidationError, errorBody(bad)]) : ValidationError),
  };
  if (route.auth === 'jwt') responses[401] = { description: 'Unauthorized', content: json(Unauthorized) };
  if (forbidden?.length) responses[403] = { description: forbidden.join('; '), content: json(errorBody(forbidden)) };
  if (missing?.length) responses[404] = { description: missing.join('; '), content: json(errorBody(missing)) };
  if (conflict?.length) {
    responses[409] = {
      description: `${conflict.join('; ')} (details, when given, name what is in the way)`,
      content: json(z.strictObject({ error: z.enum(conflict as [string, ...string[]]), details: z.optional(z.array(FieldError)) })),
    };
  }
  if (quota?.length) {
    responses[429] = {
      description: `The account's daily quota is reached: ${quota.join('; ')}`,
      headers: { 'Retry-After': { description: 'Seconds until the quota resets (the next 00:00 UTC)', schema: { type: 'integer', minimum: 1 } } },
      content: json(z.strictObject({ message: z.enum(quota as [string, ...string[]]) })),
    };
  }
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
      ...success.headers,
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
  return withResponseHeaders(responses);
}

/** Every answer carries `x-request-id` (the gateway's own 401, 404 and 413 too); a 401 says why in `WWW-Authenticate`. */
function withResponseHeaders(responses: Record<string, Response>): Record<string, Response> {
  for (const [status, response] of Object.entries(responses)) {
    response.headers = {
      'x-request-id': { description: 'The request id, also in the log line and in a 500 body as `request_id`', schema: { type: 'string' } },
      ...(status === '401'
        ? {
            'WWW-Authenticate': {
              description: 'Why the token was refused, as API Gateway says it (`Bearer error="invalid_token", error_description="the token has expired"`)',
              schema: { type: 'string' },
            },
          }
        : {}),
      ...response.headers,
    };
  }
  return responses;
}

export async function buildDocument() {
  const components = new Components();
  components.of(described(monitorCheckInput, { id: 'MonitorCheckPayload', description: 'What the monitoring system sends to the monitor-check function' }), 'input');
  components.of(MonitorCheckResult, 'output');

  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const contract = await contractOf(route);
    const body = contract.body;
    const parameters = [
      ...parametersOf(components, contract.idempotent ? IdempotencyHeader : undefined, 'header'),
      ...parametersOf(components, contract.params, 'path'),
      ...parametersOf(components, contract.query, 'query'),
    ];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: operationId(route.name),
      summary: contract.summary,
      tags: [TAGS[route.name.split('-')[0]!] ?? 'Other'],
      security: route.auth === 'jwt' ? [{ bearerAuth: [] }] : [],
      ...(parameters.length ? { parameters } : {}),
      ...(body
        ? { requestBody: { required: !body.safeParse(undefined).success, content: { 'application/json': { schema: components.body(body) } } } }
        : {}),
      ...(contract.requestBody
        ? {
            requestBody: {
              // As a parsed body's: required unless its schema takes none (a heartbeat ping's).
              required: !contract.requestBody.schema.safeParse(undefined).success,
              description: contract.requestBody.description,
              content: { 'application/json': { schema: components.of(contract.requestBody.schema, 'input') } },
            },
          }
        : {}),
      responses: responsesOf(components, route, contract),
    };
  }

  const webhooks = webhooksOf(components);
  // An example under a name that no schema or route has would be left out of the document silently.
  const unused = [
    ...Object.keys(schemaExamples).filter((id) => !components.schemas[id]),
    ...Object.keys(routeExamples).filter((name) => !routes.some((route) => route.name === name)),
  ];
  if (unused.length) throw new Error(`infra/openapi/examples.ts has examples for no schema or route: ${unused.join(', ')}`);

  const version = (await import(pathToFileURL(join(repositoryRoot, 'package.json')).href, { with: { type: 'json' } })) as {
    default: { version: string };
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Incident and team management service',
      version: version.default.version,
      description:
        'An incident and on-call service. **Incidents** tied to monitors: status flow, severity, acknowledgement, a timeline, ' +
        'subscriber e-mail. **Teams**: roles and e-mail invitations with expiring tokens; monitors, policies, schedules and ' +
        'webhooks shared with a team. **Monitors**: failure threshold, escalation policy, heartbeat. **Alerts in** through a ' +
        "monitor's **integrations**: a PagerDuty Events API v2-compatible endpoint, an Alertmanager/Grafana webhook endpoint " +
        'and **heartbeat** pings, all authenticated by an integration key. **Escalation policies**: who is paged, and when, while ' +
        'an automatic incident stays unacknowledged. **Schedules and on-call**: rotations in layers, restrictions and ' +
        'overrides in an IANA time zone; who is on call, the shifts, an iCalendar feed. **Webhooks** out: signed messages ' +
        '(Standard Webhooks) or Slack-compatible chat messages on incident events. **Subscribers**: status-page e-mail once ' +
        'confirmed.\n\nErrors are `{"error": "<text>"}`; validation errors add `details: [{field, message}]`. Timestamps are ISO 8601 UTC.',
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
    paths,
    webhooks,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An RS256 JWT from the service\'s issuer (Cognito ID token on AWS; `POST /local/users` locally).',
        },
      },
    },
  };
}

/** The document as committed: stable key order, two-space indentation, final newline. */
export const serialize = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;
