"""The PostgreSQL roles and databases inside a Hearth database (each call wakes it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ._common import Model, _drop_none, _seg

if TYPE_CHECKING:  # pragma: no cover
    from ._databases import Connection, Database
    from .client import Hearth


def _connection(client: "Hearth", raw: Mapping[str, Any]) -> "Connection":
    from ._databases import Connection
    return Connection(client, raw)


class DatabaseRole(Model):
    """A login role of a database (never a superuser). ``connection`` holds its password (and how it
    connects to the default database) after ``create`` or ``reset_password`` only: Hearth keeps none."""

    _fields = ("name", "owner")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    name: str
    owner: bool

    def __init__(self, client: "Hearth", raw: Mapping[str, Any], database: "Database",
                 connection: "Connection | None" = None):
        super().__init__(client, raw)
        self._database = database
        self.connection = connection

    @property
    def _path(self) -> str:
        return f"{self._database._path}/roles/{_seg(self.name)}"

    def reset_password(self) -> "Connection":
        """A new password (its sessions end); the owner role's is the database's credential reset."""
        answer = self._client._send("POST", f"{self._path}/reset_password")
        self.connection = _connection(self._client, answer["connection"])
        return self.connection

    def delete(self) -> "DatabaseRole":
        """Drops it; refused (Conflict) while it owns objects, (Protected) for the owner role."""
        self._set(self._client._send("DELETE", self._path)["role"])
        return self


class DatabaseRoles:
    def __init__(self, client: "Hearth", database: "Database"):
        self._client = client
        self._database = database

    def list(self) -> list[DatabaseRole]:
        answer = self._client._get(f"{self._database._path}/roles")
        return [DatabaseRole(self._client, r, self._database) for r in answer["roles"]]

    def create(self, name: str, *, idempotency_key: str | None = None) -> DatabaseRole:
        """A new login role; its password is in ``.connection`` (shown once)."""
        answer = self._client._send("POST", f"{self._database._path}/roles", {"name": name},
                                    idempotency_key=idempotency_key)
        return DatabaseRole(self._client, answer["role"], self._database,
                            _connection(self._client, answer["connection"]))

    def get(self, name: str) -> DatabaseRole:
        """A role by name, to reset or delete (no request is made)."""
        return DatabaseRole(self._client, {"name": name, "owner": False}, self._database)


class PgDatabase(Model):
    """A PostgreSQL database inside a Hearth database; ``default`` for the one its connection names."""

    _fields = ("name", "owner_name", "default")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    name: str
    owner_name: str
    default: bool

    def __init__(self, client: "Hearth", raw: Mapping[str, Any], database: "Database"):
        super().__init__(client, raw)
        self._database = database

    def delete(self) -> "PgDatabase":
        """Drops it (its sessions end); refused (Protected) for the default database."""
        path = f"{self._database._path}/pg_databases/{_seg(self.name)}"
        self._set(self._client._send("DELETE", path)["pg_database"])
        return self


class PgDatabases:
    def __init__(self, client: "Hearth", database: "Database"):
        self._client = client
        self._database = database

    def list(self) -> list[PgDatabase]:
        answer = self._client._get(f"{self._database._path}/pg_databases")
        return [PgDatabase(self._client, d, self._database) for d in answer["pg_databases"]]

    def create(self, name: str, *, owner: "DatabaseRole | str | None" = None,
               idempotency_key: str | None = None) -> PgDatabase:
        """A new PostgreSQL database, owned by ``owner`` (a role or its name; default: the owner role)."""
        owner_name = owner.name if isinstance(owner, DatabaseRole) else owner
        answer = self._client._send("POST", f"{self._database._path}/pg_databases",
                                    _drop_none(name=name, owner_name=owner_name), idempotency_key=idempotency_key)
        return PgDatabase(self._client, answer["pg_database"], self._database)
