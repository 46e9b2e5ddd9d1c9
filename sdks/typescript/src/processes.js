// A computer's background processes: start, stdin, signals, output.

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
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./computers.js").Computer} computer */
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
