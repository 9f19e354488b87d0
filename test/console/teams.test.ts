/**
 * The Teams screens in a real Chromium: create a team, invite someone (the invite e-mail in the local
 * mailbox), accept it at the console's /invites/:token, change their role; a MEMBER sees only the
 * controls the API says their role may use, and more once they are made ADMIN.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allMailTo, eventually, uniqueEmail } from '../support/api.js';
import { ConsoleHarness, expectAccessible } from '../support/console.js';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await ConsoleHarness.start();
});
afterAll(() => harness?.close());

it('creates a team, invites by e-mail, the invitee joins from the link, and their controls follow the role the owner gives them', async () => {
  const ownerEmail = uniqueEmail('lead');
  const memberEmail = uniqueEmail('joiner');
  await harness.api.signUp(ownerEmail, 'Lee Lead');
  await harness.api.signUp(memberEmail, 'Jo Joiner');
  const teamName = `Payments ${process.pid}-${Date.now()}`;

  const owner = await harness.page('desktop');
  await harness.signIn(owner, ownerEmail);
  await owner.getByRole('link', { name: 'Teams' }).click();
  await owner.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
  await owner.getByLabel('Team name').fill(teamName);
  await expect.poll(() => owner.getByLabel(/^Slug/).inputValue()).toBe(`payments-${process.pid}-${teamName.split('-')[1]}`);
  await owner.getByRole('button', { name: 'Create team' }).click();
  await owner.getByRole('heading', { name: teamName, level: 1 }).waitFor();
  const teamUrl = owner.url();

  await owner.getByLabel('E-mail address to invite').fill(memberEmail);
  await owner.getByLabel('Invited role').selectOption('MEMBER');
  await owner.getByRole('button', { name: 'Invite', exact: true }).click();
  await owner.getByRole('list', { name: 'Pending invitations' }).getByText(memberEmail).waitFor();
  await expectAccessible(owner);

  // The invite e-mail, in the local mailbox, carries the token.
  const [mail] = await eventually(() => allMailTo(harness.api, memberEmail), (mails) => mails.length > 0);
  const token = /\/api\/teams\/invites\/([^/\s]+)\/accept/.exec(mail!.body.text ?? '')?.[1];
  expect(token).toBeDefined();

  const member = await harness.page('phone', 'dark');
  await harness.signIn(member, memberEmail);
  await member.goto(`${harness.url}/invites/${token}`);
  await member.getByRole('button', { name: 'Accept the invitation' }).click();
  await member.getByRole('status').getByText('You joined the team').waitFor();
  await member.getByRole('link', { name: 'See your teams' }).click();
  await member.getByRole('link', { name: teamName }).click();
  await member.getByRole('heading', { name: teamName, level: 1 }).waitFor();
  await member.getByRole('list', { name: 'Members' }).getByText('Jo Joiner').waitFor();
  // A MEMBER: the API says they may do none of the team's writes, and no control shows for them.
  for (const name of ['Rename', 'Invite', 'Delete team', 'Remove Lee Lead', 'Change the role of Jo Joiner']) {
    expect(await member.getByRole('button', { name, exact: true }).count(), name).toBe(0);
  }
  await expectAccessible(member);

  // The owner makes them ADMIN.
  await owner.goto(teamUrl);
  await owner.getByRole('combobox', { name: 'Role of Jo Joiner' }).selectOption('ADMIN');
  await owner.getByRole('button', { name: 'Change the role of Jo Joiner' }).click();
  const joCard = owner.getByRole('list', { name: 'Members' }).getByRole('listitem').filter({ hasText: 'Jo Joiner' });
  await joCard.locator('.badge', { hasText: 'ADMIN' }).waitFor();

  // An ADMIN may rename and invite, but not change roles nor delete the team: the API's answer again.
  await member.reload();
  await member.getByRole('heading', { name: teamName, level: 1 }).waitFor();
  await member.getByRole('button', { name: 'Invite', exact: true }).waitFor();
  await member.getByRole('button', { name: 'Rename', exact: true }).waitFor();
  expect(await member.getByRole('button', { name: 'Delete team' }).count()).toBe(0);
  expect(await member.getByRole('button', { name: /^Change the role of/ }).count()).toBe(0);
  harness.expectNoProblems();
});
