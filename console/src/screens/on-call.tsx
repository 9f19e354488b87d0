/**
 * On call: who is on call now in each schedule I can see (a page of schedules: one /on-call and one /shifts
 * read each, side by side), my next shifts over the next two weeks, "take this shift" (an override putting me
 * on call for someone else's shift: the button, then the dialog's confirmation), and my calendar feed link.
 */
import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { Badge, ErrorNote, Heading, Loading, Time } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { ConfirmDialog } from '../components/confirm.js';
import './schedules.css';

type Schedule = Schemas['Schedule'];
type Shift = Schemas['Shift'];
type OnCall = Schemas['OnCall'];
const DAY_MS = 86_400_000;
const WINDOW_DAYS = 14;
const PAGE = 25;
const REFRESH_MS = 60_000;

interface Row {
  schedule: Schedule;
  onCall?: OnCall[];
  shifts?: Shift[];
  error?: Error;
}

interface Offer {
  schedule: Schedule;
  shift: Shift;
}

export function OnCallScreen() {
  const { api, me } = useConsole();
  const [cursor, setCursor] = useState<string | undefined>();
  const [offer, setOffer] = useState<Offer | undefined>();
  const [taken, setTaken] = useState<string | undefined>();
  const board = useResource(
    async () => {
      const now = Date.now();
      const from = new Date(now).toISOString();
      const to = new Date(now + WINDOW_DAYS * DAY_MS).toISOString();
      const page = await must(api.GET('/api/schedules', { params: { query: { limit: PAGE, ...(cursor ? { cursor } : {}) } } }));
      const rows = await Promise.all(
        page.schedules.map(async (schedule): Promise<Row> => {
          const path = { id: schedule.id };
          try {
            const [onCall, shifts] = await Promise.all([
              must(api.GET('/api/schedules/{id}/on-call', { params: { path } })),
              must(api.GET('/api/schedules/{id}/shifts', { params: { path, query: { from, to } } })),
            ]);
            return { schedule, onCall: onCall.on_call, shifts: shifts.shifts };
          } catch (error) {
            return { schedule, error: error as Error };
          }
        }),
      );
      return { rows, next: page.next_cursor, to };
    },
    [cursor],
    REFRESH_MS,
  );
  const take = useAction(async ({ schedule, shift }: Offer) => {
    // A shift under way is taken from now on; the past stays as it was.
    const start = new Date(Math.max(Date.parse(shift.start), Date.now())).toISOString();
    await must(api.POST('/api/schedules/{id}/overrides', { params: { path: { id: schedule.id } }, body: { user_id: me.id, start, end: shift.end } }));
    setOffer(undefined);
    setTaken(`You took ${shift.user_name}'s shift in ${schedule.name}.`);
    await board.reload();
  });

  const rows = board.data?.rows ?? [];
  const mine = rows
    .flatMap((row) => (row.shifts ?? []).filter((shift) => shift.user_id === me.id).map((shift) => ({ schedule: row.schedule, shift })))
    .sort((a, b) => a.shift.start.localeCompare(b.shift.start));

  return (
    <section class="on-call">
      <Heading title="On call">On call</Heading>
      <p class="status-note" role="status">
        {taken}
      </p>
      <ErrorNote error={board.error} />
      {board.data === undefined && !board.error && <Loading what="who is on call" />}
      {board.data && rows.length === 0 && (
        <p class="empty">
          You see no schedules yet. <a href="/schedules">Create a schedule</a>.
        </p>
      )}

      {rows.length > 0 && (
        <>
          <h2 id="now-heading">On call now</h2>
          <ul class="cards" aria-labelledby="now-heading">
            {rows.map((row) => (
              <ScheduleNow key={row.schedule.id} row={row} meId={me.id} windowEnd={board.data!.to} onTake={(shift) => (take.clear(), setOffer({ schedule: row.schedule, shift }))} />
            ))}
          </ul>
          {board.data?.next && (
            <button type="button" class="quiet" onClick={() => setCursor(board.data!.next ?? undefined)}>
              More schedules
            </button>
          )}

          <h2 id="mine-heading">My next shifts</h2>
          {mine.length === 0 ? (
            <p class="empty">You have no shifts in the next two weeks of these schedules.</p>
          ) : (
            <ul class="cards" aria-labelledby="mine-heading">
              {mine.map(({ schedule, shift }) => (
                <li class="card shift mine" key={`${schedule.id}:${shift.start}`}>
                  <div class="grow">
                    <a class="title" href={`/schedules/${schedule.id}`}>
                      {schedule.name}
                    </a>
                    <div>
                      <Time at={shift.start} /> – <Until at={shift.end} windowEnd={board.data!.to} />
                      {Date.parse(shift.start) <= Date.now() && (
                        <>
                          {' '}
                          <Badge kind="verified">now</Badge>
                        </>
                      )}
                    </div>
                    <div class="muted">{shift.source === 'override' ? 'An override' : `Layer ${shift.layer ?? ''}`}</div>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </>
      )}

      <CalendarLink />

      <ConfirmDialog
        open={offer !== undefined}
        title="Take this shift?"
        confirm="Take the shift"
        busy={take.busy}
        error={take.error}
        onConfirm={() => offer && void take.run(offer)}
        onCancel={() => setOffer(undefined)}
      >
        {offer && (
          <p>
            You will be on call in <strong>{offer.schedule.name}</strong> instead of {offer.shift.user_name} from{' '}
            {Date.parse(offer.shift.start) <= Date.now() ? 'now' : <Time at={offer.shift.start} />} until <Time at={offer.shift.end} /> (an override).
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function ScheduleNow({ row, meId, windowEnd, onTake }: { row: Row; meId: string; windowEnd: string; onTake: (shift: Shift) => void }) {
  const { schedule } = row;
  const now = row.onCall?.[0];
  const shifts = row.shifts ?? [];
  // Someone else's shifts I could take: the one under way and the next few.
  const others = shifts.filter((shift) => shift.user_id !== meId).slice(0, 4);
  return (
    <li class="card schedule-now">
      <div class="grow">
        <a class="title" href={`/schedules/${schedule.id}`}>
          {schedule.name}
        </a>
        <ErrorNote error={row.error} />
        {row.onCall &&
          (now ? (
            <p class="who-now">
              <strong>{now.user_id === meId ? `You (${now.user_name})` : now.user_name}</strong>
              {now.until ? (
                <>
                  {' '}
                  until <Time at={now.until} />
                </>
              ) : null}
              {now.layer === null && <span class="muted"> (override)</span>}
            </p>
          ) : (
            <p class="who-now muted">Nobody is on call.</p>
          ))}
        {others.length > 0 && (
          <ul class="offers" aria-label={`Shifts of others in ${schedule.name}`}>
            {others.map((shift) => {
              const current = Date.parse(shift.start) <= Date.now();
              return (
                <li key={shift.start}>
                  <span>
                    {shift.user_name}: {current ? 'now' : <Time at={shift.start} />} – <Until at={shift.end} windowEnd={windowEnd} />
                  </span>
                  <button type="button" onClick={() => onTake(shift)} aria-label={`Take this shift: ${shift.user_name}, ${current ? 'now' : new Date(shift.start).toLocaleString()}`}>
                    Take this shift
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </li>
  );
}

/** A shift's end, or where the two weeks read end, said as such (the shift may go on). */
function Until({ at, windowEnd }: { at: string; windowEnd: string }) {
  return Date.parse(at) >= Date.parse(windowEnd) ? (
    <>
      <Time at={at} /> or later
    </>
  ) : (
    <Time at={at} />
  );
}

/** The calendar feed: a fresh secret URL each time, which stops the previous one (said before making it). */
function CalendarLink() {
  const { api } = useConsole();
  const [asking, setAsking] = useState(false);
  const [url, setUrl] = useState<string | undefined>();
  const [copied, setCopied] = useState('');
  const make = useAction(async () => {
    const answer = await must(api.POST('/api/me/calendar-token', {}));
    setUrl(answer.url);
    setAsking(false);
  });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url!);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was not allowed: select the link and copy it.');
    }
  };
  return (
    <section aria-labelledby="calendar-heading">
      <h2 id="calendar-heading">My calendar feed</h2>
      <p>
        A secret link to subscribe to in Google Calendar, Outlook or Apple Calendar: your shifts in every schedule, a week back and 90 days ahead. Anyone with the link
        sees them.
      </p>
      {url ? (
        <div class="calendar-link">
          <label>
            Calendar link
            <input type="text" readOnly value={url} onFocus={(event) => event.currentTarget.select()} />
          </label>
          <div class="actions">
            <button type="button" onClick={() => void copy()}>
              Copy link
            </button>
            <span role="status">{copied}</span>
          </div>
        </div>
      ) : null}
      <button type="button" onClick={() => (make.clear(), setAsking(true))}>
        {url ? 'Make another calendar link' : 'Make a calendar link'}
      </button>
      <ConfirmDialog
        open={asking}
        title="Make a new calendar link?"
        confirm="Make a new link"
        busy={make.busy}
        error={make.error}
        onConfirm={() => void make.run()}
        onCancel={() => setAsking(false)}
      >
        <p>A new link stops the one you had before: calendars subscribed to the old link stop showing your shifts until you give them the new one.</p>
      </ConfirmDialog>
    </section>
  );
}
