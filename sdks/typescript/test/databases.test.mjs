// Databases against a real server: create, connection (checked with a raw TCP connect), sleep and
// wake, new credentials, checkpoints and branches. Skipped when HEARTH_TEST_DATABASES=0.

import { describe, test as nodeTest, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { Checkpoint, Conflict, Connection, Database, DatabaseRole, NotFound, PgDatabase, Protected, TimeTravel } from "../index.js";
import { client, databasesEnabled, destroyWorkspace, uniqueName } from "../testing/helpers.mjs";

const skip = databasesEnabled ? false : "HEARTH_TEST_DATABASES=0";

/**
 * Opens a TCP connection and sends PostgreSQL's SSLRequest; answers the server's one-byte reply
 * ("S": it speaks TLS, as a Hearth database does).
 */
function sslRequest(host, port) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer from ${host}:${port}`)); }, 15_000);
    socket.once("error", (e) => { clearTimeout(timer); reject(e); });
    socket.once("connect", () => {
      const packet = Buffer.alloc(8);
      packet.writeInt32BE(8, 0);
      packet.writeInt32BE(80877103, 4);
      socket.write(packet);
    });
    socket.once("data", (data) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(String.fromCharCode(data[0]));
    });
  });
}

describe("databases", () => {
  // Each test is skipped on its own, so the runner counts them as skipped.
  const test = (title, fn) => nodeTest(title, { skip }, fn);
  const h = client();
  let ws;
  let db;

  before(async () => {
    if (skip) return;
    ws = await h.workspaces.create(uniqueName());
    db = await ws.databases.create("app");
  });

  after(async () => {
    await destroyWorkspace(ws);
  });

  test("create answers the database, asleep, with its fields in camelCase", async () => {
    assert.ok(db instanceof Database);
    assert.equal(db.name, "app");
    assert.equal(db.workspace, ws.id);
    assert.equal(db.engine, "postgres");
    assert.equal(db.state, "sleeping");
    assert.equal(typeof db.port, "number");
    assert.equal(typeof db.raw.auto_sleep_seconds, "number");
    assert.equal(db.autoSleepSeconds, db.raw.auto_sleep_seconds);
    assert.equal((await ws.databases.get("app")).id, db.id);
    assert.equal((await h.database(db.id)).name, "app");
    const listed = [];
    for await (const d of ws.databases.list({ limit: 1 })) listed.push(d.id);
    assert.deepEqual(listed, [db.id]);
  });

  test("the connection's uri names a server that answers on its port", async () => {
    const conn = await db.connection();
    assert.ok(conn instanceof Connection);
    const uri = new URL(conn.uri);
    assert.equal(uri.protocol, "postgresql:");
    assert.equal(uri.username, "app");
    assert.equal(decodeURIComponent(uri.password), conn.password);
    assert.ok(conn.password.length >= 16 && conn.password !== "********");
    assert.equal(uri.pathname, "/app");
    assert.equal(uri.searchParams.get("sslmode"), "require");
    assert.equal(Number(uri.port), db.port);
    assert.equal(conn.port, db.port);
    assert.match(conn.serverCa, /BEGIN CERTIFICATE/);
    assert.match(conn.poolerUri, new RegExp(`/${db.id}\\?`));
    assert.equal(await sslRequest(uri.hostname, Number(uri.port)), "S");
  });

  test("wake, sleep and new credentials", async () => {
    const before = await db.connection();
    await db.wake();
    assert.equal(db.state, "ready");
    assert.equal((await h.database(db.id)).state, "ready");
    const reset = await db.resetCredentials();
    assert.notEqual(reset.password, before.password);
    assert.equal((await db.connection()).password, reset.password);
    await db.sleep();
    assert.equal(db.state, "sleeping");
  });

  test("a protected database is not deleted: Protected, a kind of Conflict", async () => {
    await db.update({ protected: true });
    assert.equal(db.protected, true);
    assert.equal(db.raw.protected, true);
    await assert.rejects(db.delete(), (e) => {
      assert.equal(e.constructor, Protected);
      assert.ok(e instanceof Conflict);
      assert.equal(e.code, "protected");
      assert.equal(e.status, 409);
      return true;
    });
    await db.update({ protected: false });
    assert.equal(db.protected, false);
    assert.equal((await h.database(db.id)).deletedAt, null, "still there");
  });

  test("a checkpoint is followed until ready, and a branch is made from it", async () => {
    const ck = await db.checkpoints.create("first");
    assert.ok(ck instanceof Checkpoint);
    assert.equal(ck.state, "ready");
    assert.equal(ck.sourceType, "database");
    assert.equal(ck.consistency, "consistent");
    assert.equal((await db.checkpoints.get("first")).id, ck.id);
    const branch = await ws.databases.create("branch", { fromCheckpoint: ck });
    assert.equal(branch.parent, db.id);
    assert.equal(branch.fromCheckpoint, ck.id);
    assert.notEqual(branch.port, db.port);
    const conn = await branch.connection();
    assert.equal(conn.user, "app", "a branch keeps the source's role");
    await branch.delete();
    await assert.rejects(ws.databases.get("branch"), NotFound);
    await ck.delete();
    assert.ok(ck.deletedAt);
  });

  test("a branch at a moment holds the commits made at or before it", async () => {
    const source = await ws.databases.create("moments");
    const history = await source.history();
    assert.ok(history.earliest, "the first base is made with the database");
    assert.equal(history.window_seconds, 86400);
    assert.ok(Array.isArray(await source.insights({ order: "mean", limit: 5 })));
    const branch = await ws.databases.create("then", { fromDatabase: source, at: new Date() });
    assert.equal(branch.parent, source.id);
    assert.equal(branch.state, "ready", "recovered to its moment as it was made");
    await branch.delete();
    const trip = await source.timeTravel(new Date(), { ttlSeconds: 120 });
    assert.ok(trip instanceof TimeTravel);
    assert.ok(trip.connection instanceof Connection);
    assert.equal(trip.database, source.id);
    assert.ok(trip.connection.password.length > 8, "the answer that opens it shows the password");
    const open = await source.timeTravels();
    assert.deepEqual(open.map((t) => [t.id, t.connection.password]), [[trip.id, "********"]]);
    await trip.end();
    assert.deepEqual(await source.timeTravels(), []);
    const { database, backup } = await source.restore(new Date());
    assert.equal(database, source);
    assert.equal(backup.parent, source.id);
    assert.ok(backup.name.startsWith("moments-before-"), backup.name);
    await backup.delete();
    await source.delete();
  });

  test("roles and databases inside it", async () => {
    const tenants = await ws.databases.create("tenants");
    const role = await tenants.roles.create("reporter");
    assert.ok(role instanceof DatabaseRole);
    assert.equal(role.name, "reporter");
    assert.equal(role.owner, false);
    assert.equal(role.connection.user, "reporter");
    assert.ok(role.connection.poolerUri.includes(`/${tenants.id}?`));
    assert.deepEqual((await tenants.roles.list()).map((r) => [r.name, r.owner]), [["reporter", false], ["tenants", true]]);
    const shelf = await tenants.pgDatabases.create("shelf", { owner: role });
    assert.ok(shelf instanceof PgDatabase);
    assert.deepEqual([shelf.name, shelf.ownerName, shelf.default], ["shelf", "reporter", false]);
    const first = role.connection.password;
    const fresh = await role.resetPassword();
    assert.notEqual(fresh.password, first);
    await assert.rejects(role.delete(), Conflict, "it owns shelf");
    await shelf.delete();
    assert.deepEqual((await tenants.pgDatabases.list()).map((d) => d.name), ["tenants"]);
    await role.delete();
    await assert.rejects(tenants.roles.get("tenants").delete(), Protected);
    await tenants.delete();
  });
});
