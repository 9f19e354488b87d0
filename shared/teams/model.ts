import * as z from '../platform/zod.js';
import { described, Id, Timestamp, Text } from '../platform/api/common.js';
import { Email } from '../accounts/model.js';
import { AssignableRole, Role } from '../platform/vocabulary.js';

export { ASSIGNABLE_ROLES, AssignableRole, ROLES, Role } from '../platform/vocabulary.js';

/** Invites live 7 days. */
export const INVITE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export const TeamName = Text({ min: 1, max: 100, name: true });
export const TeamSlug = z
  .string()
  .check(z.minLength(1), z.maxLength(100), z.regex(/^[a-z0-9-]+$/, 'Lowercase letters, digits and hyphens only'));

export const createTeamInput = described(z.strictObject({ name: TeamName, slug: TeamSlug }), {
  id: 'CreateTeam',
  example: { name: 'Site Reliability', slug: 'sre' },
});
export type CreateTeamInput = z.output<typeof createTeamInput>;

/** `name` is the only updatable field; an absent body is an empty update ("No updates provided"). */
export const updateTeamInput = z.prefault(
  described(z.partial(z.strictObject({ name: TeamName })), { id: 'UpdateTeam', minProperties: 1, example: { name: 'Platform Reliability' } }),
  {},
);
export type UpdateTeamInput = z.output<typeof updateTeamInput>;

export const inviteInput = described(z.strictObject({ email: Email, role: AssignableRole }), {
  id: 'CreateInvite',
  example: { email: 'bob@example.com', role: 'MEMBER' },
});
export type InviteInput = z.output<typeof inviteInput>;

export const changeRoleInput = z.strictObject({ role: AssignableRole });
export type ChangeRoleInput = z.output<typeof changeRoleInput>;

export const teamParams = z.strictObject({ id: z.uuid() });
export const inviteParams = z.strictObject({ id: z.uuid(), inviteId: z.uuid() });
export const memberParams = z.strictObject({ id: z.uuid(), memberId: z.uuid() });
/** Any token string is looked up; an unknown one is "Invalid or expired invite". */
export const tokenParams = z.strictObject({ token: z.string().check(z.minLength(1), z.maxLength(512)) });

export const teamItem = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  owner_id: z.string(),
  member_count: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Team = z.output<typeof teamItem>;

/** A member as shown in the team (addressed by member id). */
export const memberItem = z.object({
  id: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  name: z.string(),
  email: z.string(),
  role: Role,
  joined_at: z.string(),
});
export type Member = z.output<typeof memberItem>;

/** A user's membership (addressed by user id): what authorization and the user's team list read. */
export const membershipItem = z.object({
  member_id: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  role: Role,
  joined_at: z.string(),
});
export type Membership = z.output<typeof membershipItem>;

/**
 * An invite as stored. `token` is the invite token itself, kept because the contract's team form lists
 * it to the team's managers (`GET /api/teams/:id`, "pendingInvites … including token"): it cannot be
 * read back from a hash. `token_hash` (SHA-256, hex) keys its lookup item; an invite written before
 * hashing has none, and its lookup is keyed by the token itself (found by the token until it expires).
 */
export const inviteItem = z.object({
  id: z.string(),
  team_id: z.string(),
  email: z.string(),
  role: AssignableRole,
  token: z.string(),
  token_hash: z.optional(z.string()),
  invited_by: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
});
export type StoredInvite = z.output<typeof inviteItem>;
/** A new invite: its lookup always keyed by the token's hash. */
export type Invite = StoredInvite & { token_hash: string };

/** What keys an invite's token lookup: the token's hash, or (written before hashing) the token itself. */
export const inviteLookupKey = (invite: Pick<StoredInvite, 'token_hash' | 'token'>): string => invite.token_hash ?? invite.token;

/**
 * What a member who may not invite reads of a pending invite's token in the team form: `…` and its
 * last 4 characters, to tell invites apart (as integration keys and chat webhook URLs are shown), never
 * a token that accepts.
 */
export const inviteTokenHint = (token: string) => `…${token.slice(-4)}`;

/**
 * The token-lookup item (`INVITETOKEN#<sha256 of the token>`): finds an invite by its token with one
 * GetItem. One written before hashing is keyed `INVITETOKEN#<token>` and holds `token`.
 */
export const inviteTokenItem = z.object({
  token: z.optional(z.string()),
  invite_id: z.string(),
  team_id: z.string(),
  email: z.string(),
  role: AssignableRole,
  expires_at: z.string(),
});
export type InviteToken = z.output<typeof inviteTokenItem>;

export const TeamBody = described(
  z.strictObject({
    id: Id,
    name: described(z.string(), { example: 'Site Reliability' }),
    slug: described(z.string(), { example: 'sre' }),
    owner_id: Id,
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  { id: 'Team' },
);

export const TeamListItem = described(z.extend(TeamBody, { member_count: z.int().check(z.minimum(1)), user_role: Role }), {
  id: 'TeamListItem',
});

export const MemberBody = described(z.strictObject({ id: Id, team_id: Id, user_id: Id, role: Role, joined_at: Timestamp }), {
  id: 'TeamMember',
});

export const MemberDetail = described(z.extend(MemberBody, { name: z.string(), email: z.string() }), {
  id: 'TeamMemberDetail',
});

export const InviteBody = described(
  z.strictObject({
    id: Id,
    team_id: Id,
    email: described(z.string(), { example: 'bob@example.com' }),
    role: AssignableRole,
    token: described(z.string(), {
      description:
        'The unique invite token (256 random bits, base64url). In a team\'s pendingInvites, read by its OWNER and ADMINs; a MEMBER or VIEWER reads a hint there (… and its last 4 characters)',
    }),
    invited_by: Id,
    expires_at: Timestamp,
    created_at: Timestamp,
  }),
  { id: 'TeamInvite' },
);

/**
 * What each role may do in a team: the roles each write path's guard takes (`service.ts` authorizes
 * and conditions its transaction with these lists), and what `GET /api/teams/:id` tells the caller
 * they may do (`permissions`), so a client shows the controls its caller may use without guessing.
 */
export const TEAM_RIGHTS = {
  rename: ['OWNER', 'ADMIN'],
  delete: ['OWNER'],
  invite: ['OWNER', 'ADMIN'],
  cancel_invites: ['OWNER', 'ADMIN'],
  remove_members: ['OWNER', 'ADMIN'],
  change_roles: ['OWNER'],
} as const satisfies Record<string, readonly Role[]>;
export type TeamRight = keyof typeof TEAM_RIGHTS;

export const TeamPermissions = described(
  z.strictObject({
    rename: z.boolean(),
    delete: z.boolean(),
    invite: z.boolean(),
    cancel_invites: z.boolean(),
    remove_members: z.boolean(),
    change_roles: z.boolean(),
  }),
  {
    id: 'TeamPermissions',
    description:
      "What the caller's role lets them do in this team now, by the same rules the writes enforce: rename it (PUT), delete it, invite, cancel pending invites, remove members (never the owner), change members' roles (never the owner's)",
    example: { rename: true, delete: false, invite: true, cancel_invites: true, remove_members: true, change_roles: false },
  },
);

/** The caller's rights in a team by their role. */
export const permissionsOf = (role: Role): z.output<typeof TeamPermissions> =>
  Object.fromEntries(Object.entries(TEAM_RIGHTS).map(([right, roles]) => [right, (roles as readonly Role[]).includes(role)])) as z.output<typeof TeamPermissions>;

export const TeamDetail = described(
  z.strictObject({
    team: TeamBody,
    members: z.array(MemberDetail),
    pendingInvites: z.array(InviteBody),
    userRole: Role,
    permissions: TeamPermissions,
  }),
  { id: 'TeamDetail' },
);

export const teamView = (team: Team): z.output<typeof TeamBody> => ({
  id: team.id,
  name: team.name,
  slug: team.slug,
  owner_id: team.owner_id,
  created_at: team.created_at,
  updated_at: team.updated_at,
});

export const teamListView = (team: Team, role: Role): z.output<typeof TeamListItem> => ({
  ...teamView(team),
  member_count: team.member_count,
  user_role: role,
});

export const memberView = (member: Member): z.output<typeof MemberBody> => ({
  id: member.id,
  team_id: member.team_id,
  user_id: member.user_id,
  role: member.role,
  joined_at: member.joined_at,
});

export const memberDetailView = (member: Member): z.output<typeof MemberDetail> => ({
  id: member.id,
  team_id: member.team_id,
  user_id: member.user_id,
  name: member.name,
  email: member.email,
  role: member.role,
  joined_at: member.joined_at,
});

export const inviteView = (invite: StoredInvite): z.output<typeof InviteBody> => ({
  id: invite.id,
  team_id: invite.team_id,
  email: invite.email,
  role: invite.role,
  token: invite.token,
  invited_by: invite.invited_by,
  expires_at: invite.expires_at,
  created_at: invite.created_at,
});
