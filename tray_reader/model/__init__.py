"""Deriving, checking and caching the model files the engine loads (built once per machine).

The runtime reaches this room through `derived_decoders` only; building is `build`'s job.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tray_reader.speech.types import DecoderKind


@dataclass(frozen=True)
class DerivedDecoder:
    """A derived part B that passed its checks (checksums and quality gate)."""

    kind: DecoderKind
    path: Path
    sha256: str
    """The file's SHA-256 (checked): what the engine keys its optimised copy by."""
    library: Path | None = None
    """The compiled operators the decoder needs, registered with its session."""


def derived_decoders() -> Iterator[DerivedDecoder]:
    """The usable derived decoders, best first; each is read only when asked for, so a
    fallback costs nothing unless the one before it fails to load. Never builds."""
    from tray_reader.model import cache

    if (variant := cache.cached_fused_decoder()) is not None:
        yield DerivedDecoder(DecoderKind.FUSED, *variant)
    if (plain := cache.cached_decoder()) is not None:
        yield DerivedDecoder(DecoderKind.FAST, *plain)
