/**
 * On AWS a token from an external issuer may name a user the service has no account for (the
 * operator provisions accounts). Such a caller can never become the owner of a team that names
 * nobody: the team's transaction requires the owner's account, so nothing is written.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signUp } from '../../shared/accounts/service.js';
import { createTeam } from '../../shared/teams/service.js';

describe('a caller without an account', () => {
  it('cannot create a team (403), and the slug stays free', async () => {
    const slug = `unprovisioned-${randomUUID().slice(0, 8)}`;
    const stranger = { userId: randomUUID(), email: 'stranger@example.com', name: 'Stranger' };
    await expect(createTeam(stranger, { name: 'Orphans', slug })).rejects.toMatchObject({
      statusCode: 403,
      message: 'No account found. Please sign up first.',
    });
    const account = await signUp({ email: `owner-${randomUUID()}@example.com`, name: 'Owner' });
    await expect(createTeam({ userId: account.id }, { name: 'Real', slug })).resolves.toMatchObject({ slug, owner_id: account.id });
  });
});
