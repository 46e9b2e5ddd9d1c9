"""Checkpoints of a computer or a database."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ._common import DEFAULT_WAIT_TIMEOUT, Model, _drop_none, _follow, _pages, _seg

if TYPE_CHECKING:  # pragma: no cover
    from ._computers import Computer
    from ._databases import Database
    from .client import Hearth


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
