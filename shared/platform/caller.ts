/** The authenticated user making a request, as established from the verified JWT. */
export interface Caller {
  userId: string;
  /** `email` / `name` claims when the token carries them (the account record is authoritative). */
  email?: string;
  name?: string;
  /** The request's id (API Gateway's, else Lambda's): what an audit entry names its request by. */
  requestId?: string;
}
