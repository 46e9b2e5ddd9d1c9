/**
 * Workspaces: create (the creator becomes admin through the Founding hook), rename, delete
 * (refused while Contents remain), and their routes.
 */
package dev.hearth.server.workspaces;
