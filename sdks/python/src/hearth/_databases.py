"""PostgreSQL databases of a workspace, and how to connect to them."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping

from ._checkpoints import Checkpoint, Checkpoints
from ._common import Model, _drop_none, _id_of, _pages, _seg, _timestamp
from ._roles import DatabaseRoles, PgDatabases

if TYPE_CHECKING:  # pragma: no cover
    from ._workspaces import Workspace
    from .client import Hearth


class Connection(Model):
    """How to connect to a database. ``repr`` hides the password; ``uri`` holds it."""

    _fields = ("host", "port", "database", "user", "password", "password_status", "reset_pending", "uri",
               "pooler_uri", "ssl_mode", "server_ca", "pooler_port", "internal_host", "internal_uri",
               "internal_pooler_uri")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    host: str | None
    port: int
    database: str | None
    user: str | None
    password: str | None
    password_status: str | None
    reset_pending: bool
    uri: str | None
    pooler_uri: str | None
    ssl_mode: str | None
    server_ca: str | None
    pooler_port: int
    internal_host: str | None
    internal_uri: str | None
    internal_pooler_uri: str | None

    def __repr__(self) -> str:
        return (f"Connection(host={self.host!r}, port={self.port!r}, database={self.database!r}, "
                f"user={self.user!r}, password='********')")


class TimeTravel(Model):
    """A read-only view of a database as it was at a moment (``at``), on a cluster of its own, until
    ``expires_at`` or ``end()``. ``connection`` (the owner role, the database's password of now)
    holds the password after ``Database.time_travel`` only."""

    _fields = ("id", "database", "at", "created_at", "expires_at", "connection")
    id: str
    database: str
    at: str
    created_at: str
    expires_at: str
    connection: Connection

    def _set(self, raw: Mapping[str, Any]) -> None:
        super()._set(raw)
        self.connection = Connection(self._client, raw["connection"])

    @property
    def _path(self) -> str:
        return f"/databases/{_seg(self.database)}/time_travels/{_seg(self.id)}"

    def end(self) -> "TimeTravel":
        """Ends it now: its sessions end and its cluster goes."""
        self._set(self._client._send("DELETE", self._path)["time_travel"])
        return self


class Database(Model):
    _fields = ("id", "workspace", "name", "state", "pending", "engine", "version", "host", "port", "parent",
               "from_checkpoint", "generation", "protected", "auto_sleep_seconds", "disk_mb", "history_hours", "node", "error",
               "created_at", "updated_at", "last_active_at", "deleted_at")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    id: str
    workspace: str
    name: str
    state: Literal["ready", "sleeping"]
    pending: str | None
    engine: str | None
    version: str
    host: str | None
    port: int
    parent: str | None
    from_checkpoint: str | None
    generation: int
    protected: bool
    auto_sleep_seconds: int
    disk_mb: int
    history_hours: int
    node: str | None
    error: dict[str, Any] | None
    created_at: str
    updated_at: str | None
    last_active_at: str | None
    deleted_at: str | None

    def __init__(self, client: "Hearth", raw: Mapping[str, Any]):
        super().__init__(client, raw)
        self.checkpoints = Checkpoints(client, self)
        # Its PostgreSQL login roles and databases (each call wakes it).
        self.roles = DatabaseRoles(client, self)
        self.pg_databases = PgDatabases(client, self)

    @property
    def _path(self) -> str:
        return f"/databases/{_seg(self.id)}"

    def refresh(self) -> "Database":
        self._set(self._client._get(self._path)["database"])
        return self

    def update(self, **fields: Any) -> "Database":
        """PATCH: ``protected, auto_sleep_seconds, disk_mb, history_hours``."""
        self._set(self._client._send("PATCH", self._path, fields)["database"])
        return self

    def delete(self) -> "Database":
        self._set(self._client._send("DELETE", self._path)["database"])
        return self

    def connection(self) -> Connection:
        return Connection(self._client, self._client._get(f"{self._path}/connection")["connection"])

    def reset_credentials(self) -> Connection:
        return Connection(self._client, self._client._send("POST", f"{self._path}/reset_credentials")["connection"])

    def insights(self, order: Literal["total", "mean"] = "total", limit: int = 20) -> list[dict[str, Any]]:
        """The statements it spends most time on (wakes it): ``[{query, calls, total_millis, mean_millis, rows}]``."""
        answer: list[dict[str, Any]] = self._client._get(f"{self._path}/insights",
                                                         query={"order": order, "limit": limit})["statements"]
        return answer

    def history(self) -> dict[str, Any]:
        """How far back it can be branched: ``{earliest, latest, bases, archive_bytes, window_seconds}``."""
        answer: dict[str, Any] = self._client._get(f"{self._path}/history")["history"]
        return answer

    def restore(self, at: "datetime.datetime | str") -> "Database":
        """Rolls it back to a moment in place (same id, name, port and password; its sessions end once).
        Answers the backup: a new database holding what it was just before, to undo the restore."""
        answer = self._client._send("POST", f"{self._path}/restore", {"at": _timestamp(at)})
        self._set(answer["database"])
        return Database(self._client, answer["backup"])

    def time_travel(self, at: "datetime.datetime | str", *, ttl_seconds: int | None = None,
                    idempotency_key: str | None = None) -> TimeTravel:
        """A read-only connection to it as it was at ``at`` (a time or an LSN), open ``ttl_seconds``
        (60 to 14400, default 600); it does not wake the database."""
        body = _drop_none(at=_timestamp(at), ttl_seconds=ttl_seconds)
        answer = self._client._send("POST", f"{self._path}/time_travels", body, idempotency_key=idempotency_key)
        return TimeTravel(self._client, answer["time_travel"])

    def time_travels(self) -> list[TimeTravel]:
        """Its open time travels (passwords redacted)."""
        answer = self._client._get(f"{self._path}/time_travels")
        return [TimeTravel(self._client, t) for t in answer["time_travels"]]

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
               from_database: "Database | str | None" = None, at: "datetime.datetime | str | None" = None,
               auto_sleep_seconds: int | None = None, protected: bool | None = None, disk_mb: int | None = None,
               history_hours: int | None = None,
               idempotency_key: str | None = None) -> Database:
        """A new database (asleep until first used), a branch of a checkpoint, or (``from_database``
        and ``at``) a database as another was at a moment: its commits at or before ``at``."""
        moment = at.isoformat() if isinstance(at, datetime.datetime) else at
        body = _drop_none(name=name, version=version, auto_sleep_seconds=auto_sleep_seconds, protected=protected,
                          disk_mb=disk_mb, at=moment, history_hours=history_hours,
                          from_checkpoint=_id_of(from_checkpoint) if from_checkpoint is not None else None,
                          from_database=_id_of(from_database) if from_database is not None else None)
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
