// Type declarations of src/roles.js, written by hand (index.d.ts re-exports them).
// The PostgreSQL roles and databases inside a Hearth database (each call wakes it).

import { Model, MutationOptions } from "./common.js";
import { Connection } from "./databases.js";
import { Hearth } from "./hearth.js";

/** A login role (never a superuser); `connection` holds its password after `create` or `resetPassword` only. */
export class DatabaseRole extends Model {
  constructor(hearth: Hearth, raw: any, databasePath: string, connection?: Connection | null);
  name: string;
  /** The owner role: the one the database's Connection names; it cannot be deleted. */
  owner: boolean;
  connection: Connection | null;
  readonly path: string;
  /** A new password (its sessions end). */
  resetPassword(options?: MutationOptions): Promise<Connection>;
  /** Refused (Conflict) while it owns objects, (Protected) for the owner role. */
  delete(options?: MutationOptions): Promise<this>;
}

export class DatabaseRoles {
  constructor(hearth: Hearth, databasePath: string);
  hearth: Hearth;
  databasePath: string;
  list(): Promise<DatabaseRole[]>;
  /** Its password is in `.connection` (shown once). */
  create(name: string, options?: MutationOptions): Promise<DatabaseRole>;
  /** A role by name, to reset or delete (no request is made). */
  get(name: string): DatabaseRole;
}

export class PgDatabase extends Model {
  constructor(hearth: Hearth, raw: any, databasePath: string);
  name: string;
  ownerName: string;
  /** The one the Hearth database's Connection names; it cannot be deleted. */
  default: boolean;
  /** Its sessions end; refused (Protected) for the default database. */
  delete(options?: MutationOptions): Promise<this>;
}

export class PgDatabases {
  constructor(hearth: Hearth, databasePath: string);
  hearth: Hearth;
  databasePath: string;
  list(): Promise<PgDatabase[]>;
  /** Owned by `owner` (a role or its name; default: the owner role). */
  create(name: string, options?: MutationOptions & { owner?: DatabaseRole | string }): Promise<PgDatabase>;
}
