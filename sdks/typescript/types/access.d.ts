// Type declarations of src/access.js, written by hand (index.d.ts re-exports them).
// Roles, keys, invitations and API keys.

import { KeyFile } from "./auth.js";
import { ListOptions, Model, MutationOptions } from "./common.js";
import { Hearth } from "./hearth.js";
import { Workspace } from "./workspaces.js";

export interface Principal { id: string; auth: "email" | "key"; email: string | null; name: string }
export type Role = "admin" | "editor" | "viewer";

export interface KeyInfo {
  id: string;
  principal: string;
  byok: boolean;
  createdBy: string;
  expiresAt: string;
  lastUsedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface Grant {
  role: Role;
  email?: string;
  name?: string;
  description?: string;
  publicKey?: string | object;
  expiresInDays?: number;
}

export class Access extends Model {
  constructor(hearth: Hearth, raw: any, workspace: Workspace);
  readonly workspace: Workspace;
  principal: Principal;
  role: Role;
  description: string;
  key: KeyInfo | null;
  keyState: "active" | "revoked" | "expired" | null;
  createdAt: string;
  readonly path: string;
  refresh(): Promise<this>;
  update(changes: { role?: Role; name?: string; description?: string }): Promise<this>;
  remove(): Promise<this>;
  rotateKey(options?: { publicKey?: string | object; expiresInDays?: number }): Promise<{ access: Access; key: KeyInfo; keyFile: KeyFile }>;
  revokeKey(): Promise<this>;
}

export class AccessList {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  grant(grant: Grant, options?: MutationOptions): Promise<{ access: Access; key: KeyInfo | null; keyFile: KeyFile | null }>;
  get(principalId: string): Promise<Access>;
  list(options?: ListOptions): AsyncGenerator<Access, void, undefined>;
}

export class Invitation extends Model {
  id: string;
  workspace: string;
  email: string;
  role: Role;
  state: "pending" | "expired" | "accepted" | "revoked";
  invitedBy: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  lastSentAt: string | null;
  emailSent: boolean;
  acceptedBy: string | null;
  acceptedAt: string | null;
  readonly path: string;
  refresh(): Promise<this>;
  resend(): Promise<this>;
  revoke(): Promise<this>;
  accept(): Promise<this>;
}

export class Invitations {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  create(email: string, role: Role, options?: MutationOptions): Promise<Invitation>;
  get(id: string): Promise<Invitation>;
  list(options?: ListOptions & { state?: "pending" | "expired" | "all" }): AsyncGenerator<Invitation, void, undefined>;
}

/** An API key: a long-lived `hk_...` secret that acts in one workspace as its maker, with its role. */
export class ApiKey extends Model {
  id: string;
  workspace: string;
  /** Who made it: whom it acts as. */
  principal: string;
  name: string;
  /** The lower of this and the principal's role counts. */
  role: Role;
  /** The secret's first 8 characters (`hk_` and 5), to tell keys apart. */
  prefix: string;
  state: "active" | "revoked" | "expired";
  createdAt: string;
  /** null: until revoked. */
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  readonly path: string;
  refresh(): Promise<this>;
  /** Revokes it: refused (401) from the next request on. */
  revoke(): Promise<this>;
}

export class ApiKeys {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  readonly path: string;
  /** The key and its secret, shown this once (null in a replay); use it as `new Hearth({ apiKey })`. */
  create(name: string, options?: MutationOptions & { role?: Role; expiresInDays?: number }): Promise<{ apiKey: ApiKey; secret: string | null }>;
  get(id: string): Promise<ApiKey>;
  list(options?: ListOptions): AsyncGenerator<ApiKey, void, undefined>;
  revoke(apiKey: ApiKey | string): Promise<ApiKey>;
}
