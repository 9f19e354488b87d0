import * as z from '../../shared/platform/zod.js';
import { ContactMethodBody } from '../../shared/contacts/model.js';
import { listContactMethods } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's contact methods (the account e-mail first: every account has it, verified)",
    response: z.strictObject({ contact_methods: z.array(ContactMethodBody) }),
    failure: 'Failed to fetch contact methods',
  },
  async ({ caller }) => ({ contact_methods: await listContactMethods(caller) }),
);
