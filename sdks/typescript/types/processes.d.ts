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
  /** It runs on a terminal of its own (resize() changes its window). */
  pty: boolean;
  readonly path: string;
  refresh(): Promise<this>;
  signal(signal: "TERM" | "KILL" | "INT" | "HUP" | "QUIT" | "USR1" | "USR2" | "STOP" | "CONT" | string): Promise<this>;
  writeStdin(data: string | Uint8Array, options?: { close?: boolean }): Promise<this>;
  /** The window of a process started with `pty`; Conflict for others. */
  resize(cols: number, rows: number): Promise<this>;
  /** `fromNow`: none of the output kept, only what comes after. */
  output(options?: { follow?: boolean; fromNow?: boolean; encoding?: "utf-8" | "base64"; signal?: AbortSignal }): AsyncGenerator<StreamEvent, void, undefined>;
  /** Waits until it exits. */
  wait(): Promise<this>;
}

export interface ProcessStartOptions {
  env?: Record<string, string>;
  cwd?: string;
  tag?: string;
  stdin?: boolean;
  /** A user of the image's /etc/passwd (name or uid) to run it as; default root. */
  user?: string | number;
  /** A terminal of its own, `{cols, rows}` (true: 80x24): output as stdout, input always open. */
  pty?: boolean | { cols?: number; rows?: number };
  idempotencyKey?: string | null;
}

export class Processes {
  constructor(hearth: Hearth, computer: Computer);
  hearth: Hearth;
  computer: Computer;
  start(command: string[] | string, options?: ProcessStartOptions): Promise<Process>;
  list(): Promise<Process[]>;
  get(pid: number): Promise<Process>;
}
