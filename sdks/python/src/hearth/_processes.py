"""Background processes of a computer: start, stdin, signals, terminals, output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping, Sequence

from ._common import Model, _drop_none
from ._exec import ExecEvent, _stream_events

if TYPE_CHECKING:  # pragma: no cover
    from ._computers import Computer
    from .client import Hearth


class Process(Model):
    """``pty``: it runs on a terminal of its own (``resize`` changes its window)."""

    _fields = ("pid", "tag", "command", "state", "exit_code", "started_at", "ended_at", "stdin", "pty")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    pid: int
    tag: str | None
    command: list[str] | None
    state: Literal["running", "exited"]
    exit_code: int | None
    started_at: str | None
    ended_at: str | None
    stdin: bool
    pty: bool

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

    def resize(self, cols: int, rows: int) -> "Process":
        """Changes the window of a process started with ``pty`` (it gets SIGWINCH); Conflict for others."""
        self._set(self._client._send("POST", f"{self._path}/resize", {"cols": cols, "rows": rows})["process"])
        return self

    def output(self, *, follow: bool = False, binary: bool = False, from_now: bool = False) -> Iterator[ExecEvent]:
        """Its kept output (none of it with ``from_now=True``: only what it writes from then on),
        then (``follow=True``) new output until it ends; the last event has ``exit_code`` once it
        ended."""
        query = {"follow": follow or None, "encoding": "base64" if binary else None,
                 "from": "now" if from_now else None}
        return _stream_events(self._client, "GET", f"{self._path}/output", None, query, binary,
                              None if not follow else 24 * 3600)

    def wait(self) -> int | None:
        """Follows its output to the end; answers its exit code (None for one the server never
        learnt, as for a process of a computer deleted meanwhile)."""
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
              tag: str | None = None, stdin: bool = False, user: str | int | None = None,
              pty: bool | tuple[int, int] | None = None) -> Process:
        """Starts a background process (a str command runs as ``sh -c``). ``user`` runs it as a user
        of the image, as exec does. ``pty=(cols, rows)`` (or True: 80x24) starts it on a terminal
        of its own: its output comes as stdout, its input (always open) through ``write_stdin``."""
        if isinstance(command, str):
            command = ["sh", "-c", command]
        window = None if not pty else {} if pty is True else {"cols": pty[0], "rows": pty[1]}
        body = _drop_none(command=list(command), env=dict(env) if env else None, cwd=cwd, tag=tag,
                          stdin=True if stdin else None, user=None if user is None else str(user), pty=window)
        answer = self._client._send("POST", f"{self._computer._path}/processes", body)
        return Process(self._client, answer["process"], self._computer)

    def list(self) -> list[Process]:
        return [Process(self._client, p, self._computer)
                for p in self._client._get(f"{self._computer._path}/processes")["processes"]]

    def get(self, pid: int) -> Process:
        raw = self._client._get(f"{self._computer._path}/processes/{int(pid)}")["process"]
        return Process(self._client, raw, self._computer)
