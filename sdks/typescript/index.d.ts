// Type declarations of @hearth/sdk (the package is plain JavaScript ES modules; these are written by hand).

// ---------------------------------------------------------------------------------------------
// Errors

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
/** 409 conflict */
export class Conflict extends HearthError {}
/** 409 idempotency_key_in_use */
export class IdempotencyKeyInUse extends HearthError {}
/** 409 last_admin */
export class LastAdmin extends HearthError {}
/** 409 not_empty (`details` counts what the workspace holds) */
export class NotEmpty extends HearthError {}
/** 409 protected */
export class Protected extends HearthError {}
/** 409 variable_missing (`details.variables`) */
export class VariableMissing extends HearthError {}
/** 413 payload_too_large */
export class PayloadTooLarge extends HearthError {}
/** 415 unsupported_media_type */
export class UnsupportedMediaType extends HearthError {}
/** 422 idempotency_key_reused */
export class IdempotencyKeyReused extends HearthError {}
/** 429 rate_limited */
export class RateLimited extends HearthError {}
/** 500 internal */
export class InternalError extends HearthError {}
/** 502 bad_gateway */
export class BadGateway extends HearthError {}
/** 503 mail_unavailable */
export class MailUnavailable extends HearthError {}
/** 503 runtime_unavailable */
export class RuntimeUnavailable extends HearthError {}
/** 503 store_unavailable */
export class StoreUnavailable extends HearthError {}
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

// ---------------------------------------------------------------------------------------------
// Credentials and transport

export interface TokenSource {
  token(): Promise<string>;
  /** Forgets the current token; answers whether a fresh one can be had. */
  invalidate(): boolean;
}

/** A fixed access token (HEARTH_TOKEN). */
export class StaticToken implements TokenSource {
  constructor(token: string);
  accessToken: string;
  token(): Promise<string>;
  invalidate(): boolean;
}

/** The JSON of a key file. */
export interface KeyFile {
  principal: string;
  subject: string;
  key_id: string;
  audience: string;
  token_url: string;
  private_key: string | null;
}

/** Tokens for a key file: RFC 7523 assertions traded at `token_url`, kept in memory, renewed a minute before expiry. */
export class KeyFileTokens implements TokenSource {
  constructor(keyFile: string | KeyFile, options?: { fetch?: typeof fetch; refreshMarginSeconds?: number });
  static readKeyFile(path: string): KeyFile;
  keyFile: KeyFile;
  accessToken: string | null;
  /** When the access token expires, ms since the epoch. */
  expiresAt: number;
  /** How many tokens were fetched. */
  fetchCount: number;
  refreshMarginSeconds: number;
  /** A fresh signed assertion (ES256 for EC keys, RS256 for RSA). */
  assertion(): string;
  token(): Promise<string>;
  invalidate(): boolean;
  exchange(): Promise<string>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | null | undefined>;
  /** A body sent as JSON. */
  json?: any;
  /** A body sent as is. */
  body?: string | Uint8Array | ArrayBuffer | Blob | URLSearchParams | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
  /** The Idempotency-Key of a mutation; default a new one per call; null sends none. */
  idempotencyKey?: string | null;
  /** Time allowed for the answer, ms; null: no limit. */
  timeoutMs?: number | null;
  signal?: AbortSignal;
  /** false: no retries. */
  retry?: boolean;
}

export interface JsonAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** The HTTP layer: tokens, Idempotency-Key, retries with backoff and Retry-After, error mapping. */
export class Transport {
  constructor(options: {
    url: string;
    auth: TokenSource | null;
    fetch?: typeof fetch;
    maxRetries?: number;
    timeoutMs?: number;
    userAgent?: string;
  });
  url: string;
  auth: TokenSource | null;
  maxRetries: number;
  timeoutMs: number;
  userAgent: string;
  backoffMs: number;
  maxBackoffMs: number;
  urlFor(path: string, query?: RequestOptions["query"]): string;
  delay(attempt: number, retryAfter: number | null): number;
  send(method: string, path: string, options?: RequestOptions & { stream?: boolean }): Promise<Response>;
  json<T = any>(method: string, path: string, options?: RequestOptions): Promise<JsonAnswer<T>>;
  bytes(method: string, path: string, options?: RequestOptions): Promise<Uint8Array>;
  ndjson(method: string, path: string, options?: RequestOptions): AsyncGenerator<any, void, undefined>;
}

// ---------------------------------------------------------------------------------------------
// The client

export const DEFAULT_URL: string;

export interface HearthOptions {
  /** The API's base URL; default HEARTH_URL, else the key file's audience, else http://127.0.0.1:7300/v1. */
  url?: string;
  /** A fixed access token (default HEARTH_TOKEN). */
  token?: string;
  /** A key file's path or JSON (default HEARTH_KEY_FILE). */
  keyFile?: string | KeyFile;
  /** Any token source; null: anonymous. */
  auth?: TokenSource | null;
  fetch?: typeof fetch;
  /** Tries after the first for network errors, 429, 502, 503 (default 5). */
  maxRetries?: number;
  /** Time allowed for one request, ms (default 120000). */
  timeoutMs?: number;
  /** Time allowed to follow an operation, ms (default 600000). */
  operationTimeoutMs?: number;
  /** The environment to read instead of process.env. */
  env?: Record<string, string | undefined>;
}

export interface Principal { id: string; auth: "email" | "key"; email: string | null; name: string }
export interface Me { principal: Principal; workspaces: { workspace: Record<string, any>; role: Role }[] }
export type Role = "admin" | "editor" | "viewer";

export class Hearth {
  constructor(options?: HearthOptions);
  /** Where tokens come from: a StaticToken, a KeyFileTokens, or null. */
  auth: TokenSource | null;
  transport: Transport;
  operationTimeoutMs: number;
  workspaces: Workspaces;
  operations: Operations;
  readonly url: string;
  /** A workspace by id or name. */
  workspace(idOrName: string): Promise<Workspace>;
  /** A computer by id (deleted ones too). */
  computer(id: string): Promise<Computer>;
  /** A database by id. */
  database(id: string): Promise<Database>;
  me(): Promise<Me>;
  health(): Promise<{ status: string; version: string; store: string }>;
  /** Any route, as JSON. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<JsonAnswer<T>>;
}

// ---------------------------------------------------------------------------------------------
// Models

export interface MutationOptions {
  /** The Idempotency-Key to send (default: a new UUID per call, the same on its retries); null sends none. */
  idempotencyKey?: string | null;
}

export interface WaitOptions extends MutationOptions {
  /** false: do not follow the operation the answer names. */
  wait?: boolean;
  /** How long to follow it, ms. */
  timeoutMs?: number;
}

export interface ListOptions {
  /** Page size (1 to 100); the iterator still goes through every page. */
  limit?: number;
  /** Start from this cursor. */
  cursor?: string | null;
  signal?: AbortSignal;
}

export type ErrorInfo = { code: string; message: string } | null;

/** The API's objects: fields in camelCase, `raw` the JSON as sent. */
export class Model {
  constructor(hearth: Hearth, raw: any);
  readonly hearth: Hearth;
  /** The JSON as the server sent it (snake_case). */
  readonly raw: any;
  /** Ids of the operations the last answer named. */
  readonly operationIds?: string[];
  toJSON(): any;
}

export class Workspace extends Model {
  id: string;
  name: string;
  state: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  readonly path: string;
  readonly computers: Computers;
  readonly databases: Databases;
  readonly variables: Variables;
  readonly images: Images;
  readonly access: AccessList;
  readonly invitations: Invitations;
  refresh(): Promise<this>;
  rename(name: string, options?: MutationOptions): Promise<this>;
  /** Throws NotEmpty while it holds resources. */
  delete(options?: MutationOptions): Promise<this>;
}

export class Workspaces {
  constructor(hearth: Hearth);
  hearth: Hearth;
  create(name: string, options?: MutationOptions): Promise<Workspace>;
  get(idOrName: string): Promise<Workspace>;
  list(options?: ListOptions): AsyncGenerator<Workspace, void, undefined>;
}

export interface RawOperation {
  id: string;
  kind: string;
  state: "running" | "succeeded" | "failed";
  workspace: string;
  resource: string | null;
  progress: string | null;
  error: ErrorInfo;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export class Operation extends Model {
  id: string;
  kind: string;
  state: "running" | "succeeded" | "failed";
  workspace: string;
  resource: string | null;
  progress: string | null;
  error: ErrorInfo;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  refresh(): Promise<this>;
  wait(options?: { timeoutMs?: number }): Promise<this>;
}

export class Operations {
  constructor(hearth: Hearth);
  hearth: Hearth;
  get(id: string): Promise<Operation>;
  /** Follows it until it settles; a failed one throws its error; past the time, TimeoutError. */
  wait(operation: string | Operation, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Operation>;
}

export interface Port { published: number; target: number; protocol: string; private: boolean; url: string }
export interface Resources { cpus: number; memoryMb: number; pids: number; diskMb: number }
export interface Network { internet: boolean; allowOut: string[]; denyOut: string[] }

export class Computer extends Model {
  id: string;
  workspace: string;
  name: string;
  state: "creating" | "ready" | "sleeping" | "failed";
  pending: string | null;
  image: string;
  imageDigest: string | null;
  ports: Port[];
  url: string;
  envKeys: string[];
  envVars: { name: string; source: string; missing: boolean }[];
  resources: Resources;
  generation: number;
  protected: boolean;
  autoSleepSeconds: number | null;
  network: Network;
  entrypoint: string[] | null;
  command: string[] | null;
  restart: string;
  mainExit: { exitCode: number; endedAt: string } | null;
  parent: string | null;
  fromCheckpoint: string | null;
  error: ErrorInfo;
  createdAt: string;
  updatedAt: string;
  lastStartedAt: string | null;
  lastActiveAt: string | null;
  deletedAt: string | null;
  readonly path: string;
  readonly files: Files;
  readonly checkpoints: Checkpoints;
  readonly processes: Processes;
  refresh(): Promise<this>;
  update(changes: ComputerChanges, options?: MutationOptions): Promise<this>;
  delete(options?: MutationOptions): Promise<this>;
  /** Follows the `computer.sleep` operation when the server answers 202. */
  sleep(options?: WaitOptions): Promise<this>;
  wake(options?: MutationOptions): Promise<this>;
  /** Rolls back to a ready checkpoint of its own (object, id or name). */
  restore(checkpoint: Checkpoint | string, options?: MutationOptions & { timeoutMs?: number }): Promise<this>;
  exec(command: string[] | string, options?: ExecOptions & { encoding?: "utf-8" }): Promise<ExecResult<string>>;
  exec(command: string[] | string, options: ExecOptions & { encoding: "base64" }): Promise<ExecResult<Uint8Array>>;
  execStream(command: string[] | string, options?: ExecOptions & { encoding?: "utf-8" }): AsyncGenerator<StreamEvent<string>, void, undefined>;
  execStream(command: string[] | string, options: ExecOptions & { encoding: "base64" }): AsyncGenerator<StreamEvent<Uint8Array>, void, undefined>;
  logs(options?: { follow?: boolean; encoding?: "utf-8" | "base64"; signal?: AbortSignal }): AsyncGenerator<StreamEvent, void, undefined>;
  metrics(): Promise<ComputerMetrics>;
}

export interface ComputerChanges {
  name?: string;
  env?: Record<string, string | { secret: string } | null>;
  ports?: { target: number; published?: number; protocol?: string; private?: boolean }[];
  protected?: boolean;
  autoSleepSeconds?: number | null;
  network?: Partial<Network>;
  resources?: Partial<Resources>;
  entrypoint?: string[] | null;
  command?: string[] | null;
  restart?: "always" | "on-failure" | "never" | null;
}

export interface ComputerCreateOptions extends ComputerChanges, WaitOptions {
  image?: string;
  /** A ready checkpoint (object or id) to fork from. */
  fromCheckpoint?: Checkpoint | string;
}

export interface ExecOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Text, or bytes (sent base64). */
  stdin?: string | Uint8Array;
  timeoutSeconds?: number;
  encoding?: "utf-8" | "base64";
  /** Default: a new key, so a retry after a lost answer gets the first run's result (and a hang-up does not kill the command); null: none. */
  idempotencyKey?: string | null;
  signal?: AbortSignal;
}

export class ExecResult<T extends string | Uint8Array = string> extends Model {
  exitCode: number;
  stdout: T;
  stderr: T;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

export type StreamEvent<T extends string | Uint8Array = string> =
  | { type: "stdout"; data: T; raw: any }
  | { type: "stderr"; data: T; raw: any }
  | { type: "exit"; exitCode: number; timedOut: boolean; durationMs: number | null; raw: any }
  | { type: "other"; raw: any };

export interface ComputerMetrics {
  computer: string;
  state: string;
  cpuSeconds: number | null;
  memoryBytes: number | null;
  diskUsedBytes: number;
  diskSizeBytes: number | null;
  measuredAt: string;
}

export class Computers {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  /** Answers it ready (follows the `computer.create` operation of a 202). */
  create(name: string, options?: ComputerCreateOptions): Promise<Computer>;
  get(idOrName: string): Promise<Computer>;
  list(options?: ListOptions): AsyncGenerator<Computer, void, undefined>;
}

export class FileInfo extends Model {
  path: string;
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  size: number;
  mode: string;
  modifiedAt: string;
}

export type FileData = string | Uint8Array | ArrayBuffer | ArrayBufferView | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

export class Files {
  constructor(hearth: Hearth, computer: Computer);
  hearth: Hearth;
  computer: Computer;
  readonly path: string;
  read(path: string): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
  stream(path: string): Promise<ReadableStream<Uint8Array>>;
  write(path: string, data: FileData, options?: { mode?: string | number }): Promise<FileInfo>;
  info(path: string): Promise<FileInfo>;
  list(path: string): Promise<FileInfo[]>;
  exists(path: string): Promise<boolean>;
  remove(path: string, options?: { recursive?: boolean }): Promise<FileInfo>;
  move(from: string, to: string): Promise<FileInfo>;
  mkdir(path: string): Promise<FileInfo>;
  readArchive(path: string): Promise<Uint8Array>;
  writeArchive(path: string, tar: Uint8Array | ArrayBuffer): Promise<FileInfo>;
}

export class Process extends Model {
  constructor(hearth: Hearth, raw: any, computer: Computer);
  readonly computer: Computer;
  pid: number;
  tag: string;
  command: string[];
  state: "running" | "exited";
  exitCode: number | null;
  startedAt: string;
  endedAt: string | null;
  /** Whether it takes input now (write with writeStdin()). */
  stdin: boolean;
  readonly path: string;
  refresh(): Promise<this>;
  signal(signal: "TERM" | "KILL" | "INT" | "HUP" | "QUIT" | "USR1" | "USR2" | "STOP" | "CONT" | string): Promise<this>;
  writeStdin(data: string | Uint8Array, options?: { close?: boolean }): Promise<this>;
  output(options?: { follow?: boolean; encoding?: "utf-8" | "base64"; signal?: AbortSignal }): AsyncGenerator<StreamEvent, void, undefined>;
  /** Waits until it exits. */
  wait(): Promise<this>;
}

export class Processes {
  constructor(hearth: Hearth, computer: Computer);
  hearth: Hearth;
  computer: Computer;
  start(command: string[] | string, options?: { env?: Record<string, string>; cwd?: string; tag?: string; stdin?: boolean; idempotencyKey?: string | null }): Promise<Process>;
  list(): Promise<Process[]>;
  get(pid: number): Promise<Process>;
}

export class Checkpoint extends Model {
  id: string;
  workspace: string;
  sourceType: "computer" | "database";
  source: string;
  name: string;
  consistency: "crash" | "consistent";
  state: "creating" | "ready" | "failed" | "deleting";
  generation: number;
  imageDigest: string | null;
  sizeBytes: number;
  parent: string | null;
  error: ErrorInfo;
  createdAt: string;
  deletedAt: string | null;
  readonly path: string;
  refresh(): Promise<this>;
  /** Follows the `checkpoint.delete` operation. */
  delete(options?: WaitOptions): Promise<this>;
}

export class Checkpoints {
  constructor(hearth: Hearth, parentPath: string, kind: "computer" | "database");
  hearth: Hearth;
  parentPath: string;
  kind: "computer" | "database";
  /** Answers it ready (follows `checkpoint.create`); `wait: false` answers it creating. */
  create(name?: string, options?: WaitOptions): Promise<Checkpoint>;
  list(options?: ListOptions): AsyncGenerator<Checkpoint, void, undefined>;
  get(idOrName: string): Promise<Checkpoint>;
}

export class Connection extends Model {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  passwordStatus: string;
  resetPending: boolean;
  uri: string;
  poolerUri: string;
  sslMode: string;
  serverCa: string;
  poolerPort: number;
  internalHost: string;
  internalUri: string;
  internalPoolerUri: string;
}

export class Database extends Model {
  id: string;
  workspace: string;
  name: string;
  state: "ready" | "sleeping";
  pending: string | null;
  engine: string;
  version: string;
  host: string;
  port: number;
  parent: string | null;
  fromCheckpoint: string | null;
  generation: number;
  protected: boolean;
  autoSleepSeconds: number;
  diskMb: number;
  error: ErrorInfo;
  createdAt: string;
  updatedAt: string;
  lastActiveAt: string | null;
  deletedAt: string | null;
  readonly path: string;
  readonly checkpoints: Checkpoints;
  refresh(): Promise<this>;
  update(changes: { protected?: boolean; autoSleepSeconds?: number; diskMb?: number }, options?: MutationOptions): Promise<this>;
  delete(options?: MutationOptions): Promise<this>;
  connection(): Promise<Connection>;
  resetCredentials(options?: MutationOptions): Promise<Connection>;
  sleep(options?: MutationOptions): Promise<this>;
  wake(options?: MutationOptions): Promise<this>;
}

export class Databases {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  /** `fromCheckpoint` (a Checkpoint, its id, or `DATABASE/NAME`) makes a branch. */
  create(name: string, options?: WaitOptions & { version?: string; fromCheckpoint?: Checkpoint | string; autoSleepSeconds?: number; protected?: boolean; diskMb?: number }): Promise<Database>;
  get(idOrName: string): Promise<Database>;
  list(options?: ListOptions): AsyncGenerator<Database, void, undefined>;
}

export class Variable extends Model {
  id: string;
  workspace: string;
  name: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  /** Absent for viewers and in idempotent replays. */
  value?: string;
  readonly path: string;
  refresh(): Promise<this>;
  update(changes: { name?: string; value?: string }, options?: MutationOptions): Promise<this>;
  delete(options?: MutationOptions): Promise<this>;
}

export class Variables {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  create(name: string, value: string, options?: MutationOptions): Promise<Variable>;
  get(idOrName: string): Promise<Variable>;
  list(options?: ListOptions & { deleted?: boolean }): AsyncGenerator<Variable, void, undefined>;
}

export class Image extends Model {
  id: string;
  workspace: string;
  reference: string;
  state: "pulling" | "ready" | "failed";
  digest: string | null;
  error: string | null;
  createdAt: string;
  pulledAt: string | null;
  delete(): Promise<this>;
}

export class Images {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  pull(reference: string, options?: WaitOptions): Promise<Image>;
  list(options?: ListOptions): AsyncGenerator<Image, void, undefined>;
}

export interface KeyInfo {
  id: string;
  principal: string;
  byok: boolean;
  createdBy: string;
  expiresAt: string;
  lastUsedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface Grant {
  role: Role;
  email?: string;
  name?: string;
  description?: string;
  publicKey?: string | object;
  expiresInDays?: number;
}

export class Access extends Model {
  constructor(hearth: Hearth, raw: any, workspace: Workspace);
  readonly workspace: Workspace;
  principal: Principal;
  role: Role;
  description: string;
  key: KeyInfo | null;
  keyState: "active" | "revoked" | "expired" | null;
  createdAt: string;
  readonly path: string;
  refresh(): Promise<this>;
  update(changes: { role?: Role; name?: string; description?: string }): Promise<this>;
  remove(): Promise<this>;
  rotateKey(options?: { publicKey?: string | object; expiresInDays?: number }): Promise<{ access: Access; key: KeyInfo; keyFile: KeyFile }>;
  revokeKey(): Promise<this>;
}

export class AccessList {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  grant(grant: Grant, options?: MutationOptions): Promise<{ access: Access; key: KeyInfo | null; keyFile: KeyFile | null }>;
  get(principalId: string): Promise<Access>;
  list(options?: ListOptions): AsyncGenerator<Access, void, undefined>;
}

export class Invitation extends Model {
  id: string;
  workspace: string;
  email: string;
  role: Role;
  state: "pending" | "expired" | "accepted" | "revoked";
  invitedBy: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  lastSentAt: string | null;
  emailSent: boolean;
  acceptedBy: string | null;
  acceptedAt: string | null;
  readonly path: string;
  refresh(): Promise<this>;
  resend(): Promise<this>;
  revoke(): Promise<this>;
  accept(): Promise<this>;
}

export class Invitations {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  create(email: string, role: Role, options?: MutationOptions): Promise<Invitation>;
  get(id: string): Promise<Invitation>;
  list(options?: ListOptions & { state?: "pending" | "expired" | "all" }): AsyncGenerator<Invitation, void, undefined>;
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Every item of a paged route, fetching pages as the loop goes. */
export function paginate<T>(hearth: Hearth, path: string, noun: string, make: (raw: any) => T, options?: ListOptions & Record<string, any>): AsyncGenerator<T, void, undefined>;
export function camelCase(s: string): string;
export function snakeCase(s: string): string;
/** Deep copy with object keys in camelCase. */
export function camelize(value: any): any;
