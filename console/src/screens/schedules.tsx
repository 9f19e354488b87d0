/**
 * Schedules: the list with a form to create one, and a schedule's screen — its next two weeks drawn as a
 * timeline (each layer's own rotation and the final result, overrides hatched) in the schedule's time zone,
 * with the same shifts in words; its overrides added and removed; its name, zone, layers and rotations edited.
 * Who may change what is the API's to say: every control is offered and a refusal shows the API's words.
 */
import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { NameOptions, SubmitActions, submitWith } from '../components/forms.js';
import { ErrorNote, Heading, Loading } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { navigate } from '../router.js';
import { describeDay, describePiece, layoutTimeline, type Timeline } from '../schedules/timeline.js';
import { addDays, instantOf, isKnownZone, knownZones, localDate } from '../schedules/zone.js';
import './schedules.css';

type Schedule = Schemas['Schedule'];
type Layer = Schemas['ScheduleLayer'];
type Override = Schemas['ScheduleOverride'];
type Restriction = NonNullable<Layer['restrictions']>[number];
type Day = Restriction['days'][number];
const DAYS = 14;
const WEEKDAYS: Day[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const readerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function SchedulesScreen() {
  const { api } = useConsole();
  const [cursor, setCursor] = useState<string | undefined>();
  const list = useResource(() => must(api.GET('/api/schedules', { params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } } })), [cursor]);
  const schedules = list.data?.schedules ?? [];
  return (
    <section class="schedules">
      <Heading title="Schedules">Schedules</Heading>
      <ErrorNote error={list.error} />
      {list.data === undefined && !list.error && <Loading what="schedules" />}
      {list.data && schedules.length === 0 && <p class="empty">No schedules yet.</p>}
      {schedules.length > 0 && (
        <ul class="cards" aria-label="Schedules">
          {schedules.map((schedule) => (
            <li class="card" key={schedule.id}>
              <div class="grow">
                <a class="title" href={`/schedules/${schedule.id}`}>
                  {schedule.name}
                </a>
                <div class="muted">
                  {schedule.time_zone} · {schedule.layers.map((layer) => layer.name).join(', ')}
                  {schedule.team_id ? ' · shared with a team' : ''}
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      {list.data?.next_cursor && (
        <button type="button" class="quiet" onClick={() => setCursor(list.data!.next_cursor ?? undefined)}>
          More schedules
        </button>
      )}
      <CreateSchedule />
    </section>
  );
}

/** A new schedule: a name, its zone, optionally a team, and a first weekly layer with me in it (edited afterwards). */
function CreateSchedule() {
  const { api, me } = useConsole();
  const teams = useResource(() => must(api.GET('/api/teams', { params: { query: { limit: 100 } } })), []);
  const [name, setName] = useState('');
  const [zone, setZone] = useState(readerZone);
  const [team, setTeam] = useState('');
  const create = useAction(async () => {
    const start = `${isKnownZone(zone) ? localDate(Date.now(), zone) : localDate(Date.now(), readerZone)}T09:00`;
    const answer = await must(
      api.POST('/api/schedules', {
        body: {
          name,
          time_zone: zone,
          ...(team ? { team_id: team } : {}),
          layers: [{ name: 'Primary', start, rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [me.id] }],
        },
      }),
    );
    navigate(`/schedules/${answer.schedule.id}`);
  });
  return (
    <form
      class="stack create"
      aria-labelledby="create-heading"
      onSubmit={submitWith(() => create.run())}
    >
      <h2 id="create-heading">New schedule</h2>
      <label>
        Name
        <input required maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <ZoneField value={zone} onChange={setZone} />
      <label>
        Shared with
        <select value={team} onChange={(event) => setTeam(event.currentTarget.value)}>
          <option value="">Nobody (only me)</option>
          {(teams.data?.teams ?? []).map((each) => (
            <option key={each.id} value={each.id}>
              {each.name}
            </option>
          ))}
        </select>
      </label>
      <p class="muted">It starts with one weekly layer with you in it, handing off Mondays at 09:00; change its layers on the schedule's page.</p>
      <SubmitActions error={create.error} busy={create.busy}>
        Create schedule
      </SubmitActions>
    </form>
  );
}

const zoneList = 'schedule-zones';

/** An IANA zone: typed or picked from the browser's list; the API decides whether it is one. */
function ZoneField({ value, onChange }: { value: string; onChange: (zone: string) => void }) {
  return (
    <label>
      Time zone (IANA, such as Europe/Berlin)
      <input required maxLength={64} list={zoneList} value={value} onInput={(event) => onChange(event.currentTarget.value)} autoComplete="off" spellcheck={false} />
      <datalist id={zoneList}>
        {knownZones(value).map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
    </label>
  );
}

interface Person {
  id: string;
  name: string;
}

/** Everything the schedule's screen reads: the schedule, its two weeks (final and each layer) and its overrides. */
async function readSchedule(api: ReturnType<typeof useConsole>['api'], id: string) {
  const path = { id };
  const { schedule } = await must(api.GET('/api/schedules/{id}', { params: { path } }));
  const zone = schedule.time_zone;
  const firstDate = localDate(Date.now(), zone);
  const from = new Date(instantOf(firstDate, zone)).toISOString();
  const to = new Date(instantOf(addDays(firstDate, DAYS), zone)).toISOString();
  const [final, layers, overrides] = await Promise.all([
    must(api.GET('/api/schedules/{id}/shifts', { params: { path, query: { from, to } } })),
    Promise.all(schedule.layers.map((layer) => must(api.GET('/api/schedules/{id}/shifts', { params: { path, query: { from, to, layer: layer.name } } })))),
    must(api.GET('/api/schedules/{id}/overrides', { params: { path, query: { from, limit: 100 } } })),
  ]);
  const timeline = layoutTimeline({
    zone,
    firstDate,
    days: DAYS,
    overrides: overrides.overrides,
    tracks: [
      ...schedule.layers.map((layer, index) => ({ key: `layer:${layer.name}`, label: layer.name, kind: 'layer' as const, shifts: layers[index]!.shifts })),
      { key: 'final', label: 'Final', kind: 'final' as const, shifts: final.shifts },
    ],
  });
  const names = new Map<string, string>();
  for (const shift of [...final.shifts, ...layers.flatMap((layer) => layer.shifts)]) names.set(shift.user_id, shift.user_name);
  return { schedule, timeline, overrides: overrides.overrides, moreOverrides: overrides.next_cursor !== null, names };
}

/** People who may be named in the schedule, as far as the caller can see them: its team's members, or those of the caller's teams. */
async function readPeople(api: ReturnType<typeof useConsole>['api'], schedule: Schedule, me: Person): Promise<Person[]> {
  const teamIds = schedule.team_id ? [schedule.team_id] : (await must(api.GET('/api/teams', { params: { query: { limit: 10 } } }))).teams.map((team) => team.id);
  const details = await Promise.all(teamIds.map((id) => must(api.GET('/api/teams/{id}', { params: { path: { id } } })).catch(() => undefined)));
  const people = new Map<string, string>([[me.id, me.name]]);
  for (const detail of details) for (const member of detail?.members ?? []) people.set(member.user_id, member.name);
  return [...people].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
}

export function ScheduleScreen({ params }: { params: Record<string, string> }) {
  const { api, me } = useConsole();
  const id = params.id!;
  const data = useResource(() => readSchedule(api, id), [id]);
  const schedule = data.data?.schedule;
  const people = useResource(() => (schedule ? readPeople(api, schedule, me) : Promise.resolve([])), [schedule?.team_id ?? '', schedule?.id ?? '']);
  const [editing, setEditing] = useState(false);

  if (data.error && !data.data) {
    return (
      <section>
        <Heading title="Schedule">Schedule</Heading>
        <ErrorNote error={data.error} />
        <p>
          <a href="/schedules">Back to the schedules</a>
        </p>
      </section>
    );
  }
  if (!data.data || !schedule) return <Loading what="the schedule" />;
  const names = new Map(data.data.names);
  for (const person of people.data ?? []) names.set(person.id, person.name);
  const nameOf = (userId: string) => names.get(userId) ?? 'Someone not in your teams';
  const choices = [...names].map(([personId, name]) => ({ id: personId, name })).sort((a, b) => a.name.localeCompare(b.name));

  return (
    <section class="schedule">
      <p class="crumbs">
        <a href="/schedules">Schedules</a>
      </p>
      <Heading title={schedule.name}>{schedule.name}</Heading>
      <p class="muted">
        Time zone {schedule.time_zone} · {schedule.layers.length} {schedule.layers.length === 1 ? 'layer' : 'layers'}
      </p>
      <ErrorNote error={data.error} />

      <TimelineView timeline={data.data.timeline} />

      <Overrides schedule={schedule} overrides={data.data.overrides} more={data.data.moreOverrides} nameOf={nameOf} choices={choices} onChanged={data.reload} />

      <h2>Settings</h2>
      {editing ? (
        <EditSchedule
          schedule={schedule}
          nameOf={nameOf}
          choices={choices}
          onDone={async (saved) => {
            if (saved) await data.reload();
            setEditing(false);
          }}
        />
      ) : (
        <>
          <LayersSummary schedule={schedule} nameOf={nameOf} />
          <button type="button" onClick={() => setEditing(true)}>
            Edit the schedule
          </button>
        </>
      )}
    </section>
  );
}

function TimelineView({ timeline }: { timeline: Timeline }) {
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">The next two weeks</h2>
      <p class="muted">
        Times in {timeline.zone}, the schedule's time zone{timeline.zone !== readerZone ? ` (yours is ${readerZone})` : ''}. Each layer's own rotation, then the final result:
        who is paged. Hatched: an override.
      </p>
      {/* The drawing; the list below says the same in words. */}
      <div class="tl" aria-hidden="true">
        <div class="tl-scale">
          <span>00</span>
          <span>06</span>
          <span>12</span>
          <span>18</span>
          <span>24</span>
        </div>
        {timeline.days.map((day) => (
          <div class="tl-day" key={day.date}>
            <div class="tl-date" style={{ '--tracks': String(day.tracks.length) }}>
              {describeDay(day.date)}
            </div>
            {day.tracks.map((track) => (
              <div class={`tl-track tl-${track.kind}`} key={track.key}>
                <span class="tl-label">{track.label}</span>
                <div class="tl-bar">
                  {track.segments.map((segment) => (
                    <span
                      key={segment.start}
                      class={`tl-seg person-${segment.person}${segment.override ? ' is-override' : ''}`}
                      style={{ left: `${segment.left}%`, width: `${segment.width}%` }}
                      title={segment.text}
                    >
                      {segment.user_name}
                    </span>
                  ))}
                </div>
              </div>
            ))}
          </div>
        ))}
      </div>
      <details class="tl-text">
        <summary>The two weeks as a list</summary>
        {timeline.tracks.map((track) => (
          <section key={track.key} aria-label={track.kind === 'final' ? 'Final result' : `Layer ${track.label}`}>
            <h3>{track.kind === 'final' ? 'Final result' : `Layer ${track.label}`}</h3>
            {track.pieces.length === 0 ? (
              <p class="muted">Nobody on call.</p>
            ) : (
              <ul>
                {track.pieces.map((piece) => (
                  <li key={piece.start}>{describePiece(piece, timeline.zone)}</li>
                ))}
              </ul>
            )}
          </section>
        ))}
      </details>
    </section>
  );
}

function Overrides(props: { schedule: Schedule; overrides: Override[]; more: boolean; nameOf: (id: string) => string; choices: Person[]; onChanged: () => Promise<void> }) {
  const { api, me } = useConsole();
  const { schedule } = props;
  const zone = schedule.time_zone;
  const [who, setWho] = useState(me.id);
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const add = useAction(async () => {
    await must(
      api.POST('/api/schedules/{id}/overrides', {
        params: { path: { id: schedule.id } },
        body: { user_id: who, start: new Date(instantOf(start, zone)).toISOString(), end: new Date(instantOf(end, zone)).toISOString() },
      }),
    );
    setStart('');
    setEnd('');
    await props.onChanged();
  });
  const remove = useAction(async (override: Override) => {
    await must(api.DELETE('/api/schedules/{id}/overrides/{overrideId}', { params: { path: { id: schedule.id, overrideId: override.id } } }));
    await props.onChanged();
  });
  const current = props.overrides.filter((override) => Date.parse(override.end) > Date.now());
  return (
    <section aria-labelledby="overrides-heading">
      <h2 id="overrides-heading">Overrides</h2>
      <ErrorNote error={remove.error} />
      {current.length === 0 ? (
        <p class="empty">No overrides from today on.</p>
      ) : (
        <ul class="cards" aria-label="Overrides">
          {current.map((override) => {
            const words = describePiece({ user_name: props.nameOf(override.user_id), start: Date.parse(override.start), end: Date.parse(override.end), override: false }, zone);
            return (
              <li class="card" key={override.id}>
                <div class="grow">{words}</div>
                <button type="button" class="danger" disabled={remove.busy} aria-label={`Remove the override: ${words}`} onClick={() => void remove.run(override)}>
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {props.more && <p class="muted">The first 100 overrides are shown.</p>}
      <form
        class="stack"
        aria-labelledby="add-override-heading"
        onSubmit={submitWith(() => add.run())}
      >
        <h3 id="add-override-heading">Add an override</h3>
        <label>
          Person on call
          <select value={who} onChange={(event) => setWho(event.currentTarget.value)}>
            {props.choices.map((person) => (
              <option key={person.id} value={person.id}>
                {person.id === me.id ? `${person.name} (me)` : person.name}
              </option>
            ))}
          </select>
        </label>
        <div class="row">
          <label>
            From ({zone})
            <input type="datetime-local" required value={start} onInput={(event) => setStart(event.currentTarget.value)} />
          </label>
          <label>
            Until ({zone})
            <input type="datetime-local" required value={end} onInput={(event) => setEnd(event.currentTarget.value)} />
          </label>
        </div>
        <ErrorNote error={add.error} />
        <div class="actions">
          <button type="submit" disabled={add.busy}>
            Add override
          </button>
        </div>
      </form>
    </section>
  );
}

const unit = (layer: Pick<Layer, 'rotation'>) => ({ hourly: 'hour', daily: 'day', weekly: 'week' })[layer.rotation.type];

function LayersSummary({ schedule, nameOf }: { schedule: Schedule; nameOf: (id: string) => string }) {
  return (
    <ol class="layers-summary" aria-label="Layers">
      {schedule.layers.map((layer) => (
        <li key={layer.name}>
          <strong>{layer.name}</strong>: every {layer.rotation.length === 1 ? unit(layer) : `${layer.rotation.length} ${unit(layer)}s`}
          {layer.handoff_time ? `, handing off at ${layer.handoff_time}` : ''}, from {layer.start.replace('T', ' ')}; {layer.members.map(nameOf).join(' → ')}
          {layer.restrictions?.length
            ? `; only ${layer.restrictions.map((restriction) => `${restriction.days.join(' ')} ${restriction.start}–${restriction.end}`).join(', ')}`
            : ''}
        </li>
      ))}
    </ol>
  );
}

function EditSchedule(props: { schedule: Schedule; nameOf: (id: string) => string; choices: Person[]; onDone: (saved: boolean) => Promise<void> }) {
  const { api } = useConsole();
  const [name, setName] = useState(props.schedule.name);
  const [zone, setZone] = useState(props.schedule.time_zone);
  const [layers, setLayers] = useState<Layer[]>(() => structuredClone(props.schedule.layers));
  const save = useAction(async () => {
    await must(api.PUT('/api/schedules/{id}', { params: { path: { id: props.schedule.id } }, body: { name, time_zone: zone, layers } }));
    await props.onDone(true);
  });
  const change = (index: number, next: Layer) => setLayers(layers.map((layer, i) => (i === index ? next : layer)));
  return (
    <form
      class="stack edit-schedule"
      aria-label="Edit the schedule"
      onSubmit={submitWith(() => save.run())}
    >
      <label>
        Schedule name
        <input required maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <ZoneField value={zone} onChange={setZone} />
      {layers.map((layer, index) => (
        <LayerFields
          key={index}
          index={index}
          layer={layer}
          nameOf={props.nameOf}
          choices={props.choices}
          onChange={(next) => change(index, next)}
          onRemove={layers.length > 1 ? () => setLayers(layers.filter((_, i) => i !== index)) : undefined}
        />
      ))}
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            setLayers([
              ...layers,
              {
                name: `Layer ${layers.length + 1}`,
                start: `${localDate(Date.now(), isKnownZone(zone) ? zone : readerZone)}T09:00`,
                rotation: { type: 'weekly', length: 1 },
                handoff_time: '09:00',
                members: layers[0]?.members.slice(0, 1) ?? [],
              },
            ])
          }
        >
          Add a layer
        </button>
      </div>
      <ErrorNote error={save.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy}>
          Save changes
        </button>
        <button type="button" onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function LayerFields(props: { index: number; layer: Layer; nameOf: (id: string) => string; choices: Person[]; onChange: (layer: Layer) => void; onRemove: (() => void) | undefined }) {
  const { layer, onChange } = props;
  const [adding, setAdding] = useState('');
  const number = props.index + 1;
  const setRotation = (type: Layer['rotation']['type'], length: number) => {
    const { handoff_time, ...rest } = layer;
    onChange(type === 'hourly' ? { ...rest, rotation: { type, length } } : { ...rest, rotation: { type, length }, handoff_time: handoff_time ?? '09:00' });
  };
  const members = layer.members;
  const move = (from: number, to: number) => {
    const next = [...members];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved!);
    onChange({ ...layer, members: next });
  };
  const restrictions = layer.restrictions ?? [];
  const setRestrictions = (next: Restriction[]) => {
    const { restrictions: _, ...rest } = layer;
    onChange(next.length ? { ...rest, restrictions: next } : rest);
  };
  return (
    <fieldset class="layer">
      <legend>Layer {number}</legend>
      <div class="row">
        <label>
          Layer name
          <input required maxLength={100} value={layer.name} onInput={(event) => onChange({ ...layer, name: event.currentTarget.value })} />
        </label>
        <label>
          Rotation
          <select value={layer.rotation.type} onChange={(event) => setRotation(event.currentTarget.value as Layer['rotation']['type'], layer.rotation.length)}>
            <option value="hourly">Hourly</option>
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
          </select>
        </label>
        <label>
          Turn length ({unit(layer)}s)
          <input type="number" required min={1} max={365} value={layer.rotation.length} onInput={(event) => setRotation(layer.rotation.type, Number(event.currentTarget.value))} />
        </label>
        {layer.rotation.type !== 'hourly' && (
          <label>
            Handoff time
            <input type="time" required value={layer.handoff_time ?? ''} onInput={(event) => onChange({ ...layer, handoff_time: event.currentTarget.value })} />
          </label>
        )}
        <label>
          Starts (local time)
          <input type="datetime-local" required value={layer.start} onInput={(event) => onChange({ ...layer, start: event.currentTarget.value })} />
        </label>
      </div>

      <h4 id={`members-${number}`}>Members, in turn order</h4>
      <ol class="members" aria-labelledby={`members-${number}`}>
        {members.map((member, index) => (
          <li key={`${member}:${index}`}>
            <span class="grow">{props.nameOf(member)}</span>
            <button type="button" class="quiet" disabled={index === 0} onClick={() => move(index, index - 1)} aria-label={`Move ${props.nameOf(member)} earlier in layer ${number}`}>
              ↑
            </button>
            <button type="button" class="quiet" disabled={members.length === 1} onClick={() => onChange({ ...layer, members: members.filter((_, i) => i !== index) })} aria-label={`Remove ${props.nameOf(member)} from layer ${number}`}>
              Remove
            </button>
          </li>
        ))}
      </ol>
      <div class="row">
        <label>
          Add a member to layer {number}
          <select value={adding} onChange={(event) => setAdding(event.currentTarget.value)}>
            <option value="">Choose a person</option>
            <NameOptions items={props.choices} />
          </select>
        </label>
        <button
          type="button"
          disabled={!adding}
          onClick={() => {
            onChange({ ...layer, members: [...members, adding] });
            setAdding('');
          }}
        >
          Add member
        </button>
      </div>

      <h4>Restrictions</h4>
      <p class="muted">Without any, the layer covers all the time; with some, only these weekly windows (a window ending at or before its start ends the next day).</p>
      {restrictions.map((restriction, index) => (
        <fieldset class="restriction" key={index}>
          <legend>
            Window {index + 1} of layer {number}
          </legend>
          <div class="days">
            {WEEKDAYS.map((day) => (
              <label key={day} class="day">
                <input
                  type="checkbox"
                  checked={restriction.days.includes(day)}
                  onChange={(event) => {
                    const days = event.currentTarget.checked ? WEEKDAYS.filter((each) => each === day || restriction.days.includes(each)) : restriction.days.filter((each) => each !== day);
                    setRestrictions(restrictions.map((each, i) => (i === index ? { ...each, days } : each)));
                  }}
                />
                {day}
              </label>
            ))}
          </div>
          <div class="row">
            <label>
              From
              <input type="time" required value={restriction.start} onInput={(event) => setRestrictions(restrictions.map((each, i) => (i === index ? { ...each, start: event.currentTarget.value } : each)))} />
            </label>
            <label>
              Until
              <input type="time" required value={restriction.end} onInput={(event) => setRestrictions(restrictions.map((each, i) => (i === index ? { ...each, end: event.currentTarget.value } : each)))} />
            </label>
            <button type="button" class="quiet" onClick={() => setRestrictions(restrictions.filter((_, i) => i !== index))}>
              Remove window {index + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <div class="actions">
        <button type="button" onClick={() => setRestrictions([...restrictions, { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }])}>
          Add a window to layer {number}
        </button>
        {props.onRemove && (
          <button type="button" class="danger" onClick={props.onRemove}>
            Remove layer {number}
          </button>
        )}
      </div>
    </fieldset>
  );
}
