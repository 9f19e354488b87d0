/**
 * The home screen: open incidents first, filtered, each a link named by its title; acknowledge or
 * resolve one or many at once. The list reads itself again every 10 seconds while the tab is
 * visible, so a new or changed incident shows within 15 seconds without a reload.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, must, type Schemas } from '../api/client.js';
import { NameOptions, WordOptions } from '../components/forms.js';
import { Badge, ErrorNote, Heading, Loading, Time } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { navigate } from '../router.js';
import { bulkSummary, type BulkOutcome } from './incidents-bulk.js';
import './incidents.css';

type Incident = Schemas['IncidentListItem'];
const REFRESH_MS = 10_000;
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
const STATUSES = ['open', 'INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;

type Filters = { status: string; severity: string; urgency: string; acknowledged: string; monitor_id: string; team_id: string; mine: string };

const filtersOf = (query: URLSearchParams): Filters => ({
  status: query.get('status') ?? 'open',
  severity: query.get('severity') ?? '',
  urgency: query.get('urgency') ?? '',
  acknowledged: query.get('acknowledged') ?? '',
  monitor_id: query.get('monitor_id') ?? '',
  team_id: query.get('team_id') ?? '',
  mine: query.get('mine') ?? '',
});

/** One filter of the list: a labelled <select> whose choice goes into the page's address. */
function FilterSelect(props: { label: string; name: keyof Filters; filters: Filters; onChange: (name: keyof Filters, value: string) => void; children: ComponentChildren }) {
  return (
    <label>
      {props.label}
      <select aria-label={props.label} value={props.filters[props.name]} onChange={(event) => props.onChange(props.name, event.currentTarget.value)}>
        {props.children}
      </select>
    </label>
  );
}

/** The caller's monitors and teams, for the filters' choices (their first pages: 100 each, as a person picks from). */
function useChoices() {
  const { api } = useConsole();
  return useResource(
    async () => {
      const [monitors, teams] = await Promise.all([
        must(api.GET('/api/monitors', { params: { query: { limit: 100 } } })),
        must(api.GET('/api/teams')),
      ]);
      return { monitors: monitors.monitors.map(({ id, name }) => ({ id, name })), teams: teams.teams.map(({ id, name }) => ({ id, name })) };
    },
    [],
  );
}

export function IncidentsScreen({ query }: { query: URLSearchParams }) {
  const { api } = useConsole();
  const filters = filtersOf(query);
  const [cursor, setCursor] = useState<string | undefined>();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<BulkOutcome | undefined>();
  const choices = useChoices();
  const list = useResource(
    () =>
      must(
        api.GET('/api/incidents', {
          params: {
            query: {
              ...(filters.status ? { status: filters.status as (typeof STATUSES)[number] } : {}),
              ...(filters.severity ? { severity: filters.severity as (typeof SEVERITIES)[number] } : {}),
              ...(filters.acknowledged ? { acknowledged: filters.acknowledged as 'true' | 'false' } : {}),
              ...(filters.monitor_id ? { monitor_id: filters.monitor_id } : {}),
              ...(filters.team_id ? { team_id: filters.team_id } : {}),
              ...(filters.urgency ? { urgency: filters.urgency as 'high' | 'low' } : {}),
              ...(filters.mine === 'true' ? { mine: 'true' as const } : {}),
              ...(cursor ? { cursor } : {}),
              limit: 50,
            },
          },
        }),
      ),
    [query.toString(), cursor],
    REFRESH_MS,
  );
  // One request per incident, each on its own: the others are done whatever one answers, and each
  // failure is shown with the API's own words (e.g. "Incident already acknowledged").
  const bulk = useAction(async (action: 'acknowledge' | 'resolve') => {
    const titles = new Map((list.data?.incidents ?? []).map((incident) => [incident.id, incident.title]));
    const ids = [...selected];
    const results = await Promise.all(
      ids.map(async (id) => {
        try {
          if (action === 'acknowledge') await must(api.POST('/api/incidents/{id}/acknowledge', { params: { path: { id } } }));
          else await must(api.DELETE('/api/incidents/{id}', { params: { path: { id } } }));
          return { id, title: titles.get(id) ?? id };
        } catch (error) {
          return { id, title: titles.get(id) ?? id, error: error instanceof ApiError || error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    setOutcome({ action, results });
    // The failed stay selected, to try again or leave.
    setSelected(new Set(results.filter((result) => result.error).map((result) => result.id)));
    await list.reload();
  });

  const setFilter = (name: keyof Filters, value: string) => {
    const next = new URLSearchParams(query);
    if (value === '' && name !== 'status') next.delete(name);
    else next.set(name, value);
    setCursor(undefined);
    navigate(`/?${next.toString()}`, { replace: true });
  };
  const incidents = list.data?.incidents ?? [];
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  return (
    <section>
      <Heading title="Incidents">Incidents</Heading>
      <form class="filters" aria-label="Filter incidents" onSubmit={(event) => event.preventDefault()}>
        <FilterSelect label="Status" name="status" filters={filters} onChange={setFilter}>
          <option value="open">Open</option>
          <option value="">Any</option>
          <WordOptions values={STATUSES.slice(1)} />
        </FilterSelect>
        <FilterSelect label="Severity" name="severity" filters={filters} onChange={setFilter}>
          <option value="">Any</option>
          <WordOptions values={SEVERITIES} />
        </FilterSelect>
        <FilterSelect label="Urgency" name="urgency" filters={filters} onChange={setFilter}>
          <option value="">Any</option>
          <option value="high">High</option>
          <option value="low">Low</option>
        </FilterSelect>
        <FilterSelect label="Acknowledged" name="acknowledged" filters={filters} onChange={setFilter}>
          <option value="">Either</option>
          <option value="false">Not yet</option>
          <option value="true">Yes</option>
        </FilterSelect>
        <FilterSelect label="Monitor" name="monitor_id" filters={filters} onChange={setFilter}>
          <option value="">Any</option>
          <NameOptions items={choices.data?.monitors} />
        </FilterSelect>
        <FilterSelect label="Team" name="team_id" filters={filters} onChange={setFilter}>
          <option value="">Any</option>
          <NameOptions items={choices.data?.teams} />
        </FilterSelect>
        <label class="check">
          <input type="checkbox" checked={filters.mine === 'true'} onChange={(event) => setFilter('mine', event.currentTarget.checked ? 'true' : '')} />
          Assigned to me
        </label>
      </form>

      <div class="toolbar" role="group" aria-label="Selected incidents">
        <span class="muted" aria-live="polite">
          {selected.size === 0 ? 'Select incidents to act on several at once.' : `${selected.size} selected`}
        </span>
        <button type="button" disabled={selected.size === 0 || bulk.busy} onClick={() => void bulk.run('acknowledge')}>
          Acknowledge
        </button>
        <button type="button" disabled={selected.size === 0 || bulk.busy} onClick={() => void bulk.run('resolve')}>
          Resolve
        </button>
      </div>
      {outcome && <BulkResult outcome={outcome} onDismiss={() => setOutcome(undefined)} />}
      <ErrorNote error={bulk.error ?? list.error ?? choices.error} />

      {list.data === undefined && !list.error && <Loading what="incidents" />}
      {list.data && incidents.length === 0 && <p class="empty">No incidents match. All quiet.</p>}
      {incidents.length > 0 && (
        <ul class="cards incidents" aria-label="Incidents">
          {incidents.map((incident) => (
            <IncidentRow key={incident.id} incident={incident} checked={selected.has(incident.id)} onToggle={() => toggle(incident.id)} />
          ))}
        </ul>
      )}
      {list.data?.next_cursor && (
        <button type="button" class="quiet" onClick={() => setCursor(list.data!.next_cursor ?? undefined)}>
          Older incidents
        </button>
      )}
    </section>
  );
}

function IncidentRow({ incident, checked, onToggle }: { incident: Incident; checked: boolean; onToggle: () => void }) {
  const resolved = incident.status === 'RESOLVED';
  return (
    <li class={`card incident ${resolved ? 'is-resolved' : incident.acknowledged ? 'is-acknowledged' : 'is-triggered'}`}>
      <input type="checkbox" checked={checked} onChange={onToggle} aria-label={`Select ${incident.title}`} disabled={resolved} />
      <div class="grow">
        <a class="title" href={`/incidents/${incident.id}`}>
          {incident.title}
        </a>
        <div class="meta">
          <Badge kind={incident.severity}>{incident.severity}</Badge>
          <Badge kind={incident.status}>{incident.status}</Badge>
          {!resolved && <Badge kind={incident.acknowledged ? 'acknowledged' : 'unacknowledged'}>{incident.acknowledged ? 'Acknowledged' : 'Not acknowledged'}</Badge>}
          <span class="muted">{incident.monitor_name}</span>
          <span class="muted">
            <Time at={incident.started_at} />
          </span>
        </div>
      </div>
    </li>
  );
}

/** What a bulk action did: how many were done, and each failure with the API's text. */
function BulkResult({ outcome, onDismiss }: { outcome: BulkOutcome; onDismiss: () => void }) {
  const summary = bulkSummary(outcome);
  const failed = outcome.results.filter((result) => result.error);
  return (
    <div class={`bulk-result ${failed.length ? 'has-failures' : ''}`} role={failed.length ? 'alert' : 'status'}>
      <p>{summary}</p>
      {failed.length > 0 && (
        <ul aria-label="Not done">
          {failed.map((result) => (
            <li key={result.id}>
              <a href={`/incidents/${result.id}`}>{result.title}</a>: {result.error}
            </li>
          ))}
        </ul>
      )}
      <button type="button" class="quiet" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
