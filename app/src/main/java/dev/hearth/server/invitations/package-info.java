/**
 * Invitations to a workspace by email: their states, their mail (sent again with backoff until it
 * goes), acceptance by the invitee.
 */
package dev.hearth.server.invitations;
