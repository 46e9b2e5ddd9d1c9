"""Variables: a workspace's named secrets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ._common import Model, _drop_none, _pages, _seg

if TYPE_CHECKING:  # pragma: no cover
    from ._workspaces import Workspace
    from .client import Hearth


class Variable(Model):
    """A named secret; ``value`` is None for viewers and in replays. ``repr`` hides it."""

    _fields = ("id", "workspace", "name", "created_by", "updated_by", "created_at", "updated_at", "deleted_at",
               "value")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    id: str
    workspace: str
    name: str
    created_by: str | None
    updated_by: str | None
    created_at: str
    updated_at: str | None
    deleted_at: str | None
    value: str

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
