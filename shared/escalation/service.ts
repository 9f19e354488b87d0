import { randomUUID } from 'node:crypto';
import type { Caller } from '../caller.js';
import { clock } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import * as repository from './repository.js';
import { policyView, type CreatePolicyInput, type Policy } from './model.js';

export const policyNotFound = () => new NotFoundError('Escalation policy not found');

export async function createPolicy(caller: Caller, input: CreatePolicyInput) {
  const policy: Policy = {
    id: randomUUID(),
    name: input.name,
    owner_id: caller.userId,
    steps: input.steps.map((step, index) => ({ step_order: index + 1, delay_minutes: step.delay_minutes, emails: step.emails })),
    created_at: clock.nowIso(),
    monitor_count: 0,
  };
  await repository.insertPolicy(policy);
  return policyView(policy);
}

export async function listPolicies(caller: Caller) {
  return (await repository.listPolicies(caller.userId)).map(policyView);
}

export async function getPolicy(caller: Caller, policyId: string) {
  const policy = await repository.getPolicy(policyId);
  if (!policy || policy.owner_id !== caller.userId) throw policyNotFound();
  return policyView(policy);
}

export async function deletePolicy(caller: Caller, policyId: string) {
  const outcome = await repository.deletePolicy(caller.userId, policyId);
  if (outcome === 'not_found') throw policyNotFound();
  if (outcome === 'in_use') throw new BadRequestError('Escalation policy in use');
}
