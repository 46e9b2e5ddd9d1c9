"""Workspaces: the container of computers, databases, variables and API keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping

from ._api_keys import ApiKeys
from ._checkpoints import WorkspaceCheckpoints
from ._common import Model, _pages, _seg
from ._computers import Computers
from ._databases import Databases
from ._variables import Variables

if TYPE_CHECKING:  # pragma: no cover
    from .client import Hearth


class Workspace(Model):
    _fields = ("id", "name", "state", "created_at", "updated_at", "deleted_at")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    id: str
    name: str
    state: Literal["active"]
    created_at: str
    updated_at: str | None
    deleted_at: str | None

    def __init__(self, client: "Hearth", raw: Mapping[str, Any]):
        super().__init__(client, raw)
        self.computers = Computers(client, self)
        self.databases = Databases(client, self)
        self.variables = Variables(client, self)
        self.api_keys = ApiKeys(client, self)
        self.checkpoints = WorkspaceCheckpoints(client, self)

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
        deletes its computers, kept checkpoints, databases and variables."""
        if cascade:
            for computer in list(self.computers.list()):
                computer.delete()
            for checkpoint in list(self.checkpoints.list()):
                checkpoint.delete()
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
