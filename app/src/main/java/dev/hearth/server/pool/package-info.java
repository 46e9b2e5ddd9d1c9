/**
 * The warm pool's values and rows: which images to keep booted sandboxes of and how many
 * ({@link PoolSettings}), one unclaimed sandbox ({@link PooledSandbox}) and where it is in its short
 * life ({@link PoolState}), and their table ({@link PoolStore}). Filling and claiming are the
 * computers' ({@code computers.WarmPool}).
 */
package dev.hearth.server.pool;
