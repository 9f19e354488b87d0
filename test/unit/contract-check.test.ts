/**
 * The HTTP tests' contract check (test/support/contract.ts) itself: it must refuse a body that
 * docs/openapi.json does not describe, through the components the schemas refer to, or every HTTP
 * test's check of its responses would pass whatever they were.
 */
import { describe, expect, it } from 'vitest';
import { checkContract, checkWebhookBody } from '../support/contract.js';

const ID = '0b8f9d1e-1111-4111-8111-111111111111';

describe('the contract check of the HTTP tests', () => {
  it('refuses a body unlike its documented schema, down into the components it refers to', () => {
    expect(() => checkContract('GET', `http://x/api/incidents/${ID}`, 200, 'application/json', { incident: { id: 5 } })).toThrow(/does not match docs\/openapi.json/);
    expect(() => checkContract('GET', 'http://x/api/incidents', 200, 'application/json', { incidents: [{ id: 'x' }], next_cursor: null })).toThrow(/does not match/);
    expect(() => checkWebhookBody('incident.created', { type: 'incident.created' })).toThrow(/does not match/);
  });

  it('refuses an undocumented status or content type, and passes a documented answer', () => {
    expect(() => checkContract('GET', `http://x/api/incidents/${ID}`, 418, 'application/json', {})).toThrow(/does not list/);
    expect(() => checkContract('GET', `http://x/api/incidents/${ID}`, 404, 'text/plain', 'x')).toThrow(/not documented/);
    expect(() => checkContract('GET', `http://x/api/incidents/${ID}`, 404, 'application/json', { error: 'Incident not found' })).not.toThrow();
  });
});
