/**
 * The API client: openapi-fetch over the types generated from docs/openapi.json (`schema.gen.ts`,
 * `npm run typecheck` writes it), so a change of the contract that breaks a screen breaks the build.
 * Every call carries the session's access token; a refused token sends the person to sign in again.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { Session } from '../auth/session.js';
import type { components, paths } from './schema.gen.js';

export type Schemas = components['schemas'];
export type Api = ReturnType<typeof createClient<paths>>;

/** An answer other than 2xx, with what the API said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** The API's error texts as one sentence a person reads (the contract's texts, never invented ones). */
export function errorText(status: number, body: unknown): ApiError {
  const answer = (body ?? {}) as { error?: unknown; message?: unknown; details?: unknown };
  const text = typeof answer.error === 'string' ? answer.error : typeof answer.message === 'string' ? answer.message : `HTTP ${status}`;
  const details = Array.isArray(answer.details) ? (answer.details as { field: string; message: string }[]) : [];
  return new ApiError(status, text, details);
}

export function createApi(baseUrl: string, session: Session): Api {
  const api = createClient<paths>({ baseUrl });
  const auth: Middleware = {
    async onRequest({ request }) {
      const token = await session.accessToken();
      if (!token) {
        await session.signIn();
        return undefined;
      }
      request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
    async onResponse({ response }) {
      if (response.status === 401) {
        session.forget();
        await session.signIn();
      }
      return response;
    },
  };
  api.use(auth);
  return api;
}

/** The data of an answer, or its error thrown as an ApiError. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw errorText(response.status, error);
  return data;
}
