import * as z from '../platform/zod.js';
import { policyExample } from '../platform/api/examples.js';
import { described, Id, Timestamp, Text } from '../platform/api/common.js';
import { pageParams } from '../platform/api/paging.js';
import { Email } from '../accounts/model.js';

export const MAX_STEP_DELAY_MINUTES = 1440;

export const policyStepInput = z.strictObject({
  delay_minutes: z.int().check(z.minimum(0), z.maximum(MAX_STEP_DELAY_MINUTES)),
  emails: z.array(Email).check(z.minLength(1), z.maxLength(10)),
});

/** 1-10 steps; the first at delay 0, delays strictly increasing, at most 1,440 minutes. */
const PolicySteps = z.array(policyStepInput).check(
  z.minLength(1),
  z.maxLength(10),
  z.superRefine((steps, context) => {
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
const PolicyName = Text({ min: 1, max: 100 });
/** Shares the policy with a team (its monitors may use it); null: the caller's alone. */
const PolicyTeam = z.nullable(z.uuid());

export const createPolicyInput = z.strictObject({ name: PolicyName, steps: PolicySteps, team_id: z._default(PolicyTeam, null) });
export type CreatePolicyInput = z.output<typeof createPolicyInput>;

/** Every field optional; an absent body is an empty update ("No updates provided"). New steps apply to incidents opened from then on. */
export const updatePolicyInput = z.prefault(
  described(z.partial(z.strictObject({ name: PolicyName, steps: PolicySteps, team_id: PolicyTeam })), {
    minProperties: 1,
    id: 'UpdateEscalationPolicy',
    example: { name: 'Payments on-call', team_id: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c' },
  }),
  {},
);
export type UpdatePolicyInput = z.output<typeof updatePolicyInput>;

export const listPoliciesQuery = z.object({ team_id: z.optional(z.uuid()), ...pageParams });
export type ListPoliciesQuery = z.output<typeof listPoliciesQuery>;

export const policyStep = z.object({ step_order: z.int(), delay_minutes: z.int(), emails: z.array(z.string()) });
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
});
export type Policy = z.output<typeof policyItem>;

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
          emails: z.array(z.string()),
        }),
        { id: 'EscalationPolicyStep' },
      ),
    ),
    team_id: described(z.nullable(Id), { description: 'The team the policy is shared with; null when it is its owner\'s alone' }),
    created_at: Timestamp,
  }),
  { id: 'EscalationPolicy', example: policyExample },
);

export const policyView = (policy: Policy): z.output<typeof PolicyBody> => ({
  id: policy.id,
  name: policy.name,
  owner_id: policy.owner_id,
  steps: policy.steps.map(({ step_order, delay_minutes, emails }) => ({ step_order, delay_minutes, emails })),
  team_id: policy.team_id,
  created_at: policy.created_at,
});
