/**
 * The contract shared by server and client: ErrorCode and the one typed ApiException (the server
 * renders it, the client makes it again from an answer), the JSON mapping of the wire, and the
 * input rules every request obeys (Validate). Depends on nothing else of Hearth.
 *
 * <p>Every request body and answer of {@code /v1} is a record (or enum) in a sub-package named for
 * its feature ({@code api.computers}, {@code api.databases}, ...), and the OpenAPI document is made
 * from them alone (it refuses a type from elsewhere). One convention: a request is named for what it
 * asks ({@code CreateComputer}, {@code SleepDatabase}, {@code RestoreDatabase}); an answer is named
 * for what it shows, with a {@code View} suffix where the server has a stored record of the same
 * name ({@code ComputerView} is a {@code Computer} to a client).
 */
package dev.hearth.api;
