// @hearth/sdk: the Hearth API from Node (fetch and node:crypto only).
export { Hearth, DEFAULT_URL } from "./src/hearth.js";
export { KeyFileTokens, StaticToken } from "./src/auth.js";
export { Transport } from "./src/http.js";
export {
  Model, Workspace, Workspaces, Operation, Operations, Computer, Computers, ExecResult, Files, FileInfo,
  Process, Processes, Checkpoint, Checkpoints, Database, Databases, Connection, Variable, Variables,
  Image, Images, Access, AccessList, Invitation, Invitations, paginate, camelCase, snakeCase, camelize,
} from "./src/models.js";
export {
  HearthError, ERROR_CLASSES, errorClassFor, errorFromResponse, errorFromOperation, parseRetryAfter,
  HttpsRequired, ValidationError, IdempotencyKeyRequired, InvalidGrant, UnsupportedGrantType, InvalidCode,
  Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, IdempotencyKeyInUse, LastAdmin, NotEmpty,
  Protected, VariableMissing, PayloadTooLarge, UnsupportedMediaType, IdempotencyKeyReused, RateLimited,
  InternalError, BadGateway, MailUnavailable, RuntimeUnavailable, StoreUnavailable, GatewayTimeout,
  InsufficientStorage, ConnectionError, TimeoutError,
} from "./src/errors.js";
