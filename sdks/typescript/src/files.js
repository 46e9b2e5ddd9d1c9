// A computer's files: read and write (binary safe, streamed for large ones), list, move, archives,
// watches.

import { Model, toBytes } from "./common.js";
import { errorFromOperation } from "./errors.js";

export class FileInfo extends Model {}

export class Files {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./computers.js").Computer} computer */
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
   * (UTF-8), a Blob, or a ReadableStream / async iterable of bytes (streamed, not retried). `owner`:
   * a user of the image who owns the file and the parents made (default root).
   * @param {string} path @param {any} data @param {{mode?: string|number, owner?: string}} [options]
   */
  async write(path, data, options = {}) {
    const mode = typeof options.mode === "number" ? options.mode.toString(8).padStart(4, "0") : options.mode;
    let body = data;
    if (typeof data === "string" || data instanceof ArrayBuffer || ArrayBuffer.isView(data)) body = toBytes(data);
    else if (data && typeof data[Symbol.asyncIterator] === "function" && typeof data.getReader !== "function") {
      body = iterableToStream(data);
    }
    const { body: answer } = await this.hearth.transport.json("PUT", this.path, {
      query: { path, mode, owner: options.owner },
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

  /** Makes a directory and its parents, owned by `owner` (a user of the image) or root. @param {string} path @param {{owner?: string}} [options] */
  async mkdir(path, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/mkdir`, { json: { path, owner: options.owner } });
    return new FileInfo(this.hearth, body.file);
  }

  /**
   * Follows what happens in a directory: answers once the watch is set (so a change made after it
   * shows), then `for await` over it yields `{name, type, dir}` events as they happen, until
   * `close()` (or leaving the loop, or `signal`), or until the computer sleeps or is deleted.
   * `recursive` watches its subdirectories too.
   * @param {string} path @param {{recursive?: boolean, signal?: AbortSignal}} [options]
   */
  async watch(path, options = {}) {
    const controller = new AbortController();
    if (options.signal?.aborted) controller.abort();
    else options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
    const lines = this.hearth.transport.ndjson("GET", `${this.path}/watch`, {
      query: { path, recursive: options.recursive ? "true" : undefined }, signal: controller.signal, timeoutMs: 120_000,
    });
    const first = await lines.next();
    return new FileWatch(lines, controller, first.done ? null : first.value.watching ?? null);
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

/** A watch of a directory (`files.watch`): iterate it with `for await`; `close()` ends it. */
export class FileWatch {
  /** @param {AsyncGenerator<any>} lines @param {AbortController} controller @param {string|null} path */
  constructor(lines, controller, path) {
    this._lines = lines;
    this._controller = controller;
    /** The directory watched. */
    this.path = path;
  }

  /** Whether it was closed (or its signal aborted). */
  get closed() { return this._controller.signal.aborted; }

  /** Ends the watch; a loop over it ends too, without an error. */
  close() {
    this._controller.abort();
    this._lines.return(undefined).catch(() => {});
  }

  async *[Symbol.asyncIterator]() {
    try {
      for await (const line of this._lines) {
        if (line.error) throw errorFromOperation({ kind: "watch", id: "", error: line.error });
        yield { name: line.name, type: line.type, dir: line.dir === true };
      }
    } catch (e) {
      if (!this.closed) throw e;
    } finally {
      this.close();
    }
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
