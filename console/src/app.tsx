/**
 * The console's shell: a skip link, the navigation (its links named as the issue names them), who is
 * signed in with "Sign out", and the screen of the current path.
 */
import type { FunctionComponent } from 'preact';
import { useConsole } from './context.js';
import { match, useLocation } from './router.js';
import { IncidentsScreen } from './screens/incidents.js';
import { IncidentScreen } from './screens/incident.js';
import { OnCallScreen } from './screens/on-call.js';
import { SchedulesScreen, ScheduleScreen } from './screens/schedules.js';
import { MonitorsScreen, MonitorScreen } from './screens/monitors.js';
import { PoliciesScreen, PolicyScreen } from './screens/policies.js';
import { InviteScreen, TeamsScreen, TeamScreen } from './screens/teams.js';
import { PhonePrompt, ProfileScreen } from './screens/profile.js';
import { WebhooksScreen, WebhookScreen } from './screens/webhooks.js';
import { NotFoundScreen } from './screens/not-found.js';

type Screen = FunctionComponent<{ params: Record<string, string>; query: URLSearchParams }>;

/** Every screen by its path; the first match wins. */
export const screens: [string, Screen][] = [
  ['/', IncidentsScreen],
  ['/incidents/:id', IncidentScreen],
  ['/on-call', OnCallScreen],
  ['/schedules', SchedulesScreen],
  ['/schedules/:id', ScheduleScreen],
  ['/monitors', MonitorsScreen],
  ['/monitors/:id', MonitorScreen],
  ['/escalation-policies', PoliciesScreen],
  ['/escalation-policies/:id', PolicyScreen],
  ['/teams', TeamsScreen],
  ['/teams/:id', TeamScreen],
  ['/invites/:token', InviteScreen],
  ['/profile', ProfileScreen],
  ['/webhooks', WebhooksScreen],
  ['/webhooks/:id', WebhookScreen],
];

/** The navigation: each link and the paths it is current for. */
const sections: [string, string][] = [
  ['Incidents', '/'],
  ['On call', '/on-call'],
  ['Schedules', '/schedules'],
  ['Monitors', '/monitors'],
  ['Escalation policies', '/escalation-policies'],
  ['Teams', '/teams'],
  ['Profile', '/profile'],
  ['Webhooks', '/webhooks'],
];

const isCurrent = (href: string, path: string) => (href === '/' ? path === '/' || path.startsWith('/incidents/') : path === href || path.startsWith(`${href}/`));

export function App() {
  const { me, session } = useConsole();
  const location = useLocation();
  const path = location.pathname;
  let screen: { Screen: Screen; params: Record<string, string> } = { Screen: NotFoundScreen, params: {} };
  for (const [pattern, Screen] of screens) {
    const params = match(pattern, path);
    if (params) {
      screen = { Screen, params };
      break;
    }
  }
  const { Screen, params } = screen;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          <img src="/icon.svg" alt="" width={28} height={28} />
          <span>Incident console</span>
        </a>
        <nav aria-label="Main">
          <ul>
            {sections.map(([name, href]) => (
              <li key={href}>
                <a href={href} aria-current={isCurrent(href, path) ? 'page' : undefined}>
                  {name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="muted" title={me.email}>
            {me.name}
          </span>
          <button type="button" class="quiet" onClick={() => session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <PhonePrompt />
      <main id="main">
        <Screen key={path} params={params} query={location.searchParams} />
      </main>
    </>
  );
}
