// What every model shares: the base class (fields in camelCase, the JSON as sent in `.raw`), case
// conversion, request bodies, paging, and following the operations of a 202 answer.

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

/** Fields whose keys are the caller's own names (variables, labels): sent as given, read as sent. */
export const OWN_KEYS = new Set(["env", "labels"]);

/**
 * A request body from options given in camelCase (snake_case works too). Keys under `env` and
 * `labels` are the caller's names and stay as they are; undefined values are left out.
 * @param {Record<string, any>} options @param {string[]} [skip] option names that are not body fields
 */
export function toBody(options, skip = []) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(options ?? {})) {
    if (v === undefined || skip.includes(k)) continue;
    const key = snakeCase(k);
    out[key] = OWN_KEYS.has(key) ? v : snakeDeep(v);
  }
  return out;
}

/** The API's timestamp from a Date (a string is sent as it is). @param {Date|string|null|undefined} value */
export const timestamp = (value) => (value instanceof Date ? value.toISOString() : value);

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

/**
 * One path segment. `.` and `..` are refused: encodeURIComponent leaves them as they are, and
 * resolved they would name the resource above the one meant.
 * @param {string} s
 */
export const enc = (s) => {
  const text = String(s);
  if (text === "." || text === "..") throw new TypeError(`'${text}' is not a name or an id`);
  return encodeURIComponent(text);
};

/** An id from an object or a string. @param {any} x */
export const idOf = (x) => (typeof x === "string" ? x : x?.id);

const textEncoder = new TextEncoder();

/** @param {any} data @returns {Uint8Array} */
export function toBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (typeof data === "string") return textEncoder.encode(data);
  throw new TypeError("expected a string, Uint8Array, Buffer or ArrayBuffer");
}

/** @param {string} b64 */
export const fromBase64 = (b64) => new Uint8Array(Buffer.from(b64, "base64"));

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
      const own = OWN_KEYS.has(k) && v !== null && typeof v === "object";
      /** @type {any} */ (this)[name] = own ? { ...v } : camelize(v);
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
export async function settle(hearth, answer, options = {}) {
  if (options.wait === false || answer.status !== 202) return;
  for (const op of answer.body?.operations ?? []) {
    await hearth.operations.wait(op, { timeoutMs: options.timeoutMs });
  }
}

/**
 * A workspace's computers or databases: create (a fork or branch with `fromCheckpoint`; a 202's
 * operation followed unless `wait: false`), get by id or name, list every page.
 */
export class WorkspaceResources {
  /**
   * @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace
   * @param {string} plural the route's and list's noun ("computers") @param {string} noun one's ("computer")
   * @param {new (hearth: any, raw: any) => any} Type the resource's class
   */
  constructor(hearth, workspace, plural, noun, Type) {
    this.hearth = hearth;
    this.workspace = workspace;
    this._plural = plural;
    this._noun = noun;
    this._Type = Type;
  }

  /** @param {string} name @param {Record<string, any>} options @param {Record<string, any>} [transport] */
  async _create(name, options, transport = {}) {
    const json = toBody({ name, ...options, fromCheckpoint: options.fromCheckpoint == null ? undefined : idOf(options.fromCheckpoint) },
      ["idempotencyKey", "wait", "timeoutMs"]);
    const answer = await this.hearth.transport.json("POST", `${this.workspace.path}/${this._plural}`, {
      json, idempotencyKey: options.idempotencyKey, ...transport,
    });
    const resource = new this._Type(this.hearth, answer.body[this._noun])._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      await resource.refresh();
    }
    return resource;
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `/${this._plural}/${enc(idOrName)}`, { query: { workspace: this.workspace.id } });
    return new this._Type(this.hearth, body[this._noun]);
  }

  /** Every live one, every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/${this._plural}`, this._plural, (raw) => new this._Type(this.hearth, raw), options);
  }
}
