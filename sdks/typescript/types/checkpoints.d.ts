// Type declarations of src/checkpoints.js, written by hand (index.d.ts re-exports them).
// Checkpoints of computers and databases.

import { ErrorInfo, ListOptions, Model, WaitOptions } from "./common.js";
import { Hearth } from "./hearth.js";
import { Workspace } from "./workspaces.js";

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
  /** It outlives its computer (a template), until deleted; always false for databases'. */
  kept: boolean;
  error: ErrorInfo;
  createdAt: string;
  deletedAt: string | null;
  readonly path: string;
  refresh(): Promise<this>;
  /** Follows the `checkpoint.delete` operation (a kept one is deleted through its workspace). */
  delete(options?: WaitOptions): Promise<this>;
}

export class Checkpoints {
  constructor(hearth: Hearth, parentPath: string, kind: "computer" | "database");
  hearth: Hearth;
  parentPath: string;
  kind: "computer" | "database";
  /** Answers it ready (follows `checkpoint.create`); `wait: false` answers it creating; `keep: true` (computers): it outlives the computer. */
  create(name?: string, options?: WaitOptions & { keep?: boolean }): Promise<Checkpoint>;
  list(options?: ListOptions): AsyncGenerator<Checkpoint, void, undefined>;
  get(idOrName: string): Promise<Checkpoint>;
}

/** A workspace's kept checkpoints (made with `keep: true`), whether their computers live or not. */
export class WorkspaceCheckpoints {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  readonly path: string;
  list(options?: ListOptions): AsyncGenerator<Checkpoint, void, undefined>;
  /** A kept checkpoint by id. */
  get(id: string): Promise<Checkpoint>;
  /** Deletes a kept checkpoint (follows `checkpoint.delete`). */
  delete(checkpoint: Checkpoint | string, options?: WaitOptions): Promise<Checkpoint>;
}
