/**
 * Webhooks: the caller's own, their monitors' and their teams' webhooks; a new one (for a monitor, a
 * team, or all the caller's own monitors) whose secret is shown once; a webhook's deliveries with each
 * attempt's answer, redelivery, a test ping, a new secret, editing and deleting. Rights are the API's:
 * the controls show, and a refusal shows in the API's words.
 */
import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { ConfirmInline } from '../components/confirm.js';
import { NameOptions, submitWith } from '../components/forms.js';
import { Pager } from '../components/paging.js';
import { Badge, ErrorNote, Heading, Loading, Time } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { navigate } from '../router.js';
import { CopyField } from '../components/copy-field.js';
import { attemptSummary } from './people.js';
import './people.css';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];
type EventName = Webhook['events'][number];
type Format = Webhook['format'];
const EVENTS: EventName[] = ['incident.created', 'incident.updated', 'incident.acknowledged', 'incident.resolved', 'incident.note_added', 'incident.escalated'];
const REFRESH_MS = 10_000;

const scopeText = (webhook: Webhook) => (webhook.monitor_id ? 'One monitor' : webhook.team_id ? "A team's monitors" : 'All my monitors');
const webhookName = (webhook: Webhook) => webhook.description ?? webhook.url;

export function WebhooksScreen() {
  const { api } = useConsole();
  const [cursor, setCursor] = useState<string | undefined>();
  const [created, setCreated] = useState<Schemas['CreatedWebhook'] | undefined>();
  const list = useResource(() => must(api.GET('/api/webhooks', { params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } } })), [cursor]);
  return (
    <section>
      <Heading title="Webhooks">Webhooks</Heading>
      {created && <CreatedNote webhook={created} />}
      <ErrorNote error={list.error} />
      {!list.data ? (
        !list.error && <Loading what="your webhooks" />
      ) : list.data.webhooks.length === 0 ? (
        <p class="empty">No webhooks yet. Create one below to send incident events to another system.</p>
      ) : (
        <ul class="cards" aria-label="Your webhooks">
          {list.data.webhooks.map((webhook) => (
            <li class="card" key={webhook.id}>
              <div class="grow">
                <a class="title hook-url" href={`/webhooks/${webhook.id}`}>
                  {webhookName(webhook)}
                </a>
                <div class="meta">
                  <Badge kind={webhook.status === 'enabled' ? 'verified' : 'unverified'}>{webhook.status === 'enabled' ? 'Enabled' : 'Disabled'}</Badge>
                  <span class="muted">
                    {scopeText(webhook)} · {webhook.format} · {webhook.events.length} event{webhook.events.length === 1 ? '' : 's'}
                  </span>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      <Pager cursor={cursor} next={list.data?.next_cursor} onPage={setCursor} />
      <CreateWebhook
        onCreated={async (webhook) => {
          setCreated(webhook);
          await list.reload();
        }}
      />
    </section>
  );
}

/** The new webhook's secret and full URL: the only time the API tells them. */
function CreatedNote({ webhook }: { webhook: Schemas['CreatedWebhook'] }) {
  return (
    <div class="secret" role="region" aria-label="The new webhook's secret">
      <p>
        <strong>Webhook created.</strong> Copy its signing secret now: it is shown only this once (a new one can be made later).
      </p>
      <CopyField label="Signing secret" value={webhook.secret} />
      <p>
        <a href={`/webhooks/${webhook.id}`}>Open the webhook</a> to send it a test message.
      </p>
    </div>
  );
}

function FormatField({ format, onChange }: { format: Format; onChange: (format: Format) => void }) {
  return (
    <label>
      Format
      <select value={format} onChange={(event) => onChange(event.currentTarget.value as Format)}>
        <option value="standard">Standard (signed JSON)</option>
        <option value="slack">Slack (incoming webhook)</option>
      </select>
    </label>
  );
}

function EventsField({ events, onChange }: { events: EventName[]; onChange: (events: EventName[]) => void }) {
  return (
    <fieldset class="events">
      <legend>Events</legend>
      {EVENTS.map((event) => (
        <label key={event}>
          <input
            type="checkbox"
            checked={events.includes(event)}
            onChange={(change) => onChange(change.currentTarget.checked ? [...events, event] : events.filter((value) => value !== event))}
          />
          {event}
        </label>
      ))}
    </fieldset>
  );
}

function CreateWebhook({ onCreated }: { onCreated: (webhook: Schemas['CreatedWebhook']) => Promise<void> }) {
  const { api } = useConsole();
  const [scope, setScope] = useState<'own' | 'monitor' | 'team'>('own');
  const [monitorId, setMonitorId] = useState('');
  const [teamId, setTeamId] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>(['incident.created', 'incident.acknowledged', 'incident.resolved']);
  const [format, setFormat] = useState<Format>('standard');
  const [description, setDescription] = useState('');
  const monitors = useResource(() => (scope === 'monitor' ? must(api.GET('/api/monitors', { params: { query: { limit: 100 } } })) : Promise.resolve(undefined)), [scope]);
  const teams = useResource(() => (scope === 'team' ? must(api.GET('/api/teams', { params: { query: { limit: 100 } } })) : Promise.resolve(undefined)), [scope]);
  const create = useAction(async () => {
    const chosen = scope === 'monitor' ? monitorId || monitors.data?.monitors[0]?.id : scope === 'team' ? teamId || teams.data?.teams[0]?.id : undefined;
    const target = chosen === undefined ? {} : scope === 'monitor' ? { monitor_id: chosen } : { team_id: chosen };
    const { webhook } = await must(
      api.POST('/api/webhooks', {
        body: { url: url.trim(), events, format, description: description.trim() ? description : null, ...target },
      }),
    );
    setUrl('');
    setDescription('');
    await onCreated(webhook);
  });
  return (
    <>
      <h2>New webhook</h2>
      <form
        class="stack"
        aria-label="New webhook"
        onSubmit={submitWith(() => create.run())}
      >
        <fieldset class="scope">
          <legend>Send the incidents of</legend>
          <label>
            <input type="radio" name="scope" checked={scope === 'own'} onChange={() => setScope('own')} />
            All my own monitors
          </label>
          <label>
            <input type="radio" name="scope" checked={scope === 'monitor'} onChange={() => setScope('monitor')} />
            One monitor
          </label>
          <label>
            <input type="radio" name="scope" checked={scope === 'team'} onChange={() => setScope('team')} />
            A team's monitors
          </label>
        </fieldset>
        {scope === 'monitor' && (
          <label>
            Monitor
            <select value={monitorId || monitors.data?.monitors[0]?.id} onChange={(event) => setMonitorId(event.currentTarget.value)}>
              <NameOptions items={monitors.data?.monitors} />
            </select>
          </label>
        )}
        {scope === 'team' && (
          <label>
            Team
            <select value={teamId || teams.data?.teams[0]?.id} onChange={(event) => setTeamId(event.currentTarget.value)}>
              <NameOptions items={teams.data?.teams} />
            </select>
          </label>
        )}
        {scope === 'monitor' && monitors.data?.monitors.length === 0 && <p class="muted">You have no monitor yet.</p>}
        {scope === 'team' && teams.data?.teams.length === 0 && <p class="muted">You belong to no team yet.</p>}
        <ErrorNote error={monitors.error ?? teams.error} />
        <label>
          URL (https)
          <input type="url" required maxLength={2000} value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
        </label>
        <EventsField events={events} onChange={setEvents} />
        <FormatField format={format} onChange={setFormat} />
        <label>
          Description (optional)
          <input maxLength={500} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </label>
        <ErrorNote error={create.error} />
        <div class="actions">
          <button
            type="submit"
            class="primary"
            disabled={create.busy || (scope === 'monitor' && !monitors.data?.monitors.length) || (scope === 'team' && !teams.data?.teams.length)}
          >
            Create webhook
          </button>
        </div>
      </form>
    </>
  );
}

export function WebhookScreen({ params }: { params: Record<string, string> }) {
  const { api } = useConsole();
  const id = params.id!;
  const path = { params: { path: { id } } };
  const webhook = useResource(() => must(api.GET('/api/webhooks/{id}', path)), [id]);
  const deliveries = useResource(() => must(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: 25 } } })), [id], REFRESH_MS);
  const [secret, setSecret] = useState<string | undefined>();
  const [tested, setTested] = useState<Delivery | undefined>();
  const test = useAction(async () => {
    setTested((await must(api.POST('/api/webhooks/{id}/test', path))).delivery);
    await deliveries.reload();
  });
  const rotate = useAction(async () => {
    setSecret((await must(api.POST('/api/webhooks/{id}/rotate-secret', path))).secret);
  });
  if (!webhook.data) {
    return (
      <section>
        <p class="crumbs">
          <a href="/webhooks">Webhooks</a>
        </p>
        <Heading title="Webhook">Webhook</Heading>
        {webhook.error ? <ErrorNote error={webhook.error} /> : <Loading what="the webhook" />}
      </section>
    );
  }
  const hook = webhook.data.webhook;
  return (
    <section>
      <p class="crumbs">
        <a href="/webhooks">Webhooks</a>
      </p>
      <Heading title={webhookName(hook)}>
        <span class="hook-url">{webhookName(hook)}</span>
      </Heading>
      <dl class="fields">
        <dt>URL</dt>
        <dd class="hook-url">{hook.url}</dd>
        <dt>Status</dt>
        <dd>
          <Badge kind={hook.status === 'enabled' ? 'verified' : 'unverified'}>{hook.status === 'enabled' ? 'Enabled' : 'Disabled'}</Badge>
          {hook.disabled_reason && <span class="muted"> ({hook.disabled_reason})</span>}
        </dd>
        <dt>Sends</dt>
        <dd>
          {hook.monitor_id ? <a href={`/monitors/${hook.monitor_id}`}>One monitor's incidents</a> : hook.team_id ? <a href={`/teams/${hook.team_id}`}>A team's incidents</a> : 'The incidents of all my own monitors'}
        </dd>
        <dt>Events</dt>
        <dd>{hook.events.join(', ')}</dd>
        <dt>Format</dt>
        <dd>{hook.format}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={hook.created_at} />
        </dd>
      </dl>
      <div class="actions">
        <button type="button" class="primary" disabled={test.busy} onClick={() => void test.run()}>
          Send a test
        </button>
        <button type="button" disabled={rotate.busy} onClick={() => void rotate.run()}>
          Rotate secret
        </button>
      </div>
      <ErrorNote error={test.error ?? rotate.error} />
      {tested && (
        <p role="status">
          Test sent: {tested.state}
          {tested.attempts[0] ? `, ${attemptSummary(tested.attempts[0])}` : ''}.
        </p>
      )}
      {secret && (
        <div class="secret" role="region" aria-label="The new signing secret">
          <p>The new signing secret, shown only this once. For 24 hours messages carry a signature with the previous one too.</p>
          <CopyField label="Signing secret" value={secret} />
        </div>
      )}

      <h2>Deliveries</h2>
      <ErrorNote error={deliveries.error} />
      {!deliveries.data ? (
        !deliveries.error && <Loading what="the deliveries" />
      ) : deliveries.data.deliveries.length === 0 ? (
        <p class="muted">No deliveries in the last 30 days. Send a test to see one.</p>
      ) : (
        <ul class="cards" aria-label="Deliveries">
          {deliveries.data.deliveries.map((delivery) => (
            <DeliveryCard key={delivery.id} webhookId={id} delivery={delivery} onDone={deliveries.reload} />
          ))}
        </ul>
      )}

      <EditWebhook webhook={hook} onDone={webhook.reload} />
      <DeleteWebhook webhook={hook} />
    </section>
  );
}

function DeliveryCard({ webhookId, delivery, onDone }: { webhookId: string; delivery: Delivery; onDone: () => Promise<void> }) {
  const { api } = useConsole();
  const redeliver = useAction(async () => {
    await must(api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id: webhookId, deliveryId: delivery.id } } }));
    await onDone();
  });
  const stateKind = delivery.state === 'succeeded' ? 'verified' : delivery.state === 'failed' ? 'unverified' : 'pending';
  return (
    <li class="card">
      <div class="grow">
        <div class="title">
          {delivery.event_type}
          {delivery.incident_id && (
            <>
              {' '}
              <a href={`/incidents/${delivery.incident_id}`}>incident</a>
            </>
          )}
        </div>
        <div class="meta">
          <Badge kind={stateKind}>{delivery.state}</Badge>
          <Time at={delivery.created_at} />
          {delivery.next_attempt_at && (
            <span class="muted">
              next try <Time at={delivery.next_attempt_at} />
            </span>
          )}
        </div>
        <ol class="attempts" aria-label={`Attempts of ${delivery.event_type} ${delivery.id}`}>
          {delivery.attempts.map((attempt, index) => (
            <li key={`${attempt.at}-${index}`}>
              <Time at={attempt.at} />: {attemptSummary(attempt)}
              {attempt.response && <pre aria-label="Response">{attempt.response}</pre>}
            </li>
          ))}
        </ol>
        <ErrorNote error={redeliver.error} />
      </div>
      {delivery.state !== 'pending' && (
        <button type="button" disabled={redeliver.busy} onClick={() => void redeliver.run()} aria-label={`Redeliver ${delivery.event_type} ${delivery.id}`}>
          Redeliver
        </button>
      )}
    </li>
  );
}

function EditWebhook({ webhook, onDone }: { webhook: Webhook; onDone: () => Promise<void> }) {
  const { api } = useConsole();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>(webhook.events);
  const [format, setFormat] = useState<Format>(webhook.format);
  const [description, setDescription] = useState(webhook.description ?? '');
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    setSaved(false);
    await must(
      api.PUT('/api/webhooks/{id}', {
        params: { path: { id: webhook.id } },
        body: { events, format, description: description.trim() ? description : null, ...(url.trim() ? { url: url.trim() } : {}) },
      }),
    );
    setUrl('');
    setSaved(true);
    await onDone();
  });
  return (
    <>
      <h2>Edit</h2>
      <form
        class="stack"
        aria-label="Edit the webhook"
        onSubmit={submitWith(() => save.run())}
      >
        <label>
          New URL (leave empty to keep {webhook.url})
          <input type="url" maxLength={2000} value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
        </label>
        <EventsField events={events} onChange={setEvents} />
        <FormatField format={format} onChange={setFormat} />
        <label>
          Description
          <input maxLength={500} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </label>
        <p class="muted">Saving enables a disabled webhook again.</p>
        <ErrorNote error={save.error} />
        {saved && (
          <p role="status" class="note-ok">
            Saved.
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={save.busy}>
            Save changes
          </button>
        </div>
      </form>
    </>
  );
}

function DeleteWebhook({ webhook }: { webhook: Webhook }) {
  const { api } = useConsole();
  const remove = async () => {
    await must(api.DELETE('/api/webhooks/{id}', { params: { path: { id: webhook.id } } }));
    navigate('/webhooks');
  };
  return (
    <>
      <h2>Delete</h2>
      <ConfirmInline start="Delete webhook" confirm="Delete it for good" onConfirm={remove} />
    </>
  );
}
