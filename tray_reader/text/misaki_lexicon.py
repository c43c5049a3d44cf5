"""misaki's pronunciation dictionaries, loaded from a cache of their parsed form.

``misaki.en.Lexicon`` parses two JSON files (6 MB), grows them with capitalised variants
and checks every entry: about a second of the daemon's start-up. The result depends only
on those files, so it is kept in the cache directory with ``marshal`` (the dictionaries
hold only strings, None and dicts of them) under the files' checksum, and read back in a
fraction of that time. A cache that is missing, stale or unreadable is rebuilt.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import logging
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

from tray_reader.paths import cache_dir

log = logging.getLogger(__name__)

FORMAT = 1
"""Bumped when what is stored changes."""


def _digest(british: bool) -> str:
    from misaki import data

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT}:{british}".encode())
    prefix = "gb" if british else "us"
    for name in (f"{prefix}_gold.json", f"{prefix}_silver.json"):
        h.update(importlib.resources.files(data).joinpath(name).read_bytes())
    return h.hexdigest()


def load_lexicon(british: bool = False, cache: Path | None = None) -> Any:
    """A ``misaki.en.Lexicon``, from the cache when it holds one for these files."""
    from misaki import en

    folder = cache if cache is not None else cache_dir() / "lexicon"
    path = folder / f"{_digest(british)}.marshal"
    try:
        golds, silvers = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        lexicon = en.Lexicon(british)
        _store(path, (lexicon.golds, lexicon.silvers))
        return lexicon
    lexicon = en.Lexicon.__new__(en.Lexicon)
    lexicon.british = british
    lexicon.cap_stresses = (0.5, 2)
    lexicon.golds, lexicon.silvers = golds, silvers
    return lexicon


def _store(path: Path, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(marshal.dumps(value))
        os.replace(tmp, path)
    except OSError as e:  # a read-only cache only costs the next start its second
        log.info("could not cache the pronunciation dictionaries: %s", e)
