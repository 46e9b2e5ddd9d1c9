// Type declarations of src/errors.js, written by hand (index.d.ts re-exports them).
// Errors: one class per error code of the API; the 409 codes other than `conflict` extend Conflict.

import { RawOperation } from "./operations.js";

export interface HearthErrorInit {
  code?: string | null;
  status?: number | null;
  details?: Record<string, any>;
  requestId?: string | null;
  cause?: unknown;
  operation?: RawOperation | null;
  retryAfter?: number | null;
}

/** Any failure the API answered: the error envelope `{error: {code, message, details, request_id}}`. */
export class HearthError extends Error {
  constructor(message: string, init?: HearthErrorInit);
  /** The API's error code (`not_found`, ...), or the operation's (`image_pull_failed`, ...). */
  code: string | null;
  /** HTTP status; null for a failed operation and for client-side errors. */
  status: number | null;
  /** `details` of the envelope; field errors under `details.fields`. */
  details: Record<string, any>;
  /** The request's id (`X-Request-Id`): quote it when reporting a problem. */
  requestId: string | null;
  /** The failed operation, when the error is an operation's. */
  operation: RawOperation | null;
  /** Seconds the server asked to wait before trying again (Retry-After). */
  retryAfter: number | null;
  /** The code this class stands for (null for HearthError itself). */
  static defaultCode: string | null;
}

/** 308 https_required */
export class HttpsRequired extends HearthError {}
/** 400 invalid_request: malformed JSON, wrong types, unknown fields, bad names, cursors or limits. */
export class ValidationError extends HearthError {}
/** 400 idempotency_key_required */
export class IdempotencyKeyRequired extends HearthError {}
/** 400 invalid_grant: a bad assertion at /auth/token. */
export class InvalidGrant extends HearthError {}
/** 400 unsupported_grant_type */
export class UnsupportedGrantType extends HearthError {}
/** 400 invalid_code */
export class InvalidCode extends HearthError {}
/** 401 unauthenticated */
export class Unauthorized extends HearthError {}
/** 403 forbidden */
export class Forbidden extends HearthError {}
/** 404 not_found */
export class NotFound extends HearthError {}
/** 405 method_not_allowed (`details.allowed`) */
export class MethodNotAllowed extends HearthError {}
/** 409 conflict: the state does not allow it (a name taken, ...). Every other 409 code is a subclass. */
export class Conflict extends HearthError {}
/** 409 idempotency_key_in_use (the SDK waits and tries again itself) */
export class IdempotencyKeyInUse extends Conflict {}
/** 409 last_admin */
export class LastAdmin extends Conflict {}
/** 409 not_empty (`details` counts what the workspace holds) */
export class NotEmpty extends Conflict {}
/** 409 protected */
export class Protected extends Conflict {}
/** 409 variable_missing (`details.variables`) */
export class VariableMissing extends Conflict {}
/** 413 payload_too_large */
export class PayloadTooLarge extends HearthError {}
/** 414 uri_too_long */
export class UriTooLong extends HearthError {}
/** 415 unsupported_media_type */
export class UnsupportedMediaType extends HearthError {}
/** 422 idempotency_key_reused */
export class IdempotencyKeyReused extends HearthError {}
/** 421 wrong_node: another node runs the resource; `details.address` is its API */
export class WrongNode extends HearthError {}
/** 429 rate_limited */
export class RateLimited extends HearthError {}
/** 431 headers_too_large */
export class HeadersTooLarge extends HearthError {}
/** 500 internal */
export class InternalError extends HearthError {}
/** 502 bad_gateway */
export class BadGateway extends HearthError {}
/** 503 mail_unavailable */
export class MailUnavailable extends HearthError {}
/** 503 node_unavailable: the resource's node is down, or this node is draining */
export class NodeUnavailable extends HearthError {}
/** 503 runtime_unavailable */
export class RuntimeUnavailable extends HearthError {}
/** 503 store_unavailable */
export class StoreUnavailable extends HearthError {}
/** 503 starting: the server is starting (the SDK tries again after Retry-After) */
export class Starting extends HearthError {}
/** 504 gateway_timeout */
export class GatewayTimeout extends HearthError {}
/** 507 insufficient_storage */
export class InsufficientStorage extends HearthError {}
/** Client side (code `connection_failed`): the server could not be reached, after the retries. */
export class ConnectionError extends HearthError {}
/** Client side (code `timeout`): an operation or a request did not finish in the time allowed. */
export class TimeoutError extends HearthError {}

/** Error code → class, for every code of the API. */
export const ERROR_CLASSES: Readonly<Record<string, typeof HearthError>>;
/** The class for an error code; unknown codes give HearthError. */
export function errorClassFor(code: string | null | undefined): typeof HearthError;
/** The error for an error answer (envelope or not). */
export function errorFromResponse(status: number, body: any, headers?: Headers | null): HearthError;
/** The error of a failed operation. */
export function errorFromOperation(operation: RawOperation): HearthError;
/** Seconds from a Retry-After header (delta seconds or an HTTP date). */
export function parseRetryAfter(value: string | null | undefined): number | null;
