// Checkpoints of computers and databases: take, list, delete (following their operations); and a
// workspace's kept ones.

import { Model, enc, idOf, paginate, settle } from "./common.js";

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
    // A kept checkpoint's computer may be gone: the workspace's route deletes it either way.
    const path = this.kept ? `/workspaces/${enc(this.workspace)}/checkpoints/${enc(this.id)}` : this.path;
    const answer = await this.hearth.transport.json("DELETE", path, { idempotencyKey: options.idempotencyKey });
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
   * one throws its error). `wait: false` answers it `creating`. `keep: true` (computers only): it
   * outlives the computer, in `workspace.checkpoints`.
   * @param {string} [name] @param {{keep?: boolean, wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options]
   */
  async create(name, options = {}) {
    const answer = await this.hearth.transport.json("POST", `${this.parentPath}/checkpoints`, {
      json: { name: name ?? undefined, keep: options.keep }, idempotencyKey: options.idempotencyKey,
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

/** A workspace's kept checkpoints (made with `keep: true`), whether their computers live or not. */
export class WorkspaceCheckpoints {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  get path() { return `${this.workspace.path}/checkpoints`; }

  /** Newest first, every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, this.path, "checkpoints", (raw) => new Checkpoint(this.hearth, raw), options);
  }

  /** A kept checkpoint by id. @param {string} id */
  async get(id) {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/${enc(id)}`);
    return new Checkpoint(this.hearth, body.checkpoint);
  }

  /**
   * Deletes a kept checkpoint by id (or the object), following `checkpoint.delete`.
   * @param {Checkpoint|string} checkpoint @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options]
   */
  delete(checkpoint, options = {}) {
    // What the id names is read from the answer; kept says which route deletes it.
    return new Checkpoint(this.hearth, { id: idOf(checkpoint), workspace: this.workspace.id, kept: true }).delete(options);
  }
}
