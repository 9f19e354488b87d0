/** The system description is coherent: every route names an existing handler module, once. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventRules, routes, sesEvents, table, workers } from '../../shared/system.js';
import { EVENT_TYPES } from '../../shared/platform/events/model.js';

const root = join(import.meta.dirname, '..', '..');

describe('system description', () => {
  it('has unique route names and route keys', () => {
    expect(new Set(routes.map((route) => route.name)).size).toBe(routes.length);
    expect(new Set(routes.map((route) => `${route.method} ${route.path}`)).size).toBe(routes.length);
  });

  it.each(routes.map((route) => [route.name, route] as const))('%s names a handler module that exports handler', async (_, route) => {
    expect(existsSync(join(root, route.handler))).toBe(true);
    const module = await import(join(root, route.handler));
    expect(typeof module.handler).toBe('function');
  });

  it('protects every /api route with the JWT authorizer; only the links in e-mails (acknowledge, unsubscribe, confirm, stop paging) the alert endpoints (a key authenticates) and calendar feeds are public', () => {
    for (const route of routes) expect(route.auth === 'jwt').toBe(route.path.startsWith('/api/'));
    expect(routes.filter((route) => route.auth === 'none').map((route) => route.name)).toEqual([
      'acknowledge-link-open',
      'acknowledge-link-confirm',
      'calendars-feed',
      'alerts-enqueue',
      'alerts-alertmanager',
      'heartbeats-ping',
      'unsubscribe',
      'unsubscribe-confirm',
      'subscription-confirm-open',
      'subscription-confirm',
      'stop-paging-open',
      'stop-paging-confirm',
    ]);
    // Opening a link in an e-mail (GET, which mail scanners do) only reads; only its page's button (POST) writes.
    for (const route of routes.filter((candidate) => candidate.auth === 'none')) expect(route.table === 'read', route.name).toBe(route.method === 'GET');
    // Every public route is confined to the keys it needs.
    for (const route of routes.filter((candidate) => candidate.auth === 'none')) expect(route.leadingKeys?.length).toBeGreaterThan(0);
  });

  it.each(Object.values(workers).map((worker) => [worker.name, worker] as const))(
    'worker %s names a handler module that exports handler',
    async (_, worker) => {
      const module = await import(join(root, worker.handler));
      expect(typeof module.handler).toBe('function');
    },
  );

  it('sends every event rule to a worker, for event types that exist', () => {
    const names = Object.values(workers).map((worker) => worker.name) as string[];
    for (const rule of eventRules) {
      expect(names).toContain(rule.target);
      const known: readonly string[] = rule.from === 'ses' ? [sesEvents.bounced, sesEvents.complained] : EVENT_TYPES;
      for (const type of rule.detailTypes) expect(known).toContain(type);
    }
  });

  it('declares the table keys, owner index, TTL attribute and stream', () => {
    expect(table.partitionKey.name).toBe('pk');
    expect(table.globalIndexes.map((index) => index.name)).toContain('gsi1');
    expect(table.timeToLiveAttribute).toBe('ttl');
    expect(table.stream).toBe('NEW_AND_OLD_IMAGES');
  });
});
