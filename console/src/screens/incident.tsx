/**
 * One incident: its fields, the acknowledge / resolve actions, the timeline (notes, status changes,
 * who was paged how and whether it was delivered), and a note with or without a status change.
 * The page follows changes as the list does.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { submitWith, WordOptions } from '../components/forms.js';
import { Badge, ErrorNote, Heading, Loading, Time } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { describeNotification, escalatedText } from './incident-text.js';
import './incidents.css';

type Update = Schemas['IncidentUpdate'];
type AlertDetails = Schemas['AlertDetails'];
const REFRESH_MS = 10_000;
const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;

export function IncidentScreen({ params }: { params: Record<string, string> }) {
  const { api } = useConsole();
  const id = params.id!;
  const incident = useResource(() => must(api.GET('/api/incidents/{id}', { params: { path: { id } } })), [id], REFRESH_MS);
  const timeline = useResource(() => readTimeline(id), [id], REFRESH_MS);
  const reload = async () => {
    await Promise.all([incident.reload(), timeline.reload()]);
  };
  const acknowledge = useAction(async () => {
    await must(api.POST('/api/incidents/{id}/acknowledge', { params: { path: { id } } }));
    await reload();
  });
  const resolve = useAction(async () => {
    await must(api.DELETE('/api/incidents/{id}', { params: { path: { id } } }));
    await reload();
  });
  const [escalated, setEscalated] = useState<number | undefined>();
  // Escalate now: the next step pages at once (202 with its order); the API's 409 says why not.
  const escalate = useAction(async () => {
    setEscalated(undefined);
    const answer = await must(api.POST('/api/incidents/{id}/escalate', { params: { path: { id } } }));
    setEscalated(answer.escalation.step_order);
    await reload();
  });

  async function readTimeline(incidentId: string) {
    const entries: Update[] = [];
    let cursor: string | undefined;
    do {
      const page = await must(api.GET('/api/incidents/{id}/updates', { params: { path: { id: incidentId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } } }));
      entries.push(...page.updates);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && entries.length < 1000);
    return entries;
  }

  if (incident.error && !incident.data) {
    return (
      <section>
        <Heading title="Incident">Incident</Heading>
        <ErrorNote error={incident.error} />
        <p>
          <a href="/">Back to the incidents</a>
        </p>
      </section>
    );
  }
  if (!incident.data) return <Loading what="the incident" />;
  const { incident: data } = incident.data;
  const resolved = data.status === 'RESOLVED';
  return (
    <section>
      <p class="crumbs">
        <a href="/">Incidents</a>
      </p>
      <Heading title={data.title}>{data.title}</Heading>
      <div class="meta">
        <Badge kind={data.severity}>{data.severity}</Badge>
        <Badge kind={data.status}>{data.status}</Badge>
        <Badge kind={data.urgency}>{data.urgency} urgency</Badge>
        {!resolved && <Badge kind={data.acknowledged ? 'acknowledged' : 'unacknowledged'}>{data.acknowledged ? 'Acknowledged' : 'Not acknowledged'}</Badge>}
      </div>
      <div class="actions">
        <button type="button" class="primary" disabled={resolved || data.acknowledged || acknowledge.busy} onClick={() => void acknowledge.run()}>
          Acknowledge
        </button>
        <button type="button" disabled={resolved || resolve.busy} onClick={() => void resolve.run()}>
          Resolve
        </button>
        <button type="button" disabled={resolved || escalate.busy} onClick={() => void escalate.run()}>
          Escalate
        </button>
      </div>
      {escalated !== undefined && (
        <p class="muted" role="status">
          {escalatedText(escalated)}
        </p>
      )}
      <ErrorNote error={acknowledge.error ?? resolve.error ?? escalate.error} />
      <dl class="fields">
        <dt>Monitor</dt>
        <dd>
          <a href={`/monitors/${data.monitor_id}`}>{data.monitor_name}</a>
        </dd>
        <dt>Urgency</dt>
        <dd>{data.urgency === 'high' ? 'High' : 'Low'}</dd>
        <dt>Started</dt>
        <dd>
          <Time at={data.started_at} />
        </dd>
        {data.acknowledgement && (
          <>
            <dt>Acknowledged</dt>
            <dd>
              by {data.acknowledgement.user_name} (<Time at={data.acknowledgement.acknowledged_at} />, {data.acknowledgement.method})
            </dd>
          </>
        )}
        <dt>Resolved</dt>
        <dd>
          <Time at={data.resolved_at} />
        </dd>
        {data.escalation_steps && data.escalation_steps.length > 0 && (
          <>
            <dt>Escalation</dt>
            <dd>
              {data.escalation_steps.map((step) => `step ${step.step_order} after ${step.delay_minutes} min`).join(', ')}
            </dd>
          </>
        )}
        {data.alert_count !== undefined && (
          <>
            <dt>Alerts</dt>
            <dd>
              {data.alert_count}, the last <Time at={data.last_alert_at} />
            </dd>
          </>
        )}
      </dl>
      {data.alert_details && <AlertDetailsCard details={data.alert_details} />}

      <NoteForm incidentId={id} resolved={resolved} onPosted={reload} />

      <h2>Timeline</h2>
      <ErrorNote error={timeline.error} />
      {timeline.data === undefined ? <Loading what="the timeline" /> : <Timeline entries={timeline.data} />}
    </section>
  );
}

function NoteForm({ incidentId, resolved, onPosted }: { incidentId: string; resolved: boolean; onPosted: () => Promise<void> }) {
  const { api } = useConsole();
  const [message, setMessage] = useState('');
  const [status, setStatus] = useState('');
  const post = useAction(async () => {
    await must(
      api.POST('/api/incidents/{id}/updates', {
        params: { path: { id: incidentId } },
        body: { message, ...(status ? { status: status as (typeof STATUSES)[number] } : {}) },
      }),
    );
    setMessage('');
    setStatus('');
    await onPosted();
  });
  return (
    <form
      class="note"
      aria-label="Add a note"
      onSubmit={submitWith(() => post.run())}
    >
      <label for="note-message">Note</label>
      <textarea id="note-message" required maxLength={5000} rows={3} value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
      <div class="row">
        <label>
          Change status to
          <select value={status} onChange={(event) => setStatus(event.currentTarget.value)} disabled={resolved}>
            <option value="">(unchanged)</option>
            <WordOptions values={STATUSES} />
          </select>
        </label>
        <button type="submit" disabled={post.busy}>
          Add note
        </button>
      </div>
      <ErrorNote error={post.error} />
    </form>
  );
}

/** What an entry says, in words. */
function describe(entry: Update): string {
  const details = entry.details ?? undefined;
  switch (entry.kind) {
    case 'created':
      return details?.automatic ? `Opened automatically${details.integration_name ? ` by ${details.integration_name}` : ''}` : `Opened by ${entry.user_name ?? 'someone'}`;
    case 'note':
      return `${entry.user_name ?? 'Someone'} added a note`;
    case 'status_changed':
      return `Status ${details?.previous_status ?? ''} → ${entry.status}`;
    case 'updated':
      return `Changed ${Object.entries(details?.changes ?? {})
        .map(([field, change]) => `${field} from “${change.from}” to “${change.to}”`)
        .join(', ')}`;
    case 'acknowledged':
      return `Acknowledged by ${entry.user_name ?? details?.user_email ?? 'someone'}${details?.method ? ` (${details.method})` : ''}`;
    case 'escalation_paged':
      return `Step ${details?.step_order ?? ''} paged ${(details?.paged?.map((who) => who.user_name ?? who.email) ?? details?.recipients ?? []).join(', ') || 'nobody'}${
        details?.nobody_on_call?.length ? ` (nobody on call in ${details.nobody_on_call.map((schedule) => schedule.schedule_name ?? 'a deleted schedule').join(', ')})` : ''
      }`;
    case 'page_withheld':
      return `A page was withheld${details?.reason ? `: ${details.reason}` : ''}`;
    case 'notification':
      return describeNotification(details ?? {});
    case 'resolved':
      return `Resolved${entry.user_name ? ` by ${entry.user_name}` : ''}`;
    default:
      return entry.kind;
  }
}

export function Timeline({ entries }: { entries: Update[] }) {
  if (entries.length === 0) return <p class="empty">Nothing has happened yet.</p>;
  return (
    <ol class="timeline" aria-label="Timeline">
      {entries.map((entry) => (
        <li key={entry.id} class={`entry entry-${entry.kind}`}>
          <div class="when">
            <Time at={entry.created_at} />
          </div>
          <div class="what">
            <strong>{describe(entry)}</strong>
            {entry.message && <p class="message">{entry.message}</p>}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** What the Events API v2 trigger carried beyond the title (PagerDuty's alert details). */
function AlertDetailsCard({ details }: { details: AlertDetails }) {
  const custom = details.custom_details;
  const fields: [string, string | null][] = [
    ['Source', details.source],
    ['Alert severity', details.severity],
    ['Component', details.component],
    ['Group', details.group],
    ['Class', details.class],
  ];
  return (
    <section class="alert-details" aria-labelledby="alert-details-title">
      <h2 id="alert-details-title">Alert details</h2>
      <dl class="fields">
        {fields
          .filter(([, value]) => value)
          .map(([label, value]) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
        {details.client && (
          <>
            <dt>Sent by</dt>
            <dd>{details.client_url && /^https?:\/\//.test(details.client_url) ? <a href={details.client_url} rel="noreferrer noopener" target="_blank">{details.client}</a> : details.client}</dd>
          </>
        )}
      </dl>
      {details.links.length > 0 && (
        <ul class="links" aria-label="Alert links">
          {details.links.map((link) => (
            <li key={link.href}>{/^https?:\/\//.test(link.href) ? <a href={link.href} rel="noreferrer noopener" target="_blank">{link.text || link.href}</a> : <span>{link.text || link.href}</span>}</li>
          ))}
        </ul>
      )}
      {custom !== null && custom !== undefined && (
        <>
          <h3>Custom details</h3>
          <pre tabIndex={0} aria-label="Custom details">{typeof custom === 'string' ? custom : JSON.stringify(custom, null, 2)}</pre>
        </>
      )}
      {details.truncated && <p class="muted">Cut to fit 16 KiB.</p>}
    </section>
  );
}
