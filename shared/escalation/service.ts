import { randomUUID } from 'node:crypto';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { BadRequestError, NotFoundError, ValidationError } from '../platform/errors.js';
import { accessRefusal, accessTo, allows, colleagueChecks, OPERATORS, pageOfScopes, READERS, shareRefusal, type GuardOutcome } from '../teams/access.js';
import { deleteGuard, unmoved, updateAccess, updateRefusal } from '../teams/sharing.js';
import * as repository from './repository.js';
import { auditPut, type AuditSpec, changesOf, sharedResourceAudit } from '../audit/entry.js';
import { policyItem, policyView, storedStep, targetIds, type CreatePolicyInput, type EscalationTarget, type ListPoliciesQuery, type Policy, type UpdatePolicyInput } from './model.js';

export const policyNotFound = () => new NotFoundError('Escalation policy not found');

/** A policy's entry: in its team's log (if any) and its owner's. */
const policyAudit = (policy: Policy, action: AuditSpec['action'], changes?: AuditSpec['changes'], teamId = policy.team_id): AuditSpec =>
  sharedResourceAudit('escalation_policy', policy, action, changes, teamId);
const POLICY_FIELDS = ['name', 'steps', 'repeat', 'team_id'] as const;

/** A policy of the caller's own, or shared with a team they belong to (OWNER, ADMIN or MEMBER may share). */
export async function createPolicy(caller: Caller, input: CreatePolicyInput) {
  const policy: Policy = {
    id: randomUUID(),
    name: input.name,
    owner_id: caller.userId,
    steps: input.steps.map(storedStep),
    created_at: clock.nowIso(),
    team_id: input.team_id,
    monitor_count: 0,
    ...(input.repeat ? { repeat: input.repeat } : {}),
  };
  const audit = auditPut(caller, policyAudit(policy, 'escalation_policy.created', changesOf(undefined, policy, POLICY_FIELDS)), policy.created_at);
  const { outcome, item } = await repository.insertPolicy(policy, OPERATORS, await colleaguesOf(policy, undefined, input.steps), audit);
  if (outcome === 'ok') return policyView(policy);
  throw targetRefusal(outcome, input.steps, policy.team_id) ?? shareRefusal(outcome as GuardOutcome, item);
}

/**
 * The refusal of a target the write's transaction found wanting (`schedule:<id>`: gone, or not the
 * policy's scope's; `person:<id>`: no account, or no member of the policy's team), on every place the
 * steps name it; undefined for other outcomes.
 */
function targetRefusal(outcome: string, steps: readonly { targets?: readonly EscalationTarget[] }[] | undefined, teamId: string | null) {
  const [kind, id] = outcome.split(':') as [string, string | undefined];
  if (!id || (kind !== 'schedule' && kind !== 'person')) return undefined;
  const message =
    kind === 'schedule'
      ? teamId ? "Must be a schedule of the policy's team or of its owner alone" : 'Must be a schedule of the policy\'s owner alone'
      : teamId ? "Must be a member of the policy's team" : PERSONAL_POLICY_PERSON;
  const type = kind === 'schedule' ? 'schedule' : 'user';
  const places = (steps ?? []).flatMap((step, index) =>
    (step.targets ?? []).flatMap((target, position) => (target.type === type && target.id === id ? [{ field: `steps.${index}.targets.${position}.id`, message }] : [])),
  );
  return new ValidationError(places.length ? places : [{ field: 'team_id', message }]);
}

/** Who a policy of its owner alone may page as a `user` target (issue 41, 5): an unknown id is told exactly this too. */
export const PERSONAL_POLICY_PERSON = "Must be the policy's owner or share a team with them";

/**
 * For a write of a policy of its owner alone that checks its user targets: the memberships through which
 * each other person shares a team with the owner, for its transaction; refused at once (400, on every
 * place the steps name them) when one shares none.
 */
async function colleaguesOf(next: Policy, before: Policy | undefined, steps: readonly { targets?: readonly EscalationTarget[] }[] | undefined) {
  if (next.team_id || !repository.peopleChange(next, before)) return [];
  const colleagues = await colleagueChecks(next.owner_id, targetIds(next.steps).users);
  if (colleagues.stranger) throw targetRefusal(colleagues.stranger, steps, null)!;
  return colleagues.checks;
}

/** A page of the caller's policies and those shared with their teams (or with one team), newest first. */
export function listPolicies(caller: Caller, query: ListPoliciesQuery) {
  return pageOfScopes('escalation-policies', caller.userId, query, repository.policySources, (item) => policyItem.parse(item) as Policy, policyView);
}

/** The policy, if the caller owns it or belongs to the team it is shared with. */
async function visiblePolicy(caller: Caller, policyId: string) {
  const policy = await repository.getPolicy(policyId);
  const access = policy && (await accessTo(caller.userId, policy));
  if (!policy || !allows(access, READERS)) throw policyNotFound();
  return { policy, access: access! };
}

export async function getPolicy(caller: Caller, policyId: string) {
  return policyView((await visiblePolicy(caller, policyId)).policy);
}

const policyKeptChanging = (policyId: string) => (attempts: number) => `Escalation policy ${policyId} kept changing; gave up after ${attempts} attempts`;

/**
 * Renames the policy, replaces its steps (for incidents opened from then on) or moves it between
 * teams. The owner may do anything; through its team, OWNER, ADMIN and MEMBER may rename it and
 * change its steps, OWNER and ADMIN may take it out. Moving into a team needs OWNER, ADMIN or
 * MEMBER there, and a policy that monitors use does not move (400 Escalation policy in use).
 */
export async function updatePolicy(caller: Caller, policyId: string, changes: UpdatePolicyInput) {
  if (Object.values(changes).every((value) => value === undefined)) throw new BadRequestError('No updates provided');
  return retryOnConflict(async () => {
    const current = await repository.getPolicy(policyId);
    if (!current) throw policyNotFound();
    // A shared policy pages the team's people: changing it takes a role in the team, even for its
    // owner (who may always take it back out, if no monitor uses it).
    const access = updateAccess(caller.userId, current, changes.team_id, policyNotFound, { ownerThroughTeam: true });
    const next: Policy = {
      ...current,
      name: changes.name ?? current.name,
      steps: changes.steps ? changes.steps.map(storedStep) : current.steps,
      repeat: changes.repeat ?? current.repeat,
      team_id: access.teamId,
    };
    // Exact `from` values: the write holds on the policy's version as read.
    const audit = auditPut(caller, policyAudit(current, 'escalation_policy.updated', changesOf(current, next, POLICY_FIELDS), current.team_id ?? next.team_id));
    const { outcome, item } = await repository.updatePolicy(current, next, access, caller.userId, await colleaguesOf(next, current, changes.steps), audit);
    if (outcome === 'ok') return policyView({ ...next, version: (current.version ?? 0) + 1 });
    const targets = targetRefusal(outcome, changes.steps, next.team_id);
    if (targets) throw targets;
    if (outcome === 'conflict') return undefined;
    const refusal = updateRefusal(outcome, item, access, policyNotFound);
    if (refusal) throw refusal;
    // Refused after the guards passed: in use (a policy that monitors use does not move), or gone or moved meanwhile.
    if (unmoved(item, current) && access.moving && Number(item.monitor_count ?? 0) > 0) throw new BadRequestError('Escalation policy in use');
    return undefined;
  }, policyKeptChanging(policyId));
}

/** Deletes a policy no monitor uses: its owner, or an OWNER or ADMIN of the team it is shared with. */
export async function deletePolicy(caller: Caller, policyId: string) {
  // Read first (the caller's own unshared policy was one conditional DeleteItem before the audit log): the
  // entry names the policy, and a transaction cannot answer the item it deleted.
  await retryOnConflict(async () => {
    const current = await repository.getPolicy(policyId);
    if (!current) throw policyNotFound();
    if (current.owner_id === caller.userId && !current.team_id && current.monitor_count > 0) {
      throw new BadRequestError('Escalation policy in use');
    }
    const { guard } = deleteGuard(caller.userId, current, policyNotFound);
    const { outcome, item } = await repository.deletePolicy(current, guard, auditPut(caller, policyAudit(current, 'escalation_policy.deleted')));
    if (outcome === 'ok') return DONE;
    if (outcome === 'conflict') return undefined;
    if (outcome === 'refused') {
      if (unmoved(item, current)) throw new BadRequestError('Escalation policy in use');
      return undefined; // gone or moved meanwhile: read again
    }
    throw accessRefusal(outcome, item, policyNotFound);
  }, policyKeptChanging(policyId));
}
