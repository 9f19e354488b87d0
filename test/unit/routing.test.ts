import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../infra/local/aws/routing.js';

const table = [
  { method: 'POST', path: '/api/teams/{id}/invite' },
  { method: 'POST', path: '/api/teams/invites/{token}/accept' },
  { method: 'GET', path: '/api/incidents' },
  { method: 'GET', path: '/api/incidents/{id}' },
  { method: 'POST', path: '/api/incidents/{id}/acknowledge' },
  { method: 'GET', path: '/api/things/{id}' },
  { method: 'GET', path: '/api/things/special' },
];

describe('matchRoute', () => {
  it('matches literal paths and extracts decoded parameters', () => {
    expect(matchRoute(table, 'GET', '/api/incidents')?.route.path).toBe('/api/incidents');
    expect(matchRoute(table, 'GET', '/api/incidents/a%20b')).toEqual({
      route: table[3],
      params: { id: 'a b' },
    });
    expect(matchRoute(table, 'POST', '/api/incidents/x/acknowledge')?.params).toEqual({ id: 'x' });
  });

  it('prefers literal segments over placeholders', () => {
    expect(matchRoute(table, 'GET', '/api/things/special')?.route.path).toBe('/api/things/special');
    expect(matchRoute(table, 'GET', '/api/things/other')?.route.path).toBe('/api/things/{id}');
    expect(matchRoute(table, 'POST', '/api/teams/invites/tok/accept')?.params).toEqual({ token: 'tok' });
  });

  it('does not match another method, another length, an empty segment or a trailing slash', () => {
    expect(matchRoute(table, 'DELETE', '/api/incidents')).toBeUndefined();
    expect(matchRoute(table, 'GET', '/api/incidents/a/b')).toBeUndefined();
    expect(matchRoute(table, 'GET', '/api/incidents/')).toBeUndefined();
  });
});
