/**
 * shared/ reads bottom up. Its folders stand on floors, and a module imports (even for types) only
 * from its own folder or from folders on floors below its own — never sideways, never up:
 *
 *  10  notifications/  alerts/  heartbeats/  phones/  what arrives (an alert, a missed heartbeat, an SMS reply or receipt) and what goes out (e-mail, SMS, calls)
 *   9  paging/  webhooks/                             the paging flow, in story order; webhooks out
 *   8  incidents/  integrations/  subscribers/  team-deletion/
 *   7  monitors/                                      monitors and their heartbeat storage
 *   6  escalation/  schedules/
 *   5  teams/                                         teams, roles and what sharing with a team allows
 *   4  contacts/                                      a person's contact methods and notification rules
 *   3  accounts/
 *   2  channels/                                      how a message reaches an address (e-mail, SMS, voice)
 *   1  platform/                                      the database, events, API forms, clock, and the vocabulary (statuses, severities, roles)
 *   0  system.ts                                      the one description of the system
 *
 * A new import that runs against this order fails here: move the code it needs down, or the
 * importer up, rather than change the floors to fit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';

const FLOORS = [
  ['system.ts'],
  ['platform'],
  ['channels', 'audit'],
  ['accounts'],
  ['contacts'],
  ['teams'],
  ['escalation', 'schedules'],
  ['monitors'],
  ['incidents', 'integrations', 'subscribers', 'team-deletion'],
  ['paging', 'webhooks'],
  ['notifications', 'alerts', 'heartbeats', 'phones'],
];

const directory = join(repositoryRoot, 'shared');
/** Every module, as a path relative to shared/ (`teams/access.ts`). */
const modules = readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((file) => /\.ts$/.test(file) && !file.endsWith('.test.ts'));
/** The shared/ modules `file` imports, relative to shared/ (`.js` specifiers name `.ts` sources). */
const importsOf = (file: string) =>
  [
    ...readFileSync(join(directory, file), 'utf8').matchAll(
      /^(?:import|export)[^;]*?from '(\.\.?\/[\w./-]+)'|^import '(\.\.?\/[\w./-]+)'|import\('(\.\.?\/[\w./-]+)'\)/gm,
    ),
  ]
    .map((match) => relative(directory, resolve(join(directory, dirname(file)), match[1] ?? match[2] ?? match[3]!)).replace(/\.js$/, '.ts'))
    .filter((target) => !target.startsWith('..'));
/** `teams/access.ts` → `teams`; `system.ts` → `system.ts`. */
const folderOf = (file: string) => file.split('/')[0]!;
const floorOf = (file: string) => FLOORS.findIndex((floor) => floor.includes(folderOf(file)));

/** Imports that leave their folder for one on the same floor or a higher one. */
const againstTheFloors = () =>
  modules.flatMap((file) =>
    importsOf(file)
      .filter((target) => folderOf(target) !== folderOf(file) && floorOf(target) >= floorOf(file))
      .map((target) => `${file} → ${target}`),
  );

/** The circles among modules (strongly connected sets of more than one), by Tarjan's algorithm. */
function moduleCircles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of importsOf(file)) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) === index.get(file)) {
      const circle = stack.splice(stack.indexOf(file));
      if (circle.length > 1) circles.push(circle.sort());
    }
  };
  for (const file of modules) if (!index.has(file)) visit(file);
  return circles;
}

describe('shared/ imports', () => {
  it('puts every folder on one floor', () => {
    const folders = [...new Set(modules.map(folderOf))];
    expect(folders.filter((folder) => !FLOORS.flat().includes(folder))).toEqual([]);
    expect(FLOORS.flat().filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it('go from a folder only to folders on floors below it', () => {
    expect(againstTheFloors()).toEqual([]);
    // The rule is not vacuous: the floors do use each other, across several floors at once.
    expect(importsOf('notifications/notifier.ts')).toEqual(expect.arrayContaining(['subscribers/service.ts', 'incidents/acknowledge-link.ts']));
    expect(importsOf('platform/events/model.ts')).toContain('platform/vocabulary.ts');
  });

  it('form no circle of modules', () => {
    expect(moduleCircles()).toEqual([]);
  });
});
