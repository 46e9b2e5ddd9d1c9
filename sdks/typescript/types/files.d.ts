// Type declarations of src/files.js, written by hand (index.d.ts re-exports them).
// A computer's files.

import { Model } from "./common.js";
import { Computer } from "./computers.js";
import { Hearth } from "./hearth.js";

export class FileInfo extends Model {
  path: string;
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  size: number;
  mode: string;
  modifiedAt: string;
}

export type FileData = string | Uint8Array | ArrayBuffer | ArrayBufferView | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

export class Files {
  constructor(hearth: Hearth, computer: Computer);
  hearth: Hearth;
  computer: Computer;
  readonly path: string;
  read(path: string): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
  stream(path: string): Promise<ReadableStream<Uint8Array>>;
  write(path: string, data: FileData, options?: { mode?: string | number }): Promise<FileInfo>;
  info(path: string): Promise<FileInfo>;
  list(path: string): Promise<FileInfo[]>;
  exists(path: string): Promise<boolean>;
  remove(path: string, options?: { recursive?: boolean }): Promise<FileInfo>;
  move(from: string, to: string): Promise<FileInfo>;
  mkdir(path: string): Promise<FileInfo>;
  readArchive(path: string): Promise<Uint8Array>;
  writeArchive(path: string, tar: Uint8Array | ArrayBuffer): Promise<FileInfo>;
}
