// Exec requests and streamed output: the body an exec sends, and NDJSON lines made events (shared by
// Computer.execStream, Computer.logs and Process.output).

import { errorFromOperation } from "./errors.js";
import { fromBase64, toBytes } from "./common.js";

/**
 * @param {string[]|string} command
 * @param {{env?: Record<string,string>, cwd?: string, stdin?: string|Uint8Array, timeoutSeconds?: number, encoding?: string,
 *   user?: string|number}} options
 */
export function execBody(command, options) {
  const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
  /** @type {Record<string, any>} */
  const json = { command: argv };
  if (options.env) json.env = options.env;
  if (options.cwd) json.cwd = options.cwd;
  if (options.user != null) json.user = String(options.user);
  if (options.timeoutSeconds != null) json.timeout_seconds = options.timeoutSeconds;
  let binaryOut = options.encoding === "base64";
  let textOut = false;
  if (options.stdin != null) {
    if (typeof options.stdin !== "string" || binaryOut) {
      // Bytes travel base64; the output then comes back base64 too, and is decoded as text
      // unless base64 was asked for.
      json.stdin = Buffer.from(toBytes(options.stdin)).toString("base64");
      textOut = !binaryOut;
      binaryOut = true;
    } else {
      json.stdin = options.stdin;
    }
  }
  if (binaryOut) json.encoding = "base64";
  return { json, binaryOut: binaryOut && !textOut, textOut };
}

/**
 * @param {any} line @param {boolean} binaryOut
 * @param {{stdout: TextDecoder, stderr: TextDecoder}|null} textDecoders base64 lines to decode as text
 */
export function streamEvent(line, binaryOut, textDecoders) {
  if (line.error) throw errorFromOperation({ kind: "exec", id: "", error: line.error });
  for (const type of /** @type {const} */ (["stdout", "stderr"])) {
    if (typeof line[type] === "string") {
      const data = textDecoders ? textDecoders[type].decode(fromBase64(line[type]), { stream: true })
        : binaryOut ? fromBase64(line[type]) : line[type];
      return { type, data, raw: line };
    }
  }
  if ("exit_code" in line) {
    return { type: "exit", exitCode: line.exit_code, timedOut: line.timed_out ?? false, durationMs: line.duration_ms ?? null, raw: line };
  }
  return { type: "other", raw: line };
}
