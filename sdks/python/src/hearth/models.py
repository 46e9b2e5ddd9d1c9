"""The API's objects, gathered in one module for ``from hearth.models import ...``. Each domain
lives in its own module: ``_common`` (the ``Model`` base, operations, pages), ``_workspaces``,
``_computers``, ``_exec``, ``_files``, ``_processes``, ``_checkpoints``, ``_databases``, ``_roles``,
``_variables`` and ``_api_keys``."""

from ._api_keys import ApiKey, ApiKeys
from ._checkpoints import Checkpoint, Checkpoints, WorkspaceCheckpoints
from ._common import DEFAULT_WAIT_TIMEOUT, Model, Operation, Operations
from ._computers import Computer, Computers
from ._databases import Connection, Database, Databases, TimeTravel
from ._exec import ExecEvent, ExecResult
from ._files import FileEvent, FileInfo, Files, FileWatch
from ._processes import Process, Processes
from ._roles import DatabaseRole, DatabaseRoles, PgDatabase, PgDatabases
from ._variables import Variable, Variables
from ._workspaces import Workspace, Workspaces

__all__ = [
    "ApiKey", "ApiKeys", "Checkpoint", "Checkpoints", "Computer", "Computers", "Connection", "Database", "DatabaseRole",
    "DatabaseRoles", "Databases", "ExecEvent", "ExecResult", "FileEvent", "FileInfo", "Files", "FileWatch", "Model",
    "Operation", "Operations", "PgDatabase", "PgDatabases", "Process", "Processes", "TimeTravel", "Variable", "Variables",
    "Workspace", "WorkspaceCheckpoints", "Workspaces",
]
