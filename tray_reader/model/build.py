"""Building the fast decoder once per machine: ``python -m tray_reader.model.build``,
``tray-reader doctor --build-fast-model``, ``./dev setup`` or the installer; never the daemon."""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tray_reader.files import sha256
from tray_reader.model.cache import (
    cached_decoder,
    cached_fused_decoder,
    entry_dir,
    fused_status,
    shipped_sha256,
    store,
)
from tray_reader.model.calibration import calibration_renders, held_out_renders, sentence_feeds
from tray_reader.model.quality import QualityReport, measure_quality, session_runner
from tray_reader.model.recipe import derive
from tray_reader.paths import cache_dir as cache_root


@dataclass
class BuildResult:
    """What ``build`` made and where."""

    path: Path
    passed: bool
    report: QualityReport
    seconds: float
    fused: QualityReport | None = None
    """The fused variant's report; None when it was not built (see ``fused_reason``)."""
    fused_reason: str = ""


def build(base: bytes, cache_dir: Path | None = None, threads: int = 2) -> BuildResult:
    """Derive the fast model from ``base``, check it, and cache its decoder with the report.

    A model that fails the gate is still written (for inspection) but
    ``derived_decoder_file`` will not return it."""
    from tray_reader.model.custom_ops import build_library
    from tray_reader.model.split import split

    t0 = time.perf_counter()
    reference, derived, fused = derive(base, sentence_feeds(calibration_renders()))
    shipped_run, reference_run = session_runner(base, threads), session_runner(reference, threads)
    held_out = sentence_feeds(held_out_renders())
    report = measure_quality(shipped_run, reference_run, session_runner(derived, threads), held_out)
    with tempfile.TemporaryDirectory(prefix="tray-reader-ops-") as tmp:
        built = build_library(Path(tmp))
        fused_part = None
        if built.path is not None:
            fused_report = measure_quality(
                shipped_run, reference_run, session_runner(fused, threads, built.path), held_out
            )
            fused_part = (split(fused).decoder, fused_report, built.path)
        del reference, shipped_run, reference_run
        path = store(sha256(base), split(derived).decoder, report, cache_dir, fused_part, built.reason)
    return BuildResult(
        path,
        report.passed,
        report,
        time.perf_counter() - t0,
        fused_part[1] if fused_part else None,
        built.reason,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tray_reader.model.build``: build the cached fast model unless a
    usable one is there (``--force`` rebuilds, ``--check`` only looks).

    For ``./dev setup``, the installer or ``tray-reader doctor --build-fast-model``;
    never the daemon."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tray_reader.model.build", description=main.__doc__)
    ap.add_argument("--check", action="store_true", help="only say whether a usable fast model is cached")
    ap.add_argument("--force", action="store_true", help="build again even if a usable one is cached")
    ap.add_argument("--cache-dir", type=Path, help=f"instead of {cache_root()}")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    return build_command(args.cache_dir, args.threads, check=args.check, force=args.force, out=print)


def _compiler_came_since(entry: Path) -> bool:
    """Whether the build in ``entry`` had no C compiler for the fused decoder, and one is
    there now (so that a later `./dev setup` builds it; a failing compiler is not retried)."""
    from tray_reader.model.custom_ops import NO_COMPILER, compiler

    return fused_status(entry).get("reason") == NO_COMPILER and compiler() is not None


def build_command(
    cache_dir: Path | None, threads: int, *, check: bool, force: bool, out: Callable[[str], None]
) -> int:
    """Check for, or build, the fast model, saying what happens; 0 when a usable one is there."""
    from tray_reader import model_files

    entry = entry_dir(shipped_sha256(), cache_dir)
    usable = cached_decoder(cache_dir) is not None
    if usable and not check and _compiler_came_since(entry):
        out("a C compiler is there now: building again, with the fused decoder")
        force = True
    if check or (usable and not force):
        fused = " (fused decoder too)" if cached_fused_decoder(cache_dir) is not None else ""
        out(f"fast model in {entry}: {'usable' + fused if usable else 'none usable'}")
        return 0 if usable else 1
    out(f"building the fast model into {entry} (one to four minutes)…")
    result = build(model_files.kokoro_model_bytes(), cache_dir, threads)
    verdict = "passed" if result.passed else "FAILED (the shipped model stays in use)"
    out(f"quality gate {verdict}: {result.report.reason}; {result.seconds:.0f} s")
    if result.fused is None:
        out(f"fused decoder not built: {result.fused_reason} (the fast decoder is used without it)")
    else:
        verdict = "passed" if result.fused.passed else "FAILED (the fast decoder is used without it)"
        out(f"fused decoder: quality gate {verdict}: {result.fused.reason}")
    return 0 if result.passed else 1


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    sys.exit(main())
