// Computers against a real server: exec, streaming, files, processes, operations, checkpoints,
// restore, forks, sleep and wake. Skipped when HEARTH_TEST_COMPUTERS=0 (a host that cannot run them).

import { describe, test as nodeTest, before, after } from "node:test";
import assert from "node:assert/strict";
import { Checkpoint, Computer, ExecResult, FileInfo, HearthError, NotFound, Operation } from "../index.js";
import { client, computersEnabled, destroyWorkspace, eventually, uniqueName } from "../testing/helpers.mjs";

const skip = computersEnabled ? false : "HEARTH_TEST_COMPUTERS=0";
const decoder = new TextDecoder();

describe("computers", () => {
  // Each test is skipped on its own, so the runner counts them as skipped.
  const test = (title, fn, options = {}) => nodeTest(title, { skip, ...options }, fn);
  const h = client();
  let ws;
  let c;

  before(async () => {
    if (skip) return;
    ws = await h.workspaces.create(uniqueName());
    c = await ws.computers.create("box", { image: "hearth/busybox", env: { A: "1", GREETING: "hello there" } });
  });

  after(async () => {
    await destroyWorkspace(ws);
  });

  test("create answers a ready computer with its fields in camelCase", async () => {
    assert.ok(c instanceof Computer);
    assert.equal(c.state, "ready");
    assert.equal(c.name, "box");
    assert.equal(c.workspace, ws.id);
    assert.deepEqual([...c.envKeys].sort(), ["A", "GREETING"]);
    assert.equal(c.generation, 1);
    assert.equal(typeof c.raw.resources.memory_mb, "number");
    assert.equal(c.resources.memoryMb, c.raw.resources.memory_mb);
    assert.equal((await ws.computers.get("box")).id, c.id);
    assert.equal((await h.computer(c.id)).name, "box");
  });

  test("exec answers stdout, stderr and the exit code", async () => {
    const r = await c.exec(["sh", "-c", 'echo "hi $A"; echo "$GREETING" >&2; exit 3']);
    assert.ok(r instanceof ExecResult);
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout, "hi 1\n");
    assert.equal(r.stderr, "hello there\n");
    assert.equal(r.timedOut, false);
    assert.equal(r.truncated, false);
    assert.equal(typeof r.durationMs, "number");
    const ok = await c.exec("pwd; echo $X", { cwd: "/tmp", env: { X: "extra" } });
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.stdout, "/tmp\nextra\n");
    const missing = await c.exec(["/no/such/program"]);
    assert.equal(missing.exitCode, 127);
  });

  test("exec stops a command at its timeout", async () => {
    const r = await c.exec(["sleep", "30"], { timeoutSeconds: 1 });
    assert.equal(r.timedOut, true);
    assert.notEqual(r.exitCode, 0);
  });

  test("exec sends stdin, bytes included, and base64 answers bytes", async () => {
    const text = await c.exec(["sh", "-c", "tr a-z A-Z"], { stdin: "quiet words" });
    assert.equal(text.stdout, "QUIET WORDS");
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const bin = await c.exec(["cat"], { stdin: all, encoding: "base64" });
    assert.ok(bin.stdout instanceof Uint8Array);
    assert.deepEqual(Buffer.from(bin.stdout), Buffer.from(all));
    const counted = await c.exec(["wc", "-c"], { stdin: all });
    assert.equal(counted.stdout.trim(), "256", "bytes stdin with text output");
  });

  test("execStream yields each piece of output as it is written, stdout and stderr", async () => {
    // The command waits for a file before each next step, and the test makes that file only once
    // the output before it has arrived: a stream that held output back (until more came, or until
    // the end) would leave the command waiting until its timeout, and the exit would say timedOut.
    const gate = `/tmp/go-${uniqueName()}`;
    const wait = (file) => `while [ ! -f ${file} ]; do sleep 0.1; done`;
    const command = `echo started; ${wait(`${gate}-1`)}; echo middle >&2; ${wait(`${gate}-2`)}; echo done; exit 0`;
    const events = [];
    for await (const ev of c.execStream(["sh", "-c", command], { timeoutSeconds: 30 })) {
      events.push(ev);
      const step = ev.type === "stdout" && ev.data === "started\n" ? 1 : ev.type === "stderr" && ev.data === "middle\n" ? 2 : 0;
      if (step) assert.equal((await c.exec(["touch", `${gate}-${step}`])).exitCode, 0);
    }
    assert.deepEqual(events.map((e) => [e.type, e.data ?? e.exitCode]),
      [["stdout", "started\n"], ["stderr", "middle\n"], ["stdout", "done\n"], ["exit", 0]]);
    assert.equal(events[3].timedOut, false);
    assert.equal(typeof events[3].durationMs, "number");
    assert.equal(events[3].raw.exit_code, 0);
  }, { timeout: 120_000 });

  test("execStream reports a non-zero exit and a timeout", async () => {
    const failed = [];
    for await (const ev of c.execStream("echo out; echo err >&2; exit 2")) failed.push(ev);
    assert.deepEqual(failed.map((e) => e.type).sort(), ["exit", "stderr", "stdout"]);
    assert.equal(failed.at(-1).type, "exit", "the exit comes last");
    assert.equal(failed.at(-1).exitCode, 2);
    const slow = [];
    for await (const ev of c.execStream(["sleep", "30"], { timeoutSeconds: 1 })) slow.push(ev);
    assert.equal(slow.at(-1).type, "exit");
    assert.equal(slow.at(-1).timedOut, true);
    assert.notEqual(slow.at(-1).exitCode, 0);
  });

  test("leaving an execStream loop early kills the command", async () => {
    const marker = `sleep 3${Math.floor(Math.random() * 90 + 10)}`;
    const running = async () => (await c.exec(["ps"])).stdout.includes(marker);
    const stream = c.execStream(["sh", "-c", `echo started; exec ${marker}`], { timeoutSeconds: 60 });
    for await (const ev of stream) {
      assert.equal(ev.data, "started\n");
      // The command runs, and ps can see it, before the loop is left.
      assert.ok(await eventually(running, 10_000, 100), `${marker} never showed in ps`);
      break;
    }
    const gone = await eventually(async () => !(await running()), 10_000, 300);
    assert.ok(gone, `${marker} still runs`);
  }, { timeout: 120_000 });

  test("files: a binary round trip of all 256 byte values, and list, info, move, remove", async () => {
    const bytes = Uint8Array.from({ length: 256 * 4 }, (_, i) => i % 256);
    const info = await c.files.write("/data/x.bin", bytes);
    assert.ok(info instanceof FileInfo);
    assert.equal(info.size, 1024);
    assert.equal(info.type, "file");
    const back = await c.files.read("/data/x.bin");
    assert.ok(back instanceof Uint8Array);
    assert.deepEqual(Buffer.from(back), Buffer.from(bytes));
    // The computer sees the same bytes.
    const sum = await c.exec(["sh", "-c", "od -An -tu1 -v /data/x.bin | tr -s ' ' '\\n' | grep -c ."]);
    assert.equal(sum.stdout.trim(), "1024");

    await c.files.write("/data/dir/sub/note.txt", "héllo\n", { mode: 0o600 });
    assert.equal(await c.files.readText("/data/dir/sub/note.txt"), "héllo\n");
    assert.equal((await c.files.info("/data/dir/sub/note.txt")).mode, "0600");
    await c.files.mkdir("/data/empty/deeper");
    const names = (await c.files.list("/data")).map((f) => f.name);
    assert.deepEqual(names.filter((n) => ["dir", "empty", "x.bin"].includes(n)), ["dir", "empty", "x.bin"]);
    await c.files.move("/data/dir/sub/note.txt", "/data/moved.txt");
    assert.equal(await c.files.exists("/data/dir/sub/note.txt"), false);
    assert.equal(await c.files.readText("/data/moved.txt"), "héllo\n");
    await c.files.remove("/data/dir", { recursive: true });
    await assert.rejects(c.files.read("/data/dir/sub/note.txt"), (e) => e instanceof NotFound && /^[0-9a-z]{27}$/.test(e.requestId));

    const stream = await c.files.stream("/data/x.bin");
    let total = 0;
    for await (const chunk of stream) total += chunk.length;
    assert.equal(total, 1024);
  });

  test("processes run in the background, take stdin and keep their output", async () => {
    const p = await c.processes.start(["sh", "-c", "read line; echo got $line; exit 4"], { stdin: true, tag: "reader" });
    assert.equal(p.state, "running");
    assert.equal(p.stdin, true);
    assert.equal(p.tag, "reader");
    await p.writeStdin("abc\n", { close: true });
    await p.wait();
    assert.equal(p.state, "exited");
    assert.equal(p.exitCode, 4);
    const out = [];
    for await (const ev of p.output()) out.push(ev);
    assert.deepEqual(out.map((e) => e.type), ["stdout", "exit"]);
    assert.equal(out[0].data, "got abc\n");
    assert.equal(out[1].exitCode, 4);
    const listed = await c.processes.list();
    assert.ok(listed.some((x) => x.pid === p.pid && x.tag === "reader"));
  });

  test("a process's output can be followed as it is written", async () => {
    // The process waits for a file (30 s at most) that the test makes only once "ready" has come.
    const gate = `/tmp/go-${uniqueName()}`;
    const p = await c.processes.start(["sh", "-c",
      `echo ready; i=0; while [ ! -f ${gate} ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; [ -f ${gate} ] && echo bye || echo gave-up; exit 5`]);
    const events = [];
    for await (const ev of p.output({ follow: true })) {
      events.push(ev);
      if (ev.type === "stdout" && ev.data === "ready\n") assert.equal((await c.exec(["touch", gate])).exitCode, 0);
    }
    assert.deepEqual(events.map((e) => [e.type, e.data ?? e.exitCode]), [["stdout", "ready\n"], ["stdout", "bye\n"], ["exit", 5]]);
    assert.equal((await p.refresh()).exitCode, 5);
  }, { timeout: 120_000 });

  test("a create that needs a pull follows its operation, and a failed one throws its error", async () => {
    await assert.rejects(ws.computers.create("nopull", { image: "127.0.0.1:1/nothing/here:latest" }), (e) => {
      assert.ok(e instanceof HearthError);
      assert.equal(e.code, "image_pull_failed");
      assert.equal(e.operation?.kind, "computer.create");
      assert.equal(e.operation?.state, "failed");
      return true;
    });
    const failed = await ws.computers.get("nopull");
    assert.equal(failed.state, "failed");
    assert.equal(failed.error.code, "image_pull_failed");
    await failed.delete();
  });

  test("checkpoint, restore and fork bring back the files as they were", async () => {
    await c.files.write("/data/state.txt", "version one");
    const ck = await c.checkpoints.create("v1");
    assert.ok(ck instanceof Checkpoint);
    assert.equal(ck.state, "ready", "the create operation was followed");
    assert.equal(ck.source, c.id);
    assert.equal(ck.sourceType, "computer");
    assert.ok(ck.sizeBytes > 0);

    await c.files.write("/data/state.txt", "version two");
    await c.exec(["sh", "-c", "echo later > /data/later.txt"]);
    const generation = c.generation;
    await c.restore(ck);
    assert.equal(c.generation, generation + 1);
    assert.equal(c.state, "ready");
    assert.equal(await c.files.readText("/data/state.txt"), "version one");
    assert.equal(await c.files.exists("/data/later.txt"), false);

    const fork = await ws.computers.create("fork", { fromCheckpoint: ck });
    assert.equal(fork.state, "ready");
    assert.equal(fork.parent, c.id);
    assert.equal(fork.fromCheckpoint, ck.id);
    assert.equal((await fork.exec(["cat", "/data/state.txt"])).stdout, "version one");
    assert.deepEqual([...fork.envKeys].sort(), ["A", "GREETING"]);
    await fork.files.write("/data/state.txt", "fork's own");
    assert.equal(await c.files.readText("/data/state.txt"), "version one", "forks diverge");

    const listed = [];
    for await (const x of ws.computers.list({ limit: 1 })) listed.push(x.name);
    assert.deepEqual(listed.sort(), ["box", "fork"]);

    await fork.delete();
    assert.ok(fork.deletedAt || fork.pending === "deleting");
    await assert.rejects(ws.computers.get("fork"), NotFound);
  });

  test("operations can be followed by hand: wait: false, then operations.wait()", async () => {
    const ck = await c.checkpoints.create("v2", { wait: false });
    assert.equal(ck.state, "creating");
    assert.equal(ck.operationIds.length, 1);
    const op = await h.operations.wait(ck.operationIds[0]);
    assert.ok(op instanceof Operation);
    assert.equal(op.state, "succeeded");
    assert.equal(op.kind, "checkpoint.create");
    assert.equal(op.resource, ck.id);
    assert.ok(op.completedAt);
    await ck.refresh();
    assert.equal(ck.state, "ready");
    const names = [];
    for await (const x of c.checkpoints.list()) names.push(x.name);
    assert.deepEqual(names, ["v2", "v1"], "newest first");
    await ck.delete();
    assert.ok(ck.deletedAt, "the delete operation was followed");
    assert.equal((await c.checkpoints.get(ck.id)).deletedAt, ck.deletedAt);
  });

  test("sleep and wake keep the files and the processes", async () => {
    await c.files.write("/data/sleepy.txt", "still here");
    const bg = await c.processes.start(["sh", "-c", "while true; do sleep 1; done"], { tag: "loop" });
    await c.sleep();
    assert.equal(c.state, "sleeping");
    assert.equal((await h.computer(c.id)).state, "sleeping");
    await c.wake();
    assert.equal(c.state, "ready");
    assert.equal(await c.files.readText("/data/sleepy.txt"), "still here");
    assert.equal((await bg.refresh()).state, "running", "background process survived the sleep");
    await bg.signal("KILL");
    // Exec on a sleeping computer wakes it first.
    await c.sleep();
    const r = await c.exec(["cat", "/data/sleepy.txt"]);
    assert.equal(r.stdout, "still here");
    assert.equal((await c.refresh()).state, "ready");
  });

  test("delete removes the computer", async () => {
    const tmp = await ws.computers.create("temp", { image: "hearth/busybox" });
    await tmp.delete();
    const gone = await h.computer(tmp.id);
    assert.ok(gone.deletedAt || gone.pending === "deleting");
    await assert.rejects(ws.computers.get("temp"), NotFound);
    await assert.rejects(tmp.exec(["true"]), (e) => e instanceof HearthError && e.status >= 400);
  });
});
