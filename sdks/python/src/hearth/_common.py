"""What every API object shares: the ``Model`` base (wire fields as attributes, the answer in
``.raw``), path and id helpers, paged lists, and following long-running operations."""

from __future__ import annotations

import datetime
import time
import urllib.parse
from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping

from .errors import OperationFailed, OperationTimeout

if TYPE_CHECKING:  # pragma: no cover
    from .client import Hearth

DEFAULT_WAIT_TIMEOUT = 600.0


def _seg(value: str) -> str:
    """One path segment (ids and names never need quoting; anything else is refused by the server).
    ``.`` and ``..`` are refused here: quoting leaves them as they are, and resolved they would name
    the resource above the one meant."""
    text = str(value)
    if text in (".", ".."):
        raise ValueError(f"{text!r} is not a name or an id")
    return urllib.parse.quote(text, safe="")


def _id_of(value: Any) -> str:
    """An id from a model (its ``id``) or a string."""
    if isinstance(value, Model):
        return value.id
    if isinstance(value, str):
        return value
    raise TypeError(f"expected an id or a Hearth object, got {type(value).__name__}")


def _drop_none(**fields: Any) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


def _timestamp(value: "datetime.datetime | str | None") -> str | None:
    """The API's timestamp (UTC, milliseconds, ``Z``) from a datetime (a naive one is local time,
    as ``astimezone`` takes it); a str is sent as it is."""
    if not isinstance(value, datetime.datetime):
        return value
    return value.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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
        if type(other) is not type(self) or not isinstance(other, Model):
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
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    id: str
    kind: str
    state: Literal["running", "succeeded", "failed"]
    workspace: str | None
    resource: str | None
    progress: str | None
    error: dict[str, Any] | None
    created_at: str
    updated_at: str | None
    completed_at: str | None

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

    def list(self, workspace: Any, state: str | None = None, resource: str | None = None,
             limit: int | None = None) -> Iterator[Operation]:
        """A workspace's operations, newest first; ``state`` (running, succeeded, failed) and
        ``resource`` (an id) narrow it."""
        query = {k: v for k, v in {"state": state, "resource": resource}.items() if v is not None}
        path = f"/workspaces/{_seg(_id_of(workspace))}/operations"
        for raw in _pages(self._client, path, "operations", query, limit):
            yield Operation(self._client, raw)

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
