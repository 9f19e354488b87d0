/**
 * The DynamoDB-call budget of every route (docs/data-model.md), counted through the SDK
 * middleware stack while the request runs through the local runtime. Routes the system
 * description marks read-only must issue only reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../infra/system.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { dynamoCalls } from '../support/ddb-calls.js';

let api: Api;
let user: User;
const calls = dynamoCalls();
const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);

interface Case {
  method: string;
  path: () => string;
  body?: unknown;
  expectStatus: number;
  budget: number;
}

let monitorId = '';
let incidentId = '';
let spareMonitorId = '';

const cases: Record<string, Case> = {
  'monitors-create': { method: 'POST', path: () => '/api/monitors', body: { name: 'Budget' }, expectStatus: 201, budget: 1 },
  'monitors-list': { method: 'GET', path: () => '/api/monitors', expectStatus: 200, budget: 1 },
  'monitors-get': { method: 'GET', path: () => `/api/monitors/${monitorId}`, expectStatus: 200, budget: 1 },
  'monitors-update': { method: 'PUT', path: () => `/api/monitors/${monitorId}`, body: { failure_threshold: 4 }, expectStatus: 200, budget: 1 },
  'incidents-create': { method: 'POST', path: () => '/api/incidents', body: { get monitorId() { return monitorId; }, title: 'Budget' }, expectStatus: 201, budget: 2 },
  'incidents-list': { method: 'GET', path: () => '/api/incidents?severity=MEDIUM', expectStatus: 200, budget: 1 },
  'incidents-get': { method: 'GET', path: () => `/api/incidents/${incidentId}`, expectStatus: 200, budget: 1 },
  'incidents-update': { method: 'PUT', path: () => `/api/incidents/${incidentId}`, body: { severity: 'LOW' }, expectStatus: 200, budget: 1 },
  'incidents-acknowledge': { method: 'POST', path: () => `/api/incidents/${incidentId}/acknowledge`, expectStatus: 200, budget: 2 },
  'incidents-resolve': { method: 'DELETE', path: () => `/api/incidents/${incidentId}`, expectStatus: 200, budget: 1 },
  'monitors-delete': { method: 'DELETE', path: () => `/api/monitors/${spareMonitorId}`, expectStatus: 200, budget: 1 },
};

beforeAll(async () => {
  api = await Api.start();
  user = await api.signUp(uniqueEmail('budget'));
  monitorId = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'M' } })).body.monitor.id;
  spareMonitorId = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'S' } })).body.monitor.id;
  incidentId = (
    await api.request('POST', '/api/incidents', { token: user.token, body: { monitorId, title: 'I' } })
  ).body.incident.id;
});
afterAll(() => api.close());

describe('DynamoDB calls per route', () => {
  it('has a budget for every route of the system description', () => {
    expect(Object.keys(cases).sort()).toEqual(routes.map((route) => route.name).sort());
  });

  for (const route of routes) {
    it(`${route.method} ${route.path} stays within its budget`, async () => {
      const testCase = cases[route.name]!;
      calls.reset();
      const response = await api.request(testCase.method, testCase.path(), {
        token: user.token,
        body: testCase.body && JSON.parse(JSON.stringify(testCase.body)),
      });
      expect(response.status, JSON.stringify(response.body)).toBe(testCase.expectStatus);
      expect(calls.commands).toHaveLength(testCase.budget);
      if (route.table === 'read') {
        expect(calls.commands.filter((command) => !READS.has(command))).toEqual([]);
      }
    });
  }
});
