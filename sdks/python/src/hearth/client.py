"""The entry point: ``Hearth()``."""

from __future__ import annotations

import os
from typing import Any, Mapping

from ._auth import KeyFileTokens, StaticToken, TokenSource
from ._http import _UNSET, Response, StreamResponse, Transport
from ._common import Operation, Operations, _seg
from ._computers import Computer
from ._databases import Database
from ._workspaces import Workspace, Workspaces

DEFAULT_URL = "http://127.0.0.1:7300/v1"


class Hearth:
    """A client of one Hearth server.

    ``Hearth()`` reads the environment as the CLI does: ``HEARTH_URL`` (default
    ``http://127.0.0.1:7300/v1``), then ``HEARTH_TOKEN`` (an access token), ``HEARTH_API_KEY`` (an
    API key, ``hk_...``) or ``HEARTH_KEY_FILE`` (a key file, traded for tokens as needed), and
    ``HEARTH_CA_FILE`` (a PEM CA for an HTTPS server with its own certificate). Arguments override
    the environment: ``url``, ``token``, ``api_key``, ``key_file`` (a path, or the key file's parsed
    JSON), ``ca_file``. ``timeout`` is the per-request socket timeout in seconds, ``max_retries``
    how often a call is retried (connection failures, 429, 502, 503).
    """

    def __init__(self, url: str | None = None, *, key_file: str | Mapping[str, Any] | None = None,
                 token: str | None = None, api_key: str | None = None, ca_file: str | None = None,
                 timeout: float = 120.0, max_retries: int = 3, env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        self.url = (url or env.get("HEARTH_URL") or DEFAULT_URL).rstrip("/")
        tokens: TokenSource | None
        # An API key is a bearer secret like an access token, only long-lived: sent as it is.
        if token is not None or api_key is not None:
            tokens = StaticToken(token if token is not None else str(api_key))
        elif key_file is not None:
            tokens = KeyFileTokens(key_file) if isinstance(key_file, Mapping) else KeyFileTokens.read(key_file)
        elif env.get("HEARTH_TOKEN") or env.get("HEARTH_API_KEY"):
            tokens = StaticToken(env.get("HEARTH_TOKEN") or env["HEARTH_API_KEY"])
        elif env.get("HEARTH_KEY_FILE"):
            tokens = KeyFileTokens.read(env["HEARTH_KEY_FILE"])
        else:
            tokens = None  # only the routes anyone may call will work
        self.timeout = timeout
        self._transport = Transport(self.url, tokens, timeout=timeout, max_retries=max_retries,
                                    ca_file=ca_file or env.get("HEARTH_CA_FILE") or None)
        self.workspaces = Workspaces(self)
        self.operations = Operations(self)

    # -- the low level, for routes the objects do not cover ---------------------------------

    def request(self, method: str, path: str, body: Any = _UNSET, *, query: Mapping[str, Any] | None = None,
                idempotency_key: str | None = None, headers: Mapping[str, str] | None = None,
                timeout: float | None = None) -> Response:
        """Sends one call (``path`` under the base URL, e.g. ``/me``) with the SDK's tokens, key and
        retries; answers the Response (``status``, ``headers``, ``json``, ``replayed``) or raises."""
        answer = self._transport.request(method, path, query=query, json_body=body, headers=headers,
                                         idempotency_key=idempotency_key, timeout=timeout)
        assert isinstance(answer, Response)
        return answer

    def _get(self, path: str, *, query: Mapping[str, Any] | None = None, timeout: float | None = None) -> Any:
        return self.request("GET", path, query=query, timeout=timeout).json

    def _send(self, method: str, path: str, body: Any = _UNSET, *, query: Mapping[str, Any] | None = None,
              data: Any = None, content_type: str | None = None, idempotency_key: str | None = None,
              timeout: float | None = None) -> Any:
        answer = self._transport.request(method, path, query=query, json_body=body, data=data,
                                         content_type=content_type, idempotency_key=idempotency_key,
                                         timeout=timeout)
        assert isinstance(answer, Response)
        return answer.json

    # -- shortcuts --------------------------------------------------------------------------

    def health(self) -> dict:
        return self._get("/health")

    def me(self) -> dict:
        """``{principal, workspaces: [{workspace, role}]}``."""
        return self._get("/me")

    def workspace(self, workspace: str) -> Workspace:
        """A workspace by id or name."""
        return self.workspaces.get(workspace)

    def computer(self, computer_id: str) -> Computer:
        """A computer by id (any workspace; deleted ones too)."""
        return Computer(self, self._get(f"/computers/{_seg(computer_id)}")["computer"])

    def database(self, database_id: str) -> Database:
        return Database(self, self._get(f"/databases/{_seg(database_id)}")["database"])

    def operation(self, operation_id: str) -> Operation:
        return self.operations.get(operation_id)

    def __repr__(self) -> str:
        return f"Hearth(url={self.url!r})"


__all__ = ["Hearth", "DEFAULT_URL", "StreamResponse"]
