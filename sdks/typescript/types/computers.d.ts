// Type declarations of src/computers.js, written by hand (index.d.ts re-exports them).
// Computers, exec and streamed output.

import { Checkpoint, Checkpoints } from "./checkpoints.js";
import { ErrorInfo, ListOptions, Model, MutationOptions, WaitOptions } from "./common.js";
import { Files } from "./files.js";
import { Hearth } from "./hearth.js";
import { Processes } from "./processes.js";
import { Workspace } from "./workspaces.js";

export interface Port { published: number; target: number; protocol: string; private: boolean; url: string }
export interface Resources { cpus: number; memoryMb: number; pids: number; diskMb: number }
export interface Network { internet: boolean; allowOut: string[]; denyOut: string[] }

export class Computer extends Model {
  id: string;
  workspace: string;
  name: string;
  state: "creating" | "ready" | "sleeping" | "failed";
  pending: string | null;
  /** How a sleeping computer sleeps: "warm" (frozen in memory) or "cold" (memory on disk); null unless sleeping. */
  sleepMode: "warm" | "cold" | null;
  image: string;
  imageDigest: string | null;
  ports: Port[];
  url: string;
  envKeys: string[];
  envVars: { name: string; source: string; missing: boolean }[];
  resources: Resources;
  generation: number;
  protected: boolean;
  autoSleepSeconds: number | null;
  /** Whether it is frozen (no CPU, still ready) while idle; false keeps its timers running. */
  freezeWhenIdle: boolean;
  network: Network;
  entrypoint: string[] | null;
  command: string[] | null;
  restart: string;
  /** The owner's names and values, as given (keys are not camelCased); `{}` if none. */
  labels: Record<string, string>;
  /** When its lifetime ends; null: it lives until deleted. */
  expiresAt: string | null;
  /** What the end of its lifetime does. */
  onExpire: "delete" | "sleep";
  mainExit: { exitCode: number; endedAt: string } | null;
  parent: string | null;
  fromCheckpoint: string | null;
  /** The node that runs it (`local` on a single machine). */
  node: string;
  error: ErrorInfo;
  /** While its agent does not answer Hearth's health request (swamped or stopped); null otherwise. */
  /** Since when it has been frozen while idle (the next request or packet thaws it); null while it runs. */
  frozenSince: string | null;
  unresponsiveSince: string | null;
  createdAt: string;
  updatedAt: string;
  lastStartedAt: string | null;
  lastActiveAt: string | null;
  deletedAt: string | null;
  readonly path: string;
  readonly files: Files;
  readonly checkpoints: Checkpoints;
  readonly processes: Processes;
  refresh(): Promise<this>;
  update(changes: ComputerChanges, options?: MutationOptions): Promise<this>;
  delete(options?: MutationOptions): Promise<this>;
  /** Follows the `computer.sleep` operation when the server answers 202. */
  sleep(options?: WaitOptions): Promise<this>;
  wake(options?: MutationOptions): Promise<this>;
  /** Rolls back to a ready checkpoint of its own (object, id or name). */
  restore(checkpoint: Checkpoint | string, options?: MutationOptions & { timeoutMs?: number }): Promise<this>;
  exec(command: string[] | string, options?: ExecOptions & { encoding?: "utf-8" }): Promise<ExecResult<string>>;
  exec(command: string[] | string, options: ExecOptions & { encoding: "base64" }): Promise<ExecResult<Uint8Array>>;
  execStream(command: string[] | string, options?: ExecOptions & { encoding?: "utf-8" }): AsyncGenerator<StreamEvent<string>, void, undefined>;
  execStream(command: string[] | string, options: ExecOptions & { encoding: "base64" }): AsyncGenerator<StreamEvent<Uint8Array>, void, undefined>;
  logs(options?: { follow?: boolean; encoding?: "utf-8" | "base64"; signal?: AbortSignal }): AsyncGenerator<StreamEvent, void, undefined>;
  metrics(): Promise<ComputerMetrics>;
  /** A sample every 5 s of the last hour it was awake, oldest first. */
  metricsHistory(options?: { since?: Date | string; until?: Date | string }): Promise<MetricsSample[]>;
}

export interface ComputerChanges {
  name?: string;
  env?: Record<string, string | { secret: string } | null>;
  ports?: { target: number; published?: number; protocol?: string; private?: boolean }[];
  protected?: boolean;
  autoSleepSeconds?: number | null;
  freezeWhenIdle?: boolean;
  network?: Partial<Network>;
  resources?: Partial<Resources>;
  entrypoint?: string[] | null;
  command?: string[] | null;
  restart?: "always" | "on-failure" | "never" | null;
  /** Merged into its labels; a label set to null is removed. */
  labels?: Record<string, string | null>;
  /** When its lifetime ends (after now, at most a year ahead); null ends the lifetime. */
  expiresAt?: Date | string | null;
  onExpire?: "delete" | "sleep";
}

export interface ComputerCreateOptions extends ComputerChanges, WaitOptions {
  image?: string;
  /** A ready checkpoint (object or id) to fork from. */
  fromCheckpoint?: Checkpoint | string;
}

export interface ExecOptions {
  env?: Record<string, string>;
  /** Default: the image's working directory, or the user's home with `user`. */
  cwd?: string;
  /** A user of the image's /etc/passwd (name or uid) to run it as; default root. */
  user?: string | number;
  /** Text, or bytes (sent base64). */
  stdin?: string | Uint8Array;
  timeoutSeconds?: number;
  encoding?: "utf-8" | "base64";
  /** Default: a new key, so a retry after a lost answer gets the first run's result (and a hang-up does not kill the command); null: none. */
  idempotencyKey?: string | null;
  signal?: AbortSignal;
}

export class ExecResult<T extends string | Uint8Array = string> extends Model {
  exitCode: number;
  stdout: T;
  stderr: T;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

export type StreamEvent<T extends string | Uint8Array = string> =
  | { type: "stdout"; data: T; raw: any }
  | { type: "stderr"; data: T; raw: any }
  | { type: "exit"; exitCode: number; timedOut: boolean; durationMs: number | null; raw: any }
  | { type: "other"; raw: any };

export interface MetricsSample {
  at: string;
  cpuSeconds: number;
  /** Its share of its CPUs since the sample before (100: all busy); null for a first sample. */
  cpuPercent: number | null;
  memoryBytes: number;
  memoryLimitBytes: number;
  diskUsedBytes: number;
  diskSizeBytes: number | null;
}

export interface ComputerListOptions extends ListOptions {
  /** Only computers with every label given. */
  labels?: Record<string, string>;
  /** Only computers in one of these states. */
  state?: Computer["state"] | Computer["state"][] | string;
  /** Only computers whose name or image contains this text (any letter case). */
  search?: string;
}

export interface ComputerMetrics {
  computer: string;
  state: string;
  cpuSeconds: number | null;
  memoryBytes: number | null;
  processes: number | null;
  /** Processes its agent ended because it was out of memory, since it last started. */
  memoryKills: number | null;
  lastMemoryKill: { pid: number; command: string; bytes: number; at: string } | null;
  diskUsedBytes: number;
  diskSizeBytes: number | null;
  measuredAt: string;
}

export class Computers {
  constructor(hearth: Hearth, workspace: Workspace);
  hearth: Hearth;
  workspace: Workspace;
  /** Answers it ready (follows the `computer.create` operation of a 202). */
  create(name: string, options?: ComputerCreateOptions): Promise<Computer>;
  get(idOrName: string): Promise<Computer>;
  list(options?: ComputerListOptions): AsyncGenerator<Computer, void, undefined>;
}
