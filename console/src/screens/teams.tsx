/**
 * Teams: the caller's teams and a new one; a team's members and roles, its pending invitations, its
 * name, and deleting it. Which controls show follows the API's answer: `permissions` in
 * `GET /api/teams/:id` (computed by the same role lists the writes enforce), never a role table here.
 * `/invites/:token` accepts an invitation after sign-in.
 */
import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { ConfirmInline } from '../components/confirm.js';
import { SubmitActions, submitWith } from '../components/forms.js';
import { Pager } from '../components/paging.js';
import { Badge, ErrorNote, Heading, Loading, Time } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { navigate } from '../router.js';
import { slugFromName } from './people.js';
import './people.css';

type Detail = Schemas['TeamDetail'];
type Member = Schemas['TeamMemberDetail'];
type Invite = Schemas['TeamInvite'];
const ASSIGNABLE = ['ADMIN', 'MEMBER', 'VIEWER'] as const;
type Assignable = (typeof ASSIGNABLE)[number];

function RoleOptions() {
  return (
    <>
      {ASSIGNABLE.map((value) => (
        <option key={value} value={value}>
          {value}
        </option>
      ))}
    </>
  );
}

export function TeamsScreen() {
  const { api } = useConsole();
  const [cursor, setCursor] = useState<string | undefined>();
  const list = useResource(() => must(api.GET('/api/teams', { params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } } })), [cursor]);
  return (
    <section>
      <Heading title="Teams">Teams</Heading>
      <ErrorNote error={list.error} />
      {!list.data ? (
        !list.error && <Loading what="your teams" />
      ) : list.data.teams.length === 0 ? (
        <p class="empty">You belong to no team yet. Create one below, or accept an invitation from your e-mail.</p>
      ) : (
        <ul class="cards" aria-label="Your teams">
          {list.data.teams.map((team) => (
            <li class="card" key={team.id}>
              <div class="grow">
                <a class="title" href={`/teams/${team.id}`}>
                  {team.name}
                </a>
                <div class="meta">
                  <Badge kind="role">{team.user_role}</Badge>
                  <span class="muted">
                    {team.member_count} member{team.member_count === 1 ? '' : 's'} · {team.slug}
                  </span>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      <Pager cursor={cursor} next={list.data?.next_cursor} onPage={setCursor} />
      <CreateTeam />
    </section>
  );
}

function CreateTeam() {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const create = useAction(async () => {
    const { team } = await must(api.POST('/api/teams', { body: { name, slug } }));
    navigate(`/teams/${team.id}`);
  });
  return (
    <>
      <h2>New team</h2>
      <form
        class="stack"
        aria-label="New team"
        onSubmit={submitWith(() => create.run())}
      >
        <label>
          Team name
          <input
            required
            maxLength={100}
            value={name}
            onInput={(event) => {
              setName(event.currentTarget.value);
              if (!slugEdited) setSlug(slugFromName(event.currentTarget.value));
            }}
          />
        </label>
        <label>
          Slug (lowercase letters, digits and hyphens; it never changes)
          <input
            required
            maxLength={100}
            value={slug}
            onInput={(event) => {
              setSlug(event.currentTarget.value);
              setSlugEdited(true);
            }}
          />
        </label>
        <SubmitActions error={create.error} busy={create.busy}>
          Create team
        </SubmitActions>
      </form>
    </>
  );
}

export function TeamScreen({ params }: { params: Record<string, string> }) {
  const { api } = useConsole();
  const id = params.id!;
  const detail = useResource(() => must(api.GET('/api/teams/{id}', { params: { path: { id } } })), [id]);
  if (!detail.data) {
    return (
      <section>
        <p class="crumbs">
          <a href="/teams">Teams</a>
        </p>
        <Heading title="Team">Team</Heading>
        {detail.error ? <ErrorNote error={detail.error} /> : <Loading what="the team" />}
      </section>
    );
  }
  const { team, members, pendingInvites, userRole, permissions } = detail.data;
  const reload = detail.reload;
  return (
    <section>
      <p class="crumbs">
        <a href="/teams">Teams</a>
      </p>
      <Heading title={team.name}>{team.name}</Heading>
      <dl class="fields">
        <dt>Slug</dt>
        <dd>{team.slug}</dd>
        <dt>Your role</dt>
        <dd>
          <Badge kind="role">{userRole}</Badge>
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={team.created_at} />
        </dd>
      </dl>
      {permissions.rename && <Rename detail={detail.data} onDone={reload} />}

      <h2>Members</h2>
      <ul class="cards" aria-label="Members">
        {members.map((member) => (
          <MemberCard key={member.id} teamId={team.id} member={member} permissions={permissions} onDone={reload} />
        ))}
      </ul>

      <h2>Invitations</h2>
      {pendingInvites.length === 0 ? (
        <p class="muted">No pending invitations.</p>
      ) : (
        <ul class="cards" aria-label="Pending invitations">
          {pendingInvites.map((invite) => (
            <InviteCard key={invite.id} teamId={team.id} invite={invite} mayCancel={permissions.cancel_invites} onDone={reload} />
          ))}
        </ul>
      )}
      {permissions.invite && <InviteForm teamId={team.id} onDone={reload} />}

      {permissions.delete && <DeleteTeam detail={detail.data} />}
    </section>
  );
}

function Rename({ detail, onDone }: { detail: Detail; onDone: () => Promise<void> }) {
  const { api } = useConsole();
  const [name, setName] = useState(detail.team.name);
  const rename = useAction(async () => {
    await must(api.PUT('/api/teams/{id}', { params: { path: { id: detail.team.id } }, body: { name } }));
    await onDone();
  });
  return (
    <form
      class="row"
      aria-label="Rename the team"
      onSubmit={submitWith(() => rename.run())}
    >
      <label>
        Team name
        <input required maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <button type="submit" disabled={rename.busy || name === detail.team.name}>
        Rename
      </button>
      <ErrorNote error={rename.error} />
    </form>
  );
}

function MemberCard({ teamId, member, permissions, onDone }: { teamId: string; member: Member; permissions: Detail['permissions']; onDone: () => Promise<void> }) {
  const { api, me } = useConsole();
  const [role, setRole] = useState<Assignable>(member.role === 'OWNER' ? 'ADMIN' : member.role);
  const change = useAction(async () => {
    await must(api.PUT('/api/teams/{id}/members/{memberId}', { params: { path: { id: teamId, memberId: member.id } }, body: { role } }));
    await onDone();
  });
  const remove = useAction(async () => {
    await must(api.DELETE('/api/teams/{id}/members/{memberId}', { params: { path: { id: teamId, memberId: member.id } } }));
    await onDone();
  });
  // The owner's role is never changed nor the owner removed (the API's rule, stated with `permissions`).
  const isOwner = member.role === 'OWNER';
  return (
    <li class="card">
      <div class="grow">
        <div class="title">
          {member.name}
          {member.user_id === me.id && <span class="muted"> (you)</span>}
        </div>
        <div class="meta">
          <span class="muted person-email">{member.email}</span>
          <Badge kind="role">{member.role}</Badge>
          <span class="muted">
            joined <Time at={member.joined_at} />
          </span>
        </div>
        {!isOwner && (permissions.change_roles || permissions.remove_members) && (
          <div class="actions">
            {permissions.change_roles && (
              <>
                <label>
                  Role of {member.name}
                  <select value={role} onChange={(event) => setRole(event.currentTarget.value as Assignable)}>
                    <RoleOptions />
                  </select>
                </label>
                <button type="button" disabled={change.busy || role === member.role} onClick={() => void change.run()} aria-label={`Change the role of ${member.name}`}>
                  Change role
                </button>
              </>
            )}
            {permissions.remove_members && (
              <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run()} aria-label={`Remove ${member.name}`}>
                Remove
              </button>
            )}
          </div>
        )}
        <ErrorNote error={change.error ?? remove.error} />
      </div>
    </li>
  );
}

function InviteCard({ teamId, invite, mayCancel, onDone }: { teamId: string; invite: Invite; mayCancel: boolean; onDone: () => Promise<void> }) {
  const { api } = useConsole();
  const cancel = useAction(async () => {
    await must(api.DELETE('/api/teams/{id}/invite/{inviteId}', { params: { path: { id: teamId, inviteId: invite.id } } }));
    await onDone();
  });
  return (
    <li class="card">
      <div class="grow">
        <div class="title person-email">{invite.email}</div>
        <div class="meta">
          <Badge kind="role">{invite.role}</Badge>
          <span class="muted">
            expires <Time at={invite.expires_at} />
          </span>
        </div>
        <ErrorNote error={cancel.error} />
      </div>
      {mayCancel && (
        <button type="button" disabled={cancel.busy} onClick={() => void cancel.run()} aria-label={`Cancel the invitation of ${invite.email}`}>
          Cancel
        </button>
      )}
    </li>
  );
}

function InviteForm({ teamId, onDone }: { teamId: string; onDone: () => Promise<void> }) {
  const { api } = useConsole();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Assignable>('MEMBER');
  const [sent, setSent] = useState<string | undefined>();
  const invite = useAction(async () => {
    const { invite: created } = await must(api.POST('/api/teams/{id}/invite', { params: { path: { id: teamId } }, body: { email, role } }));
    setSent(created.email);
    setEmail('');
    await onDone();
  });
  return (
    <form
      class="row"
      aria-label="Invite someone"
      onSubmit={(event) => {
        event.preventDefault();
        setSent(undefined);
        void invite.run();
      }}
    >
      <label>
        E-mail address to invite
        <input type="email" required maxLength={254} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
      </label>
      <label>
        Invited role
        <select value={role} onChange={(event) => setRole(event.currentTarget.value as Assignable)}>
          <RoleOptions />
        </select>
      </label>
      <button type="submit" class="primary" disabled={invite.busy}>
        Invite
      </button>
      {sent && (
        <p role="status" class="note-ok">
          An invitation is on its way to {sent}.
        </p>
      )}
      <ErrorNote error={invite.error} />
    </form>
  );
}

function DeleteTeam({ detail }: { detail: Detail }) {
  const { api } = useConsole();
  const remove = async () => {
    await must(api.DELETE('/api/teams/{id}', { params: { path: { id: detail.team.id } } }));
    navigate('/teams');
  };
  return (
    <>
      <h2>Delete the team</h2>
      <p class="muted">Its monitors, policies and schedules go back to whoever created them; its memberships and invitations are removed.</p>
      <ConfirmInline start="Delete team" confirm={`Delete ${detail.team.name} for good`} onConfirm={remove} />
    </>
  );
}

/** `/invites/:token`, the invitation's link: joins the team as the signed-in person. */
export function InviteScreen({ params }: { params: Record<string, string> }) {
  const { api, me } = useConsole();
  const [joined, setJoined] = useState(false);
  const accept = useAction(async () => {
    await must(api.POST('/api/teams/invites/{token}/accept', { params: { path: { token: params.token! } } }));
    setJoined(true);
  });
  return (
    <section>
      <Heading title="Team invitation">Team invitation</Heading>
      {joined ? (
        <p role="status">
          You joined the team. <a href="/teams">See your teams</a>
        </p>
      ) : (
        <>
          <p>
            You are signed in as <strong>{me.email}</strong>. An invitation works for the e-mail address it was sent to.
          </p>
          <div class="actions">
            <button type="button" class="primary" disabled={accept.busy} onClick={() => void accept.run()}>
              Accept the invitation
            </button>
          </div>
          <ErrorNote error={accept.error} />
        </>
      )}
    </section>
  );
}
