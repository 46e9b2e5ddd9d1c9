"""Computers: a workspace's gVisor sandboxes, and what can be done with one."""

from __future__ import annotations

import base64
import datetime
from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping, Sequence

from ._checkpoints import Checkpoint, Checkpoints
from ._common import DEFAULT_WAIT_TIMEOUT, Model, _drop_none, _follow, _id_of, _pages, _seg, _timestamp
from ._exec import ExecEvent, ExecResult, _exec_body, _stream_events
from ._files import Files
from ._processes import Processes
from .errors import OperationFailed, OperationTimeout

if TYPE_CHECKING:  # pragma: no cover
    from ._workspaces import Workspace
    from .client import Hearth


class Computer(Model):
    _fields = ("id", "workspace", "name", "state", "pending", "sleep_mode", "image", "image_digest", "ports", "url",
               "env_keys", "env_vars", "resources", "generation", "protected", "auto_sleep_seconds",
               "freeze_when_idle", "network", "entrypoint", "command", "restart", "labels", "expires_at", "on_expire", "main_exit",
               "parent", "from_checkpoint",
               "node", "error", "frozen_since", "unresponsive_since", "created_at", "updated_at", "last_started_at", "last_active_at",
               "deleted_at")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    id: str
    workspace: str
    name: str
    state: Literal["creating", "ready", "sleeping", "failed"]
    pending: Literal["sleeping", "restoring", "deleting"] | None
    sleep_mode: Literal["warm", "cold"] | None
    image: str
    image_digest: str | None
    ports: list[dict[str, Any]]
    url: str
    env_keys: list[str]
    env_vars: list[dict[str, Any]]
    resources: dict[str, Any]
    generation: int
    protected: bool
    auto_sleep_seconds: int | None
    freeze_when_idle: bool
    network: dict[str, Any]
    entrypoint: list[str] | None
    command: list[str] | None
    restart: Literal["always", "on-failure", "never"] | None
    labels: dict[str, str]
    expires_at: str | None
    on_expire: Literal["delete", "sleep"] | None
    main_exit: dict[str, Any] | None
    parent: str | None
    from_checkpoint: str | None
    node: str | None
    error: dict[str, Any] | None
    frozen_since: str | None
    unresponsive_since: str | None
    created_at: str
    updated_at: str
    last_started_at: str | None
    last_active_at: str | None
    deleted_at: str | None

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
        """PATCH: ``name, env, ports, protected, auto_sleep_seconds, freeze_when_idle, network, resources, entrypoint,
        command, restart, labels, expires_at, on_expire`` (``env``, ``labels`` and ``resources``
        merge; ``env={"NAME": None}`` removes one, ``labels={"team": None}`` too;
        ``expires_at=None`` ends the lifetime; a datetime is sent as the API's timestamp)."""
        if "expires_at" in fields:
            fields["expires_at"] = _timestamp(fields["expires_at"])
        self._set(self._client._send("PATCH", self._path, fields)["computer"])
        return self

    def delete(self) -> "Computer":
        self._set(self._client._send("DELETE", self._path)["computer"])
        return self

    def exec(self, command: Sequence[str] | str, *, env: Mapping[str, str] | None = None, cwd: str | None = None,
             stdin: str | bytes | None = None, timeout_seconds: int | None = None, binary: bool = False,
             user: str | int | None = None, idempotency_key: str | None = None) -> ExecResult:
        """Runs a command to its end. A str command runs as ``sh -c``. ``binary=True`` (implied by
        bytes stdin) sends and answers bytes (the API's base64 encoding). ``user`` (a name or uid of
        the image's /etc/passwd; default root) runs it as that user, in its home unless ``cwd``."""
        body = _exec_body(command, env, cwd, stdin, timeout_seconds, binary, user)
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
                    binary: bool = False, user: str | int | None = None) -> Iterator[ExecEvent]:
        """Runs a command and yields its output as it arrives (NDJSON): ExecEvents with ``stdout`` or
        ``stderr``, the last one with ``exit_code``. Closing the generator early (``break``) hangs
        up, which kills the command. A runtime failure mid-way raises its HearthError."""
        body = _exec_body(command, env, cwd, stdin, timeout_seconds, binary, user)
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

    def metrics_history(self, *, since: datetime.datetime | str | None = None,
                        until: datetime.datetime | str | None = None) -> list[dict]:
        """Metrics samples (``at, cpu_seconds, cpu_percent, memory_bytes, memory_limit_bytes,
        disk_used_bytes, disk_size_bytes``), one every 5 s of the last hour it was awake, oldest first."""
        query = {"since": _timestamp(since), "until": _timestamp(until)}
        return self._client._get(f"{self._path}/metrics/history", query=query)["samples"]

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
               freeze_when_idle: bool | None = None,
               network: Mapping[str, Any] | None = None, entrypoint: Sequence[str] | None = None,
               command: Sequence[str] | None = None, restart: str | None = None,
               from_checkpoint: "Checkpoint | str | None" = None, labels: Mapping[str, str] | None = None,
               expires_at: datetime.datetime | str | None = None, on_expire: str | None = None,
               wait: bool = True, timeout: float = DEFAULT_WAIT_TIMEOUT,
               idempotency_key: str | None = None) -> Computer:
        """Creates a computer, or forks one with ``from_checkpoint``. When the server answers 202
        (an image to pull) it follows the ``computer.create`` operation (unless ``wait=False``)
        and answers the computer as it is then. A computer that ends up ``failed`` (image pull,
        start or fork failed) raises OperationFailed with the computer's error code; the failed
        computer is ``e.resource`` (delete it, or look at it). ``labels`` are the owner's names
        and values; at ``expires_at`` the computer is deleted, or put to sleep with
        ``on_expire="sleep"``."""
        body = _drop_none(name=name, image=image, env=dict(env) if env is not None else None,
                          ports=list(ports) if ports is not None else None, protected=protected,
                          resources=dict(resources) if resources is not None else None,
                          auto_sleep_seconds=auto_sleep_seconds, freeze_when_idle=freeze_when_idle,
                          network=network,
                          entrypoint=list(entrypoint) if entrypoint is not None else None,
                          command=list(command) if command is not None else None, restart=restart,
                          from_checkpoint=_id_of(from_checkpoint) if from_checkpoint is not None else None,
                          labels=dict(labels) if labels is not None else None, expires_at=_timestamp(expires_at),
                          on_expire=on_expire)
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

    def list(self, limit: int | None = None, *, labels: Mapping[str, str] | None = None,
             state: str | Sequence[str] | None = None, search: str | None = None) -> Iterator[Computer]:
        """The live computers; ``labels`` keeps those with every label given, ``state`` those in
        one of the states (``"ready"``, or ``["ready", "sleeping"]``), ``search`` those whose name or
        image contains it (any letter case)."""
        query = {"label": [f"{k}={v}" for k, v in labels.items()] if labels else None,
                 "state": state if state is None or isinstance(state, str) else ",".join(state), "q": search}
        for raw in _pages(self._client, f"{self._workspace._path}/computers", "computers", query=query,
                          limit=limit):
            yield Computer(self._client, raw)

    __iter__ = list
