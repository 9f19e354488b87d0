/**
 * The tests' in-process mailbox (`startMailboxOnFirstUse`): aws-ses-v2-local keeps its e-mails in
 * its module, one store per process, and the test files of a worker share that process. The last
 * mailbox to stop empties it, so the next file's mailbox starts empty, as a mailbox process did.
 * Not a unit file: aws-ses-v2-local loads zod's classic API, whose first schema sets a global memoizer
 * that wraps every zod schema built after it in the process, which the unit tier's zod checks would see.
 */
import { describe, expect, it } from 'vitest';
import { startMailboxOnFirstUse } from '../../infra/local/runtime/runtime.js';

const send = async (mailboxUrl: string, subject: string) => {
  const response = await fetch(`${mailboxUrl}/v2/email/outbound-emails`, {
    method: 'POST',
    // aws-ses-v2-local wants some AWS authorization, even a mock one.
    headers: { 'content-type': 'application/json', authorization: 'AWS4-HMAC-SHA256 Credential=local/mock' },
    body: JSON.stringify({
      FromEmailAddress: 'incidents@example.com',
      Destination: { ToAddresses: ['reader@example.com'] },
      Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: 'body' } } } },
    }),
  });
  expect(response.status).toBe(200);
};
const subjects = async (mailboxUrl: string) =>
  ((await (await fetch(`${mailboxUrl}/store`)).json()) as { emails: { subject: string }[] }).emails.map((email) => email.subject);

describe('the in-process mailbox', () => {
  it("keeps the process's e-mails while a mailbox runs, and starts empty after the last one stopped", async () => {
    const first = await startMailboxOnFirstUse(0, '127.0.0.1');
    const second = await startMailboxOnFirstUse(0, '127.0.0.1');
    try {
      await send(first.url, 'one');
      await send(second.url, 'two');
      await first.stop();
      // Still one running: nothing is emptied under it.
      expect(await subjects(second.url)).toEqual(['one', 'two']);
    } finally {
      // Stopping twice changes nothing (the first may have stopped already).
      await first.stop();
      await second.stop();
    }

    const next = await startMailboxOnFirstUse(0, '127.0.0.1');
    try {
      expect(await subjects(next.url)).toEqual([]);
      await send(next.url, 'three');
      expect(await subjects(next.url)).toEqual(['three']);
    } finally {
      await next.stop();
    }
  });
});
