// Shared by the tests (kept out of test/ so that node --test does not run it as a test file).

import { randomBytes } from "node:crypto";
import { Hearth } from "../index.js";

/** The server the tests run against: HEARTH_URL and HEARTH_KEY_FILE, as the CLI reads them. */
export function serverEnv() {
  const url = process.env.HEARTH_URL;
  const keyFile = process.env.HEARTH_KEY_FILE;
  if (!url || !keyFile) {
    throw new Error("set HEARTH_URL and HEARTH_KEY_FILE to a running Hearth server and its key file");
  }
  return { url, keyFile };
}

/** A client from the environment; `options` are passed to new Hearth(). */
export function client(options = {}) {
  serverEnv();
  return new Hearth(options);
}

/** A unique DNS-label name, so runs beside other clients of the same server never collide. */
export function uniqueName(prefix = "ts") {
  return `${prefix}-${randomBytes(5).toString("hex")}`;
}

export const computersEnabled = process.env.HEARTH_TEST_COMPUTERS !== "0";
export const databasesEnabled = process.env.HEARTH_TEST_DATABASES !== "0";

/**
 * Deletes a workspace and everything in it (computers, kept checkpoints, databases, variables,
 * images), ignoring what is already gone.
 */
export async function destroyWorkspace(ws) {
  if (!ws) return;
  const ignoreGone = (e) => { if (e?.code !== "not_found") throw e; };
  for await (const c of ws.computers.list()) {
    if (c.protected) await c.update({ protected: false }).catch(ignoreGone);
    await c.delete().catch(ignoreGone);
  }
  for await (const k of ws.checkpoints.list()) await k.delete().catch(ignoreGone);
  for await (const d of ws.databases.list()) {
    if (d.protected) await d.update({ protected: false }).catch(ignoreGone);
    await d.delete().catch(ignoreGone);
  }
  for await (const v of ws.variables.list()) await v.delete().catch(ignoreGone);
  for await (const i of ws.images.list()) await i.delete().catch(ignoreGone);
  await ws.delete().catch(ignoreGone);
}

/**
 * A fetch that records every request (method, url, headers) and lets a test change what happens:
 * `intercept(url, init, attempt)` may answer a Response, throw, or return undefined to pass through.
 */
export function recordingFetch(intercept = null) {
  const calls = [];
  const fn = async (input, init = {}) => {
    const url = String(input);
    const headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const call = { method: init.method ?? "GET", url, headers };
    calls.push(call);
    if (intercept) {
      const sameBefore = calls.filter((c) => c.method === call.method && c.url === url).length - 1;
      const answer = await intercept(url, init, sameBefore, call);
      if (answer !== undefined) return answer;
    }
    return globalThis.fetch(input, init);
  };
  fn.calls = calls;
  return fn;
}

/** An error answer in the API's envelope. */
export function envelope(status, code, message, extraHeaders = {}, details = {}) {
  const requestId = "0fake" + randomBytes(11).toString("hex");
  return new Response(JSON.stringify({ error: { code, message, details, request_id: requestId } }), {
    status,
    headers: { "content-type": "application/json", "x-request-id": requestId, ...extraHeaders },
  });
}

/** Polls `check` until it answers truthy or `ms` pass. */
export async function eventually(check, ms = 10_000, every = 200) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, every));
  }
}
