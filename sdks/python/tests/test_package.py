"""The package's public names: ``from hearth import ...`` and ``from hearth.models import ...``."""

import unittest

import support  # noqa: F401  (puts ../src first on sys.path)

import hearth
import hearth.models

TOP_LEVEL = ("ApiKey", "Checkpoint", "Computer", "Connection", "Database", "DatabaseRole", "PgDatabase", "ExecEvent", "ExecResult", "FileEvent",
             "FileInfo", "FileWatch", "Operation", "Process", "TimeTravel", "Variable", "Workspace", "Hearth", "HearthError",
             "ERROR_CLASSES", "error_from_answer", "KeyFileTokens", "StaticToken", "TokenSource", "DEFAULT_URL",
             "NotFound", "OperationFailed")


class PublicNamesTest(unittest.TestCase):
    def test_the_objects_are_importable_from_hearth_and_hearth_models_alike(self):
        for name in TOP_LEVEL:
            self.assertTrue(hasattr(hearth, name), name)
        self.assertEqual(30, len(hearth.models.__all__))
        for name in hearth.models.__all__:
            cls = getattr(hearth.models, name)
            self.assertIsInstance(cls, type, name)
            if hasattr(hearth, name):
                self.assertIs(cls, getattr(hearth, name), name)
            self.assertTrue(issubclass(cls, hearth.models.Model) or name in
                            ("Computers", "Workspaces", "Databases", "Variables", "Files", "Processes",
                             "Checkpoints", "Operations", "ExecEvent", "ExecResult", "ApiKeys", "WorkspaceCheckpoints",
                             "FileEvent", "FileWatch", "DatabaseRoles", "PgDatabases"), name)

    def test_objects_are_wired_to_their_collections(self):
        h = hearth.Hearth("http://127.0.0.1:1/v1", token="t", env={})
        ws = hearth.Workspace(h, {"id": "w1", "name": "w"})
        self.assertIsInstance(ws.computers, hearth.models.Computers)
        self.assertIsInstance(ws.databases, hearth.models.Databases)
        self.assertIsInstance(ws.variables, hearth.models.Variables)
        self.assertIsInstance(ws.api_keys, hearth.models.ApiKeys)
        self.assertIsInstance(ws.checkpoints, hearth.models.WorkspaceCheckpoints)
        db = hearth.Database(h, {"id": "d1", "name": "d"})
        self.assertIsInstance(db.roles, hearth.models.DatabaseRoles)
        self.assertIsInstance(db.pg_databases, hearth.models.PgDatabases)
        self.assertEqual("/databases/d1/roles/r1", db.roles.get("r1")._path)
        self.assertEqual(("/workspaces/w1/api_keys", "/workspaces/w1/checkpoints"),
                         (ws.api_keys._path, ws.checkpoints._path))
        c = hearth.Computer(h, {"id": "c1", "future_field": 7})
        self.assertEqual((hearth.models.Files, hearth.models.Processes, hearth.models.Checkpoints),
                         (type(c.files), type(c.processes), type(c.checkpoints)))
        self.assertEqual(("/computers/c1/files", "/computers/c1/checkpoints"), (c.files._path, c.checkpoints._path))
        self.assertEqual(7, c.future_field)
        self.assertIsInstance(hearth.Database(h, {"id": "d1"}).checkpoints, hearth.models.Checkpoints)


if __name__ == "__main__":
    unittest.main()
