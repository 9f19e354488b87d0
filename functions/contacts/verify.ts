import * as z from '../../shared/platform/zod.js';
import { ContactMethodBody, contactMethodParams, verifyContactMethodInput } from '../../shared/contacts/model.js';
import { ALREADY_VERIFIED, CONTACT_METHOD_NOT_FOUND, INVALID_CODE, verifyContactMethod } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Verify a contact method with the code sent through it (it lives 15 minutes; 5 wrong tries void it)',
    params: contactMethodParams,
    body: verifyContactMethodInput,
    response: z.strictObject({ contact_method: ContactMethodBody }),
    errors: { 400: [INVALID_CODE], 404: [CONTACT_METHOD_NOT_FOUND], 409: [ALREADY_VERIFIED] },
    failure: 'Failed to verify contact method',
  },
  async ({ params, body, caller }) => ({ contact_method: await verifyContactMethod(caller, params.id, body.code) }),
);
