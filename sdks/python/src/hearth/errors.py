"""Exceptions: one class per error code of the API (see ``ERROR_CLASSES``), all ``HearthError``."""

from __future__ import annotations

from typing import Any, Mapping


class HearthError(Exception):
    """An error answer of the API, or a failure to reach it.

    ``code`` is the envelope's code (``not_found``, ...), ``message`` its text, ``details`` its
    details object, ``request_id`` the request's id (quote it when reporting a bug) and ``status``
    the HTTP status (None when no answer came). ``headers`` holds the answer's headers, if any.
    """

    code: str | None = None  # the class's code; instances carry the one they were raised with

    def __init__(self, message: str, *, code: str | None = None, details: Mapping[str, Any] | None = None,
                 request_id: str | None = None, status: int | None = None,
                 headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = dict(details or {})
        self.request_id = request_id
        self.status = status
        self.headers = dict(headers or {})

    @property
    def retry_after(self) -> float | None:
        """Seconds the server asked to wait (``Retry-After``), if it did."""
        value = {k.lower(): v for k, v in self.headers.items()}.get("retry-after")
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None

    def __str__(self) -> str:
        parts = [f"{self.code}: {self.message}" if self.code else self.message]
        if self.status is not None:
            parts.append(f"(HTTP {self.status}")
            parts[-1] += f", request {self.request_id})" if self.request_id else ")"
        return " ".join(parts)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, status={self.status!r}, "
                f"request_id={self.request_id!r})")


def _define(name: str, code: str, doc: str, base: type = HearthError) -> type:
    return type(name, (base,), {"code": code, "__doc__": doc, "__module__": __name__})


class HttpsRequired(HearthError):
    """308: plain HTTP sent to an HTTPS listener; ``details['location']`` names the HTTPS URL."""
    code = "https_required"


class ValidationError(HearthError):
    """400 ``invalid_request``: malformed JSON, wrong types, bad names, bad cursors...;
    field problems are in ``details['fields']``."""
    code = "invalid_request"


InvalidRequest = ValidationError


class IdempotencyKeyRequired(HearthError):
    """400: a create without ``Idempotency-Key`` (the SDK always sends one)."""
    code = "idempotency_key_required"


class InvalidGrant(HearthError):
    """400: ``/auth/token`` refused the assertion (signature, key, audience, expiry, reused jti)."""
    code = "invalid_grant"


class UnsupportedGrantType(HearthError):
    """400: a ``grant_type`` other than jwt-bearer."""
    code = "unsupported_grant_type"


class InvalidCode(HearthError):
    """400: a wrong, used or expired email code."""
    code = "invalid_code"


class Unauthorized(HearthError):
    """401 ``unauthenticated``: no token, a bad or expired token, a revoked key or ended session."""
    code = "unauthenticated"


Unauthenticated = Unauthorized


class Forbidden(HearthError):
    """403: the caller's role is too low."""
    code = "forbidden"


class NotFound(HearthError):
    """404: no such route or resource, or one the caller cannot see."""
    code = "not_found"


class MethodNotAllowed(HearthError):
    """405: the path exists with other methods (``details['allowed']``)."""
    code = "method_not_allowed"


class Conflict(HearthError):
    """409: the state does not allow it (name taken, ...). The other 409 codes subclass it."""
    code = "conflict"


class IdempotencyKeyInUse(Conflict):
    """409: the first request with this key still runs (the SDK waits and retries it itself)."""
    code = "idempotency_key_in_use"


class LastAdmin(Conflict):
    """409: the change would leave a workspace without an admin."""
    code = "last_admin"


class NotEmpty(Conflict):
    """409: deleting a workspace that still holds resources (``details`` counts them)."""
    code = "not_empty"


class Protected(Conflict):
    """409: deleting a protected computer or database."""
    code = "protected"


class VariableMissing(Conflict):
    """409: exec on a computer whose env references deleted variables (``details['variables']``)."""
    code = "variable_missing"


class PayloadTooLarge(HearthError):
    """413: a JSON body over 1 MiB."""
    code = "payload_too_large"


class UriTooLong(HearthError):
    """414: the request's URL (path and query) is longer than the server takes."""
    code = "uri_too_long"


class UnsupportedMediaType(HearthError):
    """415: a body that is not ``application/json``."""
    code = "unsupported_media_type"


class IdempotencyKeyReused(HearthError):
    """422: the same ``Idempotency-Key`` with another body."""
    code = "idempotency_key_reused"


class WrongNode(HearthError):
    """421: the computer or database is run by another node; ``details["address"]`` is that node's API."""
    code = "wrong_node"


class RateLimited(HearthError):
    """429: past a rate limit; ``retry_after`` says when to come back."""
    code = "rate_limited"


class HeadersTooLarge(HearthError):
    """431: the request's headers are larger than the server takes."""
    code = "headers_too_large"


class InternalError(HearthError):
    """500 ``internal``: a bug in the server; quote ``request_id``."""
    code = "internal"


class BadGateway(HearthError):
    """502: the router found nothing answering on the computer's port."""
    code = "bad_gateway"


class MailUnavailable(HearthError):
    """503: the sign-in mail could not be sent."""
    code = "mail_unavailable"


class NodeUnavailable(HearthError):
    """503: the computer or database is on a node that is down, or the node is draining (no new work)."""
    code = "node_unavailable"


class RuntimeUnavailable(HearthError):
    """503: computers or databases cannot run on this server, or the runtime failed a call."""
    code = "runtime_unavailable"


class StoreUnavailable(HearthError):
    """503: the store did not take the request within 5 s."""
    code = "store_unavailable"


class Starting(HearthError):
    """503: the server is starting (reconciling what runs); the SDK retries after ``Retry-After``."""
    code = "starting"


class GatewayTimeout(HearthError):
    """504: the computer accepted a routed request and did not answer for 120 s."""
    code = "gateway_timeout"


class InsufficientStorage(HearthError):
    """507: the server's data directory is below its reserve, or an upload exceeds the disk."""
    code = "insufficient_storage"


# Errors that are not an error answer of the API.

class HearthConnectionError(HearthError):
    """The server could not be reached (after the retries), or the connection broke."""
    code = "connection_failed"


class OperationFailed(HearthError):
    """Long work the SDK waited for failed: an operation ended ``failed``, or a create answered a
    ``failed`` resource. ``code``/``message`` are the operation's (or resource's) error,
    ``operation`` the Operation (None without one), ``resource`` the failed object when known."""

    def __init__(self, message: str, *, operation: Any = None, resource: Any = None, **kw: Any):
        super().__init__(message, **kw)
        self.operation = operation
        self.resource = resource


class OperationTimeout(HearthError, TimeoutError):
    """An operation the SDK followed was still running when the timeout passed (``operation``)."""
    code = "operation_timeout"

    def __init__(self, message: str, *, operation: Any = None, resource: Any = None, **kw: Any):
        super().__init__(message, **kw)
        self.operation = operation
        self.resource = resource


ERROR_CLASSES: dict[str, type[HearthError]] = {
    str(cls.code): cls for cls in (
        HttpsRequired, ValidationError, IdempotencyKeyRequired, InvalidGrant, UnsupportedGrantType,
        InvalidCode, Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, IdempotencyKeyInUse,
        LastAdmin, NotEmpty, Protected, VariableMissing, PayloadTooLarge, UriTooLong, UnsupportedMediaType,
        IdempotencyKeyReused, WrongNode, RateLimited, HeadersTooLarge, InternalError, BadGateway,
        MailUnavailable, NodeUnavailable, RuntimeUnavailable, StoreUnavailable, Starting, GatewayTimeout,
        InsufficientStorage,
    )
}


def error_from_answer(status: int | None, body: Any, headers: Mapping[str, str] | None = None) -> HearthError:
    """The exception for an error answer: the class of the envelope's code, HearthError when the
    code is unknown or the body is no envelope."""
    headers = dict(headers or {})
    request_id = next((v for k, v in headers.items() if k.lower() == "x-request-id"), None)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        text = body if isinstance(body, str) and body else f"HTTP {status}"
        return HearthError(text[:500], code=f"http_{status}", status=status, request_id=request_id,
                           headers=headers)
    code = error.get("code") or f"http_{status}"
    cls = ERROR_CLASSES.get(code, HearthError)
    details = error.get("details") if isinstance(error.get("details"), dict) else {}
    return cls(str(error.get("message") or code), code=code, details=details,
               request_id=error.get("request_id") or request_id, status=status, headers=headers)

__all__ = [
    "HearthError", "HearthConnectionError", "OperationFailed", "OperationTimeout", "InvalidRequest",
    "Unauthenticated", "ERROR_CLASSES", "error_from_answer",
] + [cls.__name__ for cls in ERROR_CLASSES.values()]
