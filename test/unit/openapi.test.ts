/** docs/openapi.json is generated from the code, current, and lints clean with Redocly. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDocument, serialize } from '../../infra/openapi/document.js';
import { repositoryRoot } from '../../infra/local/paths.js';
import { routes } from '../../infra/system.js';

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

  it('lints with Redocly CLI without errors', () => {
    const result = spawnSync('npx', ['redocly', 'lint', 'docs/openapi.json', '--format=stylish'], {
      cwd: repositoryRoot,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 60_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('Your API description is valid');
  }, 60_000);
});
