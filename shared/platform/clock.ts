/**
 * The service's notion of "now". Domain code asks this module instead of `new Date()`,
 * so tests can move time (invite expiry, escalation delays) without sleeping.
 */
import { onNewSandbox } from './sandbox.js';

let offsetMs = 0;
let frozenAt: number | undefined;

export const clock = {
  now(): Date {
    return new Date(frozenAt ?? Date.now() + offsetMs);
  },
  nowIso(): string {
    return clock.now().toISOString();
  },
};

/** Test control: shift the clock forward by `ms`. */
export function advanceClock(ms: number): void {
  if (frozenAt !== undefined) frozenAt += ms;
  else offsetMs += ms;
}

/** Test control: stop the clock at `at` (or now). */
export function freezeClock(at: Date = clock.now()): void {
  frozenAt = at.getTime();
}

/** Test control: back to real time. */
export function resetClock(): void {
  offsetMs = 0;
  frozenAt = undefined;
}

// Test controls are a process's; a new sandbox starts at the real time.
onNewSandbox(resetClock);
