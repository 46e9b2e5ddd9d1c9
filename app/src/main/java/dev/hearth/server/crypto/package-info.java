/**
 * Secrets at rest and in flight: the keyring that seals values with AES-256-GCM, random tokens
 * and digests, and the key pairs of private-key principals.
 */
package dev.hearth.server.crypto;
