"""Checkpoints of a computer or a database, and a workspace's kept ones."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Literal

from ._common import DEFAULT_WAIT_TIMEOUT, Model, _drop_none, _follow, _id_of, _pages, _seg

if TYPE_CHECKING:  # pragma: no cover
    from ._computers import Computer
    from ._databases import Database
    from ._workspaces import Workspace
    from .client import Hearth


class Checkpoint(Model):
    """``kept``: it outlives its computer (a template to fork from), until deleted."""

    _fields = ("id", "workspace", "source_type", "source", "name", "consistency", "state", "generation",
               "image_digest", "size_bytes", "parent", "kept", "error", "created_at", "deleted_at")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    id: str
    workspace: str
    source_type: Literal["computer", "database"]
    source: str
    name: str
    consistency: Literal["crash", "consistent"] | None
    state: Literal["creating", "ready", "failed", "deleting"]
    generation: int
    image_digest: str | None
    size_bytes: int
    parent: str | None
    kept: bool
    error: dict[str, Any] | None
    created_at: str
    deleted_at: str | None

    @property
    def _path(self) -> str:
        kind = "databases" if self.source_type == "database" else "computers"
        return f"/{kind}/{_seg(self.source)}/checkpoints/{_seg(self.id)}"

    def refresh(self) -> "Checkpoint":
        self._set(self._client._get(self._path)["checkpoint"])
        return self

    def delete(self, *, wait: bool = True, timeout: float = DEFAULT_WAIT_TIMEOUT) -> "Checkpoint":
        # A kept checkpoint's computer may be gone: the workspace's route deletes it either way.
        path = f"/workspaces/{_seg(self.workspace)}/checkpoints/{_seg(self.id)}" if self.kept else self._path
        answer = self._answer(self._client._send("DELETE", path), "checkpoint")
        if wait and answer.get("operations"):
            _follow(self._client, answer, timeout)
            self.refresh()
        return self


class _CheckpointList:
    def __init__(self, client: "Hearth", owner: "Computer | Database | Workspace"):
        self._client = client
        self._source = owner

    @property
    def _path(self) -> str:
        return f"{self._source._path}/checkpoints"

    def get(self, checkpoint: str) -> Checkpoint:
        """By id or name (a workspace's: a kept one, by id)."""
        return Checkpoint(self._client, self._client._get(f"{self._path}/{_seg(checkpoint)}")["checkpoint"])

    def list(self, limit: int | None = None) -> Iterator[Checkpoint]:
        """Newest first."""
        for raw in _pages(self._client, self._path, "checkpoints", limit=limit):
            yield Checkpoint(self._client, raw)

    __iter__ = list


class WorkspaceCheckpoints(_CheckpointList):
    """``ws.checkpoints``: the workspace's kept checkpoints (those made with ``keep=True``), whether
    their computers live or not. Delete one with ``delete(id)`` or ``checkpoint.delete()``."""

    def delete(self, checkpoint: Checkpoint | str, *, wait: bool = True,
               timeout: float = DEFAULT_WAIT_TIMEOUT) -> Checkpoint:
        """Deletes a kept checkpoint by id (or the object), following ``checkpoint.delete``."""
        # What the id names is read from the answer; kept says which route deletes it.
        stub = Checkpoint(self._client, {"id": _id_of(checkpoint), "workspace": self._source.id, "kept": True})
        return stub.delete(wait=wait, timeout=timeout)


class Checkpoints(_CheckpointList):
    """The checkpoints of a computer or a database."""

    def create(self, name: str | None = None, *, keep: bool | None = None, wait: bool = True,
               timeout: float = DEFAULT_WAIT_TIMEOUT, idempotency_key: str | None = None) -> Checkpoint:
        """Takes a checkpoint; with ``wait`` (default) follows its ``checkpoint.create`` operation and
        answers it ``ready`` (OperationFailed if it failed). ``keep=True`` (computers only): it
        outlives the computer, in ``workspace.checkpoints``."""
        answer = self._client._send("POST", self._path, _drop_none(name=name, keep=keep),
                                    idempotency_key=idempotency_key)
        checkpoint = Checkpoint(self._client, answer["checkpoint"])
        checkpoint._answer(answer, "checkpoint")
        if wait and answer.get("operations"):
            _follow(self._client, answer, timeout)
            checkpoint.refresh()
        return checkpoint
