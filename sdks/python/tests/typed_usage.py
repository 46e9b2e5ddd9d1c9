"""A program written against the SDK, type-checked by mypy in test_types.py (never run): what the
API's document allows passes, and each line marked ``# type: ignore[...]`` must be an error."""

from hearth import Computer, Database, Hearth, Operation


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
    op: Operation = h.operations.get("op")
    done: bool = op.state in ("succeeded", "failed")
    recent: list[Operation] = list(h.operations.list(ws, state="failed", limit=10))
    return f"{name} {state} {memory} {wrong} {port} {pending} {done} {len(recent)}"
