"""API keys: long-lived ``hk_...`` secrets that act in one workspace, as their maker, with a role."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping

from ._common import Model, _drop_none, _id_of, _pages, _seg

if TYPE_CHECKING:  # pragma: no cover
    from ._workspaces import Workspace
    from .client import Hearth


class ApiKey(Model):
    """An API key. ``secret`` is the key itself, known only to the object ``create`` answered (the
    server keeps its hash and never shows it again); ``repr`` never shows it. Use it as
    ``Hearth(api_key=secret)`` or ``HEARTH_API_KEY``."""

    _fields = ("id", "workspace", "principal", "name", "role", "prefix", "state", "created_at", "expires_at",
               "last_used_at", "revoked_at")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    id: str
    workspace: str
    principal: str | None
    name: str
    role: Literal["viewer", "editor", "admin"]
    prefix: str
    state: Literal["active", "revoked", "expired"]
    created_at: str
    expires_at: str | None
    last_used_at: str | None
    revoked_at: str | None

    def __init__(self, client: "Hearth", raw: Mapping[str, Any], secret: str | None = None):
        super().__init__(client, raw)
        self.secret = secret

    @property
    def _path(self) -> str:
        return f"/workspaces/{_seg(self.workspace)}/api_keys/{_seg(self.id)}"

    def refresh(self) -> "ApiKey":
        self._set(self._client._get(self._path)["api_key"])
        return self

    def revoke(self) -> "ApiKey":
        """Revokes it: the server refuses it (401) from the next request on."""
        self._set(self._client._send("DELETE", self._path)["api_key"])
        return self


class ApiKeys:
    def __init__(self, client: "Hearth", workspace: Workspace):
        self._client = client
        self._workspace = workspace

    @property
    def _path(self) -> str:
        return f"{self._workspace._path}/api_keys"

    def create(self, name: str, *, role: str | None = None, expires_in_days: int | None = None,
               idempotency_key: str | None = None) -> ApiKey:
        """A new key with its ``secret`` (shown this once; a replay of the same idempotency key
        answers it None). ``role`` defaults to, and may not pass, the caller's role here; without
        ``expires_in_days`` it lives until revoked."""
        answer = self._client._send("POST", self._path, _drop_none(name=name, role=role,
                                                                   expires_in_days=expires_in_days),
                                    idempotency_key=idempotency_key)
        return ApiKey(self._client, answer["api_key"], answer.get("secret"))

    def get(self, api_key: str) -> ApiKey:
        return ApiKey(self._client, self._client._get(f"{self._path}/{_seg(api_key)}")["api_key"])

    def list(self, limit: int | None = None) -> Iterator[ApiKey]:
        """Every key of the workspace, revoked and expired ones too (never their secrets)."""
        for raw in _pages(self._client, self._path, "api_keys", limit=limit):
            yield ApiKey(self._client, raw)

    def revoke(self, api_key: ApiKey | str) -> ApiKey:
        """Revokes a key by id (or the object)."""
        answer = self._client._send("DELETE", f"{self._path}/{_seg(_id_of(api_key))}")
        return ApiKey(self._client, answer["api_key"])

    __iter__ = list
