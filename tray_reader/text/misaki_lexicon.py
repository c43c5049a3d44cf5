"""misaki's pronunciation dictionaries, packed, and loaded from a cache of that form.

``misaki.en.Lexicon`` parses two JSON files (6 MB), grows them with capitalised variants
and checks every entry: about a second of the daemon's start-up, and 54 MB of Python
dicts (200,000 keys, each a str object, each value one or a dict of them). misaki only
asks them ``word in d``, ``d.get(word)`` and ``d[word]``, so they are held as a
`PackedDictionary`: the sorted keys in one bytes object, the values (marshalled) in another,
looked up by binary search. That is ~7 MB, and read back from the cache (kept under the
JSON files' checksum) in milliseconds. A cache that is missing, stale or unreadable is
rebuilt.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import logging
import marshal
import os
import tempfile
from array import array
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tray_reader.paths import cache_dir

log = logging.getLogger(__name__)

FORMAT = 2
"""Bumped when what is stored changes."""


class PackedDictionary(Mapping[str, Any]):
    """A read-only str -> value mapping in two bytes objects (see the module docstring)."""

    def __init__(self, keys: bytes, key_ends: array, values: bytes, value_ends: array) -> None:
        self._keys, self._key_ends = keys, key_ends
        self._values, self._value_ends = values, value_ends

    @classmethod
    def pack(cls, d: Mapping[str, Any]) -> PackedDictionary:
        items = sorted((k.encode(), v) for k, v in d.items())
        key_ends, value_ends = array("I"), array("I")
        keys, values = bytearray(), bytearray()
        for k, v in items:
            keys += k
            key_ends.append(len(keys))
            values += marshal.dumps(v)
            value_ends.append(len(values))
        return cls(bytes(keys), key_ends, bytes(values), value_ends)

    def state(self) -> tuple[bytes, bytes, bytes, bytes]:
        """What `from_state` takes back (for the cache)."""
        return self._keys, self._key_ends.tobytes(), self._values, self._value_ends.tobytes()

    @classmethod
    def from_state(cls, state: tuple[bytes, bytes, bytes, bytes]) -> PackedDictionary:
        keys, key_ends, values, value_ends = state
        ends = array("I"), array("I")
        ends[0].frombytes(key_ends)
        ends[1].frombytes(value_ends)
        return cls(keys, ends[0], values, ends[1])

    def _key(self, i: int) -> bytes:
        return self._keys[self._key_ends[i - 1] if i else 0 : self._key_ends[i]]

    def _find(self, key: object) -> int:
        if not isinstance(key, str):
            return -1
        k = key.encode()
        lo, hi = 0, len(self._key_ends)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._key(mid) < k:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < len(self._key_ends) and self._key(lo) == k else -1

    def __getitem__(self, key: str) -> Any:
        i = self._find(key)
        if i < 0:
            raise KeyError(key)
        return marshal.loads(self._values[self._value_ends[i - 1] if i else 0 : self._value_ends[i]])

    def __contains__(self, key: object) -> bool:
        return self._find(key) >= 0

    def __len__(self) -> int:
        return len(self._key_ends)

    def __iter__(self) -> Iterator[str]:
        return (self._key(i).decode() for i in range(len(self)))


def _digest(british: bool) -> str:
    from misaki import data

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT}:{british}".encode())
    prefix = "gb" if british else "us"
    for name in (f"{prefix}_gold.json", f"{prefix}_silver.json"):
        h.update(importlib.resources.files(data).joinpath(name).read_bytes())
    return h.hexdigest()


def load_lexicon(british: bool = False, cache: Path | None = None) -> Any:
    """A ``misaki.en.Lexicon`` with packed dictionaries, from the cache when it holds them
    for these files."""
    from misaki import en

    folder = cache if cache is not None else cache_dir() / "lexicon"
    path = folder / f"{_digest(british)}.marshal"
    try:
        golds, silvers = (PackedDictionary.from_state(s) for s in marshal.loads(path.read_bytes()))
    except (OSError, EOFError, ValueError, TypeError):
        parsed = en.Lexicon(british)
        golds, silvers = PackedDictionary.pack(parsed.golds), PackedDictionary.pack(parsed.silvers)
        del parsed
        _store(path, (golds.state(), silvers.state()))
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
