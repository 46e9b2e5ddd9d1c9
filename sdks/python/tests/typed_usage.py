"""A program written against the SDK, type-checked by mypy in test_types.py (never run): what the
API's document allows passes, and each line marked ``# type: ignore[...]`` must be an error."""

from hearth import Computer, Connection, Database, DatabaseRole, Hearth, Operation, PgDatabase


def summary(h: Hearth) -> str:
    ws = h.workspaces.get("demo")
    computer: Computer = ws.computers.get("web")
    name: str = computer.name
    state: str | None = computer.state
    memory: int | None = computer.auto_sleep_seconds
    wrong: int = computer.name  # type: ignore[assignment]
    database: Database = ws.databases.get("db")
    port: int = database.port
    pending: str = database.pending  # type: ignore[assignment]
    role: DatabaseRole = database.roles.create("reporter")
    owner: bool = role.owner
    login: Connection | None = role.connection
    lost: str = role.connection  # type: ignore[assignment]
    fresh: Connection = role.reset_password()
    analytics: PgDatabase = database.pg_databases.create("analytics", owner=role)
    owner_name: str = analytics.owner_name
    default: str = analytics.default  # type: ignore[assignment]
    roles: list[DatabaseRole] = database.roles.list()
    op: Operation = h.operations.get("op")
    done: bool = op.state in ("succeeded", "failed")
    recent: list[Operation] = list(h.operations.list(ws, state="failed", limit=10))
    return f"{name} {state} {memory} {wrong} {port} {pending} {done} {len(recent)} {owner} {login} {lost} {fresh} {owner_name} {default} {len(roles)}"
