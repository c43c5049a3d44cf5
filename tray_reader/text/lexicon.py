"""The user's pronunciation lexicon: words the voice says wrong, and how to say them.

A TOML file with one table::

    [words]
    nginx = "engine x"            # a respelling: said like these English words
    Kokoro = "/kˈOkəɹO/"          # phonemes (Kokoro's symbols) between slashes

The file is `lexicon.toml` in tray-reader's config dir (`default_path()`).
Keys match whole words, ignoring case. Entries are applied to the normalised text just
before G2P, so `say --show-text` still shows the words as written.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from tray_reader import model_files
from tray_reader.errors import ConfigError

MAX_ENTRY_CHARS = 200
"""Longest respelling or phoneme string an entry may have."""


def default_path() -> Path:
    from tray_reader.config import config_dir

    return config_dir() / "lexicon.toml"


@dataclass(frozen=True)
class Lexicon:
    """Word → replacement, where a replacement is a respelling or '/phonemes/'."""

    entries: Mapping[str, str] = field(default_factory=dict)
    """Lower-cased word → respelling, or phonemes wrapped in slashes."""

    @classmethod
    def empty(cls) -> Lexicon:
        return cls({})

    @classmethod
    def from_mapping(cls, words: Mapping[str, object], source: str = "lexicon") -> Lexicon:
        """Validate entries; errors name the source, the key and what is allowed."""
        vocab = model_files.vocab()
        entries: dict[str, str] = {}
        for key, value in words.items():
            where = f"{source}: [words] {key!r}"
            if not isinstance(value, str):
                raise ConfigError(f"{where}: the value must be a string (a respelling or '/phonemes/')")
            word, value = key.strip(), value.strip()
            if not word or not re.fullmatch(r"[\w' .-]+", word):
                raise ConfigError(f"{where}: a key must be a word (letters, digits, ' - . and spaces)")
            if not value or len(value) > MAX_ENTRY_CHARS:
                raise ConfigError(f"{where}: the value must have 1 to {MAX_ENTRY_CHARS} characters")
            if len(value) > 2 and value.startswith("/") and value.endswith("/"):
                bad = sorted({c for c in value[1:-1] if c not in vocab or c in "()[]"})
                if bad:
                    raise ConfigError(
                        f"{where}: these are not Kokoro phoneme symbols: {' '.join(bad)} "
                        "(use misaki's American English symbols, e.g. /kˈOkəɹO/)"
                    )
            elif not re.fullmatch(r"[A-Za-z' ,.-]+", value):
                raise ConfigError(f"{where}: a respelling may use only letters, spaces and ' - , .")
            entries[word.lower()] = value
        return cls(entries)

    @classmethod
    def user(cls) -> Lexicon:
        """The user's lexicon, `lexicon.toml` in tray-reader's config dir (may be absent)."""
        return cls.load(default_path())

    @classmethod
    def load(cls, path: Path) -> Lexicon:
        """Read a lexicon file; a missing file is an empty lexicon."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM, as some editors write
        except FileNotFoundError:
            return cls.empty()
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise ConfigError(f"{path}: cannot read the pronunciation lexicon: {e}") from e
        unknown = set(data) - {"words"}
        if unknown:
            raise ConfigError(
                f"{path}: unknown key(s) {', '.join(sorted(unknown))}; put entries under [words]"
            )
        words = data.get("words", {})
        if not isinstance(words, dict):
            raise ConfigError(f"{path}: 'words' must be a table: [words]")
        return cls.from_mapping(words, str(path))

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        if not self.entries:
            return None
        alternatives = "|".join(re.escape(w) for w in sorted(self.entries, key=len, reverse=True))
        return re.compile(rf"(?<![\w'-])({alternatives})(?![\w'-])", re.IGNORECASE)

    def apply(self, text: str) -> str:
        """`text` with entries replaced: respellings inline, phonemes in misaki's
        '[word](/phonemes/)' form, which its G2P takes as given."""
        pattern = self._pattern
        if pattern is None:
            return text

        def replace(m: re.Match[str]) -> str:
            value = self.entries[m.group().lower()]
            if value.startswith("/") and value.endswith("/") and len(value) > 2:
                return f"[{m.group()}]({value})"
            return value

        return pattern.sub(replace, text)
