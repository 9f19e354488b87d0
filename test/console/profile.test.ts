/**
 * The Profile screen in a real Chromium: a first sign-in with no phone number asks for one; the
 * issue's story "add a phone number, read the code from the local phone inbox, verify it" at desktop
 * and phone sizes, with a new code refused within the minute in the API's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/api.js';
import { ConsoleHarness, expectAccessible, type Size } from '../support/console.js';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await ConsoleHarness.start();
});
afterAll(() => harness?.close());

/** The refusals the stories cause on purpose (a wrong code, a new code within the minute), which Chromium logs. */
const refusals = [/status of 400 \(Bad Request\)/, /status of 429 \(Too Many Requests\)/];

let numbers = 0;
/** A phone number of this run alone (the inbox is shared by the tests of this file). */
const uniquePhone = () => `+1415${String(process.pid % 1000).padStart(3, '0')}${String(Date.now() % 1000).padStart(3, '0')}${numbers++}`;

describe.each<Size>(['desktop', 'phone'])('a phone number at %s size', (size) => {
  it('is asked for at the first sign-in, added, its code read from the phone inbox and verified', async () => {
    const email = uniqueEmail('phoneless');
    await harness.api.signUp(email, 'Pat Phoneless');
    const phone = uniquePhone();
    const page = await harness.page(size);
    await harness.signIn(page, email);

    const prompt = page.getByRole('complementary', { name: 'Add a phone number' });
    await prompt.getByRole('link', { name: 'Add a phone number' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    await expect.poll(() => page.getByLabel('Type').inputValue()).toBe('sms');
    await page.getByLabel(/^Phone number/).fill(`${phone.slice(0, 2)} (${phone.slice(2, 5)}) ${phone.slice(5)}`);
    await page.getByRole('button', { name: 'Add and send a code' }).click();

    const dialog = page.getByRole('dialog', { name: `Verify ${phone}` });
    await dialog.waitFor();
    await expectAccessible(page);
    // A second code within the minute: the API's refusal, as it words it.
    await dialog.getByRole('button', { name: 'Send a new code' }).click();
    await dialog.getByRole('alert').getByText('A verification code was sent less than a minute ago').waitFor();

    const smsCode = () => /(\d{6})/.exec(harness.api.runtime.phones.messages(phone).find((message) => message.channel === 'sms')?.body ?? '')?.[1];
    await expect.poll(smsCode).toMatch(/^\d{6}$/);
    const code = smsCode()!;
    await dialog.getByLabel('Verification code').fill(code === '000000' ? '111111' : '000000');
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await dialog.getByRole('alert').getByText('Invalid verification code').waitFor();
    await dialog.getByLabel('Verification code').fill(code);
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const methods = page.getByRole('list', { name: 'Contact methods' });
    const card = methods.getByRole('listitem').filter({ hasText: phone });
    await card.getByText('Verified').waitFor();
    await expect.poll(() => card.getByRole('button', { name: /^Verify/ }).count()).toBe(0);
    await expectAccessible(page);
    harness.expectNoProblems(refusals);
  });
});

it('asks once a session, can be dismissed, and never asks someone who has a phone number', async () => {
  const email = uniqueEmail('dismisser');
  await harness.api.signUp(email, 'Dana Dismisser');
  const page = await harness.page('desktop', 'dark');
  await harness.signIn(page, email);
  const prompt = page.getByRole('complementary', { name: 'Add a phone number' });
  await prompt.waitFor();
  await expectAccessible(page);
  await prompt.getByRole('button', { name: 'Not now' }).click();
  await prompt.waitFor({ state: 'detached' });
  await page.goto(`${harness.url}/profile`);
  await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
  await page.getByRole('list', { name: 'Contact methods' }).waitFor();
  expect(await prompt.count()).toBe(0);

  // Someone with a phone number (verified or not) is not asked.
  const withPhone = uniqueEmail('phoned');
  const user = await harness.api.signUp(withPhone, 'Pho Ned');
  const added = await harness.api.request('POST', '/api/me/contact-methods', { token: user.token, body: { type: 'voice', address: uniquePhone() } });
  expect(added.status).toBe(201);
  const other = await harness.page('desktop');
  await harness.signIn(other, withPhone);
  await other.getByRole('heading', { name: 'Incidents', level: 1 }).waitFor();
  await expect.poll(() => other.evaluate("sessionStorage.getItem('console.phone-prompt-shown')")).toBe('yes');
  expect(await other.getByRole('complementary', { name: 'Add a phone number' }).count()).toBe(0);
  harness.expectNoProblems(refusals);
});
