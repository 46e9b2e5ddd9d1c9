"""The SDK's own machinery against a scripted local HTTP server (no Hearth needed): the key-file
token flow, token caching and refresh, Idempotency-Key handling, retries and error mapping."""

import base64
import json
import os
import re
import socket
import threading
import unittest
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from support import SRC

import hearth  # noqa: E402
from hearth._auth import KeyFileTokens  # noqa: E402

ERROR_CODE_JAVA = os.path.join(os.path.dirname(SRC), "..", "..", "app", "src", "main", "java", "dev", "hearth",
                               "api", "ErrorCode.java")


def b64url_decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def pem(key) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def verify_jwt(token: str, public_key) -> tuple[dict, dict]:
    """Checks a JWS the way a server does; answers (header, claims). Raises InvalidSignature."""
    h64, c64, s64 = token.split(".")
    header, claims, sig = json.loads(b64url_decode(h64)), json.loads(b64url_decode(c64)), b64url_decode(s64)
    signed = f"{h64}.{c64}".encode()
    if header["alg"] == "ES256":
        if len(sig) != 64:
            raise InvalidSignature("ES256 signatures are 64 bytes r||s")
        der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
        public_key.verify(der, signed, ec.ECDSA(hashes.SHA256()))
    elif header["alg"] == "RS256":
        public_key.verify(sig, signed, padding.PKCS1v15(), hashes.SHA256())
    else:
        raise InvalidSignature(header["alg"])
    return header, claims


class FakeHearth:
    """A scripted server. ``script`` holds the answers to API calls in order: (status, headers,
    body) or "drop" (hang up without answering); once empty, 200 {"ok": true}. /v1/auth/token
    checks the assertion against ``key`` and issues tok-1, tok-2, ..."""

    def __init__(self, key=None):
        self.key = key or ec.generate_private_key(ec.SECP256R1())
        self.requests: list[dict] = []
        self.script: list = []
        self.exchanges: list[dict] = []
        self.expires_in = 900
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path = urllib.parse.urlsplit(self.path).path
                if path == "/v1/auth/token":
                    return fake._token(self, body)
                with fake.lock:
                    fake.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers),
                                          "body": body})
                    action = fake.script.pop(0) if fake.script else (200, {}, {"ok": True})
                if action == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status, headers, answer = action
                raw = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(raw)))
                self.send_header("X-Request-Id", f"req-{len(fake.requests)}")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def _token(self, handler, body: bytes):
        form = dict(urllib.parse.parse_qsl(body.decode()))
        try:
            assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
            header, claims = verify_jwt(form["assertion"], self.key.public_key())
            assert header["kid"] == "key-1" and claims["iss"] == claims["sub"] == "prin-1"
            assert claims["aud"] == self.url
            assert not any(e["jti"] == claims["jti"] for e in self.exchanges), "jti reused"
            status, answer = 200, None
        except (AssertionError, InvalidSignature, KeyError, ValueError) as e:
            status, answer = 400, {"error": {"code": "invalid_grant", "message": str(e), "details": {},
                                             "request_id": "r"}}
        with self.lock:
            if status == 200:
                self.exchanges.append(claims)
                answer = {"access_token": f"tok-{len(self.exchanges)}", "token_type": "Bearer",
                          "expires_in": self.expires_in}
        raw = json.dumps(answer).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)

    def key_file(self) -> dict:
        return {"principal": "prin-1", "subject": "prin-1", "key_id": "key-1", "audience": self.url,
                "token_url": self.url + "/auth/token", "private_key": pem(self.key)}

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def envelope(code: str, message: str = "m", request_id: str = "rid-1", **details) -> dict:
    return {"error": {"code": code, "message": message, "details": details, "request_id": request_id}}


class FakeServerCase(unittest.TestCase):
    def setUp(self):
        self.fake = FakeHearth()
        self.addCleanup(self.fake.close)
        self.h = hearth.Hearth(self.fake.url, key_file=self.fake.key_file(), env={})
        self.sleeps: list[float] = []
        self.h._transport.sleep = self.sleeps.append


class PathSegmentTest(unittest.TestCase):
    def test_dot_segments_are_refused_before_anything_is_sent(self):
        from hearth._common import _seg
        for dots in (".", ".."):
            with self.assertRaisesRegex(ValueError, "is not a name or an id"):
                _seg(dots)
        self.assertEqual("a%20b", _seg("a b"))
        self.assertEqual("...", _seg("..."))


class KeyFileTokenTest(FakeServerCase):
    def test_assertion_is_an_es256_jwt_as_rfc7523_wants(self):
        tokens = KeyFileTokens(self.fake.key_file())
        first, second = tokens.assertion(), tokens.assertion()
        header, claims = verify_jwt(first, self.fake.key.public_key())
        self.assertEqual({"alg": "ES256", "kid": "key-1", "typ": "JWT"}, header)
        self.assertEqual(("prin-1", "prin-1", self.fake.url), (claims["iss"], claims["sub"], claims["aud"]))
        self.assertEqual(60, claims["exp"] - claims["iat"])
        self.assertNotEqual(claims["jti"], verify_jwt(second, self.fake.key.public_key())[1]["jti"])
        other = ec.generate_private_key(ec.SECP256R1())
        with self.assertRaises(InvalidSignature):
            verify_jwt(first, other.public_key())

    def test_rsa_key_files_sign_rs256(self):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        tokens = KeyFileTokens({**self.fake.key_file(), "private_key": pem(key)})
        header, claims = verify_jwt(tokens.assertion(), key.public_key())
        self.assertEqual("RS256", header["alg"])
        self.assertEqual("prin-1", claims["sub"])

    def test_byok_key_file_without_private_key_is_refused_clearly(self):
        with self.assertRaisesRegex(ValueError, "private_key"):
            hearth.Hearth(self.fake.url, key_file={**self.fake.key_file(), "private_key": None}, env={})

    def test_token_is_exchanged_once_and_reused(self):
        for _ in range(3):
            self.h.me()
        self.assertEqual(1, len(self.fake.exchanges))
        self.assertEqual({"Bearer tok-1"}, {r["headers"]["Authorization"] for r in self.fake.requests})

    def test_token_is_refreshed_before_it_expires(self):
        self.fake.expires_in = 30  # inside the 60 s margin: every call needs a new one
        self.h.me()
        self.h.me()
        self.assertEqual(2, len(self.fake.exchanges))
        self.assertEqual(["Bearer tok-1", "Bearer tok-2"], [r["headers"]["Authorization"] for r in self.fake.requests])

    def test_a_401_is_retried_once_with_a_fresh_token(self):
        self.fake.script = [(401, {}, envelope("unauthenticated")), (200, {}, {"principal": {"id": "p"}})]
        self.assertEqual({"id": "p"}, self.h.me()["principal"])
        self.assertEqual(["Bearer tok-1", "Bearer tok-2"], [r["headers"]["Authorization"] for r in self.fake.requests])

    def test_a_second_401_is_raised_as_unauthorized(self):
        self.fake.script = [(401, {}, envelope("unauthenticated")), (401, {}, envelope("unauthenticated", request_id="r2"))]
        with self.assertRaises(hearth.Unauthorized) as ctx:
            self.h.me()
        self.assertEqual(("unauthenticated", 401, "r2"), (ctx.exception.code, ctx.exception.status,
                                                          ctx.exception.request_id))
        self.assertEqual(2, len(self.fake.requests))

    def test_a_static_token_is_sent_as_is(self):
        h = hearth.Hearth(self.fake.url, env={"HEARTH_TOKEN": "given"})
        h.me()
        self.assertEqual("Bearer given", self.fake.requests[0]["headers"]["Authorization"])
        self.assertEqual([], self.fake.exchanges)

    def test_an_api_key_is_sent_as_a_bearer_token(self):
        hearth.Hearth(self.fake.url, api_key="hk_arg", env={"HEARTH_KEY_FILE": "/nonexistent"}).me()
        hearth.Hearth(self.fake.url, env={"HEARTH_API_KEY": "hk_env", "HEARTH_KEY_FILE": "/nonexistent"}).me()
        # HEARTH_TOKEN still wins, as it does over a key file.
        hearth.Hearth(self.fake.url, env={"HEARTH_API_KEY": "hk_env", "HEARTH_TOKEN": "tok"}).me()
        self.assertEqual(["Bearer hk_arg", "Bearer hk_env", "Bearer tok"],
                         [r["headers"]["Authorization"] for r in self.fake.requests])
        self.assertEqual([], self.fake.exchanges)


class IdempotencyAndRetryTest(FakeServerCase):
    def test_every_mutation_gets_a_fresh_key_and_reads_get_none(self):
        self.h.request("GET", "/me")
        for method in ("POST", "PUT", "PATCH", "DELETE", "POST"):
            self.h.request(method, "/x", {} if method != "DELETE" else hearth._http._UNSET)
        keys = [r["headers"].get("Idempotency-Key") for r in self.fake.requests]
        self.assertIsNone(keys[0])
        self.assertEqual(5, len(set(keys[1:])))
        for key in keys[1:]:
            self.assertRegex(key, r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

    def test_a_given_key_is_used(self):
        self.h.request("POST", "/x", {}, idempotency_key="mine-1")
        self.assertEqual("mine-1", self.fake.requests[0]["headers"]["Idempotency-Key"])

    def test_503_is_retried_with_the_same_key_after_retry_after(self):
        self.fake.script = [(503, {"Retry-After": "1"}, envelope("store_unavailable")),
                            (201, {}, {"workspace": {"id": "w1", "name": "a"}, "operations": []})]
        ws = self.h.workspaces.create("a")
        self.assertEqual("w1", ws.id)
        keys = [r["headers"]["Idempotency-Key"] for r in self.fake.requests]
        self.assertEqual(2, len(keys))
        self.assertEqual(keys[0], keys[1])
        self.assertEqual([1.0], self.sleeps)
        self.assertEqual(self.fake.requests[0]["body"], self.fake.requests[1]["body"])

    def test_429_and_502_are_retried_with_backoff_then_given_up(self):
        self.fake.script = [(429, {"Retry-After": "3"}, envelope("rate_limited")),
                            (502, {}, envelope("bad_gateway")),
                            (503, {}, envelope("runtime_unavailable")),
                            (503, {}, envelope("runtime_unavailable", request_id="last"))]
        with self.assertRaises(hearth.RuntimeUnavailable) as ctx:
            self.h.request("POST", "/x", {"a": 1})
        self.assertEqual("last", ctx.exception.request_id)
        self.assertEqual(4, len(self.fake.requests))  # the call and max_retries (3) retries
        self.assertEqual(1, len({r["headers"]["Idempotency-Key"] for r in self.fake.requests}))
        self.assertEqual(3.0, self.sleeps[0])
        self.assertLess(self.sleeps[1], self.sleeps[2])  # exponential backoff without Retry-After

    def test_idempotency_key_in_use_is_waited_for(self):
        self.fake.script = [(409, {"Retry-After": "2"}, envelope("idempotency_key_in_use")), (200, {}, {"ok": 1})]
        self.assertEqual({"ok": 1}, self.h.request("POST", "/x", {}).json)
        self.assertEqual([2.0], self.sleeps)

    def test_a_dropped_connection_is_retried_with_the_same_key(self):
        self.fake.script = ["drop", (200, {}, {"done": True})]
        self.assertEqual({"done": True}, self.h.request("POST", "/x", {"v": 1}).json)
        self.assertEqual(2, len(self.fake.requests))
        self.assertEqual(self.fake.requests[0]["headers"]["Idempotency-Key"],
                         self.fake.requests[1]["headers"]["Idempotency-Key"])

    def test_a_streamed_exec_is_not_sent_twice(self):
        # A stream is never kept for replays: sent again, the command would run again.
        self.fake.script = ["drop", (200, {}, {"never": True})]
        computer = hearth.Computer(self.h, {"id": "c1"})
        with self.assertRaises(hearth.HearthConnectionError):
            list(computer.exec_stream(["true"]))
        self.assertEqual(1, len(self.fake.requests))

    def test_client_errors_are_not_retried(self):
        self.fake.script = [(409, {}, envelope("conflict", "name taken", "rid-9"))]
        with self.assertRaises(hearth.Conflict) as ctx:
            self.h.request("POST", "/x", {})
        self.assertEqual(("conflict", "name taken", "rid-9", 409),
                         (ctx.exception.code, ctx.exception.message, ctx.exception.request_id, ctx.exception.status))
        self.assertEqual(1, len(self.fake.requests))
        self.assertEqual([], self.sleeps)

    def test_an_unreachable_server_raises_connection_error_after_retries(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]  # closed again at once: nothing listens there
        h = hearth.Hearth(f"http://127.0.0.1:{port}/v1", token="t", env={})
        sleeps: list[float] = []
        h._transport.sleep = sleeps.append
        with self.assertRaises(hearth.HearthConnectionError) as ctx:
            h.me()
        self.assertIsNone(ctx.exception.status)
        self.assertEqual(3, len(sleeps))

    def test_pages_are_followed_by_cursor(self):
        self.fake.script = [
            (200, {}, {"workspaces": [{"id": "a"}, {"id": "b"}], "next_cursor": "c1", "has_more": True}),
            (200, {}, {"workspaces": [{"id": "c"}], "next_cursor": None, "has_more": False}),
        ]
        self.assertEqual(["a", "b", "c"], [w.id for w in self.h.workspaces.list(limit=2)])
        self.assertEqual(["/v1/workspaces?limit=2", "/v1/workspaces?limit=2&cursor=c1"],
                         [r["path"] for r in self.fake.requests])

    def test_a_202_sleep_follows_its_operation_until_it_settles(self):
        op = {"id": "op1", "kind": "computer.sleep", "state": "running", "error": None}
        self.fake.script = [
            (202, {}, {"computer": {"id": "c1", "state": "ready", "pending": "sleeping"}, "operations": ["op1"]}),
            (200, {}, {"operation": op}),
            (200, {}, {"operation": {**op, "state": "succeeded"}}),
            (200, {}, {"computer": {"id": "c1", "state": "sleeping", "pending": None}, "operations": []}),
        ]
        c = hearth.Computer(self.h, {"id": "c1", "state": "ready"}).sleep()
        self.assertEqual(("sleeping", None), (c.state, c.pending))
        self.assertEqual(["POST /v1/computers/c1/sleep", "GET /v1/operations/op1?wait=30",
                          "GET /v1/operations/op1?wait=30", "GET /v1/computers/c1"],
                         [f"{r['method']} {r['path']}" for r in self.fake.requests])

    def test_following_gives_up_after_its_timeout_and_raises_a_failure(self):
        running = {"id": "op2", "kind": "checkpoint.create", "state": "running", "progress": "copying /data"}
        self.fake.script = [(200, {}, {"operation": running})]
        with self.assertRaises(hearth.OperationTimeout) as ctx:
            self.h.operations.wait("op2", timeout=0)
        self.assertIsInstance(ctx.exception, TimeoutError)
        self.assertEqual("running", ctx.exception.operation.state)
        self.assertEqual("/v1/operations/op2?wait=0", self.fake.requests[0]["path"])
        self.fake.script = [(200, {}, {"operation": {**running, "state": "failed",
                                                     "error": {"code": "execs_running", "message": "busy"}}})]
        with self.assertRaises(hearth.OperationFailed) as ctx:
            self.h.operations.wait("op2")
        self.assertEqual(("execs_running", "op2"), (ctx.exception.code, ctx.exception.operation.id))
        self.assertIn("busy", str(ctx.exception))

    def test_a_create_answering_a_failed_computer_raises(self):
        failed = {"id": "c9", "name": "f", "state": "failed", "error": {"code": "fork_failed", "message": "no"}}
        self.fake.script = [(201, {}, {"computer": failed, "operations": []})]
        with self.assertRaises(hearth.OperationFailed) as ctx:
            hearth.Workspace(self.h, {"id": "w1"}).computers.create("f", from_checkpoint="ck1")
        self.assertEqual(("fork_failed", "c9", None), (ctx.exception.code, ctx.exception.resource.id,
                                                       ctx.exception.operation))
        self.assertEqual({"name": "f", "from_checkpoint": "ck1"}, json.loads(self.fake.requests[0]["body"]))

    def test_ndjson_events_and_a_mid_stream_error(self):
        lines = b'{"stdout":"a\\n"}\n\n{"stderr":"b"}\n{"error":{"code":"runtime_unavailable","message":"gone"}}\n'
        self.fake.script = [(200, {"Content-Type": "application/x-ndjson"}, lines)]
        events = hearth.Computer(self.h, {"id": "c1"}).exec_stream("x")
        self.assertEqual("a\n", next(events).stdout)
        self.assertEqual(("stderr", "b"), (lambda e: (e.kind, e.text))(next(events)))
        with self.assertRaises(hearth.RuntimeUnavailable):
            next(events)
        self.assertEqual("application/x-ndjson", self.fake.requests[0]["headers"]["Accept"])
        self.assertEqual({"command": ["sh", "-c", "x"]}, json.loads(self.fake.requests[0]["body"]))


class RequestShapeTest(FakeServerCase):
    """What the newer calls send, and how their answers are read."""

    def sent(self) -> list[str]:
        return [f"{r['method']} {urllib.parse.unquote(r['path'])}" for r in self.fake.requests]

    def test_computer_filters_repeat_label_and_join_states(self):
        ws = hearth.Workspace(self.h, {"id": "w1"})
        self.fake.script = [(200, {}, {"computers": [{"id": "c1", "labels": {"team": "web"}}], "has_more": False})]
        self.assertEqual([{"team": "web"}], [c.labels for c in ws.computers.list(labels={"team": "web", "a/b": "1"},
                                                                                  state=["ready", "sleeping"])])
        self.assertEqual(["GET /v1/workspaces/w1/computers?label=team=web&label=a/b=1&state=ready,sleeping"],
                         self.sent())

    def test_lifetime_timestamps_and_labels_in_create_and_update(self):
        import datetime
        at = datetime.datetime(2030, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.timezone.utc)
        self.fake.script = [(201, {}, {"computer": {"id": "c1", "state": "ready"}, "operations": []}),
                            (200, {}, {"computer": {"id": "c1", "state": "ready"}, "operations": []})]
        c = hearth.Workspace(self.h, {"id": "w1"}).computers.create("b", image="i", labels={"x": "1"}, expires_at=at,
                                                                     on_expire="sleep")
        c.update(labels={"x": None}, expires_at=None)
        self.assertEqual({"name": "b", "image": "i", "labels": {"x": "1"}, "expires_at": "2030-01-02T03:04:05.678Z",
                          "on_expire": "sleep"}, json.loads(self.fake.requests[0]["body"]))
        self.assertEqual({"labels": {"x": None}, "expires_at": None}, json.loads(self.fake.requests[1]["body"]))

    def test_user_pty_resize_and_output_from_now(self):
        c = hearth.Computer(self.h, {"id": "c1"})
        process = {"pid": 7, "state": "running", "pty": True}
        self.fake.script = [(200, {}, {"exit_code": 0, "stdout": "", "stderr": ""}),
                            (201, {}, {"process": process, "operations": []}),
                            (200, {}, {"process": process, "operations": []}),
                            (200, {"Content-Type": "application/x-ndjson"}, b'{"stdout":"x"}\n')]
        c.exec("id", user="tester")
        p = c.processes.start(["sh"], user="tester", pty=(100, 30))
        self.assertTrue(p.pty)
        p.resize(120, 40)
        self.assertEqual(["x"], [e.stdout for e in p.output(from_now=True)])
        bodies = [json.loads(r["body"]) if r["body"] else None for r in self.fake.requests]
        self.assertEqual("tester", bodies[0]["user"])
        self.assertEqual({"command": ["sh"], "user": "tester", "pty": {"cols": 100, "rows": 30}}, bodies[1])
        self.assertEqual({"cols": 120, "rows": 40}, bodies[2])
        self.assertEqual(["POST /v1/computers/c1/exec", "POST /v1/computers/c1/processes",
                          "POST /v1/computers/c1/processes/7/resize",
                          "GET /v1/computers/c1/processes/7/output?from=now"], self.sent())

    def test_a_watch_answers_once_it_watches_then_yields_events(self):
        lines = (b'{"watching":"/data"}\n{"name":"a.txt","type":"create","dir":false}\n'
                 b'{"name":"d","type":"remove","dir":true}\n')
        self.fake.script = [(200, {"Content-Type": "application/x-ndjson"}, lines)]
        with hearth.Computer(self.h, {"id": "c1"}).files.watch("/data", recursive=True) as watch:
            self.assertEqual("/data", watch.path)
            self.assertEqual([("a.txt", "create", False), ("d", "remove", True)],
                             [(e.name, e.type, e.dir) for e in watch])
        self.assertEqual(["GET /v1/computers/c1/files/watch?path=/data&recursive=true"], self.sent())

    def test_closing_a_watch_from_another_thread_ends_its_loop(self):
        # A server that says it watches and then stays quiet, as a directory nobody touches does.
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            held = []

            def serve():
                conn, _ = listener.accept()
                held.append(conn)
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n15\r\n{\"watching\":\"/data\"}\n\r\n")

            server = threading.Thread(target=serve, daemon=True)
            server.start()
            h = hearth.Hearth(f"http://127.0.0.1:{listener.getsockname()[1]}/v1", token="t", env={})
            watch = hearth.Computer(h, {"id": "c1"}).files.watch("/data")
            self.assertEqual("/data", watch.path)
            closer = threading.Timer(0.3, watch.close)
            closer.start()
            self.assertEqual([], list(watch))  # returns once closed, without an error
            closer.join()
            server.join()
            for conn in held:
                conn.close()

    def test_owners_keep_and_kept_checkpoints(self):
        c = hearth.Computer(self.h, {"id": "c1"})
        kept = {"id": "k1", "workspace": "w1", "source_type": "computer", "source": "c1", "kept": True}
        self.fake.script = [(200, {}, {"file": {"path": "/d/f"}, "operations": []}),
                            (200, {}, {"file": {"path": "/d"}, "operations": []}),
                            (202, {}, {"checkpoint": kept, "operations": []}),
                            (202, {}, {"checkpoint": {**kept, "state": "deleting"}, "operations": []}),
                            (200, {}, {"checkpoints": [kept], "has_more": False})]
        c.files.write("/d/f", b"x", owner="tester")
        c.files.mkdir("/d", owner="tester")
        ck = c.checkpoints.create("t", keep=True, wait=False)
        self.assertTrue(ck.kept)
        ck.delete()
        self.assertEqual(["k1"], [x.id for x in hearth.Workspace(self.h, {"id": "w1"}).checkpoints.list()])
        self.assertEqual(["PUT /v1/computers/c1/files?path=/d/f&owner=tester", "POST /v1/computers/c1/files/mkdir",
                          "POST /v1/computers/c1/checkpoints", "DELETE /v1/workspaces/w1/checkpoints/k1",
                          "GET /v1/workspaces/w1/checkpoints"], self.sent())
        self.assertEqual({"path": "/d", "owner": "tester"}, json.loads(self.fake.requests[1]["body"]))
        self.assertEqual({"name": "t", "keep": True}, json.loads(self.fake.requests[2]["body"]))

    def test_api_keys_and_metrics_history(self):
        ws = hearth.Workspace(self.h, {"id": "w1"})
        key = {"id": "a1", "workspace": "w1", "name": "ci", "state": "active", "prefix": "hk_abcde"}
        self.fake.script = [(201, {}, {"api_key": key, "secret": "hk_secret", "operations": []}),
                            (200, {}, {"api_key": {**key, "state": "revoked"}, "operations": []}),
                            (200, {}, {"samples": [{"at": "t", "cpu_percent": None}]})]
        made = ws.api_keys.create("ci", role="viewer", expires_in_days=7)
        self.assertEqual(("a1", "hk_secret"), (made.id, made.secret))
        self.assertNotIn("hk_secret", repr(made))
        made.revoke()
        self.assertEqual(("revoked", "hk_secret"), (made.state, made.secret))
        self.assertEqual([{"at": "t", "cpu_percent": None}],
                         hearth.Computer(self.h, {"id": "c1"}).metrics_history(since="2030-01-01T00:00:00Z"))
        self.assertEqual({"name": "ci", "role": "viewer", "expires_in_days": 7},
                         json.loads(self.fake.requests[0]["body"]))
        self.assertEqual(["POST /v1/workspaces/w1/api_keys", "DELETE /v1/workspaces/w1/api_keys/a1",
                          "GET /v1/computers/c1/metrics/history?since=2030-01-01T00:00:00Z"], self.sent())


class ErrorMappingTest(unittest.TestCase):
    def test_every_error_code_of_the_server_has_its_class(self):
        if not os.path.exists(ERROR_CODE_JAVA):
            self.skipTest("ErrorCode.java is not beside this SDK")
        with open(ERROR_CODE_JAVA, encoding="utf-8") as f:
            java = f.read()
        codes = {m.group(1).lower(): int(m.group(2)) for m in re.finditer(r"^\s+([A-Z_]+)\((\d+)\)[,;]", java, re.M)}
        self.assertGreater(len(codes), 20)
        self.assertEqual(set(codes), set(hearth.ERROR_CLASSES))
        for code, status in codes.items():
            error = hearth.error_from_answer(status, envelope(code, "msg", "rid", fields={"name": "bad"}))
            self.assertIs(hearth.ERROR_CLASSES[code], type(error), code)
            self.assertIsInstance(error, hearth.HearthError)
            self.assertEqual((code, "msg", "rid", status, {"fields": {"name": "bad"}}),
                             (error.code, error.message, error.request_id, error.status, error.details))

    def test_named_classes(self):
        pairs = {"not_found": hearth.NotFound, "conflict": hearth.Conflict, "unauthenticated": hearth.Unauthorized,
                 "forbidden": hearth.Forbidden, "invalid_request": hearth.ValidationError,
                 "not_empty": hearth.NotEmpty, "rate_limited": hearth.RateLimited}
        for code, cls in pairs.items():
            self.assertIs(cls, hearth.ERROR_CLASSES[code])
        self.assertTrue(issubclass(hearth.NotEmpty, hearth.Conflict))
        self.assertTrue(issubclass(hearth.IdempotencyKeyInUse, hearth.Conflict))

    def test_unknown_codes_and_non_envelopes_fall_back_to_hearth_error(self):
        error = hearth.error_from_answer(418, envelope("teapot", "short and stout"))
        self.assertIs(hearth.HearthError, type(error))
        self.assertEqual(("teapot", "short and stout", 418), (error.code, error.message, error.status))
        error = hearth.error_from_answer(502, "<html>bad</html>", {"X-Request-Id": "hdr"})
        self.assertIs(hearth.HearthError, type(error))
        self.assertEqual(("http_502", "hdr"), (error.code, error.request_id))
        self.assertEqual(7.0, hearth.error_from_answer(429, envelope("rate_limited"), {"Retry-After": "7"}).retry_after)


if __name__ == "__main__":
    unittest.main()
