/**
 * Databases: the API's rules (DatabaseService), the cluster side (ClusterSupervisor keeps each
 * cluster awake or asleep, DatabaseHost serves its port and pooler entry, ClusterReconciler
 * settles what an earlier Hearth left), the engine's assembly, and database checkpoints and
 * branches.
 */
package dev.hearth.server.databases;
