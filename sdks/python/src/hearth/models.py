"""The API's objects as small classes: the wire's fields (snake_case, as the API names them) as
attributes, the answer itself in ``.raw``, and methods for what can be done with them."""

from __future__ import annotations

import base64
import dataclasses
import time
import urllib.parse
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator, Mapping, Sequence

from .errors import NotFound, OperationFailed, OperationTimeout, error_from_answer

if TYPE_CHECKING:  # pragma: no cover
    from .client import Hearth

DEFAULT_WAIT_TIMEOUT = 600.0


def _seg(value: str) -> str:
    """One path segment (ids and names never need quoting; anything else is refused by the server)."""
    return urllib.parse.quote(str(value), safe="")


def _id_of(value: Any) -> str:
    """An id from a model (its ``id``) or a string."""
    if isinstance(value, Model):
        return value.id
    if isinstance(value, str):
        return value
    raise TypeError(f"expected an id or a Hearth object, got {type(value).__name__}")


def _drop_none(**fields: Any) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


class Model:
    """Base of the API objects. Declared wire fields are attributes; fields the server adds later
    are reachable as attributes too (from ``raw``)."""

    _fields: tuple[str, ...] = ()

    def __init__(self, client: "Hearth", raw: Mapping[str, Any]):
        self._client = client
        # ids of the operations the last answer about it named (e.g. a checkpoint.create)
        self.operation_ids: list[str] = []
        self._set(raw)

    def _answer(self, answer: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        """Takes the object under ``key`` of an answer, and the answer's operation ids."""
        self._set(answer[key])
        self.operation_ids = [o if isinstance(o, str) else o["id"] for o in answer.get("operations") or []]
        return answer

    def _set(self, raw: Mapping[str, Any]) -> None:
        self.raw: dict = dict(raw)
        for name in self._fields:
            setattr(self, name, self.raw.get(name))

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not found the normal way: fields of newer servers.
        raw = self.__dict__.get("raw")
        if raw is not None and name in raw:
            return raw[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def to_dict(self) -> dict:
        return dict(self.raw)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        key = self.raw.get("id")
        return key is not None and key == other.raw.get("id")

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.raw.get("id")))

    def __repr__(self) -> str:
        shown = [f for f in ("id", "name", "state", "pending", "path", "kind") if self.raw.get(f) is not None]
        return f"{type(self).__name__}(" + ", ".join(f"{f}={self.raw[f]!r}" for f in shown) + ")"


# --- operations ----------------------------------------------------------------------------


class Operation(Model):
    """Long work (``checkpoint.create``, ``computer.sleep``, ...). ``state``: running, succeeded, failed."""

    _fields = ("id", "kind", "state", "workspace", "resource", "progress", "error", "created_at",
               "updated_at", "completed_at")

    def refresh(self) -> "Operation":
        self._set(self._client._get(f"/operations/{_seg(self.id)}")["operation"])
        return self

    def wait(self, timeout: float = DEFAULT_WAIT_TIMEOUT) -> "Operation":
        """Follows it until it stops running; raises OperationFailed when it failed and
        OperationTimeout when it still runs after ``timeout`` seconds."""
        self._set(self._client.operations.wait(self.id, timeout=timeout).raw)
        return self


class Operations:
    def __init__(self, client: "Hearth"):
        self._client = client

    def get(self, operation_id: str) -> Operation:
        return Operation(self._client, self._client._get(f"/operations/{_seg(operation_id)}")["operation"])

    def wait(self, operation: Operation | str, timeout: float = DEFAULT_WAIT_TIMEOUT) -> Operation:
        """``GET /operations/{id}?wait=N`` until the operation is no longer running (at most
        ``timeout`` seconds in all). Answers it when it succeeded; raises OperationFailed (with the
        operation's error code and message) when it failed, OperationTimeout when time ran out."""
        op_id = _id_of(operation)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            wait = int(max(0, min(30, remaining)))
            raw = self._client._get(f"/operations/{_seg(op_id)}", query={"wait": wait},
                                    timeout=wait + 30)["operation"]
            op = Operation(self._client, raw)
            if op.state == "succeeded":
                return op
            if op.state == "failed":
                err = op.error or {}
                raise OperationFailed(f"operation {op.kind} {op.id} failed: {err.get('message') or 'no reason given'}",
                                      code=err.get("code") or "operation_failed", details=err,
                                      operation=op)
            if time.monotonic() >= deadline:
                raise OperationTimeout(f"operation {op.kind} {op.id} still {op.state} after {timeout:g} s "
                                       f"(progress: {op.progress})", operation=op)
            if wait == 0:
                time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))


def _follow(client: "Hearth", answer: Mapping[str, Any], timeout: float) -> None:
    for op_id in answer.get("operations") or []:
        client.operations.wait(op_id if isinstance(op_id, str) else op_id["id"], timeout=timeout)


def _pages(client: "Hearth", path: str, key: str, query: Mapping[str, Any] | None = None,
           limit: int | None = None) -> Iterator[dict]:
    """Every item of a paged list, page after page (``limit`` is the page size)."""
    params = dict(query or {})
    if limit is not None:
        params["limit"] = limit
    cursor = None
    while True:
        page = client._get(path, query={**params, "cursor": cursor})
        yield from page.get(key) or []
        cursor = page.get("next_cursor")
        if not page.get("has_more") or not cursor:
            return


# --- workspaces ----------------------------------------------------------------------------


class Workspace(Model):
    _fields = ("id", "name", "state", "created_at", "updated_at", "deleted_at")

    def __init__(self, client: "Hearth", raw: Mapping[str, Any]):
        super().__init__(client, raw)
        self.computers = Computers(client, self)
        self.databases = Databases(client, self)
        self.variables = Variables(client, self)

    @property
    def _path(self) -> str:
        return f"/workspaces/{_seg(self.id)}"

    def refresh(self) -> "Workspace":
        self._set(self._client._get(self._path)["workspace"])
        return self

    def rename(self, name: str) -> "Workspace":
        self._set(self._client._send("PATCH", self._path, {"name": name})["workspace"])
        return self

    def delete(self, cascade: bool = False) -> "Workspace":
        """Deletes the workspace (409 NotEmpty while it holds resources). ``cascade=True`` first
        deletes its computers, databases and variables."""
        if cascade:
            for computer in list(self.computers.list()):
                computer.delete()
            for database in list(self.databases.list()):
                database.delete()
            for variable in list(self.variables.list()):
                variable.delete()
        self._set(self._client._send("DELETE", self._path)["workspace"])
        return self


class Workspaces:
    def __init__(self, client: "Hearth"):
        self._client = client

    def create(self, name: str, *, idempotency_key: str | None = None) -> Workspace:
        answer = self._client._send("POST", "/workspaces", {"name": name}, idempotency_key=idempotency_key)
        return Workspace(self._client, answer["workspace"])

    def get(self, workspace: str) -> Workspace:
        """By id or name."""
        return Workspace(self._client, self._client._get(f"/workspaces/{_seg(workspace)}")["workspace"])

    def list(self, limit: int | None = None) -> Iterator[Workspace]:
        """All the caller's workspaces, fetching pages of ``limit`` (default: the server's 50) as it goes."""
        for raw in _pages(self._client, "/workspaces", "workspaces", limit=limit):
            yield Workspace(self._client, raw)

    __iter__ = list


# --- computers -----------------------------------------------------------------------------


@dataclasses.dataclass
class ExecResult:
    """The answer of an exec. ``stdout``/``stderr`` are str, or bytes with ``binary=True``."""

    exit_code: int
    stdout: str | bytes
    stderr: str | bytes
    timed_out: bool = False
    truncated: bool = False
    duration_ms: int | None = None
    raw: dict = dataclasses.field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


@dataclasses.dataclass
class ExecEvent:
    """One line of a streamed exec (or of a process's output): ``stdout`` or ``stderr`` text (bytes
    with ``binary=True``), or, last, ``exit_code`` with ``timed_out`` and ``duration_ms``."""

    stdout: str | bytes | None = None
    stderr: str | bytes | None = None
    exit_code: int | None = None
    timed_out: bool | None = None
    duration_ms: int | None = None
    raw: dict = dataclasses.field(default_factory=dict, repr=False)

    @property
    def kind(self) -> str:
        """``stdout``, ``stderr`` or ``exit``."""
        if self.exit_code is not None:
            return "exit"
        return "stdout" if self.stdout is not None else "stderr"

    @property
    def text(self) -> str | bytes | None:
        return self.stdout if self.stdout is not None else self.stderr


def _exec_body(command: Sequence[str] | str, env: Mapping[str, str] | None, cwd: str | None,
               stdin: str | bytes | None, timeout_seconds: int | None, binary: bool) -> dict:
    if isinstance(command, str):
        command = ["sh", "-c", command]
    body: dict[str, Any] = {"command": list(command)}
    if env:
        body["env"] = dict(env)
    if cwd is not None:
        body["cwd"] = cwd
    if timeout_seconds is not None:
        body["timeout_seconds"] = timeout_seconds
    if isinstance(stdin, (bytes, bytearray)) and not binary:
        binary = True
    if binary:
        body["encoding"] = "base64"
    if stdin is not None:
        if binary:
            raw = stdin.encode("utf-8") if isinstance(stdin, str) else bytes(stdin)
            body["stdin"] = base64.b64encode(raw).decode("ascii")
        else:
            body["stdin"] = stdin
    return body


def _event(raw: dict, binary: bool) -> ExecEvent:
    if isinstance(raw.get("error"), dict):
        err = raw["error"]
        raise error_from_answer(None, {"error": err})
    out, err = raw.get("stdout"), raw.get("stderr")
    if binary:
        out = base64.b64decode(out) if out is not None else None
        err = base64.b64decode(err) if err is not None else None
    return ExecEvent(stdout=out, stderr=err, exit_code=raw.get("exit_code"), timed_out=raw.get("timed_out"),
                     duration_ms=raw.get("duration_ms"), raw=raw)


def _stream_events(client: "Hearth", method: str, path: str, body: Any, query: Mapping[str, Any] | None,
                   binary: bool, timeout: float | None) -> Iterator[ExecEvent]:
    response = client._transport.request(method, path, query=query, stream=True, timeout=timeout,
                                         headers={"Accept": "application/x-ndjson"},
                                         **({"json_body": body} if body is not None else {}))
    try:
        for line in response.lines():
            yield _event(line, binary)
    finally:
        response.close()


class Computer(Model):
    _fields = ("id", "workspace", "name", "state", "pending", "image", "image_digest", "ports", "url",
               "env_keys", "env_vars", "resources", "generation", "protected", "auto_sleep_seconds",
               "network", "entrypoint", "command", "restart", "main_exit", "parent", "from_checkpoint",
               "error", "created_at", "updated_at", "last_started_at", "last_active_at", "deleted_at")

    def __init__(self, client: "Hearth", raw: Mapping[str, Any]):
        super().__init__(client, raw)
        self.files = Files(client, self)
        self.checkpoints = Checkpoints(client, self)
        self.processes = Processes(client, self)

    @property
    def _path(self) -> str:
        return f"/computers/{_seg(self.id)}"

    def refresh(self) -> "Computer":
        self._set(self._client._get(self._path)["computer"])
        return self

    def update(self, **fields: Any) -> "Computer":
        """PATCH: ``name, env, ports, protected, auto_sleep_seconds, network, resources, entrypoint,
        command, restart`` (``env`` and ``resources`` merge; ``env={"NAME": None}`` removes one)."""
        self._set(self._client._send("PATCH", self._path, fields)["computer"])
        return self

    def delete(self) -> "Computer":
        self._set(self._client._send("DELETE", self._path)["computer"])
        return self

    def exec(self, command: Sequence[str] | str, *, env: Mapping[str, str] | None = None, cwd: str | None = None,
             stdin: str | bytes | None = None, timeout_seconds: int | None = None, binary: bool = False,
             idempotency_key: str | None = None) -> ExecResult:
        """Runs a command to its end. A str command runs as ``sh -c``. ``binary=True`` (implied by
        bytes stdin) sends and answers bytes (the API's base64 encoding)."""
        body = _exec_body(command, env, cwd, stdin, timeout_seconds, binary)
        binary = body.get("encoding") == "base64"
        raw = self._client._send("POST", f"{self._path}/exec", body, idempotency_key=idempotency_key,
                                 timeout=(timeout_seconds or 60) + 90)
        out, err = raw.get("stdout", ""), raw.get("stderr", "")
        if binary:
            out, err = base64.b64decode(out), base64.b64decode(err)
        return ExecResult(exit_code=raw["exit_code"], stdout=out, stderr=err, timed_out=raw.get("timed_out", False),
                          truncated=raw.get("truncated", False), duration_ms=raw.get("duration_ms"), raw=raw)

    def exec_stream(self, command: Sequence[str] | str, *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None, stdin: str | bytes | None = None, timeout_seconds: int | None = None,
                    binary: bool = False) -> Iterator[ExecEvent]:
        """Runs a command and yields its output as it arrives (NDJSON): ExecEvents with ``stdout`` or
        ``stderr``, the last one with ``exit_code``. Closing the generator early (``break``) hangs
        up, which kills the command. A runtime failure mid-way raises its HearthError."""
        body = _exec_body(command, env, cwd, stdin, timeout_seconds, binary)
        return _stream_events(self._client, "POST", f"{self._path}/exec", body, None,
                              body.get("encoding") == "base64", (timeout_seconds or 60) + 90)

    def sleep(self, *, wait: bool = True, timeout: float = DEFAULT_WAIT_TIMEOUT) -> "Computer":
        """Puts it to sleep; with ``wait`` follows a ``computer.sleep`` operation to its end."""
        answer = self._answer(self._client._send("POST", f"{self._path}/sleep"), "computer")
        if wait and answer.get("operations"):
            _follow(self._client, answer, timeout)
            self.refresh()
        return self

    def wake(self) -> "Computer":
        self._set(self._client._send("POST", f"{self._path}/wake")["computer"])
        return self

    def restore(self, checkpoint: "Checkpoint | str", *, timeout: float = DEFAULT_WAIT_TIMEOUT) -> "Computer":
        """Rolls the computer back to one of its ready checkpoints (object, id or name)."""
        ref = checkpoint.id if isinstance(checkpoint, Checkpoint) else checkpoint
        answer = self._answer(self._client._send("POST", f"{self._path}/restore", {"checkpoint": ref},
                                                 timeout=timeout), "computer")
        if answer.get("operations"):
            _follow(self._client, answer, timeout)
            self.refresh()
        return self

    def metrics(self) -> dict:
        return self._client._get(f"{self._path}/metrics")["metrics"]

    def logs(self, *, follow: bool = False, binary: bool = False) -> Iterator[ExecEvent]:
        """The main process's output (NotFound when it has none)."""
        return _stream_events(self._client, "GET", f"{self._path}/logs", None,
                              {"follow": follow or None, "encoding": "base64" if binary else None}, binary,
                              None if not follow else 24 * 3600)


class Computers:
    def __init__(self, client: "Hearth", workspace: Workspace):
        self._client = client
        self._workspace = workspace

    def create(self, name: str, image: str | None = None, *, env: Mapping[str, Any] | None = None,
               ports: Sequence[Mapping[str, Any]] | None = None, protected: bool | None = None,
               resources: Mapping[str, Any] | None = None, auto_sleep_seconds: int | None = None,
               network: Mapping[str, Any] | None = None, entrypoint: Sequence[str] | None = None,
               command: Sequence[str] | None = None, restart: str | None = None,
               from_checkpoint: "Checkpoint | str | None" = None, wait: bool = True,
               timeout: float = DEFAULT_WAIT_TIMEOUT, idempotency_key: str | None = None) -> Computer:
        """Creates a computer, or forks one with ``from_checkpoint``. When the server answers 202
        (an image to pull) it follows the ``computer.create`` operation (unless ``wait=False``)
        and answers the computer as it is then. A computer that ends up ``failed`` (image pull,
        start or fork failed) raises OperationFailed with the computer's error code; the failed
        computer is ``e.resource`` (delete it, or look at it)."""
        body = _drop_none(name=name, image=image, env=dict(env) if env is not None else None,
                          ports=list(ports) if ports is not None else None, protected=protected,
                          resources=dict(resources) if resources is not None else None,
                          auto_sleep_seconds=auto_sleep_seconds, network=network,
                          entrypoint=list(entrypoint) if entrypoint is not None else None,
                          command=list(command) if command is not None else None, restart=restart,
                          from_checkpoint=_id_of(from_checkpoint) if from_checkpoint is not None else None)
        answer = self._client._send("POST", f"{self._workspace._path}/computers", body,
                                    idempotency_key=idempotency_key, timeout=max(self._client.timeout, 300))
        computer = Computer(self._client, answer["computer"])
        computer._answer(answer, "computer")
        if wait and answer.get("operations"):
            try:
                _follow(self._client, answer, timeout)
            except (OperationFailed, OperationTimeout) as e:
                e.resource = computer.refresh()
                raise
            computer.refresh()
        if computer.state == "failed":
            # 201 with a computer that did not start (e.g. fork_failed): it exists, but failed.
            err = computer.error or {}
            raise OperationFailed(f"computer {computer.name} ({computer.id}) failed: {err.get('message') or ''}",
                                  code=err.get("code") or "failed", details=err, resource=computer)
        return computer

    def get(self, computer: str) -> Computer:
        """By name (in this workspace) or id."""
        raw = self._client._get(f"/computers/{_seg(computer)}", query={"workspace": self._workspace.id})
        return Computer(self._client, raw["computer"])

    def list(self, limit: int | None = None) -> Iterator[Computer]:
        for raw in _pages(self._client, f"{self._workspace._path}/computers", "computers", limit=limit):
            yield Computer(self._client, raw)

    __iter__ = list


# --- files ---------------------------------------------------------------------------------


class FileInfo(Model):
    """``type`` is file, dir, symlink or other; ``mode`` octal text such as ``"0644"``."""

    _fields = ("path", "name", "type", "size", "mode", "modified_at")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileInfo) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(self.raw.get("path"))

    def __repr__(self) -> str:
        return f"FileInfo(path={self.path!r}, type={self.type!r}, size={self.size!r}, mode={self.mode!r})"


class Files:
    """A computer's file system, through its agent (no shell or tar needed in the image)."""

    def __init__(self, client: "Hearth", computer: Computer):
        self._client = client
        self._computer = computer

    @property
    def _path(self) -> str:
        return f"{self._computer._path}/files"

    def write(self, path: str, data: bytes | str | BinaryIO, *, mode: str | int | None = None) -> FileInfo:
        """Writes (replaces) a file, whole or not at all; parents are made. ``data`` is bytes, str
        (UTF-8) or a binary file object (streamed). ``mode``: ``"0600"`` or ``0o600``."""
        if isinstance(mode, int):
            mode = format(mode, "o")
        answer = self._client._send("PUT", self._path, query={"path": path, "mode": mode}, data=data,
                                    content_type="application/octet-stream")
        return FileInfo(self._client, answer["file"])

    def read(self, path: str) -> bytes:
        """The file's bytes."""
        with self.open(path) as stream:
            return stream.read()

    def open(self, path: str):
        """The file as a stream to ``read(n)`` (a context manager); for large files."""
        return self._client._transport.request("GET", self._path, query={"path": path}, stream=True,
                                               headers={"Accept": "*/*"})

    def download(self, path: str, destination: str | BinaryIO) -> int:
        """Copies the file into a local path or binary file object; answers the bytes copied."""
        with self.open(path) as stream:
            if isinstance(destination, str):
                with open(destination, "wb") as out:
                    return _copy(stream, out)
            return _copy(stream, destination)

    def info(self, path: str) -> FileInfo:
        return FileInfo(self._client, self._client._get(f"{self._path}/info", query={"path": path})["file"])

    def exists(self, path: str) -> bool:
        try:
            self.info(path)
            return True
        except NotFound:
            return False

    def list(self, path: str) -> list[FileInfo]:
        """A directory's entries, by name."""
        return [FileInfo(self._client, f) for f in
                self._client._get(f"{self._path}/list", query={"path": path})["files"]]

    def remove(self, path: str, *, recursive: bool = False) -> FileInfo:
        answer = self._client._send("DELETE", self._path, query={"path": path, "recursive": recursive or None})
        return FileInfo(self._client, answer["file"])

    def move(self, source: str, destination: str) -> FileInfo:
        return FileInfo(self._client, self._client._send("POST", f"{self._path}/move",
                                                         {"from": source, "to": destination})["file"])

    def mkdir(self, path: str) -> FileInfo:
        return FileInfo(self._client, self._client._send("POST", f"{self._path}/mkdir", {"path": path})["file"])

    def read_archive(self, path: str) -> bytes:
        """A tar of the directory (names relative to it)."""
        with self._client._transport.request("GET", f"{self._path}/archive", query={"path": path},
                                             stream=True, headers={"Accept": "*/*"}) as stream:
            return stream.read()

    def write_archive(self, path: str, tar: bytes | BinaryIO) -> FileInfo:
        """Unpacks a tar into the directory (made if missing)."""
        answer = self._client._send("PUT", f"{self._path}/archive", query={"path": path}, data=tar,
                                    content_type="application/x-tar")
        return FileInfo(self._client, answer["file"])


def _copy(stream: Any, out: BinaryIO) -> int:
    total = 0
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            return total
        out.write(chunk)
        total += len(chunk)


# --- processes -----------------------------------------------------------------------------


class Process(Model):
    _fields = ("pid", "tag", "command", "state", "exit_code", "started_at", "ended_at", "stdin")

    def __init__(self, client: "Hearth", raw: Mapping[str, Any], computer: Computer):
        self._computer = computer
        super().__init__(client, raw)

    @property
    def _path(self) -> str:
        return f"{self._computer._path}/processes/{self.pid}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Process) and (other._computer.id, other.pid) == (self._computer.id, self.pid)

    def __hash__(self) -> int:
        return hash((self._computer.id, self.pid))

    def refresh(self) -> "Process":
        self._set(self._client._get(self._path)["process"])
        return self

    def signal(self, signal: str = "TERM") -> "Process":
        self._set(self._client._send("POST", f"{self._path}/signal", {"signal": signal})["process"])
        return self

    def write_stdin(self, data: bytes | str, *, close: bool = False) -> "Process":
        self._set(self._client._send("POST", f"{self._path}/stdin", query={"close": close or None}, data=data,
                                     content_type="application/octet-stream")["process"])
        return self

    def output(self, *, follow: bool = False, binary: bool = False) -> Iterator[ExecEvent]:
        """Its kept output, then (``follow=True``) new output until it ends; the last event has
        ``exit_code`` once it ended."""
        return _stream_events(self._client, "GET", f"{self._path}/output", None,
                              {"follow": follow or None, "encoding": "base64" if binary else None}, binary,
                              None if not follow else 24 * 3600)

    def wait(self) -> int:
        """Follows its output to the end; answers its exit code."""
        code = None
        for event in self.output(follow=True):
            if event.exit_code is not None:
                code = event.exit_code
        self.refresh()
        return code if code is not None else self.exit_code


class Processes:
    def __init__(self, client: "Hearth", computer: Computer):
        self._client = client
        self._computer = computer

    def start(self, command: Sequence[str] | str, *, env: Mapping[str, str] | None = None, cwd: str | None = None,
              tag: str | None = None, stdin: bool = False) -> Process:
        """Starts a background process (a str command runs as ``sh -c``)."""
        if isinstance(command, str):
            command = ["sh", "-c", command]
        body = _drop_none(command=list(command), env=dict(env) if env else None, cwd=cwd, tag=tag,
                          stdin=True if stdin else None)
        answer = self._client._send("POST", f"{self._computer._path}/processes", body)
        return Process(self._client, answer["process"], self._computer)

    def list(self) -> list[Process]:
        return [Process(self._client, p, self._computer)
                for p in self._client._get(f"{self._computer._path}/processes")["processes"]]

    def get(self, pid: int) -> Process:
        raw = self._client._get(f"{self._computer._path}/processes/{int(pid)}")["process"]
        return Process(self._client, raw, self._computer)


# --- checkpoints ---------------------------------------------------------------------------


class Checkpoint(Model):
    _fields = ("id", "workspace", "source_type", "source", "name", "consistency", "state", "generation",
               "image_digest", "size_bytes", "parent", "error", "created_at", "deleted_at")

    @property
    def _path(self) -> str:
        kind = "databases" if self.source_type == "database" else "computers"
        return f"/{kind}/{_seg(self.source)}/checkpoints/{_seg(self.id)}"

    def refresh(self) -> "Checkpoint":
        self._set(self._client._get(self._path)["checkpoint"])
        return self

    def delete(self, *, wait: bool = True, timeout: float = DEFAULT_WAIT_TIMEOUT) -> "Checkpoint":
        answer = self._answer(self._client._send("DELETE", self._path), "checkpoint")
        if wait and answer.get("operations"):
            _follow(self._client, answer, timeout)
            self.refresh()
        return self


class Checkpoints:
    """The checkpoints of a computer or a database."""

    def __init__(self, client: "Hearth", source: "Computer | Database"):
        self._client = client
        self._source = source

    @property
    def _path(self) -> str:
        return f"{self._source._path}/checkpoints"

    def create(self, name: str | None = None, *, wait: bool = True, timeout: float = DEFAULT_WAIT_TIMEOUT,
               idempotency_key: str | None = None) -> Checkpoint:
        """Takes a checkpoint; with ``wait`` (default) follows its ``checkpoint.create`` operation and
        answers it ``ready`` (OperationFailed if it failed)."""
        answer = self._client._send("POST", self._path, _drop_none(name=name), idempotency_key=idempotency_key)
        checkpoint = Checkpoint(self._client, answer["checkpoint"])
        checkpoint._answer(answer, "checkpoint")
        if wait and answer.get("operations"):
            _follow(self._client, answer, timeout)
            checkpoint.refresh()
        return checkpoint

    def get(self, checkpoint: str) -> Checkpoint:
        """By id or name."""
        return Checkpoint(self._client, self._client._get(f"{self._path}/{_seg(checkpoint)}")["checkpoint"])

    def list(self, limit: int | None = None) -> Iterator[Checkpoint]:
        """Newest first."""
        for raw in _pages(self._client, self._path, "checkpoints", limit=limit):
            yield Checkpoint(self._client, raw)

    __iter__ = list


# --- databases -----------------------------------------------------------------------------


class Connection(Model):
    """How to connect to a database. ``repr`` hides the password; ``uri`` holds it."""

    _fields = ("host", "port", "database", "user", "password", "password_status", "reset_pending", "uri",
               "pooler_uri", "ssl_mode", "server_ca", "pooler_port", "internal_host", "internal_uri",
               "internal_pooler_uri")

    def __repr__(self) -> str:
        return (f"Connection(host={self.host!r}, port={self.port!r}, database={self.database!r}, "
                f"user={self.user!r}, password='********')")


class Database(Model):
    _fields = ("id", "workspace", "name", "state", "pending", "engine", "version", "host", "port", "parent",
               "from_checkpoint", "generation", "protected", "auto_sleep_seconds", "disk_mb", "error",
               "created_at", "updated_at", "last_active_at", "deleted_at")

    def __init__(self, client: "Hearth", raw: Mapping[str, Any]):
        super().__init__(client, raw)
        self.checkpoints = Checkpoints(client, self)

    @property
    def _path(self) -> str:
        return f"/databases/{_seg(self.id)}"

    def refresh(self) -> "Database":
        self._set(self._client._get(self._path)["database"])
        return self

    def update(self, **fields: Any) -> "Database":
        """PATCH: ``protected, auto_sleep_seconds, disk_mb``."""
        self._set(self._client._send("PATCH", self._path, fields)["database"])
        return self

    def delete(self) -> "Database":
        self._set(self._client._send("DELETE", self._path)["database"])
        return self

    def connection(self) -> Connection:
        return Connection(self._client, self._client._get(f"{self._path}/connection")["connection"])

    def reset_credentials(self) -> Connection:
        return Connection(self._client, self._client._send("POST", f"{self._path}/reset_credentials")["connection"])

    def sleep(self) -> "Database":
        self._set(self._client._send("POST", f"{self._path}/sleep")["database"])
        return self

    def wake(self) -> "Database":
        self._set(self._client._send("POST", f"{self._path}/wake")["database"])
        return self


class Databases:
    def __init__(self, client: "Hearth", workspace: Workspace):
        self._client = client
        self._workspace = workspace

    def create(self, name: str, *, version: str | None = None, from_checkpoint: "Checkpoint | str | None" = None,
               auto_sleep_seconds: int | None = None, protected: bool | None = None, disk_mb: int | None = None,
               idempotency_key: str | None = None) -> Database:
        """A new database (asleep until first used), or a branch of a checkpoint."""
        body = _drop_none(name=name, version=version, auto_sleep_seconds=auto_sleep_seconds, protected=protected,
                          disk_mb=disk_mb,
                          from_checkpoint=_id_of(from_checkpoint) if from_checkpoint is not None else None)
        answer = self._client._send("POST", f"{self._workspace._path}/databases", body,
                                    idempotency_key=idempotency_key, timeout=max(self._client.timeout, 300))
        return Database(self._client, answer["database"])

    def get(self, database: str) -> Database:
        """By name (in this workspace) or id."""
        raw = self._client._get(f"/databases/{_seg(database)}", query={"workspace": self._workspace.id})
        return Database(self._client, raw["database"])

    def list(self, limit: int | None = None) -> Iterator[Database]:
        for raw in _pages(self._client, f"{self._workspace._path}/databases", "databases", limit=limit):
            yield Database(self._client, raw)

    __iter__ = list


# --- variables -----------------------------------------------------------------------------


class Variable(Model):
    """A named secret; ``value`` is None for viewers and in replays. ``repr`` hides it."""

    _fields = ("id", "workspace", "name", "created_by", "updated_by", "created_at", "updated_at", "deleted_at",
               "value")

    @property
    def _path(self) -> str:
        return f"/variables/{_seg(self.id)}"

    def refresh(self) -> "Variable":
        self._set(self._client._get(self._path)["variable"])
        return self

    def update(self, *, value: str | None = None, name: str | None = None) -> "Variable":
        self._set(self._client._send("PATCH", self._path, _drop_none(value=value, name=name))["variable"])
        return self

    def delete(self) -> "Variable":
        self._set(self._client._send("DELETE", self._path)["variable"])
        return self


class Variables:
    def __init__(self, client: "Hearth", workspace: Workspace):
        self._client = client
        self._workspace = workspace

    def create(self, name: str, value: str, *, idempotency_key: str | None = None) -> Variable:
        answer = self._client._send("POST", f"{self._workspace._path}/variables", {"name": name, "value": value},
                                    idempotency_key=idempotency_key)
        return Variable(self._client, answer["variable"])

    def get(self, variable: str) -> Variable:
        """By name (in this workspace) or id."""
        raw = self._client._get(f"/variables/{_seg(variable)}", query={"workspace": self._workspace.id})
        return Variable(self._client, raw["variable"])

    def list(self, limit: int | None = None, *, deleted: bool = False) -> Iterator[Variable]:
        for raw in _pages(self._client, f"{self._workspace._path}/variables", "variables",
                          query={"deleted": True if deleted else None}, limit=limit):
            yield Variable(self._client, raw)

    __iter__ = list


__all__ = [
    "Checkpoint", "Checkpoints", "Computer", "Computers", "Connection", "Database", "Databases", "ExecEvent",
    "ExecResult", "FileInfo", "Files", "Model", "Operation", "Operations", "Process", "Processes", "Variable",
    "Variables", "Workspace", "Workspaces",
]
