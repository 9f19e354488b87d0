import * as z from 'zod';
import { policyExample } from '../api/examples.js';
import { Id, Timestamp, Text } from '../api/common.js';
import { pageParams } from '../api/paging.js';
import { Email } from '../accounts/model.js';

export const MAX_STEP_DELAY_MINUTES = 1440;

export const policyStepInput = z.strictObject({
  delay_minutes: z.int().min(0).max(MAX_STEP_DELAY_MINUTES),
  emails: z.array(Email).min(1).max(10),
});

/** 1-10 steps; the first at delay 0, delays strictly increasing, at most 1,440 minutes. */
const PolicySteps = z
  .array(policyStepInput)
  .min(1)
  .max(10)
  .superRefine((steps, context) => {
    steps.forEach((step, index) => {
      if (index === 0 && step.delay_minutes !== 0) {
        context.addIssue({ code: 'custom', path: [0, 'delay_minutes'], message: 'The first step must have delay_minutes 0' });
      }
      const previous = steps[index - 1];
      if (previous && step.delay_minutes <= previous.delay_minutes) {
        context.addIssue({ code: 'custom', path: [index, 'delay_minutes'], message: 'Step delays must be strictly increasing' });
      }
    });
  });
const PolicyName = Text({ min: 1, max: 100 });
/** Shares the policy with a team (its monitors may use it); null: the caller's alone. */
const PolicyTeam = z.uuid().nullable();

export const createPolicyInput = z.strictObject({ name: PolicyName, steps: PolicySteps, team_id: PolicyTeam.default(null) });
export type CreatePolicyInput = z.output<typeof createPolicyInput>;

/** Every field optional; an absent body is an empty update ("No updates provided"). New steps apply to incidents opened from then on. */
export const updatePolicyInput = z
  .strictObject({ name: PolicyName, steps: PolicySteps, team_id: PolicyTeam })
  .partial()
  .meta({ minProperties: 1, id: 'UpdateEscalationPolicy', example: { name: 'Payments on-call', team_id: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c' } })
  .prefault({});
export type UpdatePolicyInput = z.output<typeof updatePolicyInput>;

export const listPoliciesQuery = z.object({ team_id: z.uuid().optional(), ...pageParams });
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
  team_id: z.string().nullish().transform((value) => value ?? null),
  /** How many monitors use the policy; deletion requires 0. */
  monitor_count: z.number().default(0),
});
export type Policy = z.output<typeof policyItem>;

export const PolicyBody = z
  .strictObject({
    id: Id,
    name: z.string().meta({ example: 'Primary on-call' }),
    owner_id: Id,
    steps: z.array(
      z
        .strictObject({ step_order: z.int().min(1), delay_minutes: z.int().min(0).max(MAX_STEP_DELAY_MINUTES), emails: z.array(z.string()) })
        .meta({ id: 'EscalationPolicyStep' }),
    ),
    team_id: Id.nullable().meta({ description: 'The team the policy is shared with; null when it is its owner\'s alone' }),
    created_at: Timestamp,
  })
  .meta({ id: 'EscalationPolicy', example: policyExample });

export const policyView = (policy: Policy): z.output<typeof PolicyBody> => ({
  id: policy.id,
  name: policy.name,
  owner_id: policy.owner_id,
  steps: policy.steps.map(({ step_order, delay_minutes, emails }) => ({ step_order, delay_minutes, emails })),
  team_id: policy.team_id,
  created_at: policy.created_at,
});
