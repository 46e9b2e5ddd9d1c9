"""HTTP transport: tokens, Idempotency-Key, retries with backoff, error mapping, streams."""

from __future__ import annotations

import http.client
import io
import json
import os
import random
import socket
import ssl
import stat
import time
import urllib.parse
import uuid
from typing import Any, Callable, Iterator, Literal, Mapping, overload

from . import __version__
from ._auth import JWT_BEARER, TokenSource
from .errors import HearthConnectionError, HearthError, error_from_answer

MUTATIONS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
RETRY_STATUSES = frozenset({429, 502, 503})
_UNSET: Any = object()


class Response:
    """A whole answer: ``status``, ``headers`` (lower-case names), raw ``body`` and parsed ``json``."""

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes):
        self.status = status
        self.headers = dict(headers)
        self.body = body
        self.json: Any = None
        if body and self.headers.get("content-type", "").startswith("application/json"):
            try:
                self.json = json.loads(body)
            except ValueError:
                self.json = None

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id")

    @property
    def replayed(self) -> bool:
        return self.headers.get("idempotent-replayed") == "true"


class StreamResponse:
    """An answer still arriving: iterate ``lines()`` (NDJSON) or ``read(n)``; close it when done
    (closing a streamed exec early kills its command)."""

    def __init__(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse):
        self._conn = conn
        self._resp = resp
        self.status = resp.status
        self.headers = {k.lower(): v for k, v in resp.getheaders()}

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id")

    def read(self, n: int = -1) -> bytes:
        try:
            return self._resp.read(n) if n >= 0 else self._resp.read()
        except (OSError, http.client.HTTPException) as e:
            raise HearthConnectionError(f"the answer broke off: {e}") from e

    def lines(self) -> Iterator[dict]:
        """Each non-blank line, parsed as JSON, as soon as it arrives."""
        while True:
            try:
                line = self._resp.readline()
            except (OSError, http.client.HTTPException) as e:
                raise HearthConnectionError(f"the stream broke off: {e}") from e
            if not line:
                return
            if line.strip():
                yield json.loads(line)

    def close(self) -> None:
        # A shutdown wakes a read blocked in another thread; a close alone would leave it waiting.
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        try:
            self._resp.close()
        finally:
            self._conn.close()

    def __enter__(self) -> "StreamResponse":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Transport:
    """Sends requests to one Hearth server as one principal.

    Every mutation (POST, PUT, PATCH, DELETE) carries an ``Idempotency-Key``: a fresh UUID per
    call unless the caller gives one, and the same one on every retry of that call. Connection
    failures and 429/502/503 answers (and 409 ``idempotency_key_in_use``) are retried up to
    ``max_retries`` times with exponential backoff, or after ``Retry-After`` when the server says.
    A 401 is retried once with a fresh token when the token came from a key file.
    """

    def __init__(self, base_url: str, tokens: TokenSource | None, *, timeout: float = 120.0,
                 max_retries: int = 3, ca_file: str | None = None, user_agent: str | None = None):
        parsed = urllib.parse.urlsplit(base_url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._base = parsed
        self.tokens = tokens
        self.timeout = timeout
        self.max_retries = max_retries
        self._ssl = ssl.create_default_context(cafile=ca_file) if ca_file else None
        self.user_agent = user_agent or f"hearth-python/{__version__}"
        self.sleep: Callable[[float], None] = time.sleep  # replaced by tests

    # -- connection -------------------------------------------------------------------------

    def _connection(self, url: urllib.parse.SplitResult, timeout: float) -> http.client.HTTPConnection:
        port, host = url.port, url.hostname
        if not host:
            raise ValueError(f"no host in {url.geturl()}")
        if url.scheme == "https":
            ctx = self._ssl or ssl.create_default_context()
            return http.client.HTTPSConnection(host, port, timeout=timeout, context=ctx)
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def url_for(self, path: str, query: Mapping[str, Any] | None = None) -> str:
        if path.startswith(("http://", "https://")):
            url = path
        else:
            url = self.base_url + (path if path.startswith("/") else "/" + path)
        if query:
            # A list repeats its parameter (``?label=a=1&label=b=2``).
            pairs = [(k, _query_value(item)) for k, v in query.items() if v is not None
                     for item in (v if isinstance(v, (list, tuple)) else [v])]
            if pairs:
                url += ("&" if "?" in url else "?") + urllib.parse.urlencode(pairs)
        return url

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), 60.0)
            except ValueError:
                pass
        return min(0.5 * (2 ** attempt), 8.0) * (0.75 + random.random() / 2)

    # -- requests ---------------------------------------------------------------------------

    @overload
    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = ..., json_body: Any = ...,
                data: Any = ..., content_type: str | None = ..., headers: Mapping[str, str] | None = ...,
                idempotency_key: str | None = ..., timeout: float | None = ..., stream: Literal[False] = ...,
                auth: bool = ..., retries: int | None = ...) -> Response: ...

    @overload
    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = ..., json_body: Any = ...,
                data: Any = ..., content_type: str | None = ..., headers: Mapping[str, str] | None = ...,
                idempotency_key: str | None = ..., timeout: float | None = ..., stream: Literal[True],
                auth: bool = ..., retries: int | None = ...) -> StreamResponse: ...

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None,
                json_body: Any = _UNSET, data: Any = None, content_type: str | None = None,
                headers: Mapping[str, str] | None = None, idempotency_key: str | None = None,
                timeout: float | None = None, stream: bool = False, auth: bool = True,
                retries: int | None = None) -> Response | StreamResponse:
        """Sends one logical call (retries included). Answers 2xx as a Response (or a
        StreamResponse with ``stream=True``); raises the HearthError subclass of any other."""
        method = method.upper()
        url = urllib.parse.urlsplit(self.url_for(path, query))
        target = url.path + ("?" + url.query if url.query else "")
        send_headers = {"User-Agent": self.user_agent, "Accept": "application/json"}
        body: Any = None
        if json_body is not _UNSET:
            body = json.dumps(json_body, separators=(",", ":")).encode("utf-8")
            send_headers["Content-Type"] = "application/json"
        elif data is not None:
            body = data.encode("utf-8") if isinstance(data, str) else data
            send_headers["Content-Type"] = content_type or "application/octet-stream"
        if method in MUTATIONS:
            send_headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        send_headers.update(headers or {})
        # A body read from a file can be sent once only; bytes can be sent again.
        rewindable = body is None or isinstance(body, (bytes, bytearray, memoryview))
        start_pos = None
        if not rewindable and hasattr(body, "seek") and hasattr(body, "tell"):
            try:
                start_pos = body.tell()
                rewindable = True
            except (OSError, ValueError):
                pass
        chunked = False
        if body is not None and not isinstance(body, (bytes, bytearray, memoryview)):
            length = _length_of(body)
            if length is None:
                chunked = True
                send_headers["Transfer-Encoding"] = "chunked"
            else:
                send_headers["Content-Length"] = str(length)
        # Sent twice, a stream that is never kept for replays (a streamed exec) would run twice.
        resend_after_send = rewindable and not stream
        timeout = self.timeout if timeout is None else timeout
        max_retries = self.max_retries if retries is None else retries

        attempt = 0
        refreshed = False
        while True:
            if auth and self.tokens is not None:
                token = self.tokens.token(self)
                if token:
                    send_headers["Authorization"] = "Bearer " + token
            if start_pos is not None:
                body.seek(start_pos)
            conn = self._connection(url, timeout)
            try:
                conn.connect()
            except OSError as e:
                conn.close()
                if rewindable and attempt < max_retries:
                    self.sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise HearthConnectionError(f"cannot reach {self.base_url}: {e}") from e
            try:
                conn.request(method, target, body=body, headers=send_headers, encode_chunked=chunked)
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                if resend_after_send and attempt < max_retries:
                    self.sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise HearthConnectionError(f"{method} {url.path}: the connection broke: {e}") from e

            status = resp.status
            resp_headers = {k.lower(): v for k, v in resp.getheaders()}
            if stream and 200 <= status < 300:
                return StreamResponse(conn, resp)
            try:
                raw = resp.read()
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                if resend_after_send and attempt < max_retries:
                    self.sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise HearthConnectionError(f"{method} {url.path}: the answer broke off: {e}") from e
            finally:
                conn.close()
            answer = Response(status, resp_headers, raw)
            if 200 <= status < 300:
                return answer
            error = error_from_answer(status, answer.json if answer.json is not None else raw.decode("utf-8", "replace"),
                                      resp_headers)
            if status == 401 and auth and not refreshed and self.tokens is not None and rewindable \
                    and self.tokens.invalidate():
                refreshed = True
                continue
            retryable = status in RETRY_STATUSES or error.code == "idempotency_key_in_use"
            if retryable and rewindable and attempt < max_retries:
                self.sleep(self._backoff(attempt, resp_headers.get("retry-after")))
                attempt += 1
                continue
            raise error

    def exchange_assertion(self, token_url: str, assertion: Callable[[], str]) -> dict:
        """POST the key file's token_url with a jwt-bearer assertion; answers the token response.
        Each attempt signs a new assertion: a jti is good once, and a resent one would be refused
        (and counted as a failed sign-in)."""
        attempt = 0
        while True:
            form = urllib.parse.urlencode({"grant_type": JWT_BEARER, "assertion": assertion()})
            try:
                answer = self.request("POST", token_url, data=form, auth=False, retries=0,
                                      content_type="application/x-www-form-urlencoded")
            except HearthError as e:
                if (e.status is None or e.status in RETRY_STATUSES) and attempt < self.max_retries:
                    self.sleep(self._backoff(attempt, e.headers.get("retry-after")))
                    attempt += 1
                    continue
                raise
            if not isinstance(answer.json, dict) or "access_token" not in answer.json:
                raise HearthError("the token endpoint answered no access_token", status=answer.status,
                                  request_id=answer.request_id)
            return answer.json


def _query_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _length_of(body: Any) -> int | None:
    """The bytes left in a file-like body, when that can be known (else it goes chunked)."""
    if isinstance(body, io.BytesIO):
        return len(body.getbuffer()) - body.tell()
    try:
        st = os.fstat(body.fileno())
        if stat.S_ISREG(st.st_mode):
            return max(st.st_size - body.tell(), 0)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    return None
