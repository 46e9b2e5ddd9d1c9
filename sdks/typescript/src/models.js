// The API's objects as classes: their fields in camelCase (the JSON as sent stays in `.raw`) and
// methods that act on them.

import { TimeoutError, errorFromOperation } from "./errors.js";

/** @param {string} s */
export function camelCase(s) {
  return s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/** @param {string} s */
export function snakeCase(s) {
  return s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Deep copy with object keys in camelCase. @param {any} value @returns {any} */
export function camelize(value) {
  if (Array.isArray(value)) return value.map(camelize);
  if (value && typeof value === "object") {
    /** @type {Record<string, any>} */
    const out = {};
    for (const [k, v] of Object.entries(value)) out[camelCase(k)] = camelize(v);
    return out;
  }
  return value;
}

/**
 * A request body from options given in camelCase (snake_case works too). Keys under `env` are
 * the caller's names and stay as they are; undefined values are left out.
 * @param {Record<string, any>} options @param {string[]} [skip] option names that are not body fields
 */
export function toBody(options, skip = []) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(options ?? {})) {
    if (v === undefined || skip.includes(k)) continue;
    const key = snakeCase(k);
    out[key] = key === "env" ? v : snakeDeep(v);
  }
  return out;
}

/** @param {any} value @returns {any} */
function snakeDeep(value) {
  if (Array.isArray(value)) return value.map(snakeDeep);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    /** @type {Record<string, any>} */
    const out = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[snakeCase(k)] = snakeDeep(v);
    return out;
  }
  return value;
}

/** @param {string} s */
const enc = (s) => encodeURIComponent(s);

/** An id from an object or a string. @param {any} x */
const idOf = (x) => (typeof x === "string" ? x : x?.id);

const textEncoder = new TextEncoder();

/** @param {any} data @returns {Uint8Array} */
function toBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (typeof data === "string") return textEncoder.encode(data);
  throw new TypeError("expected a string, Uint8Array, Buffer or ArrayBuffer");
}

/** @param {string} b64 */
const fromBase64 = (b64) => new Uint8Array(Buffer.from(b64, "base64"));

/**
 * The API's objects. Fields are set from the JSON in camelCase (`created_at` → `createdAt`);
 * `raw` is the JSON as the server sent it; `toJSON()` answers it.
 */
export class Model {
  /** @param {import("./hearth.js").Hearth} hearth @param {any} raw */
  constructor(hearth, raw) {
    Object.defineProperty(this, "hearth", { value: hearth, enumerable: false, writable: true });
    Object.defineProperty(this, "raw", { value: null, enumerable: false, writable: true });
    this._load(raw);
  }

  /** @param {any} raw @returns {this} */
  _load(raw) {
    /** @type {any} */ (this).raw = raw;
    for (const [k, v] of Object.entries(raw ?? {})) {
      const name = camelCase(k);
      // A field never hides a method or an accessor of the class; `raw` still has it.
      if (!Object.hasOwn(this, name) && reserved(this, name)) continue;
      /** @type {any} */ (this)[name] = camelize(v);
    }
    return this;
  }

  /**
   * Notes the operations an answer named (`{..., operations: [ids]}`) in `operationIds`.
   * @param {any} body @returns {this}
   */
  _ops(body) {
    Object.defineProperty(this, "operationIds", { value: [...(body?.operations ?? [])], enumerable: false, writable: true, configurable: true });
    return this;
  }

  toJSON() {
    return /** @type {any} */ (this).raw;
  }
}

/** Whether `name` is a method or accessor somewhere on the object's prototype chain. @param {object} obj @param {string} name */
function reserved(obj, name) {
  for (let p = Object.getPrototypeOf(obj); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, name);
    if (d) return typeof d.value === "function" || d.get !== undefined || d.set !== undefined;
  }
  return false;
}

/**
 * Lists a paged route: every item of every page, fetching pages as the loop goes.
 * @template T
 * @param {import("./hearth.js").Hearth} hearth
 * @param {string} path @param {string} noun @param {(raw: any) => T} make
 * @param {{limit?: number, cursor?: string|null, signal?: AbortSignal} & Record<string, any>} [options]
 * @returns {AsyncGenerator<T, void, undefined>}
 */
export async function* paginate(hearth, path, noun, make, options = {}) {
  const { limit, cursor: first, signal, ...query } = options;
  let cursor = first ?? null;
  for (;;) {
    const { body } = await hearth.transport.json("GET", path, {
      query: { ...toQuery(query), limit, cursor: cursor ?? undefined },
      signal,
    });
    for (const item of body[noun] ?? []) yield make(item);
    if (!body.has_more || !body.next_cursor) return;
    cursor = body.next_cursor;
  }
}

/** @param {Record<string, any>} query */
function toQuery(query) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(query)) out[snakeCase(k)] = v;
  return out;
}

/**
 * Follows the operations a 202 answer names until they settle.
 * @param {import("./hearth.js").Hearth} hearth @param {{status: number, body: any}} answer
 * @param {{wait?: boolean, timeoutMs?: number}} [options]
 */
async function settle(hearth, answer, options = {}) {
  if (options.wait === false || answer.status !== 202) return;
  for (const op of answer.body?.operations ?? []) {
    await hearth.operations.wait(op, { timeoutMs: options.timeoutMs });
  }
}

// ---------------------------------------------------------------------------------------------
// Workspaces

export class Workspace extends Model {
  /** This workspace's computers. */
  get computers() { return new Computers(this.hearth, this); }
  /** This workspace's databases. */
  get databases() { return new Databases(this.hearth, this); }
  /** This workspace's variables (secrets). */
  get variables() { return new Variables(this.hearth, this); }
  /** The images this workspace pulled. */
  get images() { return new Images(this.hearth, this); }
  /** Who holds a role here. */
  get access() { return new AccessList(this.hearth, this); }
  /** Invitations by email. */
  get invitations() { return new Invitations(this.hearth, this); }

  get path() { return `/workspaces/${enc(this.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.workspace);
  }

  /** @param {string} name @param {{idempotencyKey?: string}} [options] */
  async rename(name, options = {}) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: { name }, idempotencyKey: options.idempotencyKey });
    return this._load(body.workspace);
  }

  /** Deletes the workspace (NotEmpty while it holds resources). @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.workspace);
  }
}

export class Workspaces {
  /** @param {import("./hearth.js").Hearth} hearth */
  constructor(hearth) { this.hearth = hearth; }

  /** @param {string} name @param {{idempotencyKey?: string}} [options] */
  async create(name, options = {}) {
    const { body } = await this.hearth.transport.json("POST", "/workspaces", { json: { name }, idempotencyKey: options.idempotencyKey });
    return new Workspace(this.hearth, body.workspace);
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `/workspaces/${enc(idOrName)}`);
    return new Workspace(this.hearth, body.workspace);
  }

  /** The caller's workspaces, every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, "/workspaces", "workspaces", (raw) => new Workspace(this.hearth, raw), options);
  }
}

// ---------------------------------------------------------------------------------------------
// Operations

export class Operation extends Model {
  async refresh() {
    const { body } = await this.hearth.transport.json("GET", `/operations/${enc(this.id)}`);
    return this._load(body.operation);
  }

  /** Waits until it settles; a failed operation throws its error. @param {{timeoutMs?: number}} [options] */
  async wait(options = {}) {
    const done = await this.hearth.operations.wait(this.id, options);
    return this._load(done.raw);
  }
}

export class Operations {
  /** @param {import("./hearth.js").Hearth} hearth */
  constructor(hearth) { this.hearth = hearth; }

  /** @param {string} id */
  async get(id) {
    const { body } = await this.hearth.transport.json("GET", `/operations/${enc(id)}`);
    return new Operation(this.hearth, body.operation);
  }

  /**
   * Follows an operation (`GET /operations/{id}?wait=N`) until it is no longer running. Answers the
   * succeeded operation; a failed one throws the HearthError of its `error.code` (with
   * `.operation`); past `timeoutMs` (default: the client's `operationTimeoutMs`) throws TimeoutError.
   * @param {string|Operation} operation @param {{timeoutMs?: number, signal?: AbortSignal}} [options]
   * @returns {Promise<Operation>}
   */
  async wait(operation, options = {}) {
    const id = idOf(operation);
    const timeoutMs = options.timeoutMs ?? this.hearth.operationTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      const waitSeconds = Math.max(1, Math.min(30, Math.ceil(left / 1000)));
      const { body } = await this.hearth.transport.json("GET", `/operations/${enc(id)}`, {
        query: { wait: left > 0 ? waitSeconds : 0 },
        timeoutMs: (waitSeconds + 30) * 1000,
        signal: options.signal,
      });
      const op = body.operation;
      if (op.state === "failed") throw errorFromOperation(op);
      if (op.state !== "running") return new Operation(this.hearth, op);
      if (Date.now() >= deadline) {
        throw new TimeoutError(`operation ${id} (${op.kind}) still running after ${timeoutMs / 1000} s`, { operation: op });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Computers

export class ExecResult extends Model {}

export class Computer extends Model {
  get path() { return `/computers/${enc(this.id)}`; }
  /** The computer's files. */
  get files() { return new Files(this.hearth, this); }
  /** The computer's checkpoints. */
  get checkpoints() { return new Checkpoints(this.hearth, this.path, "computer"); }
  /** Background processes and the main process. */
  get processes() { return new Processes(this.hearth, this); }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.computer);
  }

  /**
   * PATCH: `{name, env, ports, protected, autoSleepSeconds, network, resources, entrypoint, command, restart}`.
   * @param {Record<string, any>} changes @param {{idempotencyKey?: string}} [options]
   */
  async update(changes, options = {}) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: toBody(changes), idempotencyKey: options.idempotencyKey });
    return this._load(body.computer);
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.computer);
  }

  /** Puts it to sleep, following the `computer.sleep` operation if the server answers 202. @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options] */
  async sleep(options = {}) {
    const answer = await this.hearth.transport.json("POST", `${this.path}/sleep`, { json: {}, idempotencyKey: options.idempotencyKey });
    this._load(answer.body.computer)._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      await this.refresh();
    }
    return this;
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async wake(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/wake`, { idempotencyKey: options.idempotencyKey });
    return this._load(body.computer);
  }

  /**
   * Rolls the computer back to a ready checkpoint of its own (a Checkpoint, its id or its name).
   * @param {Checkpoint|string} checkpoint @param {{idempotencyKey?: string, timeoutMs?: number}} [options]
   */
  async restore(checkpoint, options = {}) {
    const name = typeof checkpoint === "string" ? checkpoint : checkpoint.id;
    const answer = await this.hearth.transport.json("POST", `${this.path}/restore`, { json: { checkpoint: name }, idempotencyKey: options.idempotencyKey });
    this._load(answer.body.computer)._ops(answer.body);
    if (answer.status === 202) {
      await settle(this.hearth, answer, options);
      await this.refresh();
    }
    return this;
  }

  /**
   * Runs a command and answers its result. `command` is an argv array (a string runs with `sh -c`).
   * `stdin` may be bytes; `encoding: "base64"` gives `stdout`/`stderr` as Uint8Array.
   * @param {string[]|string} command
   * @param {{env?: Record<string,string>, cwd?: string, stdin?: string|Uint8Array, timeoutSeconds?: number,
   *   encoding?: "utf-8"|"base64", idempotencyKey?: string, signal?: AbortSignal}} [options]
   * @returns {Promise<ExecResult>}
   */
  async exec(command, options = {}) {
    const { json, binaryOut, textOut } = execBody(command, options);
    const { body } = await this.hearth.transport.json("POST", `${this.path}/exec`, {
      json,
      idempotencyKey: options.idempotencyKey,
      timeoutMs: ((options.timeoutSeconds ?? 60) + 60) * 1000,
      signal: options.signal,
    });
    const result = new ExecResult(this.hearth, body);
    if (binaryOut || textOut) {
      const r = /** @type {any} */ (result);
      const decode = (/** @type {string} */ s) => (textOut ? new TextDecoder().decode(fromBase64(s)) : fromBase64(s));
      r.stdout = decode(body.stdout ?? "");
      r.stderr = decode(body.stderr ?? "");
    }
    return result;
  }

  /**
   * Runs a command and yields its output as it comes (NDJSON): `{type: "stdout", data}`,
   * `{type: "stderr", data}`, and last `{type: "exit", exitCode, timedOut, durationMs}`. A runtime
   * failure mid-way throws. Leaving the loop early kills the command.
   * @param {string[]|string} command
   * @param {{env?: Record<string,string>, cwd?: string, stdin?: string|Uint8Array, timeoutSeconds?: number,
   *   encoding?: "utf-8"|"base64", idempotencyKey?: string, signal?: AbortSignal}} [options]
   */
  async *execStream(command, options = {}) {
    const { json, binaryOut, textOut } = execBody(command, options);
    const lines = this.hearth.transport.ndjson("POST", `${this.path}/exec`, {
      json,
      idempotencyKey: options.idempotencyKey,
      timeoutMs: 120_000,
      signal: options.signal,
    });
    const decoder = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    for await (const line of lines) {
      yield streamEvent(line, binaryOut, textOut ? decoder : null);
    }
  }

  /**
   * The main process's output as events (`follow: true` waits for more until it ends).
   * @param {{follow?: boolean, encoding?: "utf-8"|"base64", signal?: AbortSignal}} [options]
   */
  async *logs(options = {}) {
    const lines = this.hearth.transport.ndjson("GET", `${this.path}/logs`, {
      query: { follow: options.follow ? "true" : undefined, encoding: options.encoding },
      timeoutMs: 120_000,
      signal: options.signal,
    });
    for await (const line of lines) yield streamEvent(line, options.encoding === "base64", null);
  }

  /** CPU, memory and disk it uses now. */
  async metrics() {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/metrics`);
    return camelize(body.metrics);
  }
}

/**
 * @param {string[]|string} command
 * @param {{env?: Record<string,string>, cwd?: string, stdin?: string|Uint8Array, timeoutSeconds?: number, encoding?: string}} options
 */
function execBody(command, options) {
  const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
  /** @type {Record<string, any>} */
  const json = { command: argv };
  if (options.env) json.env = options.env;
  if (options.cwd) json.cwd = options.cwd;
  if (options.timeoutSeconds != null) json.timeout_seconds = options.timeoutSeconds;
  let binaryOut = options.encoding === "base64";
  let textOut = false;
  if (options.stdin != null) {
    if (typeof options.stdin !== "string" || binaryOut) {
      // Bytes travel base64; the output then comes back base64 too, and is decoded as text
      // unless base64 was asked for.
      json.stdin = Buffer.from(toBytes(options.stdin)).toString("base64");
      textOut = !binaryOut;
      binaryOut = true;
    } else {
      json.stdin = options.stdin;
    }
  }
  if (binaryOut) json.encoding = "base64";
  return { json, binaryOut: binaryOut && !textOut, textOut };
}

/**
 * @param {any} line @param {boolean} binaryOut
 * @param {{stdout: TextDecoder, stderr: TextDecoder}|null} textDecoders base64 lines to decode as text
 */
function streamEvent(line, binaryOut, textDecoders) {
  if (line.error) throw errorFromOperation({ kind: "exec", id: "", error: line.error });
  for (const type of /** @type {const} */ (["stdout", "stderr"])) {
    if (typeof line[type] === "string") {
      const data = textDecoders ? textDecoders[type].decode(fromBase64(line[type]), { stream: true })
        : binaryOut ? fromBase64(line[type]) : line[type];
      return { type, data, raw: line };
    }
  }
  if ("exit_code" in line) {
    return { type: "exit", exitCode: line.exit_code, timedOut: line.timed_out ?? false, durationMs: line.duration_ms ?? null, raw: line };
  }
  return { type: "other", raw: line };
}

export class Computers {
  /** @param {import("./hearth.js").Hearth} hearth @param {Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /**
   * Creates a computer and answers it ready: when the server answers 202 (an image to pull), follows
   * the `computer.create` operation first. `fromCheckpoint` (a Checkpoint or its id) makes a fork.
   * @param {string} name
   * @param {{image?: string, env?: Record<string, string|{secret: string}>, ports?: object[], protected?: boolean,
   *   resources?: object, autoSleepSeconds?: number|null, network?: object, entrypoint?: string[]|null,
   *   command?: string[]|null, restart?: string|null, fromCheckpoint?: Checkpoint|string,
   *   idempotencyKey?: string, wait?: boolean, timeoutMs?: number}} [options]
   */
  async create(name, options = {}) {
    const json = toBody({ name, ...options, fromCheckpoint: options.fromCheckpoint == null ? undefined : idOf(options.fromCheckpoint) },
      ["idempotencyKey", "wait", "timeoutMs"]);
    const answer = await this.hearth.transport.json("POST", `${this.workspace.path}/computers`, { json, idempotencyKey: options.idempotencyKey });
    const computer = new Computer(this.hearth, answer.body.computer)._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      await computer.refresh();
    }
    return computer;
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `/computers/${enc(idOrName)}`, { query: { workspace: this.workspace.id } });
    return new Computer(this.hearth, body.computer);
  }

  /** The workspace's live computers, every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/computers`, "computers", (raw) => new Computer(this.hearth, raw), options);
  }
}

// ---------------------------------------------------------------------------------------------
// Files

export class FileInfo extends Model {}

export class Files {
  /** @param {import("./hearth.js").Hearth} hearth @param {Computer} computer */
  constructor(hearth, computer) {
    this.hearth = hearth;
    this.computer = computer;
  }

  get path() { return `${this.computer.path}/files`; }

  /** A file's bytes. @param {string} path @returns {Promise<Uint8Array>} */
  async read(path) {
    return this.hearth.transport.bytes("GET", this.path, { query: { path }, headers: { accept: "application/octet-stream" }, timeoutMs: null });
  }

  /** A file as UTF-8 text. @param {string} path */
  async readText(path) {
    return new TextDecoder().decode(await this.read(path));
  }

  /** A file's bytes as a stream (for large files). @param {string} path @returns {Promise<ReadableStream<Uint8Array>>} */
  async stream(path) {
    const response = await this.hearth.transport.send("GET", this.path, { query: { path }, headers: { accept: "application/octet-stream" }, stream: true });
    return /** @type {ReadableStream<Uint8Array>} */ (response.body);
  }

  /**
   * Writes a file whole (parents made; readers never see half of it). `data`: bytes, a string
   * (UTF-8), a Blob, or a ReadableStream / async iterable of bytes (streamed, not retried).
   * @param {string} path @param {any} data @param {{mode?: string|number}} [options]
   */
  async write(path, data, options = {}) {
    const mode = typeof options.mode === "number" ? options.mode.toString(8).padStart(4, "0") : options.mode;
    let body = data;
    if (typeof data === "string" || data instanceof ArrayBuffer || ArrayBuffer.isView(data)) body = toBytes(data);
    else if (data && typeof data[Symbol.asyncIterator] === "function" && typeof data.getReader !== "function") {
      body = iterableToStream(data);
    }
    const { body: answer } = await this.hearth.transport.json("PUT", this.path, {
      query: { path, mode },
      body,
      headers: { "content-type": "application/octet-stream" },
      timeoutMs: null,
    });
    return new FileInfo(this.hearth, answer.file);
  }

  /** @param {string} path */
  async info(path) {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/info`, { query: { path } });
    return new FileInfo(this.hearth, body.file);
  }

  /** A directory's entries, by name. @param {string} path @returns {Promise<FileInfo[]>} */
  async list(path) {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/list`, { query: { path } });
    return (body.files ?? []).map((/** @type {any} */ f) => new FileInfo(this.hearth, f));
  }

  /** Whether a path exists. @param {string} path */
  async exists(path) {
    try {
      await this.info(path);
      return true;
    } catch (e) {
      if (/** @type {any} */ (e)?.code === "not_found") return false;
      throw e;
    }
  }

  /** Deletes a file or (with `recursive`) a directory. @param {string} path @param {{recursive?: boolean}} [options] */
  async remove(path, options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { query: { path, recursive: options.recursive ? "true" : undefined } });
    return new FileInfo(this.hearth, body.file);
  }

  /** @param {string} from @param {string} to */
  async move(from, to) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/move`, { json: { from, to } });
    return new FileInfo(this.hearth, body.file);
  }

  /** Makes a directory and its parents. @param {string} path */
  async mkdir(path) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/mkdir`, { json: { path } });
    return new FileInfo(this.hearth, body.file);
  }

  /** A tar of a directory. @param {string} path */
  async readArchive(path) {
    return this.hearth.transport.bytes("GET", `${this.path}/archive`, { query: { path }, headers: { accept: "application/x-tar" }, timeoutMs: null });
  }

  /** Unpacks a tar into a directory. @param {string} path @param {Uint8Array|ArrayBuffer} tar */
  async writeArchive(path, tar) {
    const { body } = await this.hearth.transport.json("PUT", `${this.path}/archive`, {
      query: { path }, body: toBytes(tar), headers: { "content-type": "application/x-tar" }, timeoutMs: null,
    });
    return new FileInfo(this.hearth, body.file);
  }
}

/** @param {AsyncIterable<any>} iterable */
function iterableToStream(iterable) {
  const it = iterable[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await it.next();
      if (done) controller.close();
      else controller.enqueue(toBytes(value));
    },
    async cancel() { await it.return?.(); },
  });
}

// ---------------------------------------------------------------------------------------------
// Processes

export class Process extends Model {
  /** @param {import("./hearth.js").Hearth} hearth @param {any} raw @param {Computer} computer */
  constructor(hearth, raw, computer) {
    super(hearth, raw);
    Object.defineProperty(this, "computer", { value: computer, enumerable: false });
  }

  get path() { return `${/** @type {any} */ (this).computer.path}/processes/${this.pid}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.process);
  }

  /** Sends a signal (`TERM`, `KILL`, `INT`, ...). @param {string} signal */
  async signal(signal) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/signal`, { json: { signal } });
    return this._load(body.process);
  }

  /** Writes to its stdin (started with `stdin: true`); `close` then ends its input. @param {string|Uint8Array} data @param {{close?: boolean}} [options] */
  async writeStdin(data, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/stdin`, {
      query: { close: options.close ? "true" : undefined }, body: toBytes(data), headers: { "content-type": "application/octet-stream" },
    });
    return this._load(body.process);
  }

  /**
   * Its output as events, as `Computer.execStream` yields them; `follow` waits for more until it ends.
   * @param {{follow?: boolean, encoding?: "utf-8"|"base64", signal?: AbortSignal}} [options]
   */
  async *output(options = {}) {
    const lines = this.hearth.transport.ndjson("GET", `${this.path}/output`, {
      query: { follow: options.follow ? "true" : undefined, encoding: options.encoding },
      timeoutMs: 120_000,
      signal: options.signal,
    });
    for await (const line of lines) yield streamEvent(line, options.encoding === "base64", null);
  }

  /** Waits until it exits (following its output) and answers it refreshed. */
  async wait() {
    for await (const _ of this.output({ follow: true })) { /* drain */ }
    return this.refresh();
  }
}

export class Processes {
  /** @param {import("./hearth.js").Hearth} hearth @param {Computer} computer */
  constructor(hearth, computer) {
    this.hearth = hearth;
    this.computer = computer;
  }

  /**
   * Starts a background process.
   * @param {string[]|string} command @param {{env?: Record<string,string>, cwd?: string, tag?: string, stdin?: boolean, idempotencyKey?: string}} [options]
   */
  async start(command, options = {}) {
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
    const json = toBody({ command: argv, env: options.env, cwd: options.cwd, tag: options.tag, stdin: options.stdin });
    const { body } = await this.hearth.transport.json("POST", `${this.computer.path}/processes`, { json, idempotencyKey: options.idempotencyKey });
    return new Process(this.hearth, body.process, this.computer);
  }

  /** @returns {Promise<Process[]>} */
  async list() {
    const { body } = await this.hearth.transport.json("GET", `${this.computer.path}/processes`);
    return (body.processes ?? []).map((/** @type {any} */ p) => new Process(this.hearth, p, this.computer));
  }

  /** @param {number} pid */
  async get(pid) {
    const { body } = await this.hearth.transport.json("GET", `${this.computer.path}/processes/${pid}`);
    return new Process(this.hearth, body.process, this.computer);
  }
}

// ---------------------------------------------------------------------------------------------
// Checkpoints (of computers and databases)

export class Checkpoint extends Model {
  get path() {
    const parent = this.sourceType === "database" ? "databases" : "computers";
    return `/${parent}/${enc(this.source)}/checkpoints/${enc(this.id)}`;
  }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.checkpoint);
  }

  /** Deletes it, following the `checkpoint.delete` operation. @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const answer = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    this._load(answer.body.checkpoint)._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      await this.refresh();
    }
    return this;
  }
}

export class Checkpoints {
  /** @param {import("./hearth.js").Hearth} hearth @param {string} parentPath @param {"computer"|"database"} kind */
  constructor(hearth, parentPath, kind) {
    this.hearth = hearth;
    this.parentPath = parentPath;
    this.kind = kind;
  }

  /**
   * Takes a checkpoint and answers it `ready`, following its `checkpoint.create` operation (a failed
   * one throws its error). `wait: false` answers it `creating`.
   * @param {string} [name] @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options]
   */
  async create(name, options = {}) {
    const answer = await this.hearth.transport.json("POST", `${this.parentPath}/checkpoints`, {
      json: name == null ? {} : { name }, idempotencyKey: options.idempotencyKey,
    });
    const checkpoint = new Checkpoint(this.hearth, answer.body.checkpoint)._ops(answer.body);
    if (options.wait !== false) {
      await settle(this.hearth, answer, options);
      await checkpoint.refresh();
    }
    return checkpoint;
  }

  /** Newest first, every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.parentPath}/checkpoints`, "checkpoints", (raw) => new Checkpoint(this.hearth, raw), options);
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `${this.parentPath}/checkpoints/${enc(idOrName)}`);
    return new Checkpoint(this.hearth, body.checkpoint);
  }
}

// ---------------------------------------------------------------------------------------------
// Databases

export class Connection extends Model {}

export class Database extends Model {
  get path() { return `/databases/${enc(this.id)}`; }
  /** The database's checkpoints. */
  get checkpoints() { return new Checkpoints(this.hearth, this.path, "database"); }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.database);
  }

  /** PATCH `{protected, autoSleepSeconds, diskMb}`. @param {Record<string, any>} changes @param {{idempotencyKey?: string}} [options] */
  async update(changes, options = {}) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: toBody(changes), idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }

  /** How to connect: host, port, user, password, `uri`, `poolerUri`, `serverCa`, ... */
  async connection() {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/connection`);
    return new Connection(this.hearth, body.connection);
  }

  /** Sets a new password (earlier ones stop working) and answers the new Connection. @param {{idempotencyKey?: string}} [options] */
  async resetCredentials(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/reset_credentials`, { idempotencyKey: options.idempotencyKey });
    return new Connection(this.hearth, body.connection);
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async sleep(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/sleep`, { idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async wake(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/wake`, { idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }
}

export class Databases {
  /** @param {import("./hearth.js").Hearth} hearth @param {Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /**
   * Creates a database (asleep until its first connection). `fromCheckpoint` (a Checkpoint, its id,
   * or `DATABASE/NAME`) makes a branch.
   * @param {string} name
   * @param {{version?: string, fromCheckpoint?: Checkpoint|string, autoSleepSeconds?: number, protected?: boolean,
   *   diskMb?: number, idempotencyKey?: string, wait?: boolean, timeoutMs?: number}} [options]
   */
  async create(name, options = {}) {
    const json = toBody({ name, ...options, fromCheckpoint: options.fromCheckpoint == null ? undefined : idOf(options.fromCheckpoint) },
      ["idempotencyKey", "wait", "timeoutMs"]);
    const answer = await this.hearth.transport.json("POST", `${this.workspace.path}/databases`, {
      json, idempotencyKey: options.idempotencyKey, timeoutMs: Math.max(this.hearth.transport.timeoutMs, 300_000),
    });
    const database = new Database(this.hearth, answer.body.database)._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      await database.refresh();
    }
    return database;
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `/databases/${enc(idOrName)}`, { query: { workspace: this.workspace.id } });
    return new Database(this.hearth, body.database);
  }

  /** Every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/databases`, "databases", (raw) => new Database(this.hearth, raw), options);
  }
}

// ---------------------------------------------------------------------------------------------
// Variables

export class Variable extends Model {
  get path() { return `/variables/${enc(this.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.variable);
  }

  /** @param {{name?: string, value?: string}} changes @param {{idempotencyKey?: string}} [options] */
  async update(changes, options = {}) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: toBody(changes), idempotencyKey: options.idempotencyKey });
    return this._load(body.variable);
  }

  /** Soft delete. @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.variable);
  }
}

export class Variables {
  /** @param {import("./hearth.js").Hearth} hearth @param {Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /** @param {string} name @param {string} value @param {{idempotencyKey?: string}} [options] */
  async create(name, value, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.workspace.path}/variables`, { json: { name, value }, idempotencyKey: options.idempotencyKey });
    return new Variable(this.hearth, body.variable);
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `/variables/${enc(idOrName)}`, { query: { workspace: this.workspace.id } });
    return new Variable(this.hearth, body.variable);
  }

  /** Every page; `deleted: true` includes deleted ones. @param {{limit?: number, deleted?: boolean}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/variables`, "variables", (raw) => new Variable(this.hearth, raw), options);
  }
}

// ---------------------------------------------------------------------------------------------
// Images

export class Image extends Model {
  /** Forgets the image. */
  async delete() {
    const { body } = await this.hearth.transport.json("DELETE", `/workspaces/${enc(this.workspace)}/images/${enc(this.id)}`);
    return body?.image ? this._load(body.image) : this;
  }
}

export class Images {
  /** @param {import("./hearth.js").Hearth} hearth @param {Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /** Pulls an image (following its `image.pull` operation). @param {string} reference @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options] */
  async pull(reference, options = {}) {
    const answer = await this.hearth.transport.json("POST", `${this.workspace.path}/images`, { json: { reference }, idempotencyKey: options.idempotencyKey });
    const image = new Image(this.hearth, answer.body.image)._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      for await (const i of this.list()) if (i.id === image.id) return i;
    }
    return image;
  }

  /** Every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/images`, "images", (raw) => new Image(this.hearth, raw), options);
  }
}

// ---------------------------------------------------------------------------------------------
// Access and invitations

export class Access extends Model {
  /** @param {import("./hearth.js").Hearth} hearth @param {any} raw @param {Workspace} workspace */
  constructor(hearth, raw, workspace) {
    super(hearth, raw);
    Object.defineProperty(this, "workspace", { value: workspace, enumerable: false });
  }

  get path() { return `${/** @type {any} */ (this).workspace.path}/access/${enc(this.principal.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.access);
  }

  /** `{role}`, and for key principals `{name, description}`. @param {Record<string, any>} changes */
  async update(changes) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: toBody(changes) });
    return this._load(body.access);
  }

  /** Removes the role. */
  async remove() {
    const { body } = await this.hearth.transport.json("DELETE", this.path);
    return this._load(body.access);
  }

  /**
   * Issues a new key and revokes the old one; answers `{access, key, keyFile}` (`keyFile` is the JSON
   * to save as a key file, with `private_key` unless you gave `publicKey`).
   * @param {{publicKey?: string, expiresInDays?: number}} [options]
   */
  async rotateKey(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/rotate_key`, { json: toBody(options) });
    return { access: this._load(body.access), key: camelize(body.key), keyFile: body.key_file };
  }

  /** Revokes the key: its tokens stop working at once. */
  async revokeKey() {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/revoke_key`);
    return this._load(body.access);
  }
}

export class AccessList {
  /** @param {import("./hearth.js").Hearth} hearth @param {Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /**
   * Grants a role: a person `{email, role}` or a key principal `{name, role, description?, publicKey?,
   * expiresInDays?}`. Answers `{access, key, keyFile}` (`keyFile`: the key file's JSON, for key principals).
   * @param {Record<string, any>} grant @param {{idempotencyKey?: string}} [options]
   */
  async grant(grant, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.workspace.path}/access`, { json: toBody(grant), idempotencyKey: options.idempotencyKey });
    return { access: new Access(this.hearth, body.access, this.workspace), key: camelize(body.key ?? null), keyFile: body.key_file ?? null };
  }

  /** @param {string} principalId */
  async get(principalId) {
    const { body } = await this.hearth.transport.json("GET", `${this.workspace.path}/access/${enc(principalId)}`);
    return new Access(this.hearth, body.access, this.workspace);
  }

  /** Every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/access`, "access", (raw) => new Access(this.hearth, raw, this.workspace), options);
  }
}

export class Invitation extends Model {
  get path() { return `/invitations/${enc(this.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.invitation);
  }

  /** A new expiry and a new mail. */
  async resend() {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/resend`);
    return this._load(body.invitation);
  }

  /** Revokes it. */
  async revoke() {
    const { body } = await this.hearth.transport.json("DELETE", this.path);
    return this._load(body.invitation);
  }

  /** Accepts it (only the invited email principal may). */
  async accept() {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/accept`);
    return this._load(body.invitation);
  }
}

export class Invitations {
  /** @param {import("./hearth.js").Hearth} hearth @param {Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /** @param {string} email @param {"admin"|"editor"|"viewer"} role @param {{idempotencyKey?: string}} [options] */
  async create(email, role, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.workspace.path}/invitations`, { json: { email, role }, idempotencyKey: options.idempotencyKey });
    return new Invitation(this.hearth, body.invitation);
  }

  /** @param {string} id */
  async get(id) {
    const { body } = await this.hearth.transport.json("GET", `/invitations/${enc(id)}`);
    return new Invitation(this.hearth, body.invitation);
  }

  /** Every page; `state`: `pending` (default), `expired` or `all`. @param {{limit?: number, state?: string}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/invitations`, "invitations", (raw) => new Invitation(this.hearth, raw), options);
  }
}
