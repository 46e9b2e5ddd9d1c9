/**
 * The HTTP client of the API that the CLI and the tests use, so both see the API exactly as users
 * do: requests, token sources (key files, saved sessions) and answers turned into ApiException.
 */
package dev.hearth.client;
