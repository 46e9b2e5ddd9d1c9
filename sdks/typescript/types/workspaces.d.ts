// Type declarations of src/workspaces.js, written by hand (index.d.ts re-exports them).
// Workspaces.

import { AccessList, ApiKeys, Invitations } from "./access.js";
import { WorkspaceCheckpoints } from "./checkpoints.js";
import { ListOptions, Model, MutationOptions } from "./common.js";
import { Computers } from "./computers.js";
import { Databases } from "./databases.js";
import { Hearth } from "./hearth.js";
import { Images } from "./images.js";
import { Variables } from "./variables.js";

export class Workspace extends Model {
  id: string;
  name: string;
  state: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  readonly path: string;
  readonly computers: Computers;
  readonly databases: Databases;
  readonly variables: Variables;
  readonly images: Images;
  readonly access: AccessList;
  readonly invitations: Invitations;
  readonly apiKeys: ApiKeys;
  /** The checkpoints kept past their computers. */
  readonly checkpoints: WorkspaceCheckpoints;
  refresh(): Promise<this>;
  rename(name: string, options?: MutationOptions): Promise<this>;
  /** Throws NotEmpty while it holds resources. */
  delete(options?: MutationOptions): Promise<this>;
}

export class Workspaces {
  constructor(hearth: Hearth);
  hearth: Hearth;
  create(name: string, options?: MutationOptions): Promise<Workspace>;
  get(idOrName: string): Promise<Workspace>;
  list(options?: ListOptions): AsyncGenerator<Workspace, void, undefined>;
}
