// Errors as classes, Idempotency-Key on every mutation, retries with the same key, Retry-After.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import {
  Conflict, HearthError, IdempotencyKeyReused, LastAdmin, MethodNotAllowed, NotEmpty, NotFound, ValidationError,
  ConnectionError, RateLimited,
} from "../index.js";
import { client, destroyWorkspace, envelope, recordingFetch, uniqueName } from "../testing/helpers.mjs";

const REQUEST_ID = /^[0-9a-z]{27}$/;
const h = client();
const created = [];

async function newWorkspace(h2 = h, options) {
  const ws = await h2.workspaces.create(uniqueName(), options);
  created.push(ws);
  return ws;
}

after(async () => {
  for (const ws of created) await destroyWorkspace(await h.workspace(ws.id).catch(() => null));
});

test("a missing workspace throws NotFound carrying the envelope the server sent", async () => {
  // Keep each error answer's body as it came, to compare with what the error carries.
  const bodies = [];
  const fetch = recordingFetch(async (url, init) => {
    const response = await globalThis.fetch(url, init);
    if (response.status >= 400) bodies.push(await response.clone().json());
    return response;
  });
  await assert.rejects(client({ fetch }).workspace(uniqueName("ts-missing")), (e) => {
    assert.ok(e instanceof NotFound && e instanceof HearthError);
    assert.ok(!(e instanceof Conflict));
    assert.equal(bodies.length, 1);
    const sent = bodies[0].error;
    assert.equal(e.code, "not_found");
    assert.equal(sent.code, "not_found");
    assert.equal(e.status, 404);
    assert.match(e.requestId, REQUEST_ID);
    assert.equal(e.requestId, sent.request_id);
    assert.ok(sent.message.length > 0);
    assert.equal(e.message, sent.message);
    assert.deepEqual(e.details, sent.details ?? {});
    return true;
  });
});

test("a bad name throws ValidationError naming the field", async () => {
  await assert.rejects(h.workspaces.create("Not_A_Label"), (e) => {
    assert.ok(e instanceof ValidationError);
    assert.equal(e.code, "invalid_request");
    assert.equal(e.status, 400);
    assert.ok(e.details.fields?.name, JSON.stringify(e.details));
    assert.match(e.requestId, REQUEST_ID);
    return true;
  });
});

test("every 409 is a Conflict: a taken name is Conflict itself, the others are subclasses", async () => {
  const ws = await newWorkspace();
  await assert.rejects(h.workspaces.create(ws.name), (e) => e.constructor === Conflict && e.code === "conflict" && e.status === 409);
  await ws.variables.create("one", "1");
  await assert.rejects(ws.delete(), (e) => {
    assert.equal(e.constructor, NotEmpty);
    assert.ok(e instanceof Conflict, "one catch (e instanceof Conflict) takes every 409");
    assert.equal(e.code, "not_empty");
    assert.equal(e.status, 409);
    assert.equal(e.details.variables, 1);
    assert.match(e.requestId, REQUEST_ID);
    return true;
  });
  // The caller is the workspace's only admin: removing its role would leave none.
  const me = await h.me();
  const mine = await ws.access.get(me.principal.id);
  assert.equal(mine.role, "admin");
  await assert.rejects(mine.remove(), (e) => {
    assert.equal(e.constructor, LastAdmin);
    assert.ok(e instanceof Conflict);
    assert.equal(e.code, "last_admin");
    assert.equal(e.status, 409);
    return true;
  });
  assert.equal((await ws.access.get(me.principal.id)).role, "admin", "the role is still there");
});

test("a method the route does not have throws MethodNotAllowed with details.allowed", async () => {
  await assert.rejects(h.request("PUT", "/workspaces", { json: {} }), (e) => {
    assert.ok(e instanceof MethodNotAllowed);
    assert.deepEqual([...e.details.allowed].sort(), ["GET", "POST"]);
    return true;
  });
});

test("the same Idempotency-Key gives the same resource; another body with it throws IdempotencyKeyReused", async () => {
  const key = `ts-key-${uniqueName()}`;
  const name = uniqueName();
  const first = await h.workspaces.create(name, { idempotencyKey: key });
  created.push(first);
  const again = await h.workspaces.create(name, { idempotencyKey: key });
  assert.equal(again.id, first.id);
  assert.equal(again.createdAt, first.createdAt);
  await assert.rejects(h.workspaces.create(uniqueName(), { idempotencyKey: key }), (e) => {
    assert.ok(e instanceof IdempotencyKeyReused);
    assert.equal(e.status, 422);
    return true;
  });
});

test("every mutation carries a fresh Idempotency-Key; reads carry none", async () => {
  const fetch = recordingFetch();
  const h2 = client({ fetch });
  const ws = await newWorkspace(h2);
  await ws.rename(uniqueName());
  await ws.refresh();
  const v = await ws.variables.create("x", "1");
  await v.update({ value: "2" });
  await v.delete();
  const api = fetch.calls.filter((c) => !c.url.endsWith("/auth/token"));
  const mutations = api.filter((c) => c.method !== "GET");
  assert.equal(mutations.length, 5);
  const keys = mutations.map((c) => c.headers["idempotency-key"]);
  assert.ok(keys.every((k) => /^[0-9a-f-]{36}$/.test(k)), keys.join());
  assert.equal(new Set(keys).size, keys.length, "a new key per call");
  const reads = api.filter((c) => c.method === "GET");
  assert.equal(reads.length, 1, "ws.refresh()");
  assert.ok(reads.every((c) => !("idempotency-key" in c.headers)));
});

test("a create whose answer is lost is retried with the same key and made once", async () => {
  const name = uniqueName();
  // The first POST reaches the server, but its answer is lost on the way back.
  const fetch = recordingFetch(async (url, init, attempt) => {
    if (init.method === "POST" && url.endsWith("/workspaces") && attempt === 0) {
      await globalThis.fetch(url, init);
      throw new TypeError("fetch failed", { cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) });
    }
    return undefined;
  });
  const h2 = client({ fetch });
  h2.transport.backoffMs = 50;
  const ws = await h2.workspaces.create(name);
  created.push(ws);
  const posts = fetch.calls.filter((c) => c.method === "POST" && c.url.endsWith("/workspaces"));
  assert.equal(posts.length, 2);
  assert.equal(posts[0].headers["idempotency-key"], posts[1].headers["idempotency-key"]);
  assert.equal(ws.name, name);
  // Made once: the retry answered the workspace the first try made (a second one of that name
  // could not have been made, and the retry would have thrown Conflict).
  const found = await h.workspace(name);
  assert.equal(found.id, ws.id);
  assert.equal(found.createdAt, ws.createdAt);
});

test("503 and 429 are retried after Retry-After, with the same key", async () => {
  const fetch = recordingFetch(async (url, init, attempt) => {
    if (init.method === "POST" && url.endsWith("/workspaces")) {
      if (attempt === 0) return envelope(503, "store_unavailable", "busy", { "retry-after": "1" });
      if (attempt === 1) return envelope(429, "rate_limited", "slow down", { "retry-after": "1" }, { retry_after_seconds: 1 });
    }
    return undefined;
  });
  const h2 = client({ fetch });
  const started = Date.now();
  const ws = await newWorkspace(h2);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 1900, `waited ${elapsed} ms, Retry-After said 1 s twice`);
  const posts = fetch.calls.filter((c) => c.method === "POST" && c.url.endsWith("/workspaces"));
  assert.equal(posts.length, 3);
  assert.equal(new Set(posts.map((c) => c.headers["idempotency-key"])).size, 1);
  assert.equal((await h.workspace(ws.id)).name, ws.name);
});

test("retries stop after maxRetries and throw the last error; a 400 is never retried", async () => {
  let tries = 0;
  const fetch = recordingFetch(async (url) => {
    if (url.endsWith("/me")) { tries++; return envelope(429, "rate_limited", "slow down", { "retry-after": "0" }); }
    return undefined;
  });
  const h2 = client({ fetch, maxRetries: 2 });
  await assert.rejects(h2.me(), (e) => e instanceof RateLimited && e.retryAfter === 0);
  assert.equal(tries, 3);

  const fetch2 = recordingFetch();
  const h3 = client({ fetch: fetch2 });
  await assert.rejects(h3.workspaces.create("Bad_Name"), ValidationError);
  assert.equal(fetch2.calls.filter((c) => c.method === "POST" && c.url.endsWith("/workspaces")).length, 1);
});

test("an unreachable server throws ConnectionError after its retries", async () => {
  // A port nobody listens on: take one, then let it go.
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  let tries = 0;
  const h2 = client({ url: `http://127.0.0.1:${port}/v1`, token: "t", maxRetries: 2, fetch: (u, i) => { tries++; return fetch(u, i); } });
  h2.transport.backoffMs = 10;
  await assert.rejects(h2.me(), (e) => e instanceof ConnectionError && e.code === "connection_failed" && /ECONNREFUSED/.test(e.message));
  assert.equal(tries, 3);
});

test("an error code the SDK does not know is a plain HearthError", async () => {
  const fetch = recordingFetch(async (url) => (url.endsWith("/me") ? envelope(409, "brand_new_code", "new to this SDK") : undefined));
  const h2 = client({ fetch });
  await assert.rejects(h2.me(), (e) => {
    assert.equal(e.constructor, HearthError);
    assert.equal(e.code, "brand_new_code");
    assert.equal(e.status, 409);
    assert.match(e.requestId, /^0fake/);
    return true;
  });
});
