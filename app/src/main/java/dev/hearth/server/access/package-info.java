/**
 * Who may do what in a workspace: principals (email logins and private-key principals with their
 * keys), their one role per workspace, the Authorizer that checks a role against an Action, and
 * the access routes.
 */
package dev.hearth.server.access;
