"""Python SDK of Hearth: gVisor sandboxed computers and PostgreSQL databases over /v1.

    from hearth import Hearth
    h = Hearth()                      # HEARTH_URL, HEARTH_KEY_FILE, HEARTH_API_KEY or HEARTH_TOKEN
    ws = h.workspaces.create("demo")
    c = ws.computers.create("box", image="hearth/busybox")
    print(c.exec(["echo", "hi"]).stdout)
"""

__version__ = "0.1.0"

from .errors import *  # noqa: E402,F401,F403  (one class per error code)
from .errors import ERROR_CLASSES, HearthError, error_from_answer  # noqa: E402,F401
from ._auth import KeyFileTokens, StaticToken, TokenSource  # noqa: E402,F401
from .models import (  # noqa: E402,F401
    ApiKey, Checkpoint, Computer, Connection, Database, DatabaseRole, ExecEvent, ExecResult, FileEvent, FileInfo, FileWatch,
    Operation, PgDatabase, Process, TimeTravel, Variable, Workspace,
)
from .client import DEFAULT_URL, Hearth  # noqa: E402,F401
