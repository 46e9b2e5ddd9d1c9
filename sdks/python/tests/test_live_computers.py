"""Against a real server that runs computers (skipped with HEARTH_TEST_COMPUTERS=0)."""

import datetime
import hashlib
import io
import os
import re
import tarfile
import threading
import time
import uuid

from support import LiveWorkspaceCase, needs_computers

import hearth

IMAGE = "hearth/busybox"
ALL_BYTES = bytes(range(256))
# hearth/busybox's /etc/passwd holds root only: the tests add a user of their own.
ADD_TESTER = ("grep -q '^tester:' /etc/passwd || { echo 'tester:x:1000:1000::/home/tester:/bin/sh' >> /etc/passwd; "
              "echo 'tester:x:1000:' >> /etc/group; }; mkdir -p /home/tester")


def parse_time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def eventually(check, seconds: float = 30.0, every: float = 0.5):
    """Polls ``check`` until it answers something truthy (answered) or the time is up (its last answer)."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(every)


@needs_computers
class ComputerTest(LiveWorkspaceCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            cls.c = cls.ws.computers.create("box", image=IMAGE, env={"A": "1"})
        except Exception:
            cls.tearDownClass()
            raise

    def test_create_answers_a_ready_computer(self):
        c = self.ws.computers.get("box")
        self.assertEqual((self.c.id, "ready", IMAGE), (c.id, c.state, c.image))
        self.assertEqual(["A"], c.env_keys)
        self.assertIn(self.c.id, [x.id for x in self.ws.computers.list()])
        self.assertEqual((1, 512), (c.resources["cpus"], c.resources["memory_mb"]))  # the defaults

    def test_exec_output_and_exit_code(self):
        r = self.c.exec(["sh", "-c", "echo hi $A; echo oops >&2; exit 3"])
        self.assertEqual((3, "hi 1\n", "oops\n", False), (r.exit_code, r.stdout, r.stderr, r.timed_out))
        self.assertFalse(r.ok)
        r = self.c.exec("cat; pwd; echo $B", stdin="in:", cwd="/tmp", env={"B": "2"})
        self.assertEqual((0, "in:/tmp\n2\n"), (r.exit_code, r.stdout))
        self.assertEqual(127, self.c.exec(["no-such-command"]).exit_code)

    def test_exec_is_binary_safe(self):
        r = self.c.exec(["cat"], stdin=ALL_BYTES)
        self.assertEqual(ALL_BYTES, r.stdout)
        self.assertEqual(b"", r.stderr)

    def test_exec_timeout(self):
        r = self.c.exec(["sleep", "30"], timeout_seconds=1)
        self.assertTrue(r.timed_out)
        self.assertEqual(137, r.exit_code)
        self.assertLess(r.duration_ms, 10_000)

    def test_exec_stream_delivers_each_write_as_it_is_made(self):
        # Each line is written only after the test has received the one before it and answered it
        # (by creating the file the command waits for), so the stream can only finish if every
        # write reaches the client while the command still runs. A write held back until the next
        # one would leave the command waiting until its 30 s timeout.
        gate1, gate2 = (f"/tmp/go-{uuid.uuid4().hex}" for _ in range(2))
        script = (f"echo started; while [ ! -f {gate1} ]; do sleep 0.1; done; echo waiting >&2; "
                  f"while [ ! -f {gate2} ]; do sleep 0.1; done; echo done")
        seen = []
        stream = self.c.exec_stream(["sh", "-c", script], timeout_seconds=30)
        try:
            for event in stream:
                seen.append((event.kind, event.text if event.exit_code is None else event.exit_code))
                gate = {("stdout", "started\n"): gate1, ("stderr", "waiting\n"): gate2}.get(seen[-1])
                if gate:
                    self.assertEqual(0, self.c.exec(["touch", gate]).exit_code)
                    seen.append(("touched", gate))
                if event.exit_code is not None:
                    self.assertFalse(event.timed_out, f"the command waited in vain; got {seen}")
        finally:
            stream.close()
        self.assertEqual([("stdout", "started\n"), ("touched", gate1), ("stderr", "waiting\n"), ("touched", gate2),
                          ("stdout", "done\n"), ("exit", 0)], seen)

    def test_exec_stream_answers_the_exit_code(self):
        events = list(self.c.exec_stream("echo out; echo err >&2; exit 5"))
        # stdout and stderr are separate pipes: their order is not fixed
        self.assertEqual({("stdout", "out\n"), ("stderr", "err\n")}, {(e.kind, e.text) for e in events[:-1]})
        self.assertEqual(3, len(events))
        self.assertEqual((5, False), (events[-1].exit_code, events[-1].timed_out))
        self.assertIsInstance(events[-1].duration_ms, int)

    def test_exec_stream_of_bytes(self):
        events = list(self.c.exec_stream(["cat"], stdin=ALL_BYTES))
        self.assertEqual(ALL_BYTES, b"".join(e.stdout for e in events if e.stdout is not None))
        self.assertEqual(0, events[-1].exit_code)

    def test_files_round_trip_every_byte(self):
        info = self.c.files.write("/data/bytes/all.bin", ALL_BYTES)
        self.assertEqual(("/data/bytes/all.bin", "file", 256), (info.path, info.type, info.size))
        self.assertEqual(ALL_BYTES, self.c.files.read("/data/bytes/all.bin"))
        r = self.c.exec(["sha256sum", "/data/bytes/all.bin"])
        self.assertEqual(hashlib.sha256(ALL_BYTES).hexdigest(), r.stdout.split()[0])

    def test_large_file_streams_both_ways(self):
        blob = os.urandom(3 * 1024 * 1024 + 7)
        info = self.c.files.write("/tmp/big.bin", io.BytesIO(blob), mode=0o600)
        self.assertEqual((len(blob), "0600"), (info.size, info.mode))
        out = io.BytesIO()
        self.assertEqual(len(blob), self.c.files.download("/tmp/big.bin", out))
        self.assertEqual(blob, out.getvalue())

    def test_file_operations(self):
        files = self.c.files
        files.mkdir("/data/ops/sub")
        files.write("/data/ops/a.txt", "héllo")
        self.assertEqual(["a.txt", "sub"], [f.name for f in files.list("/data/ops")])
        self.assertEqual("dir", files.info("/data/ops/sub").type)
        files.move("/data/ops/a.txt", "/data/ops/sub/b.txt")
        self.assertFalse(files.exists("/data/ops/a.txt"))
        self.assertEqual("héllo".encode(), files.read("/data/ops/sub/b.txt"))
        with self.assertRaises(hearth.Conflict):
            files.remove("/data/ops")  # not empty
        self.assertEqual("dir", files.remove("/data/ops", recursive=True).type)
        with self.assertRaises(hearth.NotFound) as ctx:
            files.read("/data/ops/sub/b.txt")
        self.assertEqual(404, ctx.exception.status)
        self.assertRegex(ctx.exception.request_id, r"^[0-9a-z]{27}$")
        with self.assertRaises(hearth.ValidationError):
            files.read("relative/path")

    def test_archives(self):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            entry = tarfile.TarInfo("t/one.txt")
            entry.size = 3
            tar.addfile(entry, io.BytesIO(b"one"))
        self.c.files.write_archive("/data/arch", buf.getvalue())
        self.assertEqual(b"one", self.c.files.read("/data/arch/t/one.txt"))
        with tarfile.open(fileobj=io.BytesIO(self.c.files.read_archive("/data/arch"))) as tar:
            self.assertIn("t/one.txt", [m.name.lstrip("./") for m in tar.getmembers()])

    def test_checkpoint_restore_and_fork(self):
        self.c.files.write("/data/state.txt", b"v1")
        generation = self.c.refresh().generation
        ck = self.c.checkpoints.create("before")
        self.assertEqual(("ready", "before", self.c.id, "crash"), (ck.state, ck.name, ck.source, ck.consistency))
        self.assertGreater(ck.size_bytes, 0)
        self.assertIn(ck.id, [x.id for x in self.c.checkpoints.list()])
        self.assertEqual(ck.id, self.c.checkpoints.get("before").id)

        self.c.files.write("/data/state.txt", b"v2")
        self.c.restore(ck)
        self.assertEqual(("ready", generation + 1), (self.c.state, self.c.generation))
        self.assertEqual(b"v1", self.c.files.read("/data/state.txt"))

        fork = self.ws.computers.create("fork", from_checkpoint=ck)
        try:
            self.assertEqual(("ready", self.c.id, ck.id, 1), (fork.state, fork.parent, fork.from_checkpoint,
                                                              fork.generation))
            self.assertEqual(b"v1", fork.files.read("/data/state.txt"))
            fork.files.write("/data/state.txt", b"fork")
            self.assertEqual(b"v1", self.c.files.read("/data/state.txt"))
            self.assertEqual("hi 1\n", fork.exec("echo hi $A").stdout)
        finally:
            fork.delete()
        self.assertIsNotNone(fork.deleted_at)
        with self.assertRaises(hearth.NotFound):
            self.ws.computers.get("fork")

    def test_operations_are_followed(self):
        ck = self.c.checkpoints.create(wait=False)
        self.assertEqual("creating", ck.state)
        self.assertEqual(1, len(ck.operation_ids))
        op = self.h.operations.wait(ck.operation_ids[0], timeout=120)
        self.assertEqual(("succeeded", "checkpoint.create", ck.id), (op.state, op.kind, op.resource))
        self.assertIsNotNone(op.completed_at)
        listed = list(self.h.operations.list(self.ws, resource=ck.id))
        self.assertEqual([op.id], [x.id for x in listed])
        self.assertEqual("ready", ck.refresh().state)
        ck.delete()
        self.assertIsNotNone(ck.deleted_at)
        self.assertNotIn(ck.id, [x.id for x in self.c.checkpoints.list()])

    def test_a_failed_operation_raises_its_error(self):
        # A registry on localhost that is not there: the pull fails in the computer.create operation.
        with self.assertRaises(hearth.OperationFailed) as ctx:
            self.ws.computers.create("badimage", image="127.0.0.1:9/none/none:1", timeout=120)
        e = ctx.exception
        self.assertEqual("image_pull_failed", e.code)
        self.assertEqual(("failed", "computer.create"), (e.operation.state, e.operation.kind))
        self.assertEqual(("failed", "image_pull_failed"), (e.resource.state, e.resource.error["code"]))
        self.assertEqual(e.resource.id, self.ws.computers.get("badimage").id)
        e.resource.delete()

    def test_sleep_and_wake(self):
        self.c.files.write("/data/keep.txt", b"kept")
        self.c.sleep()
        self.assertEqual("sleeping", self.c.state)
        self.assertEqual("sleeping", self.h.computer(self.c.id).state)
        self.c.wake()
        self.assertEqual("ready", self.c.state)
        self.assertEqual(b"kept", self.c.files.read("/data/keep.txt"))
        self.c.sleep()
        self.assertEqual("ok\n", self.c.exec("echo ok").stdout)  # an exec wakes it
        self.assertEqual("ready", self.c.refresh().state)

    def test_background_process_with_stdin(self):
        p = self.c.processes.start("read x; echo got $x", stdin=True, tag="reader")
        self.assertEqual(("running", "reader", True), (p.state, p.tag, p.stdin))
        p.write_stdin("hello\n", close=True)
        self.assertEqual(0, p.wait())
        self.assertEqual("got hello\n", "".join(e.stdout or "" for e in p.output()))
        self.assertEqual("exited", p.state)

    def add_tester(self) -> None:
        self.assertEqual(0, self.c.exec(ADD_TESTER).exit_code)

    def test_labels_filters_and_lifetime(self):
        soon = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
        c = self.ws.computers.create("labelled", image=IMAGE, labels={"team": "web", "tier": "1"}, expires_at=soon,
                                     on_expire="sleep")
        try:
            self.assertEqual(({"team": "web", "tier": "1"}, "sleep"), (c.labels, c.on_expire))
            self.assertLess(abs((parse_time(c.expires_at) - soon).total_seconds()), 1)
            box = self.ws.computers.get("box")
            self.assertEqual(({}, None, "delete"), (box.labels, box.expires_at, box.on_expire))  # the defaults
            self.assertEqual(["labelled"], [x.name for x in self.ws.computers.list(labels={"team": "web"})])
            self.assertEqual([], list(self.ws.computers.list(labels={"team": "web", "tier": "2"})))
            self.assertEqual(["labelled"], [x.name for x in self.ws.computers.list(labels={"tier": "1"},
                                                                                   state=["ready", "sleeping"])])
            self.assertEqual([], list(self.ws.computers.list(labels={"tier": "1"}, state="sleeping")))
            self.assertEqual(["labelled"], [x.name for x in self.ws.computers.list(search="LABEL")])

            c.update(labels={"tier": None, "new": "x"}, expires_at=None)  # labels merge; None removes one
            self.assertEqual(({"team": "web", "new": "x"}, None, "sleep"), (c.labels, c.expires_at, c.on_expire))
            self.assertEqual({"team": "web", "new": "x"}, self.h.computer(c.id).labels)

            # A lifetime that ends deletes the computer (the server checks every second).
            c.update(expires_at=datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=2),
                     on_expire="delete")
            self.assertEqual("delete", c.on_expire)
            self.assertTrue(eventually(lambda: self.h.computer(c.id).deleted_at is not None),
                            "the computer outlived its lifetime")
        finally:
            if c.refresh().deleted_at is None:
                c.delete()

    def test_exec_as_a_user(self):
        self.assertEqual("0\n", self.c.exec("id -u", user="root").stdout)
        self.add_tester()
        r = self.c.exec('id -u; id -g; echo "$HOME $USER"; pwd', user="tester")
        self.assertEqual((0, "1000\n1000\n/home/tester tester\n/home/tester\n"), (r.exit_code, r.stdout))
        self.assertEqual("/tmp\n", self.c.exec("pwd", user="tester", cwd="/tmp").stdout)
        self.assertEqual("1000\n", self.c.exec(["id", "-u"], user="1000").stdout)
        events = list(self.c.exec_stream("id -u", user="tester"))
        self.assertEqual(("1000\n", 0), (events[0].stdout, events[-1].exit_code))
        missing = self.c.exec("true", user="nobody-here")
        self.assertEqual(127, missing.exit_code)
        self.assertIn("/etc/passwd", missing.stderr)

    def test_a_process_runs_as_a_user(self):
        self.add_tester()
        p = self.c.processes.start('id -u; echo "$HOME"', user="tester")
        self.assertFalse(p.pty)
        self.assertEqual(0, p.wait())
        self.assertEqual("1000\n/home/tester\n", "".join(e.stdout or "" for e in p.output()))
        with self.assertRaises(hearth.ValidationError):
            self.c.processes.start("true", user="nobody-here")

    def test_a_process_on_a_terminal_is_resized(self):
        # It prints its window, waits for a line, prints it again: the test resizes it only once
        # the first size came, and sends the line only then.
        p = self.c.processes.start("stty size; read line; stty size", pty=(100, 30), tag="term")
        self.assertEqual((True, "running"), (p.pty, p.state))
        text, resized = "", False
        for event in p.output(follow=True):
            text += event.stdout or ""
            if not resized and "30 100" in text:
                self.assertTrue(p.resize(120, 40).pty)
                p.write_stdin("go\n")
                resized = True
            if event.exit_code is not None:
                self.assertEqual(0, event.exit_code)
        self.assertEqual([("30", "100"), ("40", "120")], re.findall(r"(\d+) (\d+)", text))
        plain = self.c.processes.start("sleep 30")
        try:
            with self.assertRaises(hearth.Conflict):  # no terminal to resize
                plain.resize(80, 24)
        finally:
            plain.signal("KILL")

    def test_output_from_now_leaves_out_what_came_before(self):
        p = self.c.processes.start("i=0; while [ $i -lt 600 ]; do echo tick$i; i=$((i+1)); sleep 0.1; done")

        def kept() -> str:
            return "".join(e.stdout or "" for e in p.output())

        try:
            self.assertTrue(eventually(lambda: "tick0\n" in kept()))
            stream = p.output(follow=True, from_now=True)
            try:
                first = next(stream)
            finally:
                stream.close()
            self.assertRegex(first.stdout, r"^tick\d+\n")
            self.assertFalse(first.stdout.startswith("tick0\n"), first.stdout)
            self.assertTrue(kept().startswith("tick0\n"))  # without it: from the start
        finally:
            p.signal("KILL")

    def test_files_owner_and_details(self):
        self.add_tester()
        info = self.c.files.write("/data/owned/deep/f.txt", b"mine", owner="tester", mode=0o640)
        self.assertEqual((1000, 1000, "tester", "tester", "-rw-r-----", None),
                         (info.uid, info.gid, info.owner, info.group, info.permissions, info.symlink_target))
        self.assertEqual("tester", self.c.files.info("/data/owned/deep").owner)  # the parents made are the owner's
        made = self.c.files.mkdir("/data/owned-dir/sub", owner="tester")
        self.assertEqual(("dir", "tester", 1000), (made.type, made.owner, made.uid))
        self.assertEqual("tester", self.c.files.info("/data/owned-dir").owner)
        self.assertEqual("1000\n", self.c.exec("stat -c %u /data/owned/deep/f.txt").stdout)
        plain = self.c.files.write("/data/plain.txt", b"x")
        self.assertEqual((0, "root", "root", "-rw-r--r--"), (plain.uid, plain.owner, plain.group, plain.permissions))
        self.assertEqual(0, self.c.exec("ln -sf plain.txt /data/link").exit_code)
        link = self.c.files.info("/data/link")
        self.assertEqual(("symlink", "plain.txt"), (link.type, link.symlink_target))
        with self.assertRaises(hearth.ValidationError):
            self.c.files.write("/data/x.txt", b"x", owner="nobody-here")
        with self.assertRaises(hearth.ValidationError):
            self.c.files.mkdir("/data/y", owner="nobody-here")

    def test_watch_a_directory(self):
        self.c.files.mkdir("/data/watched")
        with self.c.files.watch("/data/watched", recursive=True, timeout=60) as watch:
            self.assertEqual("/data/watched", watch.path)

            def until(name, kind):
                # Each change is made only once the watch answered: nothing can be missed.
                seen = []
                for event in watch:
                    seen.append((event.name, event.type, event.dir))
                    if (event.name, event.type) == (name, kind):
                        return seen
                self.fail(f"the watch ended before {name} {kind}; saw {seen}")

            self.c.files.write("/data/watched/a.txt", b"1")
            self.assertIn(("a.txt", "create", False), until("a.txt", "write"))  # an upload: made, then written
            self.c.files.mkdir("/data/watched/sub")
            self.assertIn(("sub", "create", True), until("sub", "create"))
            self.c.files.write("/data/watched/sub/b.txt", b"2")  # a directory made meanwhile is watched too
            self.assertIn(("sub/b.txt", "create", False), until("sub/b.txt", "write"))
            self.c.files.remove("/data/watched/a.txt")
            self.assertIn(("a.txt", "remove", False), until("a.txt", "remove"))
        self.assertEqual([], list(watch))  # closed: it ends
        with self.assertRaises(hearth.NotFound):
            self.c.files.watch("/data/no-such-dir")

    def test_closing_a_watch_from_another_thread_ends_its_loop(self):
        self.c.files.mkdir("/data/quiet")
        watch = self.c.files.watch("/data/quiet")
        closer = threading.Timer(0.5, watch.close)
        closer.start()
        self.assertEqual([], list(watch))
        closer.join()

    def test_kept_checkpoint_outlives_its_computer(self):
        src = self.ws.computers.create("template-src", image=IMAGE)
        try:
            src.files.write("/data/t.txt", b"template")
            ck = src.checkpoints.create("tpl", keep=True)
            plain = src.checkpoints.create("plain")
            self.assertEqual(("ready", True, False), (ck.state, ck.kept, plain.kept))
            self.assertEqual([ck.id], [x.id for x in self.ws.checkpoints.list() if x.source == src.id])
        finally:
            src.delete()
        self.assertIn(ck.id, [x.id for x in self.ws.checkpoints.list()])
        self.assertEqual(("tpl", True), (self.ws.checkpoints.get(ck.id).name, ck.refresh().kept))
        fork = self.ws.computers.create("from-template", from_checkpoint=ck)
        try:
            self.assertEqual(b"template", fork.files.read("/data/t.txt"))
        finally:
            fork.delete()
        ck.delete()  # its computer is gone: through the workspace
        self.assertIsNotNone(ck.deleted_at)
        self.assertNotIn(ck.id, [x.id for x in self.ws.checkpoints.list()])

    def test_metrics_history(self):
        samples = eventually(lambda: self.c.metrics_history(), 30)  # a sample every 5 s while awake
        self.assertTrue(samples, "no sample in 30 s")
        last = samples[-1]
        self.assertEqual(512 << 20, last["memory_limit_bytes"])
        self.assertGreater(last["memory_bytes"], 0)
        self.assertGreaterEqual(last["cpu_seconds"], 0)
        self.assertEqual([s["at"] for s in samples], sorted(s["at"] for s in samples))  # oldest first
        self.assertEqual(last, self.c.metrics_history(since=last["at"])[0])
        self.assertEqual([], self.c.metrics_history(since=parse_time(last["at"]) + datetime.timedelta(hours=2)))
        self.assertEqual(samples[0], self.c.metrics_history(until=samples[0]["at"])[-1])

    def test_idempotent_create_makes_one_computer(self):
        key = str(uuid.uuid4())
        a = self.ws.computers.create("idem", image=IMAGE, idempotency_key=key)
        b = self.ws.computers.create("idem", image=IMAGE, idempotency_key=key)
        try:
            self.assertEqual(a.id, b.id)
            self.assertEqual(1, sum(x.name == "idem" for x in self.ws.computers.list(limit=1)))
        finally:
            a.delete()
