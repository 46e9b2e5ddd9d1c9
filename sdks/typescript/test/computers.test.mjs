// Computers against a real server: exec, streaming, files, processes, operations, checkpoints,
// restore, forks, sleep and wake. Skipped when HEARTH_TEST_COMPUTERS=0 (a host that cannot run them).

import { describe, test as nodeTest, before, after } from "node:test";
import assert from "node:assert/strict";
import { Checkpoint, Computer, Conflict, ExecResult, FileInfo, FileWatch, HearthError, NotFound, Operation, ValidationError } from "../index.js";
import { client, computersEnabled, destroyWorkspace, eventually, uniqueName } from "../testing/helpers.mjs";

const skip = computersEnabled ? false : "HEARTH_TEST_COMPUTERS=0";
const decoder = new TextDecoder();
// hearth/busybox's /etc/passwd holds root only: the tests add a user of their own.
const ADD_TESTER = "grep -q '^tester:' /etc/passwd || { echo 'tester:x:1000:1000::/home/tester:/bin/sh' >> /etc/passwd; "
  + "echo 'tester:x:1000:' >> /etc/group; }; mkdir -p /home/tester";

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
    const listed = [];
    for await (const o of h.operations.list(ws, { resource: ck.id, state: "succeeded" })) listed.push(o.id);
    assert.deepEqual(listed, [op.id]);
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

  const addTester = async () => assert.equal((await c.exec(ADD_TESTER)).exitCode, 0);

  test("labels filter lists, PATCH merges them, and a lifetime that ends deletes the computer", async () => {
    const soon = new Date(Date.now() + 3600_000);
    const l = await ws.computers.create("labelled", { image: "hearth/busybox", labels: { team: "web", tier: "1" }, expiresAt: soon, onExpire: "sleep" });
    try {
      assert.deepEqual(l.labels, { team: "web", tier: "1" });
      assert.equal(l.onExpire, "sleep");
      assert.ok(Math.abs(Date.parse(l.expiresAt) - soon.getTime()) < 1000, l.expiresAt);
      const box = await ws.computers.get("box");
      assert.deepEqual([box.labels, box.expiresAt, box.onExpire], [{}, null, "delete"], "the defaults");
      const names = async (options) => { const out = []; for await (const x of ws.computers.list(options)) out.push(x.name); return out; };
      assert.deepEqual(await names({ labels: { team: "web" } }), ["labelled"]);
      assert.deepEqual(await names({ labels: { team: "web", tier: "2" } }), []);
      assert.deepEqual(await names({ labels: { tier: "1" }, state: ["ready", "sleeping"] }), ["labelled"]);
      assert.deepEqual(await names({ labels: { tier: "1" }, state: "sleeping" }), []);
      assert.deepEqual(await names({ search: "LABEL" }), ["labelled"]);

      await l.update({ labels: { tier: null, new: "x" }, expiresAt: null });
      assert.deepEqual([l.labels, l.expiresAt, l.onExpire], [{ team: "web", new: "x" }, null, "sleep"]);
      assert.deepEqual((await h.computer(l.id)).labels, { team: "web", new: "x" });

      // The server checks lifetimes every second.
      await l.update({ expiresAt: new Date(Date.now() + 2000), onExpire: "delete" });
      assert.equal(l.onExpire, "delete");
      assert.ok(await eventually(async () => (await h.computer(l.id)).deletedAt, 30_000, 500), "it outlived its lifetime");
    } finally {
      if (!(await l.refresh()).deletedAt) await l.delete();
    }
  }, { timeout: 120_000 });

  test("exec runs as a user of the image", async () => {
    assert.equal((await c.exec("id -u", { user: "root" })).stdout, "0\n");
    await addTester();
    const r = await c.exec('id -u; id -g; echo "$HOME $USER"; pwd', { user: "tester" });
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, "1000\n1000\n/home/tester tester\n/home/tester\n");
    assert.equal((await c.exec("pwd", { user: "tester", cwd: "/tmp" })).stdout, "/tmp\n");
    assert.equal((await c.exec(["id", "-u"], { user: 1000 })).stdout, "1000\n");
    const events = [];
    for await (const ev of c.execStream("id -u", { user: "tester" })) events.push(ev);
    assert.deepEqual([events[0].data, events.at(-1).exitCode], ["1000\n", 0]);
    const missing = await c.exec("true", { user: "nobody-here" });
    assert.equal(missing.exitCode, 127);
    assert.match(missing.stderr, /\/etc\/passwd/);
  });

  test("a process runs as a user", async () => {
    await addTester();
    const p = await c.processes.start('id -u; echo "$HOME"', { user: "tester" });
    assert.equal(p.pty, false);
    await p.wait();
    assert.equal(p.exitCode, 0);
    let out = "";
    for await (const ev of p.output()) if (ev.type === "stdout") out += ev.data;
    assert.equal(out, "1000\n/home/tester\n");
    await assert.rejects(c.processes.start("true", { user: "nobody-here" }), ValidationError);
  });

  test("a process on a terminal of its own is resized", async () => {
    // It prints its window, waits for a line, prints it again: the test resizes it only once the
    // first size came, and sends the line only then.
    const p = await c.processes.start("stty size; read line; stty size", { pty: { cols: 100, rows: 30 }, tag: "term" });
    assert.deepEqual([p.pty, p.state], [true, "running"]);
    let text = "";
    let resized = false;
    let exit = null;
    for await (const ev of p.output({ follow: true })) {
      if (ev.type === "stdout") text += ev.data;
      if (ev.type === "exit") exit = ev.exitCode;
      if (!resized && text.includes("30 100")) {
        assert.equal((await p.resize(120, 40)).pty, true);
        await p.writeStdin("go\n");
        resized = true;
      }
    }
    assert.equal(exit, 0);
    assert.deepEqual([...text.matchAll(/(\d+) (\d+)/g)].map((m) => [m[1], m[2]]), [["30", "100"], ["40", "120"]]);
    const plain = await c.processes.start("sleep 30");
    try {
      await assert.rejects(plain.resize(80, 24), Conflict, "no terminal to resize");
    } finally {
      await plain.signal("KILL");
    }
  }, { timeout: 120_000 });

  test("output fromNow leaves out what came before", async () => {
    const p = await c.processes.start("i=0; while [ $i -lt 600 ]; do echo tick$i; i=$((i+1)); sleep 0.1; done");
    try {
      const kept = async () => { let t = ""; for await (const ev of p.output()) if (ev.type === "stdout") t += ev.data; return t; };
      assert.ok(await eventually(async () => (await kept()).includes("tick0\n"), 30_000, 300));
      let first = null;
      for await (const ev of p.output({ follow: true, fromNow: true })) { first = ev; break; }
      assert.equal(first.type, "stdout");
      assert.match(first.data, /^tick\d+\n/);
      assert.ok(!first.data.startsWith("tick0\n"), first.data);
      assert.ok((await kept()).startsWith("tick0\n"), "without it: from the start");
    } finally {
      await p.signal("KILL");
    }
  });

  test("files: owners, permissions, symlinks", async () => {
    await addTester();
    const info = await c.files.write("/data/owned/deep/f.txt", "mine", { owner: "tester", mode: 0o640 });
    assert.deepEqual([info.uid, info.gid, info.owner, info.group, info.permissions, info.symlinkTarget],
      [1000, 1000, "tester", "tester", "-rw-r-----", null]);
    assert.equal((await c.files.info("/data/owned/deep")).owner, "tester", "the parents made are the owner's");
    const made = await c.files.mkdir("/data/owned-dir/sub", { owner: "tester" });
    assert.deepEqual([made.type, made.owner, made.uid], ["dir", "tester", 1000]);
    assert.equal((await c.files.info("/data/owned-dir")).owner, "tester");
    assert.equal((await c.exec("stat -c %u /data/owned/deep/f.txt")).stdout, "1000\n");
    const plain = await c.files.write("/data/plain.txt", "x");
    assert.deepEqual([plain.uid, plain.owner, plain.group, plain.permissions], [0, "root", "root", "-rw-r--r--"]);
    assert.equal((await c.exec("ln -sf plain.txt /data/link")).exitCode, 0);
    const link = await c.files.info("/data/link");
    assert.deepEqual([link.type, link.symlinkTarget], ["symlink", "plain.txt"]);
    await assert.rejects(c.files.write("/data/x.txt", "x", { owner: "nobody-here" }), ValidationError);
    await assert.rejects(c.files.mkdir("/data/y", { owner: "nobody-here" }), ValidationError);
  });

  test("a watch yields what happens in a directory, its new subdirectories too, until closed", async () => {
    await c.files.mkdir("/data/watched");
    const watch = await c.files.watch("/data/watched", { recursive: true });
    assert.ok(watch instanceof FileWatch);
    assert.equal(watch.path, "/data/watched");
    const events = watch[Symbol.asyncIterator]();
    // Each change is made only once the watch answered the one before: nothing can be missed.
    const until = async (name, type) => {
      const seen = [];
      for (;;) {
        const { value, done } = await events.next();
        assert.ok(!done, `the watch ended before ${name} ${type}; saw ${JSON.stringify(seen)}`);
        seen.push([value.name, value.type, value.dir]);
        if (value.name === name && value.type === type) return seen;
      }
    };
    try {
      await c.files.write("/data/watched/a.txt", "1");
      assert.deepEqual((await until("a.txt", "write")).find((e) => e[1] === "create"), ["a.txt", "create", false]);
      await c.files.mkdir("/data/watched/sub");
      assert.deepEqual((await until("sub", "create")).at(-1), ["sub", "create", true]);
      await c.files.write("/data/watched/sub/b.txt", "2");
      assert.deepEqual((await until("sub/b.txt", "write")).find((e) => e[1] === "create"), ["sub/b.txt", "create", false]);
      await c.files.remove("/data/watched/a.txt");
      assert.deepEqual((await until("a.txt", "remove")).at(-1), ["a.txt", "remove", false]);
    } finally {
      watch.close();
    }
    assert.equal((await events.next()).done, true, "closed: it ends");
    await assert.rejects(c.files.watch("/data/no-such-dir"), NotFound);

    const quiet = await c.files.watch("/data/watched");
    setTimeout(() => quiet.close(), 300);
    for await (const ev of quiet) assert.fail(`nothing happened, yet ${JSON.stringify(ev)}`);
  }, { timeout: 120_000 });

  test("a kept checkpoint outlives its computer and is deleted through the workspace", async () => {
    const src = await ws.computers.create("template-src", { image: "hearth/busybox" });
    let ck;
    try {
      await src.files.write("/data/t.txt", "template");
      ck = await src.checkpoints.create("tpl", { keep: true });
      const plain = await src.checkpoints.create("plain");
      assert.deepEqual([ck.state, ck.kept, plain.kept], ["ready", true, false]);
      const kept = [];
      for await (const x of ws.checkpoints.list()) if (x.source === src.id) kept.push(x.id);
      assert.deepEqual(kept, [ck.id]);
    } finally {
      await src.delete();
    }
    const keptIds = async () => { const out = []; for await (const x of ws.checkpoints.list()) out.push(x.id); return out; };
    assert.ok((await keptIds()).includes(ck.id));
    assert.equal((await ws.checkpoints.get(ck.id)).name, "tpl");
    assert.equal((await ck.refresh()).kept, true);
    const fork = await ws.computers.create("from-template", { fromCheckpoint: ck });
    try {
      assert.equal(await fork.files.readText("/data/t.txt"), "template");
    } finally {
      await fork.delete();
    }
    await ck.delete();
    assert.ok(ck.deletedAt, "the delete operation was followed");
    assert.ok(!(await keptIds()).includes(ck.id));
  }, { timeout: 180_000 });

  test("metrics history: a sample every 5 s while awake, filtered by time", async () => {
    const samples = await eventually(async () => { const s = await c.metricsHistory(); return s.length ? s : null; }, 30_000, 1000);
    assert.ok(samples, "no sample in 30 s");
    const last = samples.at(-1);
    assert.equal(last.memoryLimitBytes, 512 * 1024 * 1024);
    assert.ok(last.memoryBytes > 0);
    assert.ok(last.cpuSeconds >= 0);
    assert.deepEqual(samples.map((x) => x.at), samples.map((x) => x.at).sort(), "oldest first");
    assert.deepEqual((await c.metricsHistory({ since: last.at }))[0], last);
    assert.deepEqual(await c.metricsHistory({ since: new Date(Date.parse(last.at) + 7200_000) }), []);
    assert.deepEqual((await c.metricsHistory({ until: samples[0].at })).at(-1), samples[0]);
  }, { timeout: 60_000 });

  test("delete removes the computer", async () => {
    const tmp = await ws.computers.create("temp", { image: "hearth/busybox" });
    await tmp.delete();
    const gone = await h.computer(tmp.id);
    assert.ok(gone.deletedAt || gone.pending === "deleting");
    await assert.rejects(ws.computers.get("temp"), NotFound);
    await assert.rejects(tmp.exec(["true"]), (e) => e instanceof HearthError && e.status >= 400);
  });
});
