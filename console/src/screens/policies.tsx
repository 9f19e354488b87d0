/**
 * Escalation policies: the list and a new policy; one policy's steps with their targets (people of the
 * policy's team, schedules, e-mail addresses), delays and repeat, edited in place; delete (the API
 * refuses one that monitors use, and the screen says so in its words).
 */
import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { NameOptions, SubmitActions, submitWith } from '../components/forms.js';
import { MoreButton, useMore } from '../components/paging.js';
import { ErrorNote, Heading, Loading, Time } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { navigate } from '../router.js';
import { ConfirmButton } from '../components/confirm.js';
import { formatSeconds } from './heartbeat.js';
import { draftOf, nextStep, stepsBody, targetLabel, withTarget, type DraftStep, type Target } from './policy-steps.js';
import './monitors.css';

type Policy = Schemas['EscalationPolicy'];
type Team = Schemas['TeamListItem'];

interface PolicyValues {
  name: string;
  /** '' for the owner's alone. */
  team_id: string;
  steps: DraftStep[];
  repeat: string;
}

const newPolicy: PolicyValues = { name: '', team_id: '', steps: [nextStep([])], repeat: '0' };

function useTeams() {
  const { api } = useConsole();
  return useResource(() => must(api.GET('/api/teams', { params: { query: { limit: 100 } } })), []);
}

const delayText = (minutes: number) => (minutes === 0 ? 'At once' : `After ${formatSeconds(minutes * 60)}`);
const repeatText = (policy: Policy) => (policy.repeat ? `Repeats ${policy.repeat} more time${policy.repeat === 1 ? '' : 's'}` : 'Runs once');

export function PoliciesScreen() {
  const { api } = useConsole();
  const first = useResource(() => must(api.GET('/api/escalation-policies', { params: { query: { limit: 50 } } })), []);
  const more = useMore(
    first,
    (page) => page.escalation_policies,
    (cursor) => must(api.GET('/api/escalation-policies', { params: { query: { limit: 50, cursor } } })),
  );
  const teams = useTeams();
  const create = useAction(async (values: PolicyValues) => {
    const repeat = Number(values.repeat || '0');
    const { escalation_policy } = await must(
      api.POST('/api/escalation-policies', {
        body: { name: values.name, team_id: values.team_id || null, steps: stepsBody(values.steps), ...(repeat ? { repeat } : {}) },
      }),
    );
    navigate(`/escalation-policies/${escalation_policy.id}`);
  });
  const policies = more.items;
  const teamNames = new Map((teams.data?.teams ?? []).map((team) => [team.id, team.name]));
  return (
    <section>
      <Heading title="Escalation policies">Escalation policies</Heading>
      <ErrorNote error={first.error} />
      {first.data === undefined && !first.error && <Loading what="escalation policies" />}
      {first.data && policies.length === 0 && <p class="empty">No escalation policies yet. A monitor pages nobody until it has one.</p>}
      {policies.length > 0 && (
        <ul class="cards" aria-label="Escalation policies">
          {policies.map((policy) => (
            <li key={policy.id} class="card">
              <div class="grow">
                <a class="title" href={`/escalation-policies/${policy.id}`}>
                  {policy.name}
                </a>
                <div class="meta">
                  <span class="muted">{policy.team_id ? `Team: ${teamNames.get(policy.team_id) ?? 'a team'}` : 'Only its owner'}</span>
                  <span class="muted">
                    {policy.steps.length} step{policy.steps.length === 1 ? '' : 's'}
                  </span>
                  <span class="muted">{repeatText(policy)}</span>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={more.load.error} />
      <MoreButton more={more}>More escalation policies</MoreButton>
      <h2>New escalation policy</h2>
      <PolicyForm initial={newPolicy} teams={teams.data?.teams ?? []} submit="Create policy" busy={create.busy} error={create.error ?? teams.error} onSubmit={(values) => void create.run(values)} />
    </section>
  );
}

export function PolicyScreen({ params }: { params: Record<string, string> }) {
  const { api } = useConsole();
  const id = params.id!;
  const loaded = useResource(() => must(api.GET('/api/escalation-policies/{id}', { params: { path: { id } } })), [id]);
  const teams = useTeams();
  const policy = loaded.data?.escalation_policy;
  const names = useNames(policy?.team_id ?? '', policy?.owner_id);
  const save = useAction(async (values: PolicyValues) => {
    const teamId = values.team_id || null;
    await must(
      api.PUT('/api/escalation-policies/{id}', {
        params: { path: { id } },
        body: {
          name: values.name,
          steps: stepsBody(values.steps),
          repeat: Number(values.repeat || '0'),
          ...(teamId !== policy!.team_id ? { team_id: teamId } : {}),
        },
      }),
    );
    await loaded.reload();
  });

  if (!policy) {
    return (
      <section>
        <p class="crumbs">
          <a href="/escalation-policies">Escalation policies</a>
        </p>
        <Heading title="Escalation policy">Escalation policy</Heading>
        <ErrorNote error={loaded.error} />
        {!loaded.error && <Loading what="the escalation policy" />}
      </section>
    );
  }
  const team = teams.data?.teams.find((each) => each.id === policy.team_id);
  return (
    <section>
      <p class="crumbs">
        <a href="/escalation-policies">Escalation policies</a>
      </p>
      <Heading title={policy.name}>{policy.name}</Heading>
      <dl class="fields">
        <dt>Team</dt>
        <dd>{policy.team_id ? (team ? <a href={`/teams/${team.id}`}>{team.name}</a> : 'A team') : 'Only its owner'}</dd>
        <dt>Repeat</dt>
        <dd>{repeatText(policy)}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={policy.created_at} />
        </dd>
      </dl>
      <h2>Steps</h2>
      <ol class="policy-steps" aria-label="Steps">
        {draftOf(policy.steps).map((step, index) => (
          <li key={index}>
            <strong>{delayText(Number(step.delay_minutes))}</strong>: {step.targets.map((target) => targetLabel(target, names)).join(', ')}
          </li>
        ))}
      </ol>

      <h2>Edit</h2>
      <PolicyForm
        key={JSON.stringify(policy)}
        initial={{ name: policy.name, team_id: policy.team_id ?? '', steps: draftOf(policy.steps), repeat: String(policy.repeat ?? 0) }}
        ownerId={policy.owner_id}
        teams={teams.data?.teams ?? []}
        submit="Save changes"
        busy={save.busy}
        error={save.error}
        onSubmit={(values) => void save.run(values)}
      />

      <h2>Delete</h2>
      <ConfirmButton
        title={`Delete ${policy.name}?`}
        confirm="Delete policy"
        message={<p>Monitors that use it must be given another policy first.</p>}
        onConfirm={async () => {
          await must(api.DELETE('/api/escalation-policies/{id}', { params: { path: { id } } }));
          navigate('/escalation-policies', { replace: true });
        }}
      >
        Delete policy
      </ConfirmButton>
    </section>
  );
}

/**
 * Whom a step may page: the policy's team's members (or, for a policy of its owner alone, its owner),
 * and the schedules of the team or of the owner alone (the API checks both at the write).
 */
function useNames(teamId: string, ownerId: string | undefined) {
  const { api, me } = useConsole();
  const owner = ownerId ?? me.id;
  const members = useResource(async () => (teamId ? (await must(api.GET('/api/teams/{id}', { params: { path: { id: teamId } } }))).members : []), [teamId]);
  const schedules = useResource(() => must(api.GET('/api/schedules', { params: { query: { limit: 100 } } })), []);
  const people = new Map<string, string>();
  if (!teamId && owner === me.id) people.set(me.id, `${me.name} (${me.email})`);
  for (const member of members.data ?? []) people.set(member.user_id, `${member.name} (${member.email})`);
  const usable = (schedules.data?.schedules ?? []).filter((schedule) => (teamId ? schedule.team_id === teamId : false) || (schedule.team_id === null && schedule.owner_id === owner));
  return {
    people,
    schedules: new Map(usable.map((schedule) => [schedule.id, schedule.name])),
    error: members.error ?? schedules.error,
  };
}

function PolicyForm(props: {
  initial: PolicyValues;
  ownerId?: string;
  teams: Team[];
  submit: string;
  busy: boolean;
  error: Error | undefined;
  onSubmit: (values: PolicyValues) => void;
}) {
  const [values, setValues] = useState(props.initial);
  const names = useNames(values.team_id, props.ownerId);
  const setStep = (index: number, step: DraftStep) => setValues((previous) => ({ ...previous, steps: previous.steps.map((each, at) => (at === index ? step : each)) }));
  return (
    <form
      class="stack"
      aria-label={props.submit}
      onSubmit={submitWith(() => props.onSubmit(values))}
    >
      <label>
        Name
        <input required maxLength={100} value={values.name} onInput={(event) => setValues({ ...values, name: event.currentTarget.value })} />
      </label>
      <label>
        Team
        <select value={values.team_id} onChange={(event) => setValues({ ...values, team_id: event.currentTarget.value })}>
          <option value="">Only me</option>
          <NameOptions items={props.teams} />
        </select>
        <span class="hint">A team’s policy pages its members and schedules; its monitors may use it.</span>
      </label>
      <ErrorNote error={names.error} />
      <div class="steps">
        {values.steps.map((step, index) => (
          <StepEditor
            key={index}
            step={step}
            position={index + 1}
            names={names}
            onChange={(next) => setStep(index, next)}
            onRemove={values.steps.length > 1 ? () => setValues({ ...values, steps: values.steps.filter((_, at) => at !== index) }) : undefined}
          />
        ))}
      </div>
      <div class="actions">
        <button type="button" disabled={values.steps.length >= 10} onClick={() => setValues({ ...values, steps: [...values.steps, nextStep(values.steps)] })}>
          Add step
        </button>
      </div>
      <label>
        Repeat (rounds after the first, 0–5)
        <input type="number" min={0} max={5} value={values.repeat} onInput={(event) => setValues({ ...values, repeat: event.currentTarget.value })} />
        <span class="hint">When the last step passes unacknowledged, start again from step 1.</span>
      </label>
      <SubmitActions error={props.error} busy={props.busy}>
        {props.submit}
      </SubmitActions>
    </form>
  );
}

function StepEditor(props: {
  step: DraftStep;
  position: number;
  names: { people: Map<string, string>; schedules: Map<string, string> };
  onChange: (step: DraftStep) => void;
  onRemove: (() => void) | undefined;
}) {
  const { step, position, names, onChange } = props;
  const [person, setPerson] = useState('');
  const [schedule, setSchedule] = useState('');
  const [address, setAddress] = useState('');
  const add = (target: Target) => onChange(withTarget(step, target));
  const addAddress = () => {
    const trimmed = address.trim();
    if (!trimmed) return;
    add({ type: 'email', address: trimmed });
    setAddress('');
  };
  return (
    <fieldset class="step">
      <legend>Step {position}</legend>
      <label>
        Delay (minutes after the incident opens)
        <input type="number" min={0} max={1440} value={step.delay_minutes} onInput={(event) => onChange({ ...step, delay_minutes: event.currentTarget.value })} />
      </label>
      {step.targets.length === 0 ? (
        <p class="muted">Nobody yet: add a person, a schedule or an address.</p>
      ) : (
        <ul class="targets" aria-label={`Targets of step ${position}`}>
          {step.targets.map((target, index) => {
            const label = targetLabel(target, names);
            return (
              <li key={index}>
                <span>{label}</span>
                <button type="button" class="quiet" aria-label={`Remove ${label} from step ${position}`} onClick={() => onChange({ ...step, targets: step.targets.filter((_, at) => at !== index) })}>
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div class="row">
        <label>
          Person
          <select value={person} onChange={(event) => setPerson(event.currentTarget.value)}>
            <option value="">Choose a person…</option>
            {[...names.people].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={!person} onClick={() => (add({ type: 'user', id: person }), setPerson(''))}>
          Add person
        </button>
      </div>
      <div class="row">
        <label>
          Schedule
          <select value={schedule} onChange={(event) => setSchedule(event.currentTarget.value)}>
            <option value="">Choose a schedule…</option>
            {[...names.schedules].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={!schedule} onClick={() => (add({ type: 'schedule', id: schedule }), setSchedule(''))}>
          Add schedule
        </button>
      </div>
      <div class="row">
        <label>
          E-mail address
          <input
            type="email"
            maxLength={254}
            value={address}
            onInput={(event) => setAddress(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                addAddress();
              }
            }}
          />
        </label>
        <button type="button" disabled={!address.trim()} onClick={addAddress}>
          Add address
        </button>
      </div>
      {props.onRemove && (
        <div class="actions">
          <button type="button" class="danger" onClick={props.onRemove}>
            Remove step {position}
          </button>
        </div>
      )}
    </fieldset>
  );
}
