/**
 * The console's start: read the runtime settings, finish a sign-in coming back at /callback, send a
 * signed-out visitor to sign in (or show "Sign in" after signing out), then render the app.
 */
import { render, type ComponentChild } from 'preact';
import { App } from './app.js';
import { createApi } from './api/client.js';
import { Session } from './auth/session.js';
import { loadConfig } from './config.js';
import { Console } from './context.js';
import { interceptLinks, navigate } from './router.js';
import './styles.css';

const root = document.getElementById('app')!;
/** Renders `content` in place of what the page showed while loading. */
const show = (content: ComponentChild) => {
  if (!root.dataset.rendered) root.textContent = '';
  root.dataset.rendered = 'yes';
  render(content, root);
};

function SignedOut({ session, problem }: { session: Session; problem?: string }) {
  return (
    <main id="main" class="signed-out">
      <img src="/icon.svg" alt="" width={64} height={64} />
      <h1>Incident console</h1>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <p>Sign in to see your incidents, who is on call, and your team's schedules.</p>
      <button type="button" class="primary" onClick={() => void session.signIn(location.pathname === '/callback' ? '/' : location.pathname + location.search)}>
        Sign in
      </button>
    </main>
  );
}

async function start() {
  const config = await loadConfig();
  const session = new Session(config);
  if (location.pathname === '/callback') {
    try {
      navigate(await session.complete(new URLSearchParams(location.search)), { replace: true });
    } catch (error) {
      history.replaceState(null, '', '/');
      show(<SignedOut session={session} problem={(error as Error).message} />);
      return;
    }
  }
  const me = session.person;
  if (!me) {
    show(<SignedOut session={session} />);
    return;
  }
  interceptLinks(root);
  const api = createApi(config.apiUrl, session);
  show(
    <Console.Provider value={{ config, session, api, me }}>
      <App />
    </Console.Provider>,
  );
}

start().catch((error: Error) => {
  root.textContent = '';
  const message = document.createElement('p');
  message.className = 'error';
  message.setAttribute('role', 'alert');
  message.textContent = error.message;
  root.append(message);
});
