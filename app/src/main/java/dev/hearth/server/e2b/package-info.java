/**
 * E2B's API on Hearth: the control plane E2B's SDK calls ({@code /sandboxes}, {@code /v2/sandboxes},
 * snapshots, ...) and the envd protocol it speaks inside every sandbox (Connect RPCs for processes
 * and files, {@code /files}, {@code /health}), translated onto computers. It is a client of Hearth's
 * own {@code /v1} API on this node (so relays between nodes, idempotency and access apply as to any
 * client) and keeps only what E2B needs beside it: which API key made a sandbox, and its template.
 */
package dev.hearth.server.e2b;
