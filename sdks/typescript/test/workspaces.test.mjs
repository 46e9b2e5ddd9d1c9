// Workspaces and variables: objects in camelCase with raw JSON, lookups by name and id, every page.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { NotFound, Workspace, Variable } from "../index.js";
import { client, destroyWorkspace, recordingFetch, uniqueName } from "../testing/helpers.mjs";

const h = client();
const created = [];
after(async () => {
  for (const ws of created) await destroyWorkspace(await h.workspace(ws.id).catch(() => null));
});

test("a workspace is found by name and by id, renamed, and deleted", async () => {
  const name = uniqueName();
  const ws = await h.workspaces.create(name);
  created.push(ws);
  assert.ok(ws instanceof Workspace);
  assert.match(ws.id, /^[0-9a-z]{27}$/);
  assert.equal(ws.name, name);
  assert.equal(ws.state, "active");
  assert.equal(ws.deletedAt, null);
  assert.equal(ws.createdAt, ws.raw.created_at, "camelCase fields, raw JSON kept");
  assert.deepEqual(JSON.parse(JSON.stringify(ws)), ws.raw);
  assert.equal((await h.workspace(name)).id, ws.id);
  assert.equal((await h.workspaces.get(ws.id)).name, name);

  const renamed = uniqueName();
  await ws.rename(renamed);
  assert.equal(ws.name, renamed);
  assert.equal((await h.workspace(renamed)).id, ws.id);
  await assert.rejects(h.workspace(name), NotFound);

  await ws.delete();
  assert.ok(ws.deletedAt, "deletedAt set");
  await assert.rejects(h.workspace(ws.id), NotFound);
});

test("list goes through every page (limit 1)", async () => {
  const mine = [];
  for (let i = 0; i < 3; i++) {
    const ws = await h.workspaces.create(uniqueName());
    created.push(ws);
    mine.push(ws.id);
  }
  const fetch = recordingFetch();
  const h2 = client({ fetch });
  const seen = [];
  for await (const ws of h2.workspaces.list({ limit: 1 })) {
    assert.ok(ws instanceof Workspace);
    seen.push(ws.id);
  }
  for (const id of mine) assert.ok(seen.includes(id), `${id} listed`);
  assert.equal(new Set(seen).size, seen.length, "no workspace twice");
  const pages = fetch.calls.filter((c) => c.method === "GET" && c.url.includes("/workspaces?"));
  assert.ok(pages.length >= 3, `${pages.length} pages`);
  assert.ok(pages.every((c) => new URL(c.url).searchParams.get("limit") === "1"));
  assert.ok(pages.slice(1).every((c) => new URL(c.url).searchParams.get("cursor")), "later pages pass the cursor");
  // Ids are ordered by creation, and pages keep that order.
  assert.deepEqual(seen.filter((id) => mine.includes(id)), mine);
});

test("variables: create, list over pages in order, update, soft delete", async () => {
  const ws = await h.workspaces.create(uniqueName());
  created.push(ws);
  const names = ["a1", "b2", "c3", "d4", "e5"];
  const vars = [];
  for (const n of names) vars.push(await ws.variables.create(n, `value-${n}`));
  assert.ok(vars[0] instanceof Variable);
  assert.equal(vars[0].value, "value-a1");
  assert.equal(vars[0].workspace, ws.id);

  const fetch = recordingFetch();
  const wsViaRecorder = await client({ fetch }).workspace(ws.id);
  const listed = [];
  for await (const v of wsViaRecorder.variables.list({ limit: 2 })) listed.push(v.name);
  assert.deepEqual(listed, names);
  assert.equal(fetch.calls.filter((c) => c.url.includes("/variables?")).length, 3, "5 items, 2 a page: 3 pages");

  const b = await ws.variables.get("b2");
  assert.equal(b.id, vars[1].id);
  await b.update({ value: "changed" });
  assert.equal((await ws.variables.get(b.id)).value, "changed");
  await b.delete();
  assert.ok(b.deletedAt);
  const live = [];
  for await (const v of ws.variables.list()) live.push(v.name);
  assert.deepEqual(live, ["a1", "c3", "d4", "e5"]);
  const all = [];
  for await (const v of ws.variables.list({ deleted: true })) all.push(v.name);
  assert.deepEqual(all.sort(), names);
});

test("me() names the caller and its workspaces", async () => {
  const ws = await h.workspaces.create(uniqueName());
  created.push(ws);
  const me = await h.me();
  assert.equal(me.principal.id, h.auth.keyFile.principal);
  const entry = me.workspaces.find((w) => w.workspace.id === ws.id);
  assert.equal(entry?.role, "admin");
  assert.equal(entry.workspace.createdAt, ws.createdAt);
});
