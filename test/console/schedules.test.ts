/**
 * The On call and Schedules screens in a real Chromium: taking someone else's shift and seeing yourself on
 * call (desktop and phone), the calendar link, a schedule's two weeks drawn and said in words (layers, final
 * result, overrides), an override added and removed, a layer edited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/api.js';
import { ConsoleHarness, expectAccessible, type Size } from '../support/console.js';
import { createTeam, join } from '../support/teams.js';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await ConsoleHarness.start();
});
afterAll(() => harness?.close());

const utcDate = (days = 0) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A team of a lead, Sam and me; a UTC schedule whose daily rotation has Sam on call today, then the lead. */
async function crew(label: string) {
  const { api } = harness;
  const lead = await api.signUp(uniqueEmail('lead'), `Lee Lead ${label}`);
  const sam = await api.signUp(uniqueEmail('sam'), `Sam Other ${label}`);
  const me = await api.signUp(uniqueEmail('riley'), `Riley Responder ${label}`);
  const team = await createTeam(api, lead, `Payments ${label}`);
  await join(api, lead, team.id, sam, 'MEMBER');
  await join(api, lead, team.id, me, 'MEMBER');
  const created = await api.request('POST', '/api/schedules', {
    token: lead.token,
    body: {
      name: `Primary ${label}`,
      time_zone: 'UTC',
      team_id: team.id,
      layers: [{ name: 'Daily', start: `${utcDate()}T00:00`, rotation: { type: 'daily', length: 1 }, handoff_time: '00:00', members: [sam.id, lead.id] }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { lead, sam, me, schedule: created.body.schedule as { id: string; name: string } };
}

describe.each<Size>(['desktop', 'phone'])('on call at %s size', (size) => {
  it('takes the shift of whoever is on call in two clicks and shows me on call now, in the schedule as an override', async () => {
    const { api } = harness;
    const { sam, me, schedule } = await crew(size);
    const page = await harness.page(size);
    await harness.signIn(page, me.email);
    await page.getByRole('link', { name: 'On call', exact: true }).click();
    await page.getByRole('heading', { name: 'On call', level: 1 }).waitFor();
    const card = page.getByRole('list', { name: 'On call now' }).getByRole('listitem').filter({ has: page.getByRole('link', { name: schedule.name }) });
    await card.getByText(sam.name, { exact: true }).waitFor();
    await expectAccessible(page);

    await card.getByRole('button', { name: `Take this shift: ${sam.name}, now` }).click();
    const dialog = page.getByRole('dialog', { name: 'Take this shift?' });
    await dialog.getByText(`instead of ${sam.name}`).waitFor();
    await dialog.getByRole('button', { name: 'Take the shift' }).click();
    await card.getByText(`You (${me.name})`).waitFor();
    await page.getByRole('status').getByText(`You took ${sam.name}'s shift in ${schedule.name}.`).waitFor();
    const onCall = await api.request('GET', `/api/schedules/${schedule.id}/on-call`, { token: me.token });
    expect(onCall.body.on_call[0]).toMatchObject({ user_id: me.id, layer: null });
    await page.getByRole('list', { name: 'My next shifts' }).getByRole('link', { name: schedule.name }).waitFor();

    // The schedule shows the override in its drawing and in words.
    await card.getByRole('link', { name: schedule.name }).click();
    await page.getByRole('heading', { name: schedule.name, level: 1 }).waitFor();
    await page.getByText('The two weeks as a list').click();
    const final = page.getByRole('region', { name: 'Final result' });
    await final.getByText(new RegExp(`^${me.name}, .* \\(override\\)$`)).waitFor();
    expect(await page.locator('.tl-final .tl-seg.is-override').count()).toBeGreaterThan(0);
    await expectAccessible(page);
    harness.expectNoProblems();
  });
});

it('makes a calendar link after saying it stops the previous one, ready to copy', async () => {
  const me = await harness.api.signUp(uniqueEmail('cal'), 'Cal Endar');
  const page = await harness.page('phone', 'dark');
  await harness.signIn(page, me.email);
    await page.getByRole('link', { name: 'On call', exact: true }).click();
  await page.getByRole('button', { name: 'Make a calendar link' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make a new calendar link?' });
  await dialog.getByText('A new link stops the one you had before').waitFor();
  await dialog.getByRole('button', { name: 'Make a new link' }).click();
  const link = page.getByLabel('Calendar link', { exact: true });
  await link.waitFor();
  const first = await link.inputValue();
  expect(first).toMatch(/^http:\/\/.+\/calendars\/[^/]+\.ics$/);
  expect((await fetch(first)).status).toBe(200);
  await expectAccessible(page);

  await page.getByRole('button', { name: 'Make another calendar link' }).click();
  await page.getByRole('button', { name: 'Make a new link' }).click();
  await expect.poll(() => link.inputValue()).not.toBe(first);
  expect((await fetch(first)).status).toBe(404);
  harness.expectNoProblems();
});

it('draws a schedule’s two weeks with its words, adds and removes an override, and edits a layer', async () => {
  const { api } = harness;
  const { lead, sam, me, schedule } = await crew('timeline');
  const tomorrow = utcDate(1);
  const placed = await api.request('POST', `/api/schedules/${schedule.id}/overrides`, {
    token: lead.token,
    body: { user_id: lead.id, start: `${tomorrow}T10:00:00Z`, end: `${tomorrow}T12:00:00Z` },
  });
  expect(placed.status).toBe(201);

  const page = await harness.page('desktop', 'dark');
  await harness.signIn(page, me.email);
  await page.getByRole('link', { name: 'Schedules', exact: true }).click();
  await page.getByRole('link', { name: schedule.name }).click();
  await page.getByRole('heading', { name: schedule.name, level: 1 }).waitFor();
  await page.getByText("Times in UTC, the schedule's time zone (yours is Europe/Berlin)").waitFor();

  // The drawing (hidden from screen readers) and the same in words: the layer's rotation, the final result with the override.
  expect(await page.locator('.tl [aria-hidden="true"], .tl[aria-hidden="true"]').count()).toBe(1);
  expect(await page.locator('.tl-day').count()).toBe(14);
  await page.getByText('The two weeks as a list').click();
  const layer = page.getByRole('region', { name: 'Layer Daily' });
  await layer.getByText(new RegExp(`^${sam.name}, .* 00:00 – .* 00:00$`)).first().waitFor();
  expect(await layer.getByText(/\(override\)/).count()).toBe(0);
  const final = page.getByRole('region', { name: 'Final result' });
  await final.getByText(new RegExp(`^${lead.name}, .* 10:00 – .* 12:00 \\(override\\)$`)).waitFor();
  await expectAccessible(page);

  // An override added for Sam in the schedule's zone, then removed.
  const later = utcDate(2);
  await page.getByLabel('Person on call').selectOption({ label: sam.name });
  await page.getByLabel('From (UTC)').fill(`${later}T08:00`);
  await page.getByLabel('Until (UTC)').fill(`${later}T09:30`);
  await page.getByRole('button', { name: 'Add override' }).click();
  const overrides = page.getByRole('list', { name: 'Overrides' });
  const added = overrides.getByRole('listitem').filter({ hasText: sam.name });
  await added.getByText(/08:00 – .* 09:30$/).waitFor();
  const listed = await api.request('GET', `/api/schedules/${schedule.id}/overrides`, { token: me.token });
  expect(listed.body.overrides.map((each: { user_id: string; start: string; end: string }) => [each.user_id, each.start, each.end])).toContainEqual([
    sam.id,
    `${later}T08:00:00.000Z`,
    `${later}T09:30:00.000Z`,
  ]);
  await added.getByRole('button', { name: /^Remove the override: / }).click();
  await expect.poll(() => added.count()).toBe(0);

  // A layer edited: two-day turns, and me added at the end of the rotation.
  await page.getByRole('button', { name: 'Edit the schedule' }).click();
  const fields = page.getByRole('group', { name: 'Layer 1' });
  await fields.getByLabel('Turn length (days)').fill('2');
  await fields.getByLabel('Add a member to layer 1').selectOption({ label: me.name });
  await fields.getByRole('button', { name: 'Add member' }).click();
  await fields.getByRole('list', { name: 'Members, in turn order' }).getByText(me.name).waitFor();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('list', { name: 'Layers' }).getByText(`every 2 days`, { exact: false }).waitFor();
  const saved = await api.request('GET', `/api/schedules/${schedule.id}`, { token: me.token });
  expect(saved.body.schedule.layers[0]).toMatchObject({ rotation: { type: 'daily', length: 2 }, members: [sam.id, lead.id, me.id] });
  harness.expectNoProblems();
});

it('shows the API’s refusal when a viewer of the team changes the schedule (no rights guessed in the browser)', async () => {
  const { api } = harness;
  const { lead, schedule } = await crew('refusal');
  const viewer = await api.signUp(uniqueEmail('viewer'), 'Vi Ewer');
  const team = (await api.request('GET', `/api/schedules/${schedule.id}`, { token: lead.token })).body.schedule.team_id as string;
  await join(api, lead, team, viewer, 'VIEWER');

  const page = await harness.page('phone');
  await harness.signIn(page, viewer.email);
  await page.getByRole('link', { name: 'Schedules', exact: true }).click();
  await page.getByRole('link', { name: schedule.name }).click();
  await page.getByRole('button', { name: 'Edit the schedule' }).click();
  await page.getByLabel('Schedule name').fill('Renamed by a viewer');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').getByText('Not authorized', { exact: true }).waitFor();
  expect((await api.request('GET', `/api/schedules/${schedule.id}`, { token: lead.token })).body.schedule.name).toBe(schedule.name);
  await expectAccessible(page);
  // The browser reports the refused request itself; nothing else may go wrong.
  harness.expectNoProblems([/the server responded with a status of 403/]);
});
