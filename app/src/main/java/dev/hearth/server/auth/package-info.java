/**
 * Authentication: access tokens signed with rotating keys, the RFC 7523 key-assertion grant,
 * email sign-in with one-time codes and refresh sessions, and the RequestGuard that answers the
 * HTTP layer's Guard with them and the Authorizer.
 */
package dev.hearth.server.auth;
