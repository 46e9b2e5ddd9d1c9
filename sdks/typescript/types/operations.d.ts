// Type declarations of src/operations.js, written by hand (index.d.ts re-exports them).
// Operations: long-running work.

import { ErrorInfo, Model } from "./common.js";
import { Hearth } from "./hearth.js";

export interface RawOperation {
  id: string;
  kind: string;
  state: "running" | "succeeded" | "failed";
  workspace: string;
  resource: string | null;
  progress: string | null;
  error: ErrorInfo;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export class Operation extends Model {
  id: string;
  kind: string;
  state: "running" | "succeeded" | "failed";
  workspace: string;
  resource: string | null;
  progress: string | null;
  error: ErrorInfo;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  refresh(): Promise<this>;
  wait(options?: { timeoutMs?: number }): Promise<this>;
}

export class Operations {
  constructor(hearth: Hearth);
  hearth: Hearth;
  get(id: string): Promise<Operation>;
  /** A workspace's operations, newest first, every page. */
  list(workspace: string | { id: string }, options?: {
    state?: "running" | "succeeded" | "failed"; resource?: string; limit?: number; signal?: AbortSignal;
  }): AsyncGenerator<Operation, void, undefined>;
  /** Follows it until it settles; a failed one throws its error; past the time, TimeoutError. */
  wait(operation: string | Operation, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Operation>;
}
