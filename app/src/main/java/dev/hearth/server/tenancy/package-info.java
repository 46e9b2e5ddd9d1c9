/**
 * The values every layer shares about who acts where: the workspace (the tenant), the principal
 * and the caller acting for it, a membership (a workspace and a role), roles, and the Action
 * table of what each role may do. Values only: storage and rules live in workspaces, access and
 * auth.
 */
package dev.hearth.server.tenancy;
