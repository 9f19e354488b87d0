/**
 * The DynamoDB-call budget of every route (docs/data-model.md), counted through the SDK
 * middleware stack while the request runs through the local runtime. Routes the system
 * description marks read-only must issue only reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../infra/system.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { dynamoCalls } from '../support/ddb-calls.js';
import { createTeam, invite } from '../support/teams.js';
import { subscribersOf } from '../../shared/subscribers/service.js';

let api: Api;
let user: User;
let invitee: User;
const calls = dynamoCalls();
const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);

interface Case {
  route: string;
  method: string;
  path: () => string | Promise<string>;
  body?: () => unknown;
  as?: () => User;
  expectStatus: number;
  budget: number;
}

const ids = { monitor: '', spareMonitor: '', incident: '', team: '', cancelInvite: '', acceptToken: '', member: '', policy: '', subscriber: '' };

/** In order: later cases use what earlier ones made. */
const cases: Case[] = [
  { route: 'monitors-create', method: 'POST', path: () => '/api/monitors', body: () => ({ name: 'Budget' }), expectStatus: 201, budget: 1 },
  { route: 'monitors-list', method: 'GET', path: () => '/api/monitors', expectStatus: 200, budget: 1 },
  { route: 'monitors-get', method: 'GET', path: () => `/api/monitors/${ids.monitor}`, expectStatus: 200, budget: 1 },
  { route: 'monitors-update', method: 'PUT', path: () => `/api/monitors/${ids.monitor}`, body: () => ({ failure_threshold: 4 }), expectStatus: 200, budget: 1 },
  { route: 'incidents-create', method: 'POST', path: () => '/api/incidents', body: () => ({ monitorId: ids.monitor, title: 'Budget' }), expectStatus: 201, budget: 2 },
  { route: 'incidents-list', method: 'GET', path: () => '/api/incidents?severity=MEDIUM', expectStatus: 200, budget: 1 },
  { route: 'incidents-get', method: 'GET', path: () => `/api/incidents/${ids.incident}`, expectStatus: 200, budget: 1 },
  // A status change reads, then writes with its event (1 call without a status change).
  { route: 'incidents-update', method: 'PUT', path: () => `/api/incidents/${ids.incident}`, body: () => ({ status: 'IDENTIFIED' }), expectStatus: 200, budget: 2 },
  { route: 'incidents-acknowledge', method: 'POST', path: () => `/api/incidents/${ids.incident}/acknowledge`, expectStatus: 200, budget: 2 },
  { route: 'incidents-resolve', method: 'DELETE', path: () => `/api/incidents/${ids.incident}`, expectStatus: 200, budget: 2 },
  { route: 'policies-create', method: 'POST', path: () => '/api/escalation-policies', body: () => ({ name: 'P', steps: [{ delay_minutes: 0, emails: ['a@example.com'] }] }), expectStatus: 201, budget: 1 },
  { route: 'policies-list', method: 'GET', path: () => '/api/escalation-policies', expectStatus: 200, budget: 1 },
  { route: 'policies-get', method: 'GET', path: () => `/api/escalation-policies/${ids.policy}`, expectStatus: 200, budget: 1 },
  { route: 'policies-delete', method: 'DELETE', path: () => `/api/escalation-policies/${ids.policy}`, expectStatus: 200, budget: 1 },
  { route: 'subscribers-create', method: 'POST', path: () => `/api/monitors/${ids.monitor}/subscribers`, body: () => ({ email: uniqueEmail('sub') }), expectStatus: 201, budget: 2 },
  { route: 'subscribers-list', method: 'GET', path: () => `/api/monitors/${ids.monitor}/subscribers`, expectStatus: 200, budget: 1 },
  {
    route: 'unsubscribe',
    method: 'GET',
    path: async () => `/unsubscribe/${(await subscribersOf(ids.monitor)).at(-1)!.unsubscribe_token}`,
    expectStatus: 200,
    budget: 2,
  },
  { route: 'subscribers-delete', method: 'DELETE', path: () => `/api/monitors/${ids.monitor}/subscribers/${ids.subscriber}`, expectStatus: 200, budget: 2 },
  // GetItem, conditional DeleteItem, Query of what the monitor leaves (subscribers), BatchWriteItem per 25 of them.
  { route: 'monitors-delete', method: 'DELETE', path: () => `/api/monitors/${ids.spareMonitor}`, expectStatus: 200, budget: 4 },

  { route: 'teams-create', method: 'POST', path: () => '/api/teams', body: () => ({ name: 'Budget', slug: `budget-${Date.now()}` }), expectStatus: 201, budget: 2 },
  { route: 'teams-list', method: 'GET', path: () => '/api/teams', expectStatus: 200, budget: 2 },
  { route: 'teams-get', method: 'GET', path: () => `/api/teams/${ids.team}`, expectStatus: 200, budget: 1 },
  { route: 'teams-update', method: 'PUT', path: () => `/api/teams/${ids.team}`, body: () => ({ name: 'Renamed' }), expectStatus: 200, budget: 2 },
  { route: 'teams-invite', method: 'POST', path: () => `/api/teams/${ids.team}/invite`, body: () => ({ email: uniqueEmail('b'), role: 'VIEWER' }), expectStatus: 201, budget: 2 },
  { route: 'teams-invite-cancel', method: 'DELETE', path: () => `/api/teams/${ids.team}/invite/${ids.cancelInvite}`, expectStatus: 200, budget: 2 },
  { route: 'teams-invite-accept', method: 'POST', path: () => `/api/teams/invites/${ids.acceptToken}/accept`, as: () => invitee, expectStatus: 200, budget: 2 },
  {
    route: 'teams-member-update',
    method: 'PUT',
    path: async () => {
      const team = await api.request('GET', `/api/teams/${ids.team}`, { token: user.token });
      ids.member = team.body.members.find((member: { user_id: string }) => member.user_id === invitee.id).id;
      return `/api/teams/${ids.team}/members/${ids.member}`;
    },
    body: () => ({ role: 'ADMIN' }),
    expectStatus: 200,
    budget: 2,
  },
  { route: 'teams-member-remove', method: 'DELETE', path: () => `/api/teams/${ids.team}/members/${ids.member}`, expectStatus: 200, budget: 2 },
  // Read team + membership, delete team + slug, Query what is left, one BatchWriteItem per 25 items.
  { route: 'teams-delete', method: 'DELETE', path: () => `/api/teams/${ids.team}`, expectStatus: 200, budget: 4 },
];

beforeAll(async () => {
  api = await Api.start();
  user = await api.signUp(uniqueEmail('budget'));
  invitee = await api.signUp(uniqueEmail('budget-invitee'));
  ids.monitor = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'M' } })).body.monitor.id;
  ids.spareMonitor = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'S' } })).body.monitor.id;
  ids.incident = (
    await api.request('POST', '/api/incidents', { token: user.token, body: { monitorId: ids.monitor, title: 'I' } })
  ).body.incident.id;
  ids.team = (await createTeam(api, user)).id;
  ids.policy = (
    await api.request('POST', '/api/escalation-policies', {
      token: user.token,
      body: { name: 'Spare', steps: [{ delay_minutes: 0, emails: ['oncall@example.com'] }] },
    })
  ).body.escalation_policy.id;
  await api.request('POST', `/api/monitors/${ids.spareMonitor}/subscribers`, { token: user.token, body: { email: uniqueEmail('s1') } });
  ids.subscriber = (
    await api.request('POST', `/api/monitors/${ids.monitor}/subscribers`, { token: user.token, body: { email: uniqueEmail('s2') } })
  ).body.subscriber.id;
  ids.cancelInvite = (await invite(api, user, ids.team, uniqueEmail('cancel'), 'VIEWER')).id;
  ids.acceptToken = (await invite(api, user, ids.team, invitee.email, 'MEMBER')).token;
});
afterAll(() => api.close());

describe('DynamoDB calls per route', () => {
  it('has a budget for every route of the system description', () => {
    expect(cases.map((testCase) => testCase.route).sort()).toEqual(routes.map((route) => route.name).sort());
  });

  for (const testCase of cases) {
    const route = routes.find((candidate) => candidate.name === testCase.route)!;
    it(`${route.method} ${route.path} makes ${testCase.budget} call(s)`, async () => {
      const path = await testCase.path();
      calls.reset();
      const response = await api.request(testCase.method, path, {
        token: (testCase.as?.() ?? user).token,
        body: testCase.body?.(),
      });
      expect(response.status, JSON.stringify(response.body)).toBe(testCase.expectStatus);
      const commands = calls.commandsOf(route.name);
      expect(commands, commands.join(', ')).toHaveLength(testCase.budget);
      if (route.table === 'read') {
        expect(commands.filter((command) => !READS.has(command))).toEqual([]);
      }
    });
  }
});
