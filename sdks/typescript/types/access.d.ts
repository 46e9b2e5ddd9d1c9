// Type declarations of src/access.js, written by hand (index.d.ts re-exports them).
// Roles, keys and invitations.

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
