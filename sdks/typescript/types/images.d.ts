// Type declarations of src/images.js, written by hand (index.d.ts re-exports them).
// Images a workspace pulled.

import { ListOptions, Model, WaitOptions } from "./common.js";
import { Hearth } from "./hearth.js";
import { Workspace } from "./workspaces.js";

export class Image extends Model {
  id: string;
  workspace: string;
  reference: string;
  state: "pulling" | "ready" | "failed";
  digest: string | null;
  error: string | null;
  createdAt: string;
  pulledAt: string | null;
  delete(): Promise<this>;
}

export class Images {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  pull(reference: string, options?: WaitOptions): Promise<Image>;
  list(options?: ListOptions): AsyncGenerator<Image, void, undefined>;
}
