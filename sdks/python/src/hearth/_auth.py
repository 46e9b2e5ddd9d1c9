"""Credentials: a fixed bearer token, or a key file traded for tokens (RFC 7523)."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any, Mapping

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

if TYPE_CHECKING:  # pragma: no cover
    from ._http import Transport

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
# A token is refreshed this many seconds before the server says it expires.
REFRESH_MARGIN_SECONDS = 60


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


class TokenSource:
    """Where the Authorization header comes from."""

    def token(self, transport: "Transport") -> str | None:
        raise NotImplementedError

    def invalidate(self) -> bool:
        """Forget the current token; True when asking again may give a different one."""
        return False


class StaticToken(TokenSource):
    def __init__(self, token: str):
        self._token = token

    def token(self, transport: "Transport") -> str | None:
        return self._token


class KeyFileTokens(TokenSource):
    """Signs an assertion with the key file's private key, trades it at ``token_url`` and reuses
    the access token until a minute before it expires. Thread safe."""

    def __init__(self, key_file: Mapping[str, Any]):
        for field in ("subject", "key_id", "audience", "token_url", "private_key"):
            if not key_file.get(field):
                raise ValueError(f"the key file has no {field!r}"
                                 + (" (a byok key file: put your PKCS#8 PEM private key there)"
                                    if field == "private_key" else ""))
        self.key_file = dict(key_file)
        try:
            self._key = serialization.load_pem_private_key(key_file["private_key"].encode(), password=None)
        except (ValueError, TypeError) as e:
            raise ValueError(f"the key file's private_key is not a usable PKCS#8 PEM key: {e}") from e
        if not isinstance(self._key, (ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)):
            raise ValueError("the key file's private_key must be an EC P-256 or RSA key")
        self._lock = threading.Lock()
        self._access_token: str | None = None
        self._expires_at = 0.0

    @classmethod
    def read(cls, path: str) -> "KeyFileTokens":
        try:
            with open(path, encoding="utf-8") as f:
                return cls(json.load(f))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"cannot read key file {path}: {e}") from e

    def assertion(self) -> str:
        """A fresh RFC 7523 assertion: iss = sub = subject, aud = audience, 60 s of life, unique jti."""
        is_ec = isinstance(self._key, ec.EllipticCurvePrivateKey)
        header = {"alg": "ES256" if is_ec else "RS256", "kid": self.key_file["key_id"], "typ": "JWT"}
        now = int(time.time())
        claims = {
            "iss": self.key_file["subject"],
            "sub": self.key_file["subject"],
            "aud": self.key_file["audience"],
            "iat": now,
            "exp": now + 60,
            "jti": str(uuid.uuid4()),
        }
        signing_input = (_b64url(json.dumps(header, separators=(",", ":")).encode()) + "."
                         + _b64url(json.dumps(claims, separators=(",", ":")).encode())).encode("ascii")
        key = self._key
        if isinstance(key, ec.EllipticCurvePrivateKey):
            der = key.sign(signing_input, ec.ECDSA(hashes.SHA256()))
            r, s = decode_dss_signature(der)  # JWS wants r || s, 32 bytes each, not DER
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        elif isinstance(key, rsa.RSAPrivateKey):
            signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:  # refused when the key file was read
            raise ValueError("the key file's private_key must be an EC P-256 or RSA key")
        return signing_input.decode("ascii") + "." + _b64url(signature)

    def token(self, transport: "Transport") -> str | None:
        with self._lock:
            if self._access_token is None or time.time() + REFRESH_MARGIN_SECONDS >= self._expires_at:
                answer = transport.exchange_assertion(self.key_file["token_url"], self.assertion)
                self._access_token = answer["access_token"]
                self._expires_at = time.time() + float(answer.get("expires_in") or 0)
            return self._access_token

    def invalidate(self) -> bool:
        with self._lock:
            self._access_token = None
            self._expires_at = 0.0
        return True
