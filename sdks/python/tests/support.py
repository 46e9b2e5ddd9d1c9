"""Shared helpers: the live server from the environment, unique names, skips."""

import os
import secrets
import sys
import unittest

# The package under test is the source tree's, whichever way the tests were started.
SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

import hearth  # noqa: E402

URL = os.environ.get("HEARTH_URL")
KEY_FILE = os.environ.get("HEARTH_KEY_FILE")
LIVE = bool(URL and (KEY_FILE or os.environ.get("HEARTH_TOKEN")))
COMPUTERS = os.environ.get("HEARTH_TEST_COMPUTERS", "1") != "0"
DATABASES = os.environ.get("HEARTH_TEST_DATABASES", "1") != "0"

needs_server = unittest.skipUnless(LIVE, "set HEARTH_URL and HEARTH_KEY_FILE to run against a server")
needs_computers = unittest.skipUnless(LIVE and COMPUTERS, "HEARTH_TEST_COMPUTERS=0 or no server")
needs_databases = unittest.skipUnless(LIVE and DATABASES, "HEARTH_TEST_DATABASES=0 or no server")


def unique(prefix: str = "py") -> str:
    """A workspace (DNS label) name no other test run uses."""
    return f"{prefix}-{secrets.token_hex(5)}"


def client(**kw) -> "hearth.Hearth":
    return hearth.Hearth(**kw)


class LiveWorkspaceCase(unittest.TestCase):
    """A test class with a workspace of its own, deleted with all it holds at the end."""

    ws: "hearth.Workspace"
    h: "hearth.Hearth"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.h = client()
        cls.ws = cls.h.workspaces.create(unique())

    @classmethod
    def tearDownClass(cls):
        try:
            cls.ws.delete(cascade=True)
        finally:
            super().tearDownClass()
