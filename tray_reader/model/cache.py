"""The user cache of derived decoders: one entry per base model, recipe and operator source.

An entry holds the derived decoder(s), their SHA-256 and the quality report; the engine
loads from it only what checks out (checksums and gate), and never builds.
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import asdict
from pathlib import Path

from tray_reader.files import MEMO_FILE, FileChecksums, sha256, write_atomic
from tray_reader.model.quality import QualityReport
from tray_reader.model.recipe import RECIPE_VERSION
from tray_reader.paths import cache_dir as cache_root

log = logging.getLogger(__name__)


def entry_dir(base_sha256: str, cache_dir: Path | None = None) -> Path:
    """Where the decoder derived from the model with this SHA-256 by this recipe (and these
    compiled operators' source) lives."""
    from tray_reader.model.custom_ops import source_sha256

    root = cache_dir if cache_dir is not None else cache_root()
    return root / "fast-model" / f"{base_sha256[:16]}-recipe{RECIPE_VERSION}-ops{source_sha256()[:8]}"


MODEL_FILE = "decoder.onnx"
"""Part B (decoder + generator, see ``split``) of the derived model: the only part
that differs from the shipped model, and the only one the engine loads from here."""
CHECKSUM_FILE = "decoder.onnx.sha256"
FUSED_FILE = "decoder-fused.onnx"
"""The fused variant of part B: needs the operator library beside it (``custom_ops``)."""
REPORT_FILE = "quality.json"


def _usable_report(base_sha256: str, cache_dir: Path | None) -> dict | None:
    """The cache entry's report if it is for this base model and recipe and the fast
    decoder passed its gate; else None (saying why in the log)."""
    entry = entry_dir(base_sha256, cache_dir)
    try:
        report = json.loads((entry / REPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(report, dict):
        return None
    if report.get("base_sha256") != base_sha256 or report.get("recipe") != RECIPE_VERSION:
        log.warning("fast model in %s was built from something else; ignored", entry)
        return None
    if report.get("passed") is not True:
        log.info("fast model in %s failed its quality gate (%s); ignored", entry, report.get("reason"))
        return None
    return report


def derived_decoder_file(
    base_sha256: str, cache_dir: Path | None = None, full: bool = False
) -> tuple[Path, str] | None:
    """The cached fast decoder for the model with ``base_sha256`` and its SHA-256, if it is
    there, intact and passed its quality gate; else None (the caller uses the shipped one).
    The file is hashed only when it changed since it was last hashed (`FileChecksums`),
    or with ``full``.
    Never builds."""
    report = _usable_report(base_sha256, cache_dir)
    if report is None:
        return None
    entry = entry_dir(base_sha256, cache_dir)
    checksums = _checksums(cache_dir, full)
    try:
        recorded = (entry / CHECKSUM_FILE).read_text(encoding="utf-8").split()[0]
        actual = checksums.sha256(entry / MODEL_FILE)
    except (OSError, IndexError):
        return None
    if actual != recorded or recorded != report.get("model_sha256"):
        log.warning("fast model in %s does not match its checksum; ignored", entry)
        return None
    return entry / MODEL_FILE, actual


def derived_fused_file(
    base_sha256: str, cache_dir: Path | None = None, full: bool = False
) -> tuple[Path, str, Path] | None:
    """The cached fused decoder, its SHA-256 and the operator library it needs, if both are
    there and match the checksums in the report, and both it and the fast decoder passed
    their quality gates; else None. The fast decoder's own file is checked only if it is
    loaded (as the fallback). Hashed as in `derived_decoder_file`. Never builds."""
    from tray_reader.model.custom_ops import LIBRARY

    report = _usable_report(base_sha256, cache_dir)
    fused = (report or {}).get("fused") or {}
    if fused.get("passed") is not True:
        return None
    entry = entry_dir(base_sha256, cache_dir)
    checksums = _checksums(cache_dir, full)
    try:
        model = checksums.sha256(entry / FUSED_FILE)
        library = checksums.sha256(entry / LIBRARY)
    except OSError:
        return None
    if model != fused.get("model_sha256") or library != fused.get("library_sha256"):
        log.warning("fused decoder in %s does not match its checksums; ignored", entry)
        return None
    return entry / FUSED_FILE, model, entry / LIBRARY


def _checksums(cache_dir: Path | None, full: bool) -> FileChecksums:
    return FileChecksums((cache_dir if cache_dir is not None else cache_root()) / MEMO_FILE, full)


def store(
    base_sha256: str,
    decoder: bytes,
    report: QualityReport,
    cache_dir: Path | None = None,
    fused: tuple[bytes, QualityReport, Path] | None = None,
    fused_reason: str = "",
) -> Path:
    """Write a derived decoder, its SHA-256 and its quality report into the cache entry;
    with ``fused``, also the fused variant (decoder, report, operator library to copy)."""
    from tray_reader.model.custom_ops import LIBRARY

    entry = entry_dir(base_sha256, cache_dir)
    entry.mkdir(parents=True, exist_ok=True)
    for old in entry.parent.glob(f"{base_sha256[:16]}-recipe*"):
        if old != entry:  # an earlier recipe's build: never loaded again
            shutil.rmtree(old, ignore_errors=True)
    # The optimised copies of earlier builds would never be loaded again either (they are
    # named by their source's checksum); the others are remade at the next start.
    from tray_reader.speech.sessions import OPTIMISED_DIR

    shutil.rmtree((cache_dir if cache_dir is not None else cache_root()) / OPTIMISED_DIR, ignore_errors=True)
    # The report goes first out and last in: without it the entry is ignored, so a reader
    # never pairs a new model with an old report.
    (entry / REPORT_FILE).unlink(missing_ok=True)
    digest = sha256(decoder)
    write_atomic(entry / MODEL_FILE, decoder)
    write_atomic(entry / CHECKSUM_FILE, f"{digest}  {MODEL_FILE}\n".encode())
    fused_meta: dict[str, object] = {"passed": False, "reason": fused_reason or "not built"}
    if fused is not None:
        fused_decoder, fused_report, library = fused
        library_bytes = library.read_bytes()
        write_atomic(entry / FUSED_FILE, fused_decoder)
        write_atomic(entry / LIBRARY, library_bytes)
        fused_meta = {
            "model_sha256": sha256(fused_decoder),
            "library_sha256": sha256(library_bytes),
            **asdict(fused_report),
        }
    else:
        (entry / FUSED_FILE).unlink(missing_ok=True)
        (entry / LIBRARY).unlink(missing_ok=True)
    meta = {
        "recipe": RECIPE_VERSION,
        "base_sha256": base_sha256,
        "model_sha256": digest,
        "onnxruntime": _ort_version(),
        **asdict(report),
        "fused": fused_meta,
    }
    write_atomic(entry / REPORT_FILE, json.dumps(meta, indent=1).encode())
    return entry / MODEL_FILE


def _ort_version() -> str:
    import onnxruntime

    return str(onnxruntime.__version__)


def shipped_sha256() -> str:
    """SHA-256 of the joined shipped model, from the manifest (no need to read the model)."""
    from tray_reader import model_files

    return str(model_files.manifest()["kokoro_model"]["sha256"])


def cached_decoder(cache_dir: Path | None = None, full: bool = False) -> tuple[Path, str] | None:
    """The usable fast decoder for the shipped model and its SHA-256, or None: what the
    engine loads when there is no usable fused one. ``full``: hash it even if unchanged."""
    return derived_decoder_file(shipped_sha256(), cache_dir, full)


def cached_fused_decoder(cache_dir: Path | None = None, full: bool = False) -> tuple[Path, str, Path] | None:
    """The usable fused decoder for the shipped model, its SHA-256 and its operator
    library, or None. ``full``: hash them even if unchanged."""
    return derived_fused_file(shipped_sha256(), cache_dir, full)


def fused_status(entry: Path) -> dict:
    """The fused decoder's part of the report in ``entry`` ({} when there is none): its
    checksums and gate, or the reason it was not built."""
    try:
        report = json.loads((entry / REPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    fused = report.get("fused") if isinstance(report, dict) else None
    return fused if isinstance(fused, dict) else {}
