// Type declarations of src/variables.js, written by hand (index.d.ts re-exports them).
// Variables: a workspace's secrets.

import { ListOptions, Model, MutationOptions } from "./common.js";
import { Hearth } from "./hearth.js";
import { Workspace } from "./workspaces.js";

export class Variable extends Model {
  id: string;
  workspace: string;
  name: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  /** Absent for viewers and in idempotent replays. */
  value?: string;
  readonly path: string;
  refresh(): Promise<this>;
  update(changes: { name?: string; value?: string }, options?: MutationOptions): Promise<this>;
  delete(options?: MutationOptions): Promise<this>;
}

export class Variables {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  create(name: string, value: string, options?: MutationOptions): Promise<Variable>;
  get(idOrName: string): Promise<Variable>;
  list(options?: ListOptions & { deleted?: boolean }): AsyncGenerator<Variable, void, undefined>;
}
