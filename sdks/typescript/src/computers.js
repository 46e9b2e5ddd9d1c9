// Computers: create, exec (whole or streamed), logs, sleep and wake, restore, metrics.

import { Model, WorkspaceResources, camelize, enc, paginate, settle, timestamp, toBody, fromBase64 } from "./common.js";
import { Checkpoints } from "./checkpoints.js";
import { execBody, streamEvent } from "./exec.js";
import { Files } from "./files.js";
import { Processes } from "./processes.js";

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
   * PATCH: `{name, env, ports, protected, autoSleepSeconds, freezeWhenIdle, network, resources, entrypoint, command, restart,
   * labels, expiresAt, onExpire}`. `env`, `labels` and `resources` merge (`labels: {team: null}` removes
   * one); `expiresAt: null` ends the lifetime (a Date is sent as the API's timestamp).
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
   * @param {import("./checkpoints.js").Checkpoint|string} checkpoint @param {{idempotencyKey?: string, timeoutMs?: number}} [options]
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
   * `user` (a name or uid of the image's /etc/passwd; default root) runs it as that user, in its home
   * unless `cwd` says otherwise.
   * @param {string[]|string} command
   * @param {{env?: Record<string,string>, cwd?: string, stdin?: string|Uint8Array, timeoutSeconds?: number,
   *   encoding?: "utf-8"|"base64", user?: string|number, idempotencyKey?: string, signal?: AbortSignal}} [options]
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
   *   encoding?: "utf-8"|"base64", user?: string|number, idempotencyKey?: string, signal?: AbortSignal}} [options]
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

  /**
   * Metrics samples (`at, cpuSeconds, cpuPercent, memoryBytes, memoryLimitBytes, diskUsedBytes,
   * diskSizeBytes`), one every 5 s of the last hour it was awake, oldest first.
   * @param {{since?: Date|string, until?: Date|string}} [options]
   */
  async metricsHistory(options = {}) {
    const query = { since: timestamp(options.since), until: timestamp(options.until) };
    const { body } = await this.hearth.transport.json("GET", `${this.path}/metrics/history`, { query });
    return camelize(body.samples);
  }
}

export class Computers extends WorkspaceResources {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    super(hearth, workspace, "computers", "computer", Computer);
  }

  /**
   * Creates a computer and answers it ready: when the server answers 202 (an image to pull), follows
   * the `computer.create` operation first. `fromCheckpoint` (a Checkpoint or its id) makes a fork.
   * `labels` are the owner's names and values; at `expiresAt` the computer is deleted, or put to
   * sleep with `onExpire: "sleep"`.
   * @param {string} name
   * @param {{image?: string, env?: Record<string, string|{secret: string}>, ports?: object[], protected?: boolean,
   *   resources?: object, autoSleepSeconds?: number|null, freezeWhenIdle?: boolean, network?: object, entrypoint?: string[]|null,
   *   command?: string[]|null, restart?: string|null, fromCheckpoint?: import("./checkpoints.js").Checkpoint|string,
   *   labels?: Record<string, string>, expiresAt?: Date|string, onExpire?: "delete"|"sleep",
   *   idempotencyKey?: string, wait?: boolean, timeoutMs?: number}} [options]
   */
  create(name, options = {}) {
    return this._create(name, options);
  }

  /**
   * The live computers, every page; `labels` keeps those with every label given, `state` those in
   * one of the states (`"ready"`, or `["ready", "sleeping"]`).
   * @param {{limit?: number, labels?: Record<string, string>, state?: string|string[]}} [options]
   */
  list(options = {}) {
    const { labels, state, search, ...rest } = options;
    const label = labels ? Object.entries(labels).map(([k, v]) => `${k}=${v}`) : undefined;
    return paginate(this.hearth, `${this.workspace.path}/computers`, "computers", (raw) => new Computer(this.hearth, raw),
      { ...rest, label, state: Array.isArray(state) ? state.join(",") : state, q: search });
  }
}
