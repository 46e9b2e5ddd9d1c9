// What the newer calls send and how their answers are read, against a scripted fetch (no server):
// API keys as credentials, labels and lifetimes, users, terminals, owners, watches, kept
// checkpoints, metrics history.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Checkpoint, Computer, FileWatch, Hearth, Workspace } from "../index.js";

/** A client whose fetch answers `answers` in order (JSON objects, or Responses) and records what was sent. */
function scripted(answers, options = {}) {
  const sent = [];
  const fetch = async (url, init = {}) => {
    sent.push({ method: init.method, url: decodeURIComponent(String(url).replace("http://hearth.test/v1", "")), headers: init.headers,
      body: typeof init.body === "string" ? JSON.parse(init.body) : init.body });
    const next = answers.shift() ?? {};
    if (next instanceof Response) return next;
    return new Response(JSON.stringify(next.body ?? next), { status: next.status ?? 200, headers: { "content-type": "application/json" } });
  };
  return { h: new Hearth({ url: "http://hearth.test/v1", token: "t", fetch, env: {}, ...options }), sent };
}

const ndjson = (...lines) => new Response(lines.map((l) => JSON.stringify(l) + "\n").join(""), { headers: { "content-type": "application/x-ndjson" } });

test("an API key is the bearer token, from the options or HEARTH_API_KEY; HEARTH_TOKEN still wins", async () => {
  const seen = [];
  const fetch = async (url, init) => { seen.push(init.headers.authorization); return new Response("{}", { headers: { "content-type": "application/json" } }); };
  await new Hearth({ url: "http://hearth.test/v1", apiKey: "hk_arg", fetch, env: { HEARTH_KEY_FILE: "/nonexistent" } }).me();
  await new Hearth({ fetch, env: { HEARTH_URL: "http://hearth.test/v1", HEARTH_API_KEY: "hk_env", HEARTH_KEY_FILE: "/nonexistent" } }).me();
  await new Hearth({ fetch, env: { HEARTH_URL: "http://hearth.test/v1", HEARTH_API_KEY: "hk_env", HEARTH_TOKEN: "tok" } }).me();
  assert.deepEqual(seen, ["Bearer hk_arg", "Bearer hk_env", "Bearer tok"]);
});

test("labels are sent and read as given, lifetimes as timestamps, list filters repeat", async () => {
  const computer = { id: "c1", labels: { my_label: "x", "app.io/Name": "y" }, expires_at: null, on_expire: "delete" };
  const { h, sent } = scripted([{ status: 201, body: { computer, operations: [] } }, { computer, operations: [] },
    { computers: [computer], has_more: false }]);
  const ws = new Workspace(h, { id: "w1" });
  const at = new Date("2030-01-02T03:04:05.678Z");
  const c = await ws.computers.create("b", { image: "i", labels: { my_label: "x", "app.io/Name": "y" }, expiresAt: at, onExpire: "sleep" });
  assert.deepEqual(c.labels, { my_label: "x", "app.io/Name": "y" }, "label names are not camelCased");
  assert.equal(c.onExpire, "delete");
  await c.update({ labels: { myLabel: null }, expiresAt: null });
  const listed = [];
  for await (const x of ws.computers.list({ labels: { team: "web", "a/b": "1" }, state: ["ready", "sleeping"], limit: 5 })) listed.push(x.id);
  assert.deepEqual(listed, ["c1"]);
  assert.deepEqual(sent[0].body, { name: "b", image: "i", labels: { my_label: "x", "app.io/Name": "y" }, expires_at: "2030-01-02T03:04:05.678Z", on_expire: "sleep" });
  assert.deepEqual(sent[1].body, { labels: { myLabel: null }, expires_at: null });
  assert.equal(sent[2].url, "/workspaces/w1/computers?label=team=web&label=a/b=1&state=ready,sleeping&limit=5");
});

test("exec and processes as a user, on a terminal, resized, output from now", async () => {
  const process = { pid: 7, state: "running", pty: true, stdin: true };
  const { h, sent } = scripted([{ exit_code: 0, stdout: "", stderr: "" }, { status: 201, body: { process, operations: [] } },
    { process, operations: [] }, ndjson({ stdout: "x" })]);
  const c = new Computer(h, { id: "c1" });
  await c.exec("id", { user: "tester" });
  const p = await c.processes.start(["sh"], { user: 1000, pty: { cols: 100, rows: 30 } });
  assert.equal(p.pty, true);
  await p.resize(120, 40);
  const out = [];
  for await (const ev of p.output({ fromNow: true })) out.push(ev.data);
  assert.deepEqual(out, ["x"]);
  assert.equal(sent[0].body.user, "tester");
  assert.deepEqual(sent[1].body, { command: ["sh"], user: "1000", pty: { cols: 100, rows: 30 } });
  assert.deepEqual(sent[2].body, { cols: 120, rows: 40 });
  assert.deepEqual(sent.map((s) => `${s.method} ${s.url}`), ["POST /computers/c1/exec", "POST /computers/c1/processes",
    "POST /computers/c1/processes/7/resize", "GET /computers/c1/processes/7/output?from=now"]);
});

test("a watch answers once it watches, yields events, and ends when closed", async () => {
  const { h, sent } = scripted([ndjson({ watching: "/data" }, { name: "a.txt", type: "create", dir: false }, { name: "d", type: "remove", dir: true })]);
  const watch = await new Computer(h, { id: "c1" }).files.watch("/data", { recursive: true });
  assert.ok(watch instanceof FileWatch);
  assert.equal(watch.path, "/data");
  const events = [];
  for await (const ev of watch) events.push(ev);
  assert.deepEqual(events, [{ name: "a.txt", type: "create", dir: false }, { name: "d", type: "remove", dir: true }]);
  assert.equal(sent[0].url, "/computers/c1/files/watch?path=/data&recursive=true");

});

test("a watch of a quiet directory waits until close() ends it, without an error", async () => {
  // A real HTTP server that says it watches and then stays quiet.
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    res.write('{"watching":"/q"}\n');
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const h = new Hearth({ url: `http://127.0.0.1:${server.address().port}/v1`, token: "t", env: {} });
    const idle = await new Computer(h, { id: "c1" }).files.watch("/q");
    assert.equal(idle.path, "/q");
    setTimeout(() => idle.close(), 100);
    const none = [];
    for await (const ev of idle) none.push(ev);
    assert.deepEqual(none, []);
    assert.equal(idle.closed, true);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("owners, kept checkpoints through the workspace, API keys and metrics history", async () => {
  const kept = { id: "k1", workspace: "w1", source_type: "computer", source: "c1", kept: true, state: "ready" };
  const { h, sent } = scripted([{ file: { path: "/d/f", owner: "tester", symlink_target: null }, operations: [] },
    { file: { path: "/d" }, operations: [] }, { status: 202, body: { checkpoint: kept, operations: [] } },
    { status: 202, body: { checkpoint: { ...kept, state: "deleting" }, operations: [] } },
    { checkpoints: [kept], has_more: false },
    { status: 201, body: { api_key: { id: "a1", workspace: "w1", name: "ci" }, secret: "hk_s", operations: [] } },
    { api_key: { id: "a1", workspace: "w1", state: "revoked" }, operations: [] },
    { samples: [{ at: "t", cpu_seconds: 1.5, cpu_percent: null, memory_limit_bytes: 5 }] }]);
  const c = new Computer(h, { id: "c1" });
  const f = await c.files.write("/d/f", "x", { owner: "tester" });
  assert.deepEqual([f.owner, f.symlinkTarget], ["tester", null]);
  await c.files.mkdir("/d", { owner: "tester" });
  const ck = await c.checkpoints.create("t", { keep: true, wait: false });
  assert.ok(ck instanceof Checkpoint && ck.kept);
  await ck.delete({ wait: false });
  const ws = new Workspace(h, { id: "w1" });
  const listed = [];
  for await (const x of ws.checkpoints.list()) listed.push(x.id);
  assert.deepEqual(listed, ["k1"]);
  const { apiKey, secret } = await ws.apiKeys.create("ci", { role: "viewer", expiresInDays: 7 });
  assert.deepEqual([apiKey.id, secret], ["a1", "hk_s"]);
  await apiKey.revoke();
  assert.equal(apiKey.state, "revoked");
  const samples = await c.metricsHistory({ since: new Date("2030-01-01T00:00:00Z") });
  assert.deepEqual(samples, [{ at: "t", cpuSeconds: 1.5, cpuPercent: null, memoryLimitBytes: 5 }]);
  assert.deepEqual(sent.map((s) => `${s.method} ${s.url}`), ["PUT /computers/c1/files?path=/d/f&owner=tester",
    "POST /computers/c1/files/mkdir", "POST /computers/c1/checkpoints", "DELETE /workspaces/w1/checkpoints/k1",
    "GET /workspaces/w1/checkpoints", "POST /workspaces/w1/api_keys", "DELETE /workspaces/w1/api_keys/a1",
    "GET /computers/c1/metrics/history?since=2030-01-01T00:00:00.000Z"]);
  assert.deepEqual(sent[1].body, { path: "/d", owner: "tester" });
  assert.deepEqual(sent[2].body, { name: "t", keep: true });
  assert.deepEqual(sent[5].body, { name: "ci", role: "viewer", expires_in_days: 7 });
});
