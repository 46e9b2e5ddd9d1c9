/**
 * Disks of a size: sparse files holding ext4 file systems, loop-mounted where a computer or a
 * database keeps its files, so that what runs there meets ENOSPC and the host's disk never fills.
 */
package dev.hearth.server.disks;
