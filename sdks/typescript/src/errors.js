// Errors: one class per error code of the API (dev.hearth.api.ErrorCode), all extending HearthError;
// the 409 codes other than `conflict` extend Conflict.

/**
 * Any failure the API answered (or, for the client-side subclasses, one the SDK met itself).
 * `code`, `message`, `details` and `requestId` come from the error envelope
 * `{error: {code, message, details, request_id}}`; `status` is the HTTP status.
 */
export class HearthError extends Error {
  /**
   * @param {string} message
   * @param {{code?: string|null, status?: number|null, details?: object, requestId?: string|null, cause?: unknown, operation?: object|null, retryAfter?: number|null}} [init]
   */
  constructor(message, init = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    /** @type {string|null} */
    this.code = init.code ?? new.target.defaultCode ?? null;
    /** @type {number|null} */
    this.status = init.status ?? null;
    /** @type {Record<string, any>} */
    this.details = init.details ?? {};
    /** @type {string|null} */
    this.requestId = init.requestId ?? null;
    /** The operation that failed, when this error is an operation's. @type {object|null} */
    this.operation = init.operation ?? null;
    /** Seconds the server asked to wait (Retry-After), if any. @type {number|null} */
    this.retryAfter = init.retryAfter ?? null;
  }

  /** The code this class stands for (null for HearthError itself). @type {string|null} */
  static defaultCode = null;
}

/**
 * @param {string} name @param {string} code @param {typeof HearthError} [base] the class it refines
 * @returns {typeof HearthError}
 */
function define(name, code, base = HearthError) {
  // A named class per code, so stack traces and `err.name` say which.
  const cls = { [name]: class extends base {} }[name];
  cls.defaultCode = code;
  return cls;
}

export const HttpsRequired = define("HttpsRequired", "https_required");
export const ValidationError = define("ValidationError", "invalid_request");
export const IdempotencyKeyRequired = define("IdempotencyKeyRequired", "idempotency_key_required");
export const InvalidGrant = define("InvalidGrant", "invalid_grant");
export const UnsupportedGrantType = define("UnsupportedGrantType", "unsupported_grant_type");
export const InvalidCode = define("InvalidCode", "invalid_code");
export const Unauthorized = define("Unauthorized", "unauthenticated");
export const Forbidden = define("Forbidden", "forbidden");
export const NotFound = define("NotFound", "not_found");
export const MethodNotAllowed = define("MethodNotAllowed", "method_not_allowed");
/** 409: the state does not allow it (a name taken, ...). The other 409 codes are subclasses of it. */
export const Conflict = define("Conflict", "conflict");
export const IdempotencyKeyInUse = define("IdempotencyKeyInUse", "idempotency_key_in_use", Conflict);
export const LastAdmin = define("LastAdmin", "last_admin", Conflict);
export const NotEmpty = define("NotEmpty", "not_empty", Conflict);
export const Protected = define("Protected", "protected", Conflict);
export const VariableMissing = define("VariableMissing", "variable_missing", Conflict);
export const PayloadTooLarge = define("PayloadTooLarge", "payload_too_large");
export const UriTooLong = define("UriTooLong", "uri_too_long");
export const UnsupportedMediaType = define("UnsupportedMediaType", "unsupported_media_type");
export const IdempotencyKeyReused = define("IdempotencyKeyReused", "idempotency_key_reused");
export const WrongNode = define("WrongNode", "wrong_node");
export const RateLimited = define("RateLimited", "rate_limited");
export const HeadersTooLarge = define("HeadersTooLarge", "headers_too_large");
export const InternalError = define("InternalError", "internal");
export const BadGateway = define("BadGateway", "bad_gateway");
export const MailUnavailable = define("MailUnavailable", "mail_unavailable");
export const NodeUnavailable = define("NodeUnavailable", "node_unavailable");
export const RuntimeUnavailable = define("RuntimeUnavailable", "runtime_unavailable");
export const StoreUnavailable = define("StoreUnavailable", "store_unavailable");
/** 503: the server is starting (the SDK tries again after Retry-After). */
export const Starting = define("Starting", "starting");
export const GatewayTimeout = define("GatewayTimeout", "gateway_timeout");
export const InsufficientStorage = define("InsufficientStorage", "insufficient_storage");

/** Client side: the server could not be reached (after the retries). */
export const ConnectionError = define("ConnectionError", "connection_failed");
/** Client side: an operation (or a request) did not finish within the time allowed. */
export const TimeoutError = define("TimeoutError", "timeout");

/**
 * Error code → class, for every code of the API.
 * @type {Readonly<Record<string, typeof HearthError>>}
 */
export const ERROR_CLASSES = Object.freeze(Object.fromEntries([
  HttpsRequired, ValidationError, IdempotencyKeyRequired, InvalidGrant, UnsupportedGrantType, InvalidCode,
  Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, IdempotencyKeyInUse, LastAdmin, NotEmpty,
  Protected, VariableMissing, PayloadTooLarge, UriTooLong, UnsupportedMediaType, IdempotencyKeyReused, WrongNode,
  RateLimited, HeadersTooLarge, InternalError, BadGateway, MailUnavailable, NodeUnavailable, RuntimeUnavailable,
  StoreUnavailable, Starting, GatewayTimeout, InsufficientStorage,
].map((cls) => [cls.defaultCode, cls])));

// For answers without an envelope (a proxy's page): the class a status alone implies.
const BY_STATUS = {
  308: HttpsRequired, 400: ValidationError, 401: Unauthorized, 403: Forbidden, 404: NotFound,
  405: MethodNotAllowed, 409: Conflict, 413: PayloadTooLarge, 414: UriTooLong, 415: UnsupportedMediaType,
  421: WrongNode, 422: ValidationError, 429: RateLimited, 431: HeadersTooLarge, 500: InternalError, 502: BadGateway, 504: GatewayTimeout,
  507: InsufficientStorage,
};

/**
 * The class for an error code; unknown codes give HearthError.
 * @param {string|null|undefined} code
 * @returns {typeof HearthError}
 */
export function errorClassFor(code) {
  return (code && Object.hasOwn(ERROR_CLASSES, code)) ? ERROR_CLASSES[code] : HearthError;
}

/**
 * Builds the error for an error answer.
 * @param {number} status
 * @param {any} body parsed JSON (or text, or null)
 * @param {Headers|null} [headers]
 * @returns {HearthError}
 */
export function errorFromResponse(status, body, headers = null) {
  const requestIdHeader = headers?.get("x-request-id") ?? null;
  const retryAfter = parseRetryAfter(headers?.get("retry-after"));
  const env = body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : null;
  if (env) {
    const cls = errorClassFor(env.code);
    return new cls(String(env.message ?? env.code ?? `HTTP ${status}`), {
      code: env.code ?? null,
      status,
      details: env.details && typeof env.details === "object" ? env.details : {},
      requestId: env.request_id ?? requestIdHeader,
      retryAfter,
    });
  }
  const cls = BY_STATUS[status] ?? HearthError;
  const text = typeof body === "string" ? body.trim().slice(0, 300) : "";
  return new cls(text ? `HTTP ${status}: ${text}` : `HTTP ${status}`, {
    code: cls === HearthError ? null : cls.defaultCode,
    status,
    requestId: requestIdHeader,
    retryAfter,
  });
}

/**
 * The error of a failed operation (`operation.error = {code, message}`).
 * @param {any} operation raw operation
 * @returns {HearthError}
 */
export function errorFromOperation(operation) {
  const err = operation?.error ?? {};
  const cls = errorClassFor(err.code);
  return new cls(`${operation?.kind ?? "operation"} failed: ${err.message ?? err.code ?? "unknown error"}`, {
    code: err.code ?? null,
    details: err.details ?? {},
    operation,
  });
}

/**
 * Seconds from a Retry-After header (delta seconds or an HTTP date).
 * @param {string|null|undefined} value
 * @returns {number|null}
 */
export function parseRetryAfter(value) {
  if (value == null || value === "") return null;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, n);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}
