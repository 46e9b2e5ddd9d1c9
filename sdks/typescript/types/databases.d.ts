// Type declarations of src/databases.js, written by hand (index.d.ts re-exports them).
// PostgreSQL databases.

import { Checkpoint, Checkpoints } from "./checkpoints.js";
import { ErrorInfo, ListOptions, Model, MutationOptions, WaitOptions } from "./common.js";
import { Hearth } from "./hearth.js";
import { DatabaseRoles, PgDatabases } from "./roles.js";
import { Workspace } from "./workspaces.js";

export class Connection extends Model {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  passwordStatus: string;
  resetPending: boolean;
  uri: string;
  poolerUri: string;
  sslMode: string;
  serverCa: string;
  poolerPort: number;
  internalHost: string;
  internalUri: string;
  internalPoolerUri: string;
}

export class Database extends Model {
  id: string;
  workspace: string;
  name: string;
  state: "ready" | "sleeping";
  pending: string | null;
  engine: string;
  version: string;
  host: string;
  port: number;
  parent: string | null;
  fromCheckpoint: string | null;
  /** The node that runs it (`local` on a single machine). */
  node: string;
  generation: number;
  protected: boolean;
  autoSleepSeconds: number;
  diskMb: number;
  /** How far back it can be branched or restored, in hours. */
  historyHours: number;
  error: ErrorInfo;
  createdAt: string;
  updatedAt: string;
  lastActiveAt: string | null;
  deletedAt: string | null;
  readonly path: string;
  readonly checkpoints: Checkpoints;
  /** Its PostgreSQL login roles (each call wakes it). */
  readonly roles: DatabaseRoles;
  /** The PostgreSQL databases inside it (each call wakes it). */
  readonly pgDatabases: PgDatabases;
  refresh(): Promise<this>;
  update(changes: { protected?: boolean; autoSleepSeconds?: number; diskMb?: number; historyHours?: number }, options?: MutationOptions): Promise<this>;
  delete(options?: MutationOptions): Promise<this>;
  connection(): Promise<Connection>;
  resetCredentials(options?: MutationOptions): Promise<Connection>;
  /** The statements it spends most time on (wakes it). */
  insights(options?: { order?: "total" | "mean"; limit?: number }): Promise<Array<{ query: string; calls: number; total_millis: number; mean_millis: number; rows: number }>>;
  /** How far back it can be branched. */
  history(): Promise<{ earliest: string | null; latest: string; bases: number; archive_bytes: number; window_seconds: number }>;
  /** Rolls it back to a moment in place; `backup` holds what it was just before. `at`: a time, or an LSN (`X/Y`). */
  restore(at: Date | string, options?: MutationOptions): Promise<{ database: Database; backup: Database }>;
  /** A read-only connection to it as it was at a moment, open `ttlSeconds` (60 to 14400, default 600). */
  timeTravel(at: Date | string, options?: { ttlSeconds?: number; idempotencyKey?: string }): Promise<TimeTravel>;
  /** Its open time travels (passwords redacted). */
  timeTravels(): Promise<TimeTravel[]>;
  sleep(options?: MutationOptions): Promise<this>;
  wake(options?: MutationOptions): Promise<this>;
}

/** A read-only view of a database as it was at a moment, until `expiresAt` or `end()`. */
export class TimeTravel extends Model {
  id: string;
  /** The database's id. */
  database: string;
  /** The moment: a time (RFC 3339) or an LSN. */
  at: string;
  createdAt: string;
  expiresAt: string;
  /** The owner role's connection; the password only in the answer that opened it. */
  connection: Connection;
  readonly path: string;
  /** Ends it now: its sessions end and its cluster goes. */
  end(options?: MutationOptions): Promise<this>;
}

export class Databases {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  /**
   * `fromCheckpoint` (a Checkpoint, its id, or `DATABASE/NAME`) makes a branch; `fromDatabase` and
   * `at` make one as that database was at a moment (its commits at or before it).
   */
  create(name: string, options?: WaitOptions & { version?: string; fromCheckpoint?: Checkpoint | string;
    fromDatabase?: Database | string; at?: Date | string; autoSleepSeconds?: number; protected?: boolean; diskMb?: number; historyHours?: number }): Promise<Database>;
  get(idOrName: string): Promise<Database>;
  list(options?: ListOptions): AsyncGenerator<Database, void, undefined>;
}
