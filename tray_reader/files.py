"""Checksums and crash-safe writes: the one way the package hashes data and replaces a file."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


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
