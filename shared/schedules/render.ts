/**
 * Who is on call when: a schedule's layers, their restrictions and its overrides rendered into final
 * shifts over a UTC range, and the one person on call at an instant (issue 31). Pure: no I/O, no clock.
 *
 * Cost: O(layers + overrides in range + shifts in range), never O(history). Each layer jumps straight to
 * its rotation index at the range's start: hourly rotations by arithmetic on instants (fixed durations),
 * daily and weekly ones by counting local calendar days from the layer's start through the time-zone
 * library, so a handoff keeps its wall-clock time across every DST change. `RenderStats` counts the
 * internal steps (a test holds them equal for a range at the layer's start and ten years on).
 *
 * The rules (docs/decisions.md, "Schedules"):
 * - a layer covers every instant from its `start` (`members[0]` on call until the first handoff after it),
 *   within its restriction windows if it has any; members take turns in order, one shift each, round and round;
 * - a person who left (`rules.left`, removed from the schedule's team) counts before that instant and not
 *   from it on: the range is rendered in spans between departures, each with the people still there;
 * - where several layers cover an instant, the later layer wins; an override wins over every layer, and
 *   where overrides overlap, the one created later wins (ties: the greater id);
 * - a shift is one person's unbroken time on call: back-to-back pieces of the same person are merged
 *   whatever their sources (layers, overrides), and the shift shows the source and layer of its first piece
 *   (within the rendered range).
 */
import type { Layer, ScheduleOverride, ScheduleRules } from './model.js';
import { addDays, daysBetween, instantOf, localDate, localDateAt, parseLocalDateTime, parseWallTime, weekday, type LocalDate } from './zone.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** How far `onCallAt` looks for the ends of the shift it finds (the longest `/shifts` range). */
export const ON_CALL_HORIZON_DAYS = 90;

const WEEKDAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export interface Shift {
  user_id: string;
  /** ISO 8601 UTC. */
  start: string;
  /** ISO 8601 UTC, exclusive. */
  end: string;
  source: 'layer' | 'override';
  /** The layer's name, for a shift from a layer. */
  layer?: string;
}

export interface OnCall {
  user_id: string;
  source: 'layer' | 'override';
  /** The layer's name; null for an override. */
  layer: string | null;
  /** Start of the shift the instant is in; null when it began more than 90 days before the instant. */
  from: string | null;
  /** End of that shift; null when it lasts more than 90 days after the instant. */
  until: string | null;
}

/** Internal steps taken (handoffs, windows and pieces computed), for the O(range) test. */
export interface RenderStats {
  steps: number;
}

/** A piece of coverage: [start, end) in epoch milliseconds. `layer` is the layer's index, -1 for an override. */
interface Piece {
  start: number;
  end: number;
  user: string;
  layer: number;
}

/**
 * The final shifts over [from, to) (ISO 8601 instants), sorted, never overlapping, each clipped to the
 * range. Where nothing covers a time there is no shift.
 */
export function renderShifts(rules: ScheduleRules, overrides: readonly ScheduleOverride[], from: string, to: string, stats?: RenderStats): Shift[] {
  return render(rules, overrides, Date.parse(from), Date.parse(to), stats ?? { steps: 0 }).map((piece) => shiftOf(rules, piece));
}

/**
 * Who is on call at an instant: at most one entry, the final shift (as `renderShifts` gives it) that
 * holds the instant, with its full bounds as far as 90 days either side; empty when nothing covers it.
 */
export function onCallAt(rules: ScheduleRules, overrides: readonly ScheduleOverride[], instant: string, stats?: RenderStats): OnCall[] {
  const at = Date.parse(instant);
  const horizon = ON_CALL_HORIZON_DAYS * DAY_MS;
  const counter = stats ?? { steps: 0 };
  let back = HOUR_MS;
  let ahead = DAY_MS;
  for (;;) {
    // One millisecond more each side tells a shift that reaches the look-out's edge from one that ends there.
    const piece = render(rules, overrides, at - back - 1, at + ahead + 1, counter).find((candidate) => candidate.start <= at && at < candidate.end);
    if (!piece) return [];
    const earlier = piece.start < at - back;
    const later = piece.end > at + ahead;
    if ((earlier && back < horizon) || (later && ahead < horizon)) {
      if (earlier) back = Math.min(back * 8, horizon);
      if (later) ahead = Math.min(ahead * 8, horizon);
      continue;
    }
    const shift = shiftOf(rules, piece);
    return [{ user_id: shift.user_id, source: shift.source, layer: shift.layer ?? null, from: earlier ? null : shift.start, until: later ? null : shift.end }];
  }
}

function shiftOf(rules: ScheduleRules, piece: Piece): Shift {
  const start = new Date(piece.start).toISOString();
  const end = new Date(piece.end).toISOString();
  const layer = rules.layers[piece.layer];
  return layer ? { user_id: piece.user, start, end, source: 'layer', layer: layer.name } : { user_id: piece.user, start, end, source: 'override' };
}

function render(rules: ScheduleRules, overrides: readonly ScheduleOverride[], from: number, to: number, stats: RenderStats): Piece[] {
  if (!(from < to)) return [];
  const left = Object.entries(rules.left ?? {}).map(([user, at]) => ({ user, at: Date.parse(at) }));
  if (left.length === 0) return renderSpan(rules.layers, rules.time_zone, overrides, from, to, stats);
  // People who left: one span between each two departures in range, rendered with those still there at its start.
  const cuts = [...new Set(left.map(({ at }) => at).filter((at) => from < at && at < to))].sort((a, b) => a - b);
  const bounds = [from, ...cuts, to];
  const result: Piece[] = [];
  for (let index = 0; index + 1 < bounds.length; index += 1) {
    const start = bounds[index]!;
    const gone = new Set(left.filter(({ at }) => at <= start).map(({ user }) => user));
    const layers = rules.layers.map((layer) => ({ ...layer, members: layer.members.filter((user) => !gone.has(user)) }));
    const staying = overrides.filter((override) => !gone.has(override.user_id));
    for (const piece of renderSpan(layers, rules.time_zone, staying, start, bounds[index + 1]!, stats)) {
      const last = result[result.length - 1];
      if (last && last.end === piece.start && last.user === piece.user) last.end = piece.end;
      else result.push(piece);
    }
  }
  return result;
}

function renderSpan(layerList: readonly Layer[], zone: string, overrides: readonly ScheduleOverride[], from: number, to: number, stats: RenderStats): Piece[] {
  const layers = layerList.map((layer, index) => layerPieces(layer, index, zone, from, to, stats));
  const ranked = overrides
    .map((override) => ({ override, start: Date.parse(override.start), end: Date.parse(override.end) }))
    .filter(({ start, end }) => start < to && end > from && start < end)
    .sort((a, b) => compareText(a.override.created_at, b.override.created_at) || compareText(a.override.id, b.override.id))
    .map(({ override, start, end }, rank) => ({ start: Math.max(start, from), end: Math.min(end, to), user: override.user_id, rank }));
  return combine(layers, ranked, stats);
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The top of the stack over each stretch between consecutive boundaries: the highest-ranked override
 * active there, else the last layer covering it. Each layer's pieces are sorted and disjoint, so one
 * pointer per layer walks them once.
 */
function combine(layers: Piece[][], overrides: { start: number; end: number; user: string; rank: number }[], stats: RenderStats): Piece[] {
  const bounds = new Set<number>();
  for (const pieces of layers) for (const piece of pieces) bounds.add(piece.start).add(piece.end);
  for (const override of overrides) bounds.add(override.start).add(override.end);
  const points = [...bounds].sort((a, b) => a - b);
  const byStart = [...overrides].sort((a, b) => a.start - b.start);
  const pointers = layers.map(() => 0);
  let nextOverride = 0;
  let active: typeof overrides = [];
  const result: Piece[] = [];
  for (let index = 0; index + 1 < points.length; index += 1) {
    stats.steps += 1;
    const start = points[index]!;
    const end = points[index + 1]!;
    while (nextOverride < byStart.length && byStart[nextOverride]!.start <= start) active.push(byStart[nextOverride++]!);
    active = active.filter((override) => override.end > start);
    let top: Piece | undefined;
    if (active.length) {
      const winner = active.reduce((best, override) => (override.rank > best.rank ? override : best));
      top = { start, end, user: winner.user, layer: -1 };
    } else {
      for (let layer = layers.length - 1; layer >= 0 && !top; layer -= 1) {
        const pieces = layers[layer]!;
        while (pointers[layer]! < pieces.length && pieces[pointers[layer]!]!.end <= start) pointers[layer]! += 1;
        const piece = pieces[pointers[layer]!];
        if (piece && piece.start <= start) top = { start, end, user: piece.user, layer };
      }
    }
    if (!top) continue;
    const last = result[result.length - 1];
    // One person's back-to-back pieces are one shift, whatever their sources; it keeps its first piece's.
    if (last && last.end === top.start && last.user === top.user) last.end = top.end;
    else result.push(top);
  }
  return result;
}

/** One layer's coverage within [from, to): its rotation's shifts cut to its restriction windows. */
function layerPieces(layer: Layer, index: number, zone: string, from: number, to: number, stats: RenderStats): Piece[] {
  if (layer.members.length === 0) return [];
  const rotation = rotationOf(layer, zone);
  const lo = Math.max(from, rotation.handoff(0));
  if (lo >= to) return [];
  const shifts: Piece[] = [];
  let turn = rotation.turnAt(lo, stats);
  let start = rotation.handoff(turn);
  while (start < to) {
    stats.steps += 1;
    const end = rotation.handoff(turn + 1);
    const user = layer.members[turn % layer.members.length]!;
    const last = shifts[shifts.length - 1];
    // The same person on two turns in a row (a one-member layer, or a name twice): one piece.
    if (last && last.user === user) last.end = Math.min(end, to);
    else shifts.push({ start: Math.max(start, lo), end: Math.min(end, to), user, layer: index });
    turn += 1;
    start = end;
  }
  return layer.restrictions?.length ? intersect(shifts, restrictionWindows(layer, zone, lo, to, stats)) : shifts;
}

interface RotationClock {
  /** The instant of handoff `turn` (0: the layer's start). */
  handoff(turn: number): number;
  /** The turn whose shift holds `at` (at or after the start). */
  turnAt(at: number, stats: RenderStats): number;
}

function rotationOf(layer: Layer, zone: string): RotationClock {
  const start = parseLocalDateTime(layer.start);
  if (!start) throw new Error(`Layer "${layer.name}" has no valid start`);
  const startDate = localDate(start.year, start.month, start.day);
  const origin = instantOf(startDate, { hour: start.hour, minute: start.minute }, zone);
  if (layer.rotation.type === 'hourly') {
    // Fixed durations: arithmetic on instants.
    const length = layer.rotation.length * HOUR_MS;
    return { handoff: (turn) => origin + turn * length, turnAt: (at) => Math.floor((at - origin) / length) };
  }
  // Daily and weekly: a grid of handoffs at `handoff_time` on the local dates `start`'s date + k × `days`
  // (counted on the calendar). `members[0]` is on call from `start` to the first grid handoff after it
  // (a shorter first shift when `handoff_time` is not `start`'s time of day); every later turn runs from
  // one grid handoff to the next.
  const days = layer.rotation.length * (layer.rotation.type === 'weekly' ? 7 : 1);
  const time = (layer.handoff_time ? parseWallTime(layer.handoff_time) : undefined) ?? { hour: start.hour, minute: start.minute };
  const grid = (k: number) => instantOf(addDays(startDate, k * days), time, zone);
  // The first grid handoff strictly after `start`: on its own date, or one period on (where the clocks
  // jump, a handoff can land on `start` itself; it is never twice on one side of it).
  let first = 0;
  while (grid(first) <= origin) first += 1;
  const handoff = (turn: number) => (turn === 0 ? origin : grid(first + turn - 1));
  return {
    handoff,
    turnAt(at, stats) {
      let turn = Math.max(0, Math.floor(daysBetween(startDate, localDateAt(at, zone)) / days) - first + 1);
      // Counting local days lands on the right turn or next to it (before the handoff on its day).
      while (turn > 0 && handoff(turn) > at) (turn -= 1), (stats.steps += 1);
      while (handoff(turn + 1) <= at) (turn += 1), (stats.steps += 1);
      return turn;
    },
  };
}

/**
 * The layer's restriction windows over [lo, to), sorted and merged where they touch or overlap. A window
 * belongs to the local day it starts on; one whose end is at or before its start ends the next day. Days
 * are looked at from the one before `lo` (a window from yesterday may still be open) to the one after `to`.
 */
function restrictionWindows(layer: Layer, zone: string, lo: number, to: number, stats: RenderStats): Array<{ start: number; end: number }> {
  const restrictions = (layer.restrictions ?? []).map((restriction) => {
    const start = parseWallTime(restriction.start);
    const end = parseWallTime(restriction.end);
    if (!start || !end) throw new Error(`Layer "${layer.name}" has an invalid restriction`);
    const wraps = end.hour * 60 + end.minute <= start.hour * 60 + start.minute;
    return { days: new Set<string>(restriction.days), start, end, wraps };
  });
  const first = addDays(localDateAt(lo, zone), -1);
  const count = daysBetween(first, localDateAt(to, zone)) + 1;
  const windows: Array<{ start: number; end: number }> = [];
  for (let offset = 0; offset <= count; offset += 1) {
    const date: LocalDate = addDays(first, offset);
    const day = WEEKDAY_NAMES[weekday(date) - 1]!;
    for (const restriction of restrictions) {
      if (!restriction.days.has(day)) continue;
      stats.steps += 1;
      const start = Math.max(instantOf(date, restriction.start, zone), lo);
      const end = Math.min(instantOf(restriction.wraps ? addDays(date, 1) : date, restriction.end, zone), to);
      // A window inside a spring-forward gap starts and ends at the jump: empty that day.
      if (start < end) windows.push({ start, end });
    }
  }
  windows.sort((a, b) => a.start - b.start);
  const merged: Array<{ start: number; end: number }> = [];
  for (const window of windows) {
    const last = merged[merged.length - 1];
    if (last && window.start <= last.end) last.end = Math.max(last.end, window.end);
    else merged.push({ ...window });
  }
  return merged;
}

/** The parts of sorted, disjoint pieces that lie in sorted, disjoint windows. */
function intersect(pieces: Piece[], windows: Array<{ start: number; end: number }>): Piece[] {
  const result: Piece[] = [];
  let w = 0;
  for (const piece of pieces) {
    while (w < windows.length && windows[w]!.end <= piece.start) w += 1;
    for (let v = w; v < windows.length && windows[v]!.start < piece.end; v += 1) {
      const start = Math.max(piece.start, windows[v]!.start);
      const end = Math.min(piece.end, windows[v]!.end);
      if (start < end) result.push({ ...piece, start, end });
    }
  }
  return result;
}
