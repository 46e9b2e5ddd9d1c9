/**
 * The contract shared by server and client: ErrorCode and the one typed ApiException (the server
 * renders it, the client makes it again from an answer), the JSON mapping of the wire, and the
 * input rules every request obeys (Validate). Depends on nothing else of Hearth.
 */
package dev.hearth.api;
