/** The local bus keeps only its most recent history, so a long run's memory stays flat. */
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, LocalEventBus } from '../../infra/local/bus.js';
import { eventBus } from '../../infra/system.js';

describe('local event bus history', () => {
  it('keeps the most recent events only, and counts them all', async () => {
    const bus = new LocalEventBus({ invoke: async () => undefined, rules: [] });
    for (let index = 0; index < HISTORY_LIMIT + 500; index++) {
      bus.putEvents([{ EventBusName: eventBus.name, Source: eventBus.source, DetailType: 'incident.created', Detail: JSON.stringify({ index }) }]);
    }
    await bus.idle();
    expect(bus.published).toHaveLength(HISTORY_LIMIT);
    expect(bus.publishedCount).toBe(HISTORY_LIMIT + 500);
    expect((bus.published[0]!.detail as { index: number }).index).toBe(500);
    expect((bus.published.at(-1)!.detail as { index: number }).index).toBe(HISTORY_LIMIT + 499);
  });
});
