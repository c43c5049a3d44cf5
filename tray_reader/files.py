"""Checksums and crash-safe writes: the one way the package hashes data and replaces a file."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def output_place_problem(path: Path, example: str) -> str | None:
    """Why a file cannot be written at ``path`` (a folder, no such folder), with what to
    give instead (``example``: a file name for the folder case); None when it can."""
    if path.is_dir():
        return f"{path} is a folder; give a file name in it, e.g. {path / example}"
    if not path.parent.is_dir():
        return f"{path.parent} is not a directory; create it first"
    return None


def write_atomic(path: Path, data: bytes | str, *, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) so that a reader sees either
    the old file or the new one, never half of it; the temporary file never outlives a failure.
    ``durable`` also flushes it to the disk before the rename (the user's own data)."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class FileChecksums:
    """SHA-256 of files, remembered by what the file system says of each (device, inode,
    size, modification and change times), so an unchanged file is not read again.

    Hashing the cached model parts was a measurable part of every start (docs/benchmarks.md). Any write to a file, or a replacement of it, changes its change time or inode
    (and no program can set a change time back), so a changed file is hashed again. What
    this cannot see is a file whose bytes rot on the disk: ``doctor`` hashes in full
    (``full``), and its findings replace what the memo knew. The memo is one small JSON
    file; losing it only costs a hash."""

    def __init__(self, memo: Path, full: bool = False) -> None:
        self._memo = memo
        self._full = full
        self._known: dict[str, list] | None = None

    def sha256(self, path: Path) -> str:
        """The file's SHA-256 (OSError when it cannot be read); hashed unless the memo
        knows the file as it is now (and not ``full``)."""
        st = path.stat()
        key = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
        known = self._load()
        name = str(path.resolve())
        entry = known.get(name)
        if not self._full and entry is not None and entry[:-1] == key:
            return str(entry[-1])
        digest = _hash_file(path)
        if path.stat().st_ctime_ns == st.st_ctime_ns:  # not written to while it was read
            known[name] = [*key, digest]
            self._save(known)
        return digest

    def _load(self) -> dict[str, list]:
        if self._known is None:
            try:
                loaded = json.loads(self._memo.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                loaded = {}
            self._known = (
                {k: v for k, v in loaded.items() if isinstance(v, list) and len(v) == 6}
                if isinstance(loaded, dict)
                else {}
            )
        return self._known

    def _save(self, known: dict[str, list]) -> None:
        known = {k: v for k, v in known.items() if os.path.exists(k)}
        with contextlib.suppress(OSError):  # a read-only cache: hashed at every start, as before
            write_atomic(self._memo, json.dumps(known, indent=0))


def _hash_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


MEMO_FILE = "checksums.json"
"""`FileChecksums`' memo, in the cache folder whose files it knows."""
