// @hearth/sdk: the Hearth API from Node (fetch and node:crypto only).
export { Hearth, DEFAULT_URL } from "./src/hearth.js";
export { KeyFileTokens, StaticToken } from "./src/auth.js";
export { Transport } from "./src/http.js";
export { Model, paginate, camelCase, snakeCase, camelize } from "./src/common.js";
export { Operation, Operations } from "./src/operations.js";
export { Workspace, Workspaces } from "./src/workspaces.js";
export { Computer, Computers, ExecResult } from "./src/computers.js";
export { Files, FileInfo, FileWatch } from "./src/files.js";
export { Process, Processes } from "./src/processes.js";
export { Checkpoint, Checkpoints, WorkspaceCheckpoints } from "./src/checkpoints.js";
export { Database, Databases, Connection, TimeTravel } from "./src/databases.js";
export { DatabaseRole, DatabaseRoles, PgDatabase, PgDatabases } from "./src/roles.js";
export { Variable, Variables } from "./src/variables.js";
export { Image, Images } from "./src/images.js";
export { Access, AccessList, ApiKey, ApiKeys, Invitation, Invitations } from "./src/access.js";
export {
  HearthError, ERROR_CLASSES, errorClassFor, errorFromResponse, errorFromOperation, parseRetryAfter,
  HttpsRequired, ValidationError, IdempotencyKeyRequired, InvalidGrant, UnsupportedGrantType, InvalidCode,
  Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, IdempotencyKeyInUse, LastAdmin, NotEmpty,
  Protected, VariableMissing, PayloadTooLarge, UriTooLong, UnsupportedMediaType, IdempotencyKeyReused, WrongNode,
  RateLimited, HeadersTooLarge, InternalError, BadGateway, MailUnavailable, NodeUnavailable, RuntimeUnavailable,
  StoreUnavailable, Starting, GatewayTimeout, InsufficientStorage, ConnectionError, TimeoutError,
} from "./src/errors.js";
