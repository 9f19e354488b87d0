/**
 * An escalation policy's steps as the editor holds them (delays as typed, each step's targets) and as
 * the API takes them. A step stored with `emails` alone (from before targets) is edited as e-mail
 * targets, so saving it again keeps who it pages. Pure (no DOM): tested beside it.
 */

export type Target = { type: 'user'; id: string } | { type: 'schedule'; id: string } | { type: 'email'; address: string };

export interface DraftStep {
  /** Minutes after the incident opened, as typed. */
  delay_minutes: string;
  targets: Target[];
}

export interface StoredStep {
  step_order: number;
  delay_minutes: number;
  emails: string[];
  targets?: Target[];
}

/** A new step: 15 minutes after the last one (the API wants strictly increasing delays, the first at 0). */
export function nextStep(steps: DraftStep[]): DraftStep {
  const last = steps.at(-1);
  const after = last ? Number(last.delay_minutes) : Number.NaN;
  return { delay_minutes: steps.length === 0 ? '0' : String(Number.isFinite(after) ? after + 15 : 15), targets: [] };
}

export function draftOf(steps: StoredStep[]): DraftStep[] {
  return [...steps]
    .sort((a, b) => a.step_order - b.step_order)
    .map((step) => ({
      delay_minutes: String(step.delay_minutes),
      targets: step.targets ?? step.emails.map((address) => ({ type: 'email' as const, address })),
    }));
}

/** The API's `steps` (a blank delay goes as NaN → null, which the API names). */
export function stepsBody(steps: DraftStep[]): { delay_minutes: number; targets: Target[] }[] {
  return steps.map((step) => ({ delay_minutes: step.delay_minutes.trim() === '' ? Number.NaN : Number(step.delay_minutes), targets: step.targets }));
}

const sameTarget = (a: Target, b: Target) =>
  a.type === b.type && (a.type === 'email' ? a.address.toLowerCase() === (b as { address: string }).address.toLowerCase() : a.id === (b as { id: string }).id);

/** The step with `target` added once. */
export function withTarget(step: DraftStep, target: Target): DraftStep {
  return step.targets.some((existing) => sameTarget(existing, target)) ? step : { ...step, targets: [...step.targets, target] };
}

/** A target as a person reads it, from the names the screen knows (an id it cannot name stays an id). */
export function targetLabel(target: Target, names: { people: Map<string, string>; schedules: Map<string, string> }): string {
  if (target.type === 'email') return target.address;
  if (target.type === 'user') return names.people.get(target.id) ?? `Person ${target.id}`;
  return `Schedule: ${names.schedules.get(target.id) ?? target.id}`;
}
