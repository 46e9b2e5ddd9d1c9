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
  /** As `ls -l` shows them, e.g. `-rw-r--r--`. */
  permissions: string;
  uid: number;
  gid: number;
  /** The owner's name in the image's /etc/passwd, else the number. */
  owner: string;
  /** The group's name in the image's /etc/group, else the number. */
  group: string;
  modifiedAt: string;
  /** A symlink's target as written; null for anything else. */
  symlinkTarget: string | null;
}

/** A change in a watched directory; `name` is relative to it; `rename` names the old name (the new one comes as `create`). */
export interface FileEvent {
  name: string;
  type: "create" | "write" | "remove" | "rename" | "chmod";
  dir: boolean;
}

/** A watch of a directory: `for await` over it; `close()` ends it (a loop over it ends too). */
export class FileWatch {
  constructor(lines: AsyncGenerator<any>, controller: AbortController, path: string | null);
  /** The directory watched. */
  readonly path: string | null;
  readonly closed: boolean;
  close(): void;
  [Symbol.asyncIterator](): AsyncGenerator<FileEvent, void, undefined>;
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
  /** `owner`: a user of the image who owns the file and the parents made (default root). */
  write(path: string, data: FileData, options?: { mode?: string | number; owner?: string }): Promise<FileInfo>;
  info(path: string): Promise<FileInfo>;
  list(path: string): Promise<FileInfo[]>;
  exists(path: string): Promise<boolean>;
  remove(path: string, options?: { recursive?: boolean }): Promise<FileInfo>;
  move(from: string, to: string): Promise<FileInfo>;
  mkdir(path: string, options?: { owner?: string }): Promise<FileInfo>;
  /** Answers once the watch is set; then yields events until closed. */
  watch(path: string, options?: { recursive?: boolean; signal?: AbortSignal }): Promise<FileWatch>;
  readArchive(path: string): Promise<Uint8Array>;
  writeArchive(path: string, tar: Uint8Array | ArrayBuffer): Promise<FileInfo>;
}
