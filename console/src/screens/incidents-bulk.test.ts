import { describe, expect, it } from 'vitest';
import { bulkSummary } from './incidents-bulk.js';

describe('bulkSummary', () => {
  it('says how many were done and how many were not', () => {
    expect(bulkSummary({ action: 'acknowledge', results: [{ id: 'a', title: 'A' }] })).toBe('1 incident acknowledged.');
    expect(bulkSummary({ action: 'resolve', results: [{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }] })).toBe('2 incidents resolved.');
    expect(bulkSummary({ action: 'acknowledge', results: [{ id: 'a', title: 'A' }, { id: 'b', title: 'B', error: 'Incident already acknowledged' }] })).toBe(
      '1 incident acknowledged; 1 not:',
    );
    expect(bulkSummary({ action: 'resolve', results: [{ id: 'b', title: 'B', error: 'Not authorized' }] })).toBe('None resolved: 1 incident refused.');
  });
});
