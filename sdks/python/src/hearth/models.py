"""The API's objects, gathered in one module for ``from hearth.models import ...``. Each domain
lives in its own module: ``_common`` (the ``Model`` base, operations, pages), ``_workspaces``,
``_computers``, ``_exec``, ``_files``, ``_processes``, ``_checkpoints``, ``_databases`` and
``_variables``."""

from ._checkpoints import Checkpoint, Checkpoints
from ._common import DEFAULT_WAIT_TIMEOUT, Model, Operation, Operations
from ._computers import Computer, Computers
from ._databases import Connection, Database, Databases
from ._exec import ExecEvent, ExecResult
from ._files import FileInfo, Files
from ._processes import Process, Processes
from ._variables import Variable, Variables
from ._workspaces import Workspace, Workspaces

__all__ = [
    "Checkpoint", "Checkpoints", "Computer", "Computers", "Connection", "Database", "Databases", "ExecEvent",
    "ExecResult", "FileInfo", "Files", "Model", "Operation", "Operations", "Process", "Processes", "Variable",
    "Variables", "Workspace", "Workspaces",
]
