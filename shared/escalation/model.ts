import * as z from '../platform/zod.js';
import { described, Id, Timestamp, Text } from '../platform/api/common.js';
import { pageParams } from '../platform/api/pagination.js';
import { Email } from '../accounts/model.js';

export const MAX_STEP_DELAY_MINUTES = 1440;
export const MAX_STEPS = 10;
export const MAX_REPEAT = 5;
/** An incident's escalation steps: each policy step once per round. */
export const MAX_INCIDENT_STEPS = MAX_STEPS * (MAX_REPEAT + 1);
/** Distinct schedules and people a policy's steps name (each is checked, and counted, in the write's transaction). */
export const MAX_POLICY_SCHEDULES = 10;
export const MAX_POLICY_USERS = 20;

/** Whom a step pages: whoever is on call in a schedule at the page, a person (their account's e-mail), or an address. */
export const EscalationTarget = described(
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('schedule'), id: z.uuid() }),
    z.strictObject({ type: z.literal('user'), id: z.uuid() }),
    z.strictObject({ type: z.literal('email'), address: Email }),
  ]),
  { id: 'EscalationTarget' },
);
export type EscalationTarget = z.output<typeof EscalationTarget>;

/**
 * Whom a page is for (issue 43): a person (a `user` target, or whoever a `schedule` target finds on
 * call), paged by their notification rules, with their account's address (`email`) for the event's
 * version-1 fields and the fallback; or a bare address (an `email` target), e-mailed as an outside
 * address (`paging/outside.ts`). The same shape as the `incident.escalation_step` event's `recipients`.
 */
export type PagedRecipient =
  | { kind: 'person'; user_id: string; name: string; email: string; /** The schedule they were on call in, for a schedule target. */ schedule_id?: string }
  | { kind: 'address'; channel: 'email'; address: string };

/** The e-mail address a recipient stands for (a person's account address). */
export const recipientEmail = (recipient: PagedRecipient) => (recipient.kind === 'person' ? recipient.email : recipient.address);

/** A schedule target with nobody on call at the page (or gone since the policy named it). */
export interface UnstaffedSchedule {
  schedule_id: string;
  schedule_name: string | null;
}

export interface ResolvedTargets {
  recipients: PagedRecipient[];
  nobodyOnCall: UnstaffedSchedule[];
  /** The time zone of each schedule a person was found on call in, by schedule id (what reports measure their hours in). */
  timeZones?: Record<string, string>;
}

/** A step pages `targets`, or (as before targets existed) `emails`, which are e-mail targets. */
export const policyStepInput = z.strictObject({
  delay_minutes: z.int().check(z.minimum(0), z.maximum(MAX_STEP_DELAY_MINUTES)),
  emails: z.optional(z.array(Email).check(z.minLength(1), z.maxLength(10))),
  targets: z.optional(z.array(EscalationTarget).check(z.minLength(1), z.maxLength(10))),
}).check(
  z.superRefine((step, context) => {
    if (step.emails && step.targets) context.addIssue({ code: 'custom', path: ['targets'], message: 'Give either emails or targets' });
    if (!step.emails && !step.targets) context.addIssue({ code: 'custom', path: ['targets'], message: 'Required (or emails)' });
  }),
);

/** The distinct schedules and people the steps target. */
export function targetIds(steps: readonly { targets?: readonly EscalationTarget[] }[]) {
  const of = (type: 'schedule' | 'user') => [
    ...new Set(steps.flatMap((step) => (step.targets ?? []).flatMap((target) => (target.type === type ? [target.id] : [])))),
  ];
  return { schedules: of('schedule'), users: of('user') };
}

/** 1-10 steps; the first at delay 0, delays strictly increasing, at most 1,440 minutes. */
const PolicySteps = z.array(policyStepInput).check(
  z.minLength(1),
  z.maxLength(MAX_STEPS),
  z.superRefine((steps, context) => {
    const { schedules, users } = targetIds(steps);
    if (schedules.length > MAX_POLICY_SCHEDULES) context.addIssue({ code: 'custom', path: [], message: `A policy targets at most ${MAX_POLICY_SCHEDULES} schedules` });
    if (users.length > MAX_POLICY_USERS) context.addIssue({ code: 'custom', path: [], message: `A policy targets at most ${MAX_POLICY_USERS} people` });
    steps.forEach((step, index) => {
      if (index === 0 && step.delay_minutes !== 0) {
        context.addIssue({ code: 'custom', path: [0, 'delay_minutes'], message: 'The first step must have delay_minutes 0' });
      }
      const previous = steps[index - 1];
      if (previous && step.delay_minutes <= previous.delay_minutes) {
        context.addIssue({ code: 'custom', path: [index, 'delay_minutes'], message: 'Step delays must be strictly increasing' });
      }
    });
  }),
);
const PolicyName = Text({ min: 1, max: 100, name: true });
/** Shares the policy with a team (its monitors may use it); null: the caller's alone. */
const PolicyTeam = z.nullable(z.uuid());

/** How many times the steps start again from step 1 after the last one passes unacknowledged. */
const PolicyRepeat = z.int().check(z.minimum(0), z.maximum(MAX_REPEAT));

export const createPolicyInput = z.strictObject({ name: PolicyName, steps: PolicySteps, repeat: z.optional(PolicyRepeat), team_id: z._default(PolicyTeam, null) });
export type CreatePolicyInput = z.output<typeof createPolicyInput>;

/** Every field optional; an absent body is an empty update ("No updates provided"). New steps apply to incidents opened from then on. */
export const updatePolicyInput = z.prefault(
  described(z.partial(z.strictObject({ name: PolicyName, steps: PolicySteps, repeat: PolicyRepeat, team_id: PolicyTeam })), {
    minProperties: 1,
    id: 'UpdateEscalationPolicy',
    example: { name: 'Payments on-call', team_id: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c' },
  }),
  {},
);
export type UpdatePolicyInput = z.output<typeof updatePolicyInput>;

export const listPoliciesQuery = z.object({ team_id: z.optional(z.uuid()), ...pageParams });
export type ListPoliciesQuery = z.output<typeof listPoliciesQuery>;

/** A stored step: `emails` are its e-mail targets' addresses; `targets` only when it was given targets. */
export const policyStep = z.object({ step_order: z.int(), delay_minutes: z.int(), emails: z.array(z.string()), targets: z.optional(z.array(z.any())) });
export type PolicyStep = z.output<typeof policyStep>;

export const policyItem = z.object({
  id: z.string(),
  name: z.string(),
  owner_id: z.string(),
  steps: z.array(policyStep),
  created_at: z.string(),
  /** The team the policy is shared with; stored absent when it is its owner's alone. */
  team_id: z.pipe(
    z.nullish(z.string()),
    z.transform((value) => value ?? null),
  ),
  /** How many monitors use the policy; deletion requires 0. */
  monitor_count: z._default(z.number(), 0),
  /** Rounds after the first; stored absent when 0. */
  repeat: z.optional(z.number()),
  /** Counts the policy's writes (absent before its first change): a change of its targets is made from the steps as read. */
  version: z.optional(z.number()),
});
export type Policy = Omit<z.output<typeof policyItem>, 'steps'> & { steps: PolicyStepStored[] };
export type PolicyStepStored = Omit<PolicyStep, 'targets'> & { targets?: EscalationTarget[] };

/** A step as stored, from its input. */
export const storedStep = (step: z.output<typeof policyStepInput>, index: number): PolicyStepStored => ({
  step_order: index + 1,
  delay_minutes: step.delay_minutes,
  emails: step.emails ?? (step.targets ?? []).flatMap((target) => (target.type === 'email' ? [target.address] : [])),
  ...(step.targets ? { targets: step.targets } : {}),
});

export const PolicyBody = described(
  z.strictObject({
    id: Id,
    name: described(z.string(), { example: 'Primary on-call' }),
    owner_id: Id,
    steps: z.array(
      described(
        z.strictObject({
          step_order: z.int().check(z.minimum(1)),
          delay_minutes: z.int().check(z.minimum(0), z.maximum(MAX_STEP_DELAY_MINUTES)),
          emails: described(z.array(z.string()), { description: 'The addresses of its e-mail targets' }),
          targets: described(z.optional(z.array(EscalationTarget)), { description: 'Present when the step was given targets' }),
        }),
        { id: 'EscalationPolicyStep' },
      ),
    ),
    repeat: described(z.optional(z.int()), { description: 'Rounds after the first (1-5); absent when the steps run once' }),
    team_id: described(z.nullable(Id), { description: 'The team the policy is shared with; null when it is its owner\'s alone' }),
    created_at: Timestamp,
  }),
  { id: 'EscalationPolicy' },
);

export const policyView = (policy: Policy): z.output<typeof PolicyBody> => ({
  id: policy.id,
  name: policy.name,
  owner_id: policy.owner_id,
  steps: policy.steps.map(({ step_order, delay_minutes, emails, targets }) => ({ step_order, delay_minutes, emails, ...(targets ? { targets } : {}) })),
  ...(policy.repeat ? { repeat: policy.repeat } : {}),
  team_id: policy.team_id,
  created_at: policy.created_at,
});

/** A one-step policy's round, when it repeats: the step has nothing after it to measure a round by. */
export const ONE_STEP_ROUND_MINUTES = 30;

/**
 * An incident's escalation steps from its policy: the policy's steps once per round (1 + `repeat`),
 * numbered on through the rounds. A round lasts until the last step has waited as long as the step
 * before it did (its delay plus the last gap between delays); a one-step policy's round lasts 30 minutes.
 * Each step carries what its page needs: the addresses, the targets, and the policy's team (whose
 * members alone are paged as people).
 */
export function incidentSteps(policy: Policy) {
  const delays = policy.steps.map((step) => step.delay_minutes);
  const last = delays.at(-1)!;
  const round = delays.length > 1 ? last + (last - delays.at(-2)!) : ONE_STEP_ROUND_MINUTES;
  return Array.from({ length: (policy.repeat ?? 0) + 1 }, (_, index) => index).flatMap((turn) =>
    policy.steps.map((step) => ({
      step_order: turn * policy.steps.length + step.step_order,
      delay_minutes: turn * round + step.delay_minutes,
      emails: step.emails,
      ...(step.targets ? { targets: step.targets, team_id: policy.team_id } : {}),
    })),
  );
}

/** A step whose recipients are known only at its page: it targets a schedule (whoever is on call then). */
export const onCallAtPage = (step: { targets?: readonly EscalationTarget[] }) => (step.targets ?? []).some((target) => target.type === 'schedule');
