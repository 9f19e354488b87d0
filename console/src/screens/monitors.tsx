/**
 * Monitors: the list (paged by cursor) with each one's heartbeat state and a link to its open incidents,
 * a new monitor; one monitor's settings, open incidents, integration keys (a new key shown once, with
 * copy-ready configuration), heartbeat URL and subscribers. Rights are the API's: every control shows,
 * and a refusal is shown in the API's words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { NameOptions, SubmitActions, submitWith } from '../components/forms.js';
import { MoreButton, useMore } from '../components/paging.js';
import { Badge, ErrorNote, Heading, Loading, Time } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { navigate } from '../router.js';
import { ConfirmButton } from '../components/confirm.js';
import { formatSeconds, heartbeatState } from './heartbeat.js';
import { KEY_PLACEHOLDER, heartbeatSnippet, snippetsFor, type Snippet } from './integration-snippets.js';
import { changesOf, createBody, emptyMonitor, valuesOf, type MonitorValues } from './monitor-form.js';
import './monitors.css';

type Monitor = Schemas['Monitor'];
type Team = Schemas['TeamListItem'];
type Policy = Schemas['EscalationPolicy'];
type Integration = Schemas['Integration'];
type CreatedIntegration = Schemas['CreatedIntegration'];

/** The teams and escalation policies a monitor may name (the first 100 of each: the pickers' choices). */
function useChoices() {
  const { api } = useConsole();
  return useResource(async () => {
    const [teams, policies] = await Promise.all([
      must(api.GET('/api/teams', { params: { query: { limit: 100 } } })),
      must(api.GET('/api/escalation-policies', { params: { query: { limit: 100 } } })),
    ]);
    return { teams: teams.teams, policies: policies.escalation_policies };
  }, []);
}

function HeartbeatBadge({ monitor }: { monitor: Monitor }) {
  const state = heartbeatState(monitor, new Date());
  switch (state.kind) {
    case 'off':
      return null;
    case 'waiting':
      return <Badge kind="waiting">Heartbeat: no ping yet</Badge>;
    case 'ok':
      return <Badge kind="ok">Heartbeat on time</Badge>;
    case 'missed':
      return <Badge kind="missed">Heartbeat missed</Badge>;
  }
}

export function MonitorsScreen() {
  const { api } = useConsole();
  const first = useResource(() => must(api.GET('/api/monitors', { params: { query: { limit: 50 } } })), []);
  const more = useMore(first, (page) => page.monitors, (cursor) => must(api.GET('/api/monitors', { params: { query: { limit: 50, cursor } } })));
  const choices = useChoices();
  const create = useAction(async (values: MonitorValues) => {
    const { monitor } = await must(api.POST('/api/monitors', { body: createBody(values) }));
    navigate(`/monitors/${monitor.id}`);
  });
  const monitors = more.items;
  const teams = new Map((choices.data?.teams ?? []).map((team) => [team.id, team.name]));
  const policies = new Map((choices.data?.policies ?? []).map((policy) => [policy.id, policy.name]));

  return (
    <section>
      <Heading title="Monitors">Monitors</Heading>
      <ErrorNote error={first.error} />
      {first.data === undefined && !first.error && <Loading what="monitors" />}
      {first.data && monitors.length === 0 && <p class="empty">No monitors yet. Create one below, then give it an integration key.</p>}
      {monitors.length > 0 && (
        <ul class="cards monitors" aria-label="Monitors">
          {monitors.map((monitor) => (
            <li key={monitor.id} class="card">
              <div class="grow">
                <a class="title" href={`/monitors/${monitor.id}`}>
                  {monitor.name}
                </a>
                <div class="meta">
                  <HeartbeatBadge monitor={monitor} />
                  <span class="muted">{monitor.team_id ? `Team: ${teams.get(monitor.team_id) ?? 'a team'}` : 'Only its owner'}</span>
                  <span class="muted">
                    {monitor.escalation_policy_id ? `Pages: ${policies.get(monitor.escalation_policy_id) ?? 'an escalation policy'}` : 'No escalation policy'}
                  </span>
                  <a href={`/?monitor_id=${monitor.id}`} aria-label={`Open incidents of ${monitor.name}`}>
                    Open incidents
                  </a>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={more.load.error} />
      <MoreButton more={more}>More monitors</MoreButton>

      <h2>New monitor</h2>
      <MonitorForm
        initial={emptyMonitor}
        teams={choices.data?.teams ?? []}
        policies={choices.data?.policies ?? []}
        submit="Create monitor"
        busy={create.busy}
        error={create.error ?? choices.error}
        onSubmit={(values) => void create.run(values)}
      />
    </section>
  );
}

function MonitorForm(props: {
  initial: MonitorValues;
  teams: Team[];
  policies: Policy[];
  submit: string;
  busy: boolean;
  error: Error | undefined;
  onSubmit: (values: MonitorValues) => void;
}) {
  const [values, setValues] = useState(props.initial);
  const set = <K extends keyof MonitorValues>(name: K, value: MonitorValues[K]) => setValues((previous) => ({ ...previous, [name]: value }));
  return (
    <form
      class="stack"
      aria-label={props.submit}
      onSubmit={submitWith(() => props.onSubmit(values))}
    >
      <label>
        Name
        <input required maxLength={200} value={values.name} onInput={(event) => set('name', event.currentTarget.value)} />
      </label>
      <label>
        Failure threshold
        <input type="number" min={1} max={10000} step={1} value={values.failure_threshold} onInput={(event) => set('failure_threshold', event.currentTarget.value)} />
        <span class="hint">Failed checks in a row before an incident opens.</span>
      </label>
      <label>
        Acknowledgement timeout (minutes)
        <input type="number" min={5} max={1440} step={1} value={values.ack_timeout_minutes} onInput={(event) => set('ack_timeout_minutes', event.currentTarget.value)} />
        <span class="hint">Blank: never. An acknowledged incident not resolved within it is paged again from the first step.</span>
      </label>
      <label>
        Escalation policy
        <select value={values.escalation_policy_id} onChange={(event) => set('escalation_policy_id', event.currentTarget.value)}>
          <option value="">None (nobody is paged)</option>
          <NameOptions items={props.policies} />
        </select>
      </label>
      <label>
        Team
        <select value={values.team_id} onChange={(event) => set('team_id', event.currentTarget.value)}>
          <option value="">Only me</option>
          <NameOptions items={props.teams} />
        </select>
      </label>
      <label>
        Urgency
        <select value={values.urgency} onChange={(event) => set('urgency', event.currentTarget.value as MonitorValues['urgency'])}>
          <option value="">From each incident’s severity</option>
          <option value="high">Always high</option>
          <option value="low">Always low</option>
        </select>
      </label>
      <label class="check">
        <input type="checkbox" checked={values.heartbeat} onChange={(event) => set('heartbeat', event.currentTarget.checked)} />
        Expect heartbeat pings
      </label>
      {values.heartbeat && (
        <div class="row">
          <label>
            Ping at least every (minutes)
            <input type="number" min={1} max={10080} value={values.interval_minutes} onInput={(event) => set('interval_minutes', event.currentTarget.value)} />
          </label>
          <label>
            Grace (minutes)
            <input type="number" min={0} max={1440} value={values.grace_minutes} onInput={(event) => set('grace_minutes', event.currentTarget.value)} />
          </label>
        </div>
      )}
      <SubmitActions error={props.error} busy={props.busy}>
        {props.submit}
      </SubmitActions>
    </form>
  );
}

export function MonitorScreen({ params }: { params: Record<string, string> }) {
  const { api } = useConsole();
  const id = params.id!;
  const loaded = useResource(() => must(api.GET('/api/monitors/{id}', { params: { path: { id } } })), [id]);
  const choices = useChoices();
  const [created, setCreated] = useState<CreatedIntegration | undefined>();
  const monitor = loaded.data?.monitor;
  const save = useAction(async (values: MonitorValues) => {
    await must(api.PUT('/api/monitors/{id}', { params: { path: { id } }, body: changesOf(monitor!, values) }));
    await loaded.reload();
  });

  if (!monitor) {
    return (
      <section>
        <p class="crumbs">
          <a href="/monitors">Monitors</a>
        </p>
        <Heading title="Monitor">Monitor</Heading>
        <ErrorNote error={loaded.error} />
        {!loaded.error && <Loading what="the monitor" />}
      </section>
    );
  }
  const policy = choices.data?.policies.find((each) => each.id === monitor.escalation_policy_id);
  const team = choices.data?.teams.find((each) => each.id === monitor.team_id);
  const state = heartbeatState(monitor, new Date());
  return (
    <section>
      <p class="crumbs">
        <a href="/monitors">Monitors</a>
      </p>
      <Heading title={monitor.name}>{monitor.name}</Heading>
      <dl class="fields">
        <dt>Escalation policy</dt>
        <dd>{monitor.escalation_policy_id ? <a href={`/escalation-policies/${monitor.escalation_policy_id}`}>{policy?.name ?? 'Its escalation policy'}</a> : 'None (nobody is paged)'}</dd>
        <dt>Team</dt>
        <dd>{monitor.team_id ? (team ? <a href={`/teams/${team.id}`}>{team.name}</a> : 'A team') : 'Only its owner'}</dd>
        <dt>Failure threshold</dt>
        <dd>{monitor.failure_threshold} failed checks in a row</dd>
        <dt>Urgency</dt>
        <dd>{monitor.urgency ? `Always ${monitor.urgency}` : 'From each incident’s severity'}</dd>
        <dt>Heartbeat</dt>
        <dd>
          {monitor.heartbeat ? (
            <>
              A ping at least every {formatSeconds(monitor.heartbeat.interval_seconds)}
              {monitor.heartbeat.grace_seconds > 0 && ` (plus ${formatSeconds(monitor.heartbeat.grace_seconds)} grace)`}{' '}
              <HeartbeatBadge monitor={monitor} />
            </>
          ) : (
            'Off'
          )}
        </dd>
        {monitor.heartbeat && (
          <>
            <dt>Last ping</dt>
            <dd>{monitor.last_ping_at ? <Time at={monitor.last_ping_at} /> : 'None yet'}</dd>
            {state.kind !== 'off' && state.kind !== 'waiting' && (
              <>
                <dt>{state.kind === 'missed' ? 'Was due' : 'Next ping due by'}</dt>
                <dd>
                  <Time at={state.dueAt.toISOString()} />
                </dd>
              </>
            )}
          </>
        )}
        <dt>Created</dt>
        <dd>
          <Time at={monitor.created_at} />
        </dd>
      </dl>

      <OpenIncidents monitor={monitor} />
      <Integrations monitor={monitor} created={created} onCreated={setCreated} />
      <Subscribers monitor={monitor} />

      <h2>Settings</h2>
      {choices.data ? (
        <MonitorForm
          key={monitor.updated_at}
          initial={valuesOf(monitor)}
          teams={choices.data.teams}
          policies={choices.data.policies}
          submit="Save changes"
          busy={save.busy}
          error={save.error}
          onSubmit={(values) => void save.run(values)}
        />
      ) : (
        <>
          <ErrorNote error={choices.error} />
          {!choices.error && <Loading what="the settings" />}
        </>
      )}

      <h2>Delete</h2>
      <ConfirmButton
        title={`Delete ${monitor.name}?`}
        confirm="Delete monitor"
        message={<p>Its integration keys stop working at once, its subscribers are removed, and its heartbeat stops. Its incidents stay in the history.</p>}
        onConfirm={async () => {
          await must(api.DELETE('/api/monitors/{id}', { params: { path: { id } } }));
          navigate('/monitors', { replace: true });
        }}
      >
        Delete monitor
      </ConfirmButton>
    </section>
  );
}

function OpenIncidents({ monitor }: { monitor: Monitor }) {
  const { api } = useConsole();
  const open = useResource(
    () => must(api.GET('/api/incidents', { params: { query: { monitor_id: monitor.id, status: 'open', limit: 20 } } })),
    [monitor.id],
    15_000,
  );
  const incidents = open.data?.incidents ?? [];
  return (
    <>
      <h2>Open incidents</h2>
      <ErrorNote error={open.error} />
      {open.data === undefined && !open.error && <Loading what="open incidents" />}
      {open.data && incidents.length === 0 && <p class="muted">None open.</p>}
      {incidents.length > 0 && (
        <ul class="cards" aria-label="Open incidents">
          {incidents.map((incident) => (
            <li key={incident.id} class={`card incident ${incident.acknowledged ? 'is-acknowledged' : 'is-triggered'}`}>
              <div class="grow">
                <a class="title" href={`/incidents/${incident.id}`}>
                  {incident.title}
                </a>
                <div class="meta">
                  <Badge kind={incident.severity}>{incident.severity}</Badge>
                  <Badge kind={incident.acknowledged ? 'acknowledged' : 'unacknowledged'}>{incident.acknowledged ? 'Acknowledged' : 'Not acknowledged'}</Badge>
                  <span class="muted">
                    <Time at={incident.started_at} />
                  </span>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href={`/?monitor_id=${monitor.id}`}>This monitor’s incidents in the incidents list</a>
      </p>
    </>
  );
}

function Integrations({ monitor, created, onCreated }: { monitor: Monitor; created: CreatedIntegration | undefined; onCreated: (integration: CreatedIntegration | undefined) => void }) {
  const { api, config } = useConsole();
  const id = monitor.id;
  const list = useResource(() => must(api.GET('/api/monitors/{id}/integrations', { params: { path: { id } } })), [id]);
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const { integration } = await must(api.POST('/api/monitors/{id}/integrations', { params: { path: { id } }, body: { name } }));
    setName('');
    onCreated(integration);
    await list.reload();
  });
  const integrations = list.data?.integrations ?? [];
  return (
    <>
      <h2>Integration keys</h2>
      <p class="muted">A key lets Alertmanager, Grafana or any Events API v2 client open and resolve this monitor’s incidents{monitor.heartbeat ? ', and ping its heartbeat' : ''}.</p>
      {created && <NewKey integration={created} apiUrl={config.apiUrl} heartbeat={monitor.heartbeat !== null} onDone={() => onCreated(undefined)} />}
      <ErrorNote error={list.error} />
      {list.data === undefined && !list.error && <Loading what="integration keys" />}
      {list.data && integrations.length === 0 && <p class="muted">No keys yet.</p>}
      {integrations.length > 0 && (
        <ul class="cards" aria-label="Integration keys">
          {integrations.map((integration) => (
            <IntegrationRow key={integration.id} integration={integration} onRevoked={() => void list.reload()} />
          ))}
        </ul>
      )}
      <form
        class="row"
        aria-label="New integration key"
        onSubmit={submitWith(() => create.run())}
      >
        <label>
          Key name
          <input required maxLength={100} placeholder="Prometheus Alertmanager" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={create.busy}>
          Create key
        </button>
      </form>
      <ErrorNote error={create.error} />
      {monitor.heartbeat && !created && (
        <>
          <h3>Heartbeat URL</h3>
          <p class="muted">
            Ping it with one of the keys above (the URL holds the key, so it is a secret; a key is shown only when it is created — create a new one if you no longer
            have it).
          </p>
          <SnippetBlock snippet={heartbeatSnippet(config.apiUrl, KEY_PLACEHOLDER)} />
        </>
      )}
    </>
  );
}

function IntegrationRow({ integration, onRevoked }: { integration: Integration; onRevoked: () => void }) {
  const { api } = useConsole();
  return (
    <li class="card">
      <div class="grow">
        <span class="title">{integration.name}</span>
        <div class="meta">
          <span>
            Key ending <code>{integration.key_hint}</code>
          </span>
          <span class="muted">
            Last event: {integration.last_event_at ? <Time at={integration.last_event_at} /> : 'never'}
          </span>
          <span class="muted">
            Created <Time at={integration.created_at} />
          </span>
          {integration.created_by_left && <Badge kind="warning">Its creator has left; the key still works</Badge>}
        </div>
      </div>
      <ConfirmButton
        label={`Revoke ${integration.name}`}
        title={`Revoke ${integration.name}?`}
        confirm="Revoke key"
        message={<p>Whatever sends with the key ending {integration.key_hint} is refused from now on.</p>}
        onConfirm={async () => {
          await must(api.DELETE('/api/monitors/{id}/integrations/{integrationId}', { params: { path: { id: integration.monitor_id, integrationId: integration.id } } }));
          onRevoked();
        }}
      >
        Revoke
      </ConfirmButton>
    </li>
  );
}

/** A new key: shown here once (it lives in this screen's memory only), with the configuration to copy. */
function NewKey({ integration, apiUrl, heartbeat, onDone }: { integration: CreatedIntegration; apiUrl: string; heartbeat: boolean; onDone: () => void }) {
  // The key takes the focus (selected, ready to copy), so a screen reader reads it at once.
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), [integration.id]);
  return (
    <section class="new-key" aria-labelledby="new-key-title">
      <h3 id="new-key-title">New key: {integration.name}</h3>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The service keeps only a hash of it.
      </p>
      <div class="row">
        <label class="grow">
          Integration key
          <input ref={field} readOnly value={integration.key} class="key" onFocus={(event) => event.currentTarget.select()} />
        </label>
        <CopyButton text={integration.key} what="the key" />
      </div>
      {snippetsFor(apiUrl, integration.key, heartbeat).map((snippet) => (
        <SnippetBlock key={snippet.title} snippet={snippet} />
      ))}
      <div class="actions">
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </section>
  );
}

function SnippetBlock({ snippet }: { snippet: Snippet }) {
  return (
    <figure class="snippet">
      <figcaption>
        <strong>{snippet.title}</strong> <span class="muted">— {snippet.where}</span>
      </figcaption>
      <pre tabIndex={0}>
        <code>{snippet.text}</code>
      </pre>
      <CopyButton text={snippet.text} what={`the ${snippet.title} configuration`} />
    </figure>
  );
}

function CopyButton({ text, what }: { text: string; what: string }) {
  const [said, setSaid] = useState('');
  return (
    <span class="copy">
      <button
        type="button"
        aria-label={`Copy ${what}`}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setSaid('Copied.');
          } catch {
            setSaid('The browser did not allow copying: select the text and copy it.');
          }
        }}
      >
        Copy
      </button>
      <span class="muted" role="status">
        {said}
      </span>
    </span>
  );
}

function Subscribers({ monitor }: { monitor: Monitor }) {
  const { api } = useConsole();
  const id = monitor.id;
  const first = useResource(() => must(api.GET('/api/monitors/{id}/subscribers', { params: { path: { id }, query: { limit: 50 } } })), [id]);
  const more = useMore(
    first,
    (page) => page.subscribers,
    (cursor) => must(api.GET('/api/monitors/{id}/subscribers', { params: { path: { id }, query: { limit: 50, cursor } } })),
  );
  const reload = async () => {
    more.reset();
    await first.reload();
  };
  const [email, setEmail] = useState('');
  const add = useAction(async () => {
    await must(api.POST('/api/monitors/{id}/subscribers', { params: { path: { id } }, body: { email } }));
    setEmail('');
    await reload();
  });
  const subscribers = more.items;
  return (
    <>
      <h2>Subscribers</h2>
      <p class="muted">They get an e-mail when an incident of this monitor opens or changes. A new address is pending until it confirms through the link e-mailed to it.</p>
      <ErrorNote error={first.error ?? more.load.error} />
      {first.data === undefined && !first.error && <Loading what="subscribers" />}
      {first.data && subscribers.length === 0 && <p class="muted">No subscribers.</p>}
      {subscribers.length > 0 && (
        <ul class="cards" aria-label="Subscribers">
          {subscribers.map((subscriber) => (
            <li key={subscriber.id} class="card">
              <div class="grow">
                <span class="title">{subscriber.email}</span>
                <div class="meta">
                  <Badge kind={subscriber.status === 'pending' ? 'pending' : 'verified'}>{subscriber.status === 'pending' ? 'Pending confirmation' : 'Confirmed'}</Badge>
                  {subscriber.suppression && (
                    <Badge kind="missed">
                      No e-mail since <Time at={subscriber.suppression.at} /> ({subscriber.suppression.reason})
                    </Badge>
                  )}
                </div>
              </div>
              <ConfirmButton
                label={`Remove ${subscriber.email}`}
                title={`Remove ${subscriber.email}?`}
                confirm="Remove subscriber"
                message={<p>No more e-mails about this monitor go to this address.</p>}
                onConfirm={async () => {
                  await must(api.DELETE('/api/monitors/{id}/subscribers/{subscriberId}', { params: { path: { id, subscriberId: subscriber.id } } }));
                  await reload();
                }}
              >
                Remove
              </ConfirmButton>
            </li>
          ))}
        </ul>
      )}
      <MoreButton more={more}>More subscribers</MoreButton>
      <form
        class="row"
        aria-label="New subscriber"
        onSubmit={submitWith(() => add.run())}
      >
        <label>
          E-mail address
          <input type="email" required maxLength={254} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={add.busy}>
          Subscribe
        </button>
      </form>
      <ErrorNote error={add.error} />
    </>
  );
}
