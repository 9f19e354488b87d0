/** docs/openapi.json is generated from the code, current, and lints clean with Redocly. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildDocument, serialize } from '../../infra/openapi/document.js';
import { repositoryRoot } from '../../infra/paths.js';
import { routes } from '../../shared/system.js';
import { within } from '../support/deadlines.js';

const committed = readFileSync(join(repositoryRoot, 'docs', 'openapi.json'), 'utf8');

describe('OpenAPI document', () => {
  it('is up to date with the code (run `npm run openapi` after changing a route or schema)', async () => {
    expect(serialize(await buildDocument())).toBe(committed);
  });

  it('documents every route with its errors, the bearer scheme and the monitor-check payload', () => {
    const document = JSON.parse(committed);
    expect(document.openapi).toBe('3.1.0');
    for (const route of routes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(operation.responses)).toContain('500');
      expect(operation.tags, `${route.method} ${route.path}`).not.toContain('Other');
      expect(operation.security).toEqual(route.auth === 'jwt' ? [{ bearerAuth: [] }] : []);
    }
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(document.components.schemas).toHaveProperty('MonitorCheckPayload');
    const errors = JSON.stringify(document.paths);
    for (const text of [
      'Validation errors', 'No updates provided', 'Incident already acknowledged', 'Team slug already taken',
      'User is already a team member', 'Invite already sent to this email', 'Cannot remove owner', 'Already a team member',
      'No account found with this email. Please sign up first.', 'Not a team member', 'Not authorized', 'Not authorized to invite',
      'Only owner can delete team', 'Only owner can change roles', 'Incident not found', 'Monitor not found', 'Team not found',
      'Member not found', 'Invalid or expired invite', 'Failed to fetch incident', 'Failed to create incident', 'Failed to update incident',
    ]) {
      expect(errors, text).toContain(`"${text}"`);
    }
  });

  it("declares a heartbeat ping's body optional (pings are sent without one) and every other raw route's required", () => {
    const document = JSON.parse(committed);
    expect(document.paths['/heartbeats/{key}'].post.requestBody.required).toBe(false);
    expect(document.paths['/v2/enqueue'].post.requestBody.required).toBe(true);
    expect(document.paths['/integrations/alertmanager'].post.requestBody.required).toBe(true);
  });

  it('describes what the API covers now, not incidents and teams only', () => {
    const { description } = JSON.parse(committed).info as { description: string };
    for (const word of ['Incidents', 'Teams', 'Monitors', 'integrations', 'Alerts in', 'Events API v2', 'Alertmanager', 'Escalation policies', 'Schedules and on-call', 'Webhooks', 'Subscribers', 'heartbeat']) {
      expect(description, word).toContain(word);
    }
  });

  it('lints with Redocly CLI without errors', () => {
    const result = spawnSync('npx', ['redocly', 'lint', 'docs/openapi.json', '--format=stylish'], {
      cwd: repositoryRoot,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: within(60_000),
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('Your API description is valid');
  }, within(60_000));

  describe('examples (what "Try it out" and the reference show)', () => {
    const document = JSON.parse(committed);
    const schemas: Record<string, any> = document.components.schemas;
    const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
    (addFormats as unknown as typeof addFormats.default)(ajv);
    ajv.addSchema({ ...document, $id: 'openapi' }, 'openapi');
    const validate = (name: string, value: unknown) => {
      const check = ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
      return check(value) ? [] : check.errors!.map((error) => `${error.instancePath} ${error.message}`);
    };
    /** Every (path, value) of an example, depth first. */
    const entries = (value: unknown, path = ''): [string, unknown][] =>
      value && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, inner]) => [[`${path}/${key}`, inner] as [string, unknown], ...entries(inner, `${path}/${key}`)])
        : [];

    it('every object with an id carries an example of its own, so none is made up from types', () => {
      const withoutExample = Object.entries(schemas)
        .filter(([, schema]) => schema.properties?.id && !schema.example)
        .map(([name]) => name);
      expect(withoutExample).toEqual([]);
    });

    it.each(Object.keys(schemas).filter((name) => schemas[name].example !== undefined))('%s: the example matches its schema and the domain rules', (name) => {
      const example = schemas[name].example;
      expect(validate(name, example)).toEqual([]);
      // Within each object, its own id and the ids it refers to are different things (an incident's id is not its monitor's).
      for (const object of [example, ...entries(example).map(([, value]) => value)].filter((value) => value && typeof value === 'object' && !Array.isArray(value)) as Record<string, unknown>[]) {
        const idValues = Object.entries(object).filter(([field, value]) => (field === 'id' || field.endsWith('_id')) && typeof value === 'string');
        expect(new Set(idValues.map(([, value]) => value)).size, JSON.stringify(idValues)).toBe(idValues.length);
      }
      // Incidents: resolved_at exactly when RESOLVED; an acknowledgement exactly when acknowledged, for this incident.
      for (const incident of [example, ...entries(example).map(([, value]) => value)].filter((value: any) => value && typeof value === 'object' && 'acknowledged' in value) as any[]) {
        expect(incident.resolved_at !== null).toBe(incident.status === 'RESOLVED');
        if ('acknowledgement' in incident) {
          expect(incident.acknowledged).toBe(true);
          expect(incident.acknowledgement.incident_id).toBe(incident.id);
          expect(incident.acknowledgement.acknowledged_at >= incident.started_at).toBe(true);
        }
      }
    });

    /** The success example an operation shows: its own, or its schema's. */
    const successExample = (path: string, method: string) => {
      const operation = document.paths[path][method];
      const [status, response] = Object.entries(operation.responses as Record<string, any>).find(([code]) => code.startsWith('2'))!;
      const content = response.content['application/json'];
      const resolve = (schema: any): any => (schema.$ref ? schemas[schema.$ref.split('/').pop()] : schema);
      return { status, example: content.example ?? resolve(content.schema).example, content, operation };
    };

    it("every operation's own success example matches its response schema", () => {
      for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
        for (const [method, operation] of Object.entries(methods)) {
          const content = Object.entries(operation.responses as Record<string, any>).find(([code]) => code.startsWith('2'))![1].content?.['application/json'];
          if (content?.example === undefined) continue;
          const check = ajv.compile({ $ref: `openapi#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${Object.keys(operation.responses).find((code) => code.startsWith('2'))}/content/application~1json/schema` });
          expect(check(content.example) ? [] : check.errors, `${method} ${path}`).toEqual([]);
        }
      }
    });

    it('shows for each incident operation an answer the state machine can give', () => {
      // A created incident is INVESTIGATING, unacknowledged and unresolved (contract: state transitions).
      const created = successExample('/api/incidents', 'post');
      expect(created.status).toBe('201');
      expect(created.example.incident).toMatchObject({ status: 'INVESTIGATING', acknowledged: false, resolved_at: null });
      // An acknowledged incident is acknowledged.
      expect(successExample('/api/incidents/{id}/acknowledge', 'post').example.incident.acknowledged).toBe(true);
      // An update answers the incident with what the request's example set, resolved_at only when RESOLVED.
      const updated = successExample('/api/incidents/{id}', 'put');
      const request = updated.operation.requestBody.content['application/json'].schema;
      const requestExample = (request.$ref ? schemas[request.$ref.split('/').pop()] : request).example;
      expect(updated.example.incident).toMatchObject(requestExample);
      expect(updated.example.incident.resolved_at !== null).toBe(updated.example.incident.status === 'RESOLVED');
    });

    it('declares x-request-id on every answer and WWW-Authenticate on every 401', () => {
      for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
        for (const [method, operation] of Object.entries(methods)) {
          for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
            expect(Object.keys(response.headers ?? {}), `${method} ${path} ${status}`).toContain('x-request-id');
            if (status === '401') expect(Object.keys(response.headers), `${method} ${path} 401`).toContain('WWW-Authenticate');
          }
        }
      }
    });

    it('the pattern it gives for e-mail addresses is the one the service applies (0@com is refused by both)', () => {
      const pattern = new RegExp(schemas.CreateInvite.properties.email.pattern);
      expect(pattern.test('bob@example.com')).toBe(true);
      expect(pattern.test('0@com')).toBe(false);
      expect(validate('CreateInvite', { email: '0@com', role: 'MEMBER' })).not.toEqual([]);
    });

    it('says that update bodies need a field and that text is trimmed', () => {
      for (const name of ['UpdateIncident', 'UpdateMonitor', 'UpdateTeam', 'UpdateEscalationPolicy']) {
        expect({ name, minProperties: schemas[name].minProperties, default: schemas[name].default }).toEqual({ name, minProperties: 1, default: undefined });
      }
      expect(schemas.CreateIncident.properties.title.description).toMatch(/^Trimmed of white space and zero-width characters/);
    });
  });
});
