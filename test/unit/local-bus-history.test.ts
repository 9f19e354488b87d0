/** The local bus keeps only its most recent history, so a long run's memory stays flat, and takes a few events of a target at once. */
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, LocalEventBus } from '../../infra/local/aws/bus.js';
import { eventBus } from '../../shared/system.js';

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

describe('local event bus deliveries', () => {
  it('takes at most `concurrency` events of one target at once; the rest wait their turn, in order, and all arrive', async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const bus = new LocalEventBus({
      concurrency: 3,
      rules: [{ name: 'all', from: 'service', detailTypes: ['incident.created'], target: 'notifier' }],
      invoke: async (_target, event) => {
        running += 1;
        most = Math.max(most, running);
        order.push((event as { detail: { index: number } }).detail.index);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
      },
    });
    for (let index = 0; index < 20; index++) {
      bus.putEvents([{ EventBusName: eventBus.name, Source: eventBus.source, DetailType: 'incident.created', Detail: JSON.stringify({ index }) }]);
    }
    await bus.idle();
    expect(most).toBe(3);
    expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
    expect(bus.delivered).toHaveLength(20);
  });
});
