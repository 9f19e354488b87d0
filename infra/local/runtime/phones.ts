/**
 * The phone inbox's local endpoints (issue 43 §6): `GET /local/phones` (a page: an inbox per number,
 * newest first, a reply box each), `GET /local/phones/messages[?to=]` (JSON, newest first), `DELETE
 * /local/phones/messages` (empties it), and `POST /local/phones/reply {"from","body"}`: a person's SMS
 * to the local number, handed to `sms-inbound` with AWS's two-way payload as the number's SNS topic
 * carries it (the stand-in itself: `../aws/phones.ts`).
 */
import * as z from '../../../shared/platform/zod.js';
import { escapeHtml } from '../../../shared/platform/html.js';
import { fieldErrors } from '../../../shared/platform/validation.js';
import { isE164 } from '../../../shared/channels/phone.js';
import { workers } from '../../../shared/system.js';
import type { LocalEndpoint } from '../aws/gateway.js';
import { failsDelivery, LOCAL_ORIGINATION_NUMBER, TWO_WAY_TOPIC, type PhoneInbox, type PhoneMessage } from '../aws/phones.js';

const E164_TEXT = 'must be a phone number in E.164 form: + and 8 to 15 digits, as in +14155550100';

const replyInput = z.strictObject({
  from: z.string().check(z.refine((value) => isE164(value), { message: E164_TEXT })),
  body: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(1600, 'must be at most 1600 characters')),
});


export function phoneEndpoints(inbox: PhoneInbox, log: (line: string) => void = () => undefined): LocalEndpoint[] {
  return [
    {
      method: 'GET',
      path: '/local/phones',
      handle: async () => ({ status: 200, body: phonesPage(inbox.list()), contentType: 'text/html; charset=utf-8' }),
    },
    {
      method: 'GET',
      path: '/local/phones/messages',
      async handle({ query }) {
        // `?to=+14155550100` as typed: a query's `+` reads as a space, which no phone number has.
        const to = query.get('to')?.replace(/ /g, '+') ?? undefined;
        if (to !== undefined && !isE164(to)) return { status: 400, body: { error: 'Validation errors', details: [{ field: 'to', message: E164_TEXT }] } };
        return { status: 200, body: { messages: inbox.list(to) } };
      },
    },
    {
      method: 'DELETE',
      path: '/local/phones/messages',
      async handle() {
        inbox.clear();
        return { status: 200, body: { messages: [] } };
      },
    },
    {
      method: 'POST',
      path: '/local/phones/reply',
      async handle({ body }) {
        if (body === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) {
          return { status: 400, body: { error: 'The body must be a JSON object such as {"from":"+14155550100","body":"12a"}' } };
        }
        const parsed = z.safeParse(replyInput, body);
        if (!parsed.success) return { status: 400, body: { error: 'Validation errors', details: fieldErrors(parsed.error, 'body') } };
        const { from, body: text } = parsed.data;
        // The person's SMS, to the local number: kept in the inbox too (their side of the conversation).
        const sent = inbox.keep({ channel: 'sms', to: LOCAL_ORIGINATION_NUMBER, from, body: text });
        // AWS's two-way payload, as the number's SNS topic carries it.
        const payload = {
          originationNumber: from,
          destinationNumber: LOCAL_ORIGINATION_NUMBER,
          messageKeyword: keywordOf(text),
          messageBody: text,
          inboundMessageId: sent.id,
          previousPublishedMessageId: inbox.list(from)[0]?.id,
        };
        // Answered once the function has run: its reply is in the inbox when this returns.
        try {
          await inbox.publish(workers.smsInbound.name, TWO_WAY_TOPIC, payload);
        } catch (error) {
          log(`sms-inbound failed on the reply from ${from}: ${error instanceof Error ? error.message : String(error)}`);
          return { status: 502, body: { error: 'The sms-inbound function failed on this reply; the runtime log says why' } };
        }
        return { status: 202, body: { message: sent } };
      },
    },
  ];
}

/** The keyword AWS reports for an inbound message: its first word, upper-cased. */
const keywordOf = (text: string) => text.trim().split(/\s+/)[0]!.toUpperCase();

/** An inbox per number (the number a message went to, or came from for a person's reply), newest first. */
function phonesPage(messages: PhoneMessage[]): string {
  const inboxes = new Map<string, PhoneMessage[]>();
  for (const message of messages) {
    const number = message.to === LOCAL_ORIGINATION_NUMBER ? message.from : message.to;
    inboxes.set(number, [...(inboxes.get(number) ?? []), message]);
  }
  const sections = [...inboxes.entries()]
    .map(([number, list]) => {
      const rows = list
        .map(
          (message) =>
            `<li class="${message.to === number ? 'in' : 'out'}"><span class="meta">${escapeHtml(message.sent_at)} · ${message.channel === 'voice' ? '📞 call' : 'SMS'} ${message.to === number ? `from ${escapeHtml(message.from)}` : 'sent by this phone'}${failsDelivery(number) ? ' · receipt: failed' : ''}</span><pre>${escapeHtml(message.body)}</pre></li>`,
        )
        .join('\n');
      return `<section><h2>${escapeHtml(number)}</h2>
<form data-from="${escapeHtml(number)}"><input name="body" placeholder="Reply as ${escapeHtml(number)} (12a, 12r, 12e, STOP, START, HELP)" required maxlength="1600"><button>Send</button> <output></output></form>
<ul>${rows}</ul></section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Local phones</title>
<style>
body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border:1px solid #ddd;border-radius:8px;padding:.5rem 1rem;margin:1rem 0}
ul{list-style:none;padding:0}li{margin:.5rem 0;padding:.4rem .6rem;border-radius:6px;background:#f2f4f8}
li.out{background:#e7f6e7;margin-left:3rem}.meta{font-size:.8rem;color:#666}pre{white-space:pre-wrap;margin:.2rem 0;font-family:inherit}
form{display:flex;gap:.5rem}input{flex:1;padding:.3rem}
</style>
</head>
<body>
<h1>Local phones</h1>
<p>Every SMS and call the service sent from ${LOCAL_ORIGINATION_NUMBER}, an inbox per number, newest first. A reply is a text from that phone to ${LOCAL_ORIGINATION_NUMBER}. Numbers ending in 0000 receive, but their receipts say failed. JSON: <a href="/local/phones/messages">/local/phones/messages</a>.</p>
${sections || '<p><em>No messages yet.</em></p>'}
<script>
for (const form of document.querySelectorAll('form[data-from]')) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const output = form.querySelector('output');
    const response = await fetch('/local/phones/reply', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: form.dataset.from, body: form.elements.body.value }) });
    if (response.ok) location.reload();
    else output.textContent = JSON.stringify(await response.json());
  });
}
</script>
</body>
</html>
`;
}
