// API keys against a real server: made with a secret shown once, used as a client's credential in
// their one workspace with their role, revoked. Needs no computers.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { ApiKey, Forbidden, Hearth, NotFound, StaticToken, Unauthorized, ValidationError } from "../index.js";
import { client, destroyWorkspace, serverEnv, uniqueName } from "../testing/helpers.mjs";

const { url } = serverEnv();
const h = client();
const created = [];
after(async () => {
  for (const ws of created) await destroyWorkspace(await h.workspace(ws.id).catch(() => null));
});

async function newWorkspace() {
  const ws = await h.workspaces.create(uniqueName());
  created.push(ws);
  return ws;
}

test("an API key acts in its workspace with its role until it is revoked", async () => {
  const ws = await newWorkspace();
  const { apiKey, secret } = await ws.apiKeys.create("ci", { role: "viewer", expiresInDays: 30 });
  assert.ok(apiKey instanceof ApiKey);
  assert.match(secret, /^hk_[0-9a-f]{64}$/);
  assert.deepEqual([apiKey.name, apiKey.role, apiKey.state, apiKey.prefix, apiKey.workspace],
    ["ci", "viewer", "active", secret.slice(0, 8), ws.id]);
  assert.ok(apiKey.expiresAt);
  assert.ok(!JSON.stringify(apiKey).includes(secret), "the object never holds the secret");
  const listed = [];
  for await (const k of ws.apiKeys.list({ limit: 1 })) listed.push(k.id);
  assert.deepEqual(listed, [apiKey.id]);
  assert.equal((await ws.apiKeys.get(apiKey.id)).name, "ci");

  const asKey = new Hearth({ url, apiKey: secret, env: {} });
  assert.ok(asKey.auth instanceof StaticToken);
  const seen = [];
  for await (const w of asKey.workspaces.list()) seen.push(w.id);
  assert.deepEqual(seen, [ws.id], "the key sees its one workspace");
  assert.equal((await asKey.workspace(ws.id)).name, ws.name);
  const fromEnv = new Hearth({ env: { HEARTH_URL: url, HEARTH_API_KEY: secret } });
  assert.equal((await fromEnv.me()).principal.id, (await h.me()).principal.id, "it acts as its maker");
  assert.ok((await apiKey.refresh()).lastUsedAt, "its use is noted");
  await assert.rejects((await asKey.workspace(ws.id)).variables.create("nope", "1"), Forbidden, "a viewer");
  await assert.rejects(asKey.workspaces.create(uniqueName()), Forbidden, "keys may not make workspaces");
  const other = await newWorkspace();
  await assert.rejects(asKey.workspace(other.id), NotFound, "other workspaces do not exist for it");

  await apiKey.revoke();
  assert.equal(apiKey.state, "revoked");
  assert.ok(apiKey.revokedAt);
  await assert.rejects(asKey.workspace(ws.id), (e) => e instanceof Unauthorized && e.status === 401 && e.code === "unauthenticated");
  assert.equal((await ws.apiKeys.get(apiKey.id)).state, "revoked");
});

test("an editor's key edits; revoke by id; roles are checked", async () => {
  const ws = await newWorkspace();
  const { apiKey, secret } = await ws.apiKeys.create("deploy", { role: "editor" });
  assert.equal(apiKey.expiresAt, null, "no expiry unless asked");
  const asKey = new Hearth({ url, apiKey: secret, env: {} });
  const made = await (await asKey.workspace(ws.id)).variables.create("by-key", "v");
  assert.equal((await ws.variables.get(made.id)).value, "v");
  assert.equal((await ws.apiKeys.revoke(apiKey.id)).state, "revoked");
  await assert.rejects(asKey.workspace(ws.id), Unauthorized);
  await assert.rejects(ws.apiKeys.create("bad", { role: "owner" }), ValidationError);
});

test("filters and kept checkpoints answer without any computer", async () => {
  const ws = await newWorkspace();
  const computers = [];
  for await (const c of ws.computers.list({ labels: { team: "web", "a.b/c": "1" }, state: ["ready", "sleeping"] })) computers.push(c);
  assert.deepEqual(computers, []);
  await assert.rejects((async () => { for await (const _ of ws.computers.list({ state: "dozing" })) { /* none */ } })(), ValidationError);
  const kept = [];
  for await (const k of ws.checkpoints.list()) kept.push(k);
  assert.deepEqual(kept, []);
  await assert.rejects(ws.checkpoints.get("00000000000000000000000000a"), NotFound);
});
