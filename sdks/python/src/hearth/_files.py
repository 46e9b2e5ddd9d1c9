"""A computer's file system: read, write, list, move, remove, tar archives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, BinaryIO

from ._common import Model
from .errors import NotFound

if TYPE_CHECKING:  # pragma: no cover
    from ._computers import Computer
    from .client import Hearth


class FileInfo(Model):
    """``type`` is file, dir, symlink or other; ``mode`` octal text such as ``"0644"``."""

    _fields = ("path", "name", "type", "size", "mode", "modified_at")

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

    def write(self, path: str, data: bytes | str | BinaryIO, *, mode: str | int | None = None) -> FileInfo:
        """Writes (replaces) a file, whole or not at all; parents are made. ``data`` is bytes, str
        (UTF-8) or a binary file object (streamed). ``mode``: ``"0600"`` or ``0o600``."""
        if isinstance(mode, int):
            mode = format(mode, "o")
        answer = self._client._send("PUT", self._path, query={"path": path, "mode": mode}, data=data,
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

    def mkdir(self, path: str) -> FileInfo:
        return FileInfo(self._client, self._client._send("POST", f"{self._path}/mkdir", {"path": path})["file"])

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


def _copy(stream: Any, out: BinaryIO) -> int:
    total = 0
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            return total
        out.write(chunk)
        total += len(chunk)
