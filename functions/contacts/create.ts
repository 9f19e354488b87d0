import * as z from '../../shared/platform/zod.js';
import { ContactMethodBody, createContactMethodInput } from '../../shared/contacts/model.js';
import { CONTACT_METHOD_EXISTS, CONTACT_METHOD_LIMIT_TEXT, createContactMethod, SMS_NOT_SET_UP } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Add a contact method (e-mail, SMS or voice), unverified: a 6-digit code is sent through it (a call reads it); verify it to be notified there',
    body: createContactMethodInput,
    status: 201,
    response: z.strictObject({ contact_method: ContactMethodBody }),
    errors: { 400: [SMS_NOT_SET_UP, CONTACT_METHOD_LIMIT_TEXT], 409: [CONTACT_METHOD_EXISTS] },
    failure: 'Failed to create contact method',
  },
  async ({ body, caller }) => ({ contact_method: await createContactMethod(caller, body) }),
);
