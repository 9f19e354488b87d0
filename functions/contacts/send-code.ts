import { MessageBody } from '../../shared/platform/api/common.js';
import { contactMethodParams } from '../../shared/contacts/model.js';
import { ALREADY_VERIFIED, CODE_TOO_SOON, CONTACT_METHOD_NOT_FOUND, sendVerificationCode, SMS_NOT_SET_UP } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Send a new verification code through an unverified contact method (the previous one stops working); at most one a minute',
    params: contactMethodParams,
    status: 202,
    response: MessageBody,
    errors: { 400: [SMS_NOT_SET_UP], 404: [CONTACT_METHOD_NOT_FOUND], 409: [ALREADY_VERIFIED], 429: [CODE_TOO_SOON] },
    failure: 'Failed to send verification code',
  },
  async ({ params, caller }) => sendVerificationCode(caller, params.id),
);
