// A computer's background processes: start, stdin, signals, terminals, output.

import { Model, toBody, toBytes } from "./common.js";
import { streamEvent } from "./exec.js";

export class Process extends Model {
  /** @param {import("./hearth.js").Hearth} hearth @param {any} raw @param {import("./computers.js").Computer} computer */
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

  /** Changes the window of a process started with `pty` (it gets SIGWINCH); Conflict for others. @param {number} cols @param {number} rows */
  async resize(cols, rows) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/resize`, { json: { cols, rows } });
    return this._load(body.process);
  }

  /**
   * Its output as events, as `Computer.execStream` yields them: what was kept (none of it with
   * `fromNow`: only what it writes from then on), then with `follow` more until it ends.
   * @param {{follow?: boolean, fromNow?: boolean, encoding?: "utf-8"|"base64", signal?: AbortSignal}} [options]
   */
  async *output(options = {}) {
    const lines = this.hearth.transport.ndjson("GET", `${this.path}/output`, {
      query: { follow: options.follow ? "true" : undefined, encoding: options.encoding, from: options.fromNow ? "now" : undefined },
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
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./computers.js").Computer} computer */
  constructor(hearth, computer) {
    this.hearth = hearth;
    this.computer = computer;
  }

  /**
   * Starts a background process. `user` runs it as a user of the image, as exec does. `pty: {cols,
   * rows}` (or true: 80x24) starts it on a terminal of its own: its output comes as stdout, its input
   * (always open) through `writeStdin`.
   * @param {string[]|string} command
   * @param {{env?: Record<string,string>, cwd?: string, tag?: string, stdin?: boolean, user?: string|number,
   *   pty?: boolean|{cols?: number, rows?: number}, idempotencyKey?: string}} [options]
   */
  async start(command, options = {}) {
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
    const pty = options.pty === true ? {} : options.pty || undefined;
    const user = options.user == null ? undefined : String(options.user);
    const json = toBody({ command: argv, env: options.env, cwd: options.cwd, tag: options.tag, stdin: options.stdin, user, pty });
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
