/** The system description is coherent: every route names an existing handler module, once. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes, table } from '../../infra/system.js';

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

  it('puts every API route under /api', () => {
    for (const route of routes) expect(route.path.startsWith('/api/')).toBe(true);
  });

  it('declares the table keys, owner index, TTL attribute and stream', () => {
    expect(table.partitionKey.name).toBe('pk');
    expect(table.globalIndexes.map((index) => index.name)).toContain('gsi1');
    expect(table.timeToLiveAttribute).toBe('ttl');
    expect(table.stream).toBe('NEW_AND_OLD_IMAGES');
  });
});
