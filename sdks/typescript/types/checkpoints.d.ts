// Type declarations of src/checkpoints.js, written by hand (index.d.ts re-exports them).
// Checkpoints of computers and databases.

import { ErrorInfo, ListOptions, Model, WaitOptions } from "./common.js";
import { Hearth } from "./hearth.js";

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
