import { MessageBody } from '../../shared/platform/api/common.js';
import { contactMethodParams } from '../../shared/contacts/model.js';
import { ACCOUNT_EMAIL_KEPT, CONTACT_METHOD_NOT_FOUND, deleteContactMethod } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Delete a contact method and its notification rules (the account's e-mail stays)",
    params: contactMethodParams,
    response: MessageBody,
    errors: { 404: [CONTACT_METHOD_NOT_FOUND], 409: [ACCOUNT_EMAIL_KEPT] },
    failure: 'Failed to delete contact method',
  },
  async ({ params, caller }) => {
    await deleteContactMethod(caller, params.id);
    return { message: 'Contact method deleted' };
  },
);
