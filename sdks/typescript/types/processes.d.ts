// Type declarations of src/processes.js, written by hand (index.d.ts re-exports them).
// A computer's background processes.

import { Model } from "./common.js";
import { Computer, StreamEvent } from "./computers.js";
import { Hearth } from "./hearth.js";

export class Process extends Model {
  constructor(hearth: Hearth, raw: any, computer: Computer);
  readonly computer: Computer;
  pid: number;
  tag: string;
  command: string[];
  state: "running" | "exited";
  exitCode: number | null;
  startedAt: string;
  endedAt: string | null;
  /** Whether it takes input now (write with writeStdin()). */
  stdin: boolean;
  readonly path: string;
  refresh(): Promise<this>;
  signal(signal: "TERM" | "KILL" | "INT" | "HUP" | "QUIT" | "USR1" | "USR2" | "STOP" | "CONT" | string): Promise<this>;
  writeStdin(data: string | Uint8Array, options?: { close?: boolean }): Promise<this>;
  output(options?: { follow?: boolean; encoding?: "utf-8" | "base64"; signal?: AbortSignal }): AsyncGenerator<StreamEvent, void, undefined>;
  /** Waits until it exits. */
  wait(): Promise<this>;
}

export class Processes {
  constructor(hearth: Hearth, computer: Computer);
  hearth: Hearth;
  computer: Computer;
  start(command: string[] | string, options?: { env?: Record<string, string>; cwd?: string; tag?: string; stdin?: boolean; idempotencyKey?: string | null }): Promise<Process>;
  list(): Promise<Process[]>;
  get(pid: number): Promise<Process>;
}
