"""A computer's file system: read, write, list, move, remove, tar archives, watches."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator

from ._common import Model, _drop_none
from .errors import NotFound, error_from_answer

WATCH_TIMEOUT = 30 * 24 * 3600.0

if TYPE_CHECKING:  # pragma: no cover
    from ._computers import Computer
    from .client import Hearth


class FileInfo(Model):
    """``type`` is file, dir, symlink or other; ``mode`` octal text such as ``"0644"``,
    ``permissions`` as ``ls -l`` shows them; ``owner`` and ``group`` are names from the image's
    /etc/passwd and /etc/group (the number when it has none); ``symlink_target`` a link's target."""

    _fields = ("path", "name", "type", "size", "mode", "permissions", "uid", "gid", "owner", "group",
               "modified_at", "symlink_target", "metadata")
    # The wire fields, typed as docs/openapi.json types them (tests/test_types.py keeps them so).
    path: str
    name: str
    type: str
    size: int
    mode: str | None
    permissions: str | None
    uid: int
    gid: int
    owner: str | None
    group: str | None
    modified_at: str | None
    symlink_target: str | None
    metadata: dict[str, str] | None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileInfo) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(self.raw.get("path"))

    def __repr__(self) -> str:
        return f"FileInfo(path={self.path!r}, type={self.type!r}, size={self.size!r}, mode={self.mode!r})"


class Files:
    """A computer's file system, through its agent (no shell or tar needed in the image)."""

    def __init__(self, client: "Hearth", computer: Computer):
        self._client = client
        self._computer = computer

    @property
    def _path(self) -> str:
        return f"{self._computer._path}/files"

    def write(self, path: str, data: bytes | str | BinaryIO, *, mode: str | int | None = None,
              owner: str | None = None) -> FileInfo:
        """Writes (replaces) a file, whole or not at all; parents are made. ``data`` is bytes, str
        (UTF-8) or a binary file object (streamed). ``mode``: ``"0600"`` or ``0o600``. ``owner``: a
        user of the image who owns the file and the parents made (default root)."""
        if isinstance(mode, int):
            mode = format(mode, "o")
        answer = self._client._send("PUT", self._path, query={"path": path, "mode": mode, "owner": owner}, data=data,
                                    content_type="application/octet-stream")
        return FileInfo(self._client, answer["file"])

    def read(self, path: str) -> bytes:
        """The file's bytes."""
        with self.open(path) as stream:
            return stream.read()

    def open(self, path: str):
        """The file as a stream to ``read(n)`` (a context manager); for large files."""
        return self._client._transport.request("GET", self._path, query={"path": path}, stream=True,
                                               headers={"Accept": "*/*"})

    def download(self, path: str, destination: str | BinaryIO) -> int:
        """Copies the file into a local path or binary file object; answers the bytes copied."""
        with self.open(path) as stream:
            if isinstance(destination, str):
                with open(destination, "wb") as out:
                    return _copy(stream, out)
            return _copy(stream, destination)

    def info(self, path: str) -> FileInfo:
        return FileInfo(self._client, self._client._get(f"{self._path}/info", query={"path": path})["file"])

    def exists(self, path: str) -> bool:
        try:
            self.info(path)
            return True
        except NotFound:
            return False

    def list(self, path: str) -> list[FileInfo]:
        """A directory's entries, by name."""
        return [FileInfo(self._client, f) for f in
                self._client._get(f"{self._path}/list", query={"path": path})["files"]]

    def remove(self, path: str, *, recursive: bool = False) -> FileInfo:
        answer = self._client._send("DELETE", self._path, query={"path": path, "recursive": recursive or None})
        return FileInfo(self._client, answer["file"])

    def move(self, source: str, destination: str) -> FileInfo:
        return FileInfo(self._client, self._client._send("POST", f"{self._path}/move",
                                                         {"from": source, "to": destination})["file"])

    def mkdir(self, path: str, *, owner: str | None = None) -> FileInfo:
        """Makes a directory and its parents, owned by ``owner`` (a user of the image) or root."""
        body = _drop_none(path=path, owner=owner)
        return FileInfo(self._client, self._client._send("POST", f"{self._path}/mkdir", body)["file"])

    def watch(self, path: str, *, recursive: bool = False, timeout: float | None = None) -> "FileWatch":
        """Follows what happens in a directory: answers once the watch is set (so a change made
        after it shows), then iterating it yields FileEvents as they happen, until ``close()`` (or
        the end of a ``with`` block), or until the computer sleeps or is deleted. ``recursive``
        watches its subdirectories too. ``timeout``: seconds an event may be waited for before
        HearthConnectionError (default 30 days: a directory may stay quiet)."""
        stream = self._client._transport.request("GET", f"{self._path}/watch", stream=True,
                                                 timeout=WATCH_TIMEOUT if timeout is None else timeout,
                                                 query={"path": path, "recursive": recursive or None},
                                                 headers={"Accept": "application/x-ndjson"})
        return FileWatch(stream)

    def read_archive(self, path: str) -> bytes:
        """A tar of the directory (names relative to it)."""
        with self._client._transport.request("GET", f"{self._path}/archive", query={"path": path},
                                             stream=True, headers={"Accept": "*/*"}) as stream:
            return stream.read()

    def write_archive(self, path: str, tar: bytes | BinaryIO) -> FileInfo:
        """Unpacks a tar into the directory (made if missing)."""
        answer = self._client._send("PUT", f"{self._path}/archive", query={"path": path}, data=tar,
                                    content_type="application/x-tar")
        return FileInfo(self._client, answer["file"])


@dataclasses.dataclass
class FileEvent:
    """One change in a watched directory: ``name`` relative to it, ``type`` ``create``, ``write``,
    ``remove``, ``rename`` (the old name; the new one comes as ``create``) or ``chmod``, and ``dir``
    whether it is a directory."""

    name: str
    type: str
    dir: bool = False
    raw: dict = dataclasses.field(default_factory=dict, repr=False)


class FileWatch:
    """A watch of a directory (``files.watch``): iterate it for FileEvents; ``close()`` ends it
    (from another thread too). ``path`` is the directory watched."""

    def __init__(self, stream: Any):
        self._stream = stream
        self._lines = stream.lines()
        self._closed = False
        try:
            first = next(self._lines, None) or {}
        except BaseException:
            stream.close()
            raise
        self.path: str | None = first.get("watching")

    def __iter__(self) -> Iterator[FileEvent]:
        return self

    def __next__(self) -> FileEvent:
        try:
            line = next(self._lines)
        except Exception:
            if self._closed:  # close() from another thread cut the read short
                raise StopIteration from None
            raise
        if isinstance(line.get("error"), dict):
            raise error_from_answer(None, {"error": line["error"]})
        return FileEvent(name=line.get("name"), type=line.get("type"), dir=bool(line.get("dir")), raw=line)

    def close(self) -> None:
        self._closed = True
        self._stream.close()

    def __enter__(self) -> "FileWatch":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _copy(stream: Any, out: BinaryIO) -> int:
    total = 0
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            return total
        out.write(chunk)
        total += len(chunk)
