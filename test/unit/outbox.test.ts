import { describe, expect, it } from 'vitest';
import { TABLE_NAME_ENV } from '../../shared/system.js';

describe('outbox records', () => {
  it('live 7 days, beyond the stream\'s 24 h, so a dead-lettered batch can still be re-published', async () => {
    process.env[TABLE_NAME_ENV] ??= 'unit';
    const { outboxPut } = await import('../../shared/platform/events/outbox.js');
    const item = outboxPut('monitor.team_changed', { monitor_id: 'm', from_team_id: null, to_team_id: 't', team_seq: 1 }, '2026-01-01T00:00:00.000Z').Put!.Item!;
    expect(item.ttl).toBe(Date.parse('2026-01-08T00:00:00.000Z') / 1000);
    // Findable by time (npm run replay): the hour it occurred in, one of 16 shards by the id's first hex digit.
    const eventId = String((item.detail as { event_id: string }).event_id);
    expect(item.pk).toBe(`OUTBOX#2026-01-01T00#${eventId[0]}`);
    expect(item.sk).toBe(`2026-01-01T00:00:00.000Z#${eventId}`);
  });
});
