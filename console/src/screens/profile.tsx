/**
 * Profile: the person's contact methods (e-mail, SMS, voice) with the verification code dialog, their
 * notification rules by urgency, and their calendar link. `PhonePrompt` asks a person with no phone
 * number for one, once a session.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { must, type Schemas } from '../api/client.js';
import { SubmitActions, submitWith } from '../components/forms.js';
import { Badge, ErrorNote, Heading, Loading } from '../components/ui.js';
import { useConsole } from '../context.js';
import { useAction, useResource } from '../hooks.js';
import { CopyField } from '../components/copy-field.js';
import { delayText, e164, hasPhone, rulesByUrgency } from './people.js';
import './people.css';

type Method = Schemas['ContactMethod'];
type MethodType = Method['type'];
const TYPE_NAMES: Record<MethodType, string> = { email: 'E-mail', sms: 'SMS', voice: 'Voice call' };
const methodLabel = (method: Method) => `${method.name ?? TYPE_NAMES[method.type]} (${method.address})`;

export function ProfileScreen({ query }: { query: URLSearchParams }) {
  const { api, me } = useConsole();
  const methods = useResource(() => must(api.GET('/api/me/contact-methods')), []);
  const rules = useResource(() => must(api.GET('/api/me/notification-rules')), []);
  const [verifying, setVerifying] = useState<Method | undefined>();
  const reload = async () => {
    await Promise.all([methods.reload(), rules.reload()]);
  };
  const list = methods.data?.contact_methods;
  return (
    <section>
      <Heading title="Profile">Profile</Heading>
      <dl class="fields">
        <dt>Name</dt>
        <dd>{me.name}</dd>
        <dt>E-mail</dt>
        <dd class="person-email">{me.email}</dd>
      </dl>

      <h2>Contact methods</h2>
      <p class="muted">Pages reach you through verified, enabled methods, as your notification rules say.</p>
      <ErrorNote error={methods.error} />
      {!list ? (
        !methods.error && <Loading what="your contact methods" />
      ) : (
        <ul class="cards" aria-label="Contact methods">
          {list.map((method) => (
            <MethodCard key={method.id} method={method} onVerify={() => setVerifying(method)} onDone={reload} />
          ))}
        </ul>
      )}
      <AddMethod
        initialType={query.get('add') === 'sms' || query.get('add') === 'voice' ? (query.get('add') as MethodType) : 'email'}
        onAdded={async (method) => {
          await reload();
          setVerifying(method);
        }}
      />
      {verifying && (
        <VerifyDialog
          method={verifying}
          onClose={() => {
            setVerifying(undefined);
            void reload();
          }}
        />
      )}

      <h2>Notification rules</h2>
      <p class="muted">When a page of each urgency reaches you, which method is notified, and after how many minutes (if it is not acknowledged by then).</p>
      <ErrorNote error={rules.error} />
      {rules.data && list ? <Rules rules={rules.data.notification_rules} methods={list} onDone={reload} /> : !rules.error && <Loading what="your notification rules" />}

      <h2>Calendar</h2>
      <CalendarLink />
    </section>
  );
}

function MethodCard({ method, onVerify, onDone }: { method: Method; onVerify: () => void; onDone: () => Promise<void> }) {
  const { api } = useConsole();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(method.name ?? '');
  const path = { params: { path: { id: method.id } } };
  const update = useAction(async (body: { name?: string | null; disabled?: boolean }) => {
    await must(api.PUT('/api/me/contact-methods/{id}', { ...path, body }));
    setRenaming(false);
    await onDone();
  });
  const remove = useAction(async () => {
    await must(api.DELETE('/api/me/contact-methods/{id}', path));
    await onDone();
  });
  const label = methodLabel(method);
  return (
    <li class="card">
      <div class="grow">
        <div class="title person-email">{method.name ?? method.address}</div>
        <div class="meta">
          <Badge kind="type">{TYPE_NAMES[method.type]}</Badge>
          {method.name && <span class="muted person-email">{method.address}</span>}
          <Badge kind={method.verified ? 'verified' : 'unverified'}>{method.verified ? 'Verified' : 'Not verified'}</Badge>
          {method.disabled && <Badge kind="disabled">Disabled</Badge>}
        </div>
        {renaming && (
          <form
            class="row"
            aria-label={`Rename ${label}`}
            onSubmit={submitWith(() => update.run({ name: name.trim() === '' ? null : name }))}
          >
            <label>
              Name
              <input maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
            </label>
            <button type="submit" disabled={update.busy}>
              Save name
            </button>
            <button type="button" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </form>
        )}
        <div class="actions">
          {!method.verified && (
            <button type="button" class="primary" onClick={onVerify} aria-label={`Verify ${label}`}>
              Verify
            </button>
          )}
          {!renaming && (
            <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${label}`}>
              Rename
            </button>
          )}
          <button type="button" disabled={update.busy} onClick={() => void update.run({ disabled: !method.disabled })} aria-label={`${method.disabled ? 'Enable' : 'Disable'} ${label}`}>
            {method.disabled ? 'Enable' : 'Disable'}
          </button>
          <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run()} aria-label={`Delete ${label}`}>
            Delete
          </button>
        </div>
        <ErrorNote error={update.error ?? remove.error} />
      </div>
    </li>
  );
}

function AddMethod({ initialType, onAdded }: { initialType: MethodType; onAdded: (method: Method) => Promise<void> }) {
  const { api } = useConsole();
  const [type, setType] = useState<MethodType>(initialType);
  const [address, setAddress] = useState('');
  const [name, setName] = useState('');
  const addressField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (initialType !== 'email') addressField.current?.focus();
  }, []);
  const add = useAction(async () => {
    // A phone number goes as E.164 when it reads as one; otherwise as typed, for the API to say what is wrong.
    const sent = type === 'email' ? address.trim() : (e164(address) ?? address.trim());
    const { contact_method } = await must(api.POST('/api/me/contact-methods', { body: { type, address: sent, ...(name.trim() ? { name } : {}) } }));
    setAddress('');
    setName('');
    await onAdded(contact_method);
  });
  const phone = type !== 'email';
  return (
    <form
      class="stack"
      aria-label="Add a contact method"
      onSubmit={submitWith(() => add.run())}
    >
      <h3>Add a contact method</h3>
      <label>
        Type
        <select value={type} onChange={(event) => setType(event.currentTarget.value as MethodType)}>
          <option value="email">E-mail</option>
          <option value="sms">SMS</option>
          <option value="voice">Voice call</option>
        </select>
      </label>
      <label>
        {phone ? 'Phone number (international form, e.g. +14155550100)' : 'E-mail address'}
        <input
          ref={addressField}
          type={phone ? 'tel' : 'email'}
          list={undefined}
          autoComplete={phone ? 'tel' : 'email'}
          inputMode={phone ? 'tel' : 'email'}
          required
          maxLength={254}
          value={address}
          onInput={(event) => setAddress(event.currentTarget.value)}
        />
      </label>
      <label>
        Name (optional)
        <input maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <SubmitActions error={add.error} busy={add.busy}>
        Add and send a code
      </SubmitActions>
    </form>
  );
}

/** The verification code dialog: the 6-digit code sent through the method, a new code at most once a minute (the API decides). */
function VerifyDialog({ method, onClose }: { method: Method; onClose: () => void }) {
  const { api } = useConsole();
  const dialog = useRef<HTMLDialogElement>(null);
  const [code, setCode] = useState('');
  const [resent, setResent] = useState(false);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  const path = { params: { path: { id: method.id } } };
  const verify = useAction(async () => {
    await must(api.POST('/api/me/contact-methods/{id}/verify', { ...path, body: { code: code.trim() } }));
    dialog.current?.close();
  });
  const resend = useAction(async () => {
    setResent(false);
    await must(api.POST('/api/me/contact-methods/{id}/send-code', path));
    setResent(true);
  });
  const how = method.type === 'email' ? 'e-mailed to' : method.type === 'sms' ? 'texted to' : 'read out in a call to';
  return (
    <dialog ref={dialog} aria-labelledby="verify-title" onClose={onClose}>
      <form
        class="stack"
        onSubmit={submitWith(() => verify.run())}
      >
        <h2 id="verify-title">Verify {method.address}</h2>
        <p>
          Enter the 6-digit code {how} {method.address}. It works for 15 minutes.
        </p>
        <label>
          Verification code
          <input
            class="code"
            required
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={20}
            value={code}
            onInput={(event) => setCode(event.currentTarget.value)}
          />
        </label>
        <ErrorNote error={verify.error ?? resend.error} />
        {resent && (
          <p role="status" class="note-ok">
            A new code is on its way; the previous one no longer works.
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={verify.busy}>
            Verify
          </button>
          <button type="button" disabled={resend.busy} onClick={() => void resend.run()}>
            Send a new code
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>
      </form>
    </dialog>
  );
}

function Rules({ rules, methods, onDone }: { rules: Schemas['NotificationRule'][]; methods: Method[]; onDone: () => Promise<void> }) {
  const { api } = useConsole();
  const byId = new Map(methods.map((method) => [method.id, method]));
  const [urgency, setUrgency] = useState<'high' | 'low'>('high');
  const [methodId, setMethodId] = useState('');
  const [delay, setDelay] = useState('0');
  const add = useAction(async () => {
    await must(
      api.POST('/api/me/notification-rules', {
        body: { urgency, contact_method_id: methodId || methods[0]!.id, delay_minutes: Number(delay) },
      }),
    );
    await onDone();
  });
  const remove = useAction(async (id: string) => {
    await must(api.DELETE('/api/me/notification-rules/{id}', { params: { path: { id } } }));
    await onDone();
  });
  return (
    <div class="rules">
      {rulesByUrgency(rules).map((group) => (
        <div key={group.urgency}>
          <h3>{group.urgency === 'high' ? 'High urgency' : 'Low urgency'}</h3>
          {group.rules.length === 0 ? (
            <p class="muted">Nobody is notified of a {group.urgency}-urgency page. Add a rule.</p>
          ) : (
            <ul class="cards" aria-label={`${group.urgency === 'high' ? 'High' : 'Low'} urgency rules`}>
              {group.rules.map((rule) => {
                const method = byId.get(rule.contact_method_id);
                const text = `${method ? methodLabel(method) : 'A removed method'} ${delayText(rule.delay_minutes)}`;
                return (
                  <li class="card" key={rule.id}>
                    <div class="grow person-email">
                      {text}
                      {method && (!method.verified || method.disabled) && <span class="muted"> — not notified until it is {method.disabled ? 'enabled' : 'verified'}</span>}
                    </div>
                    <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run(rule.id)} aria-label={`Delete the rule: ${text}`}>
                      Delete
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      ))}
      <ErrorNote error={remove.error} />
      <form
        class="row"
        aria-label="Add a notification rule"
        onSubmit={submitWith(() => add.run())}
      >
        <label>
          Urgency
          <select value={urgency} onChange={(event) => setUrgency(event.currentTarget.value as 'high' | 'low')}>
            <option value="high">High</option>
            <option value="low">Low</option>
          </select>
        </label>
        <label>
          Notify
          <select value={methodId || methods[0]?.id} onChange={(event) => setMethodId(event.currentTarget.value)}>
            {methods.map((method) => (
              <option key={method.id} value={method.id}>
                {methodLabel(method)}
              </option>
            ))}
          </select>
        </label>
        <label>
          After (minutes)
          <input type="number" min={0} max={1440} step={1} required value={delay} onInput={(event) => setDelay(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={add.busy || methods.length === 0}>
          Add rule
        </button>
        <ErrorNote error={add.error} />
      </form>
    </div>
  );
}

function CalendarLink() {
  const { api } = useConsole();
  const [url, setUrl] = useState<string | undefined>();
  const make = useAction(async () => {
    setUrl((await must(api.POST('/api/me/calendar-token'))).url);
  });
  return (
    <>
      <p class="muted">Your shifts in every schedule, as a calendar feed to subscribe to. The link is a secret: a new one stops the previous one.</p>
      {url && <CopyField label="Calendar link" value={url} />}
      <div class="actions">
        <button type="button" disabled={make.busy} onClick={() => void make.run()}>
          {url ? 'Get a new calendar link' : 'Get my calendar link'}
        </button>
      </div>
      <ErrorNote error={make.error} />
    </>
  );
}

/** The session storage flag: the phone prompt was shown in this session. */
export const PHONE_PROMPT_SHOWN = 'console.phone-prompt-shown';

/**
 * A first sign-in with no phone number asks for one: once a session, a person with no SMS or voice
 * contact method sees a banner leading to adding one (dismissible).
 */
export function PhonePrompt() {
  const { api } = useConsole();
  const [show, setShow] = useState(false);
  useEffect(() => {
    if (sessionStorage.getItem(PHONE_PROMPT_SHOWN)) return;
    let live = true;
    must(api.GET('/api/me/contact-methods'))
      .then(({ contact_methods }) => {
        if (!live || sessionStorage.getItem(PHONE_PROMPT_SHOWN)) return;
        sessionStorage.setItem(PHONE_PROMPT_SHOWN, 'yes');
        if (!hasPhone(contact_methods)) setShow(true);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  if (!show) return null;
  return (
    <aside class="banner" aria-label="Add a phone number">
      <p>Add a phone number, so a page reaches you by text or call when e-mail is not enough.</p>
      <a class="button primary" href="/profile?add=sms" onClick={() => setShow(false)}>
        Add a phone number
      </a>
      <button type="button" class="quiet" onClick={() => setShow(false)}>
        Not now
      </button>
    </aside>
  );
}
