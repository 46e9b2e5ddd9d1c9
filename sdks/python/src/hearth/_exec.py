"""Running commands: exec results, streamed (NDJSON) output events, and the request body."""

from __future__ import annotations

import base64
import dataclasses
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from .errors import error_from_answer

if TYPE_CHECKING:  # pragma: no cover
    from .client import Hearth


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
               stdin: str | bytes | None, timeout_seconds: int | None, binary: bool,
               user: str | int | None = None) -> dict:
    if isinstance(command, str):
        command = ["sh", "-c", command]
    body: dict[str, Any] = {"command": list(command)}
    if env:
        body["env"] = dict(env)
    if cwd is not None:
        body["cwd"] = cwd
    if user is not None:
        body["user"] = str(user)
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
