// Operations: long-running work (pulls, checkpoints, sleeps, ...) and following it to its end.

import { TimeoutError, errorFromOperation } from "./errors.js";
import { Model, enc, idOf, paginate } from "./common.js";

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
   * A workspace's operations, newest first, every page; `state` and `resource` narrow it.
   * @param {string|{id: string}} workspace
   * @param {{state?: "running"|"succeeded"|"failed", resource?: string, limit?: number, signal?: AbortSignal}} [options]
   */
  list(workspace, options = {}) {
    return paginate(this.hearth, `/workspaces/${enc(idOf(workspace))}/operations`, "operations",
      (raw) => new Operation(this.hearth, raw), options);
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
