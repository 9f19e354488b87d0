import * as z from '../../shared/platform/zod.js';
import { ContactMethodBody, contactMethodParams, updateContactMethodInput } from '../../shared/contacts/model.js';
import { CONTACT_METHOD_NOT_FOUND, updateContactMethod } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Rename a contact method, or disable it (never notified) or enable it again',
    params: contactMethodParams,
    body: updateContactMethodInput,
    response: z.strictObject({ contact_method: ContactMethodBody }),
    errors: { 400: ['No updates provided'], 404: [CONTACT_METHOD_NOT_FOUND] },
    failure: 'Failed to update contact method',
  },
  async ({ params, body, caller }) => ({ contact_method: await updateContactMethod(caller, params.id, body) }),
);
