"""onnxruntime sessions with the options every part of the model runs with (chosen by measurement,
see docs/benchmarks.md): graph optimisation ALL, one inter-op thread, no spinning (a busy
neighbour process must not stall us).

`cached_session` keeps onnxruntime's optimised form of a model in the user cache: the
graph optimisation was most of a session's creation at every start; the optimised file
loads with optimisation off much sooner (docs/benchmarks.md) and runs the same kernels on
the same graph (the same audio, sample for sample).
Some of its rewrites are for this CPU (onnxruntime says so), so the file is kept per
onnxruntime version and CPU."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import platform
from collections.abc import Callable
from pathlib import Path

import onnxruntime as ort

from tray_reader.files import MEMO_FILE, FileChecksums
from tray_reader.files import sha256 as digest
from tray_reader.paths import cache_dir as cache_root

log = logging.getLogger(__name__)

OPTIMISED_DIR = "optimised"
"""The cache's folder of optimised models, named by their source's SHA-256, onnxruntime's
version and the CPU."""


def default_threads() -> int:
    """Intra-op threads: the cores, at most 4 (more only added contention)."""
    return max(1, min(4, os.cpu_count() or 1))


def session_options(threads: int) -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.log_severity_level = 3
    return so


def make_session(
    model: bytes, threads: int, arena: bool = True, library: Path | None = None
) -> ort.InferenceSession:
    return _session(model, session_options(threads), arena, library)


def cached_session(
    sha256: str,
    model: Path | Callable[[], bytes],
    threads: int,
    arena: bool = True,
    library: Path | None = None,
    cache_dir: Path | None = None,
    pattern: bool = True,
) -> ort.InferenceSession:
    """A session of the model whose (checked) SHA-256 is ``sha256``: from its optimised
    form in the cache when that is there and unchanged since it was written, else from
    ``model`` (a file, or what makes its bytes), saving the optimised form for the next
    start if ``model`` is what ``sha256`` says. ``pattern``: onnxruntime plans one block for
    all of a run's tensors, per input shape (see `DECODER_ARENA` in the engine)."""
    root = cache_dir if cache_dir is not None else cache_root()
    optimised = root / OPTIMISED_DIR / f"{sha256[:16]}-{_runtime_key()}.onnx"
    checksums = FileChecksums(root / MEMO_FILE)
    recorded = optimised.with_suffix(".sha256")
    try:
        intact = checksums.sha256(optimised) == recorded.read_text(encoding="utf-8").strip()
    except OSError:
        intact = False
    if intact:
        so = session_options(threads)
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return _session(str(optimised), so, arena, library, pattern)
        except Exception as e:  # noqa: BLE001 - remade from the source below, whatever the cause
            log.warning("optimised model %s unusable (%s: %s); made again", optimised, type(e).__name__, e)
    source = model if isinstance(model, Path) else model()
    so = session_options(threads)
    saving = optimised.with_name(f".{optimised.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        if (checksums.sha256(source) if isinstance(source, Path) else digest(source)) == sha256:
            optimised.parent.mkdir(parents=True, exist_ok=True)
            for old in optimised.parent.glob(f"{sha256[:16]}-*"):
                old.unlink()  # another onnxruntime's or CPU's: never loaded again
            so.optimized_model_filepath = str(saving)
    loadable = str(source) if isinstance(source, Path) else source
    saved = bool(so.optimized_model_filepath)
    try:
        session = _session(loadable, so, arena, library, pattern)
    except Exception:
        if not saved:
            raise
        # onnxruntime fails the session when it cannot write the optimised model (a full
        # disk, say): the session is what matters.
        saved = False
        session = _session(loadable, session_options(threads), arena, library, pattern)
    try:
        if saved and saving.is_file():
            saving.replace(optimised)
            recorded.write_text(checksums.sha256(optimised) + "\n", encoding="utf-8")
    except OSError as e:
        log.info("cannot keep the optimised model in %s (%s)", optimised.parent, e)
    finally:
        with contextlib.suppress(OSError):
            saving.unlink(missing_ok=True)
    return session


def check_optimised(cache_dir: Path | None = None) -> tuple[int, list[Path]]:
    """Hash every optimised model in the cache in full (``doctor``): how many match their
    recorded checksum, and those that do not (removed: the next start makes them again)."""
    root = cache_dir if cache_dir is not None else cache_root()
    checksums = FileChecksums(root / MEMO_FILE, full=True)
    good, bad = 0, []
    for optimised in sorted((root / OPTIMISED_DIR).glob("*.onnx")):
        try:
            recorded = optimised.with_suffix(".sha256").read_text(encoding="utf-8").strip()
            intact = checksums.sha256(optimised) == recorded
        except OSError:
            intact = False
        if intact:
            good += 1
        else:
            bad.append(optimised)
            optimised.unlink(missing_ok=True)
    return good, bad


def _session(
    model: bytes | str, so: ort.SessionOptions, arena: bool, library: Path | None, pattern: bool = True
) -> ort.InferenceSession:
    so.enable_cpu_mem_arena = arena
    so.enable_mem_pattern = pattern
    if library is not None:
        so.register_custom_ops_library(str(library))
    session = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    # onnxruntime's wrapper keeps the model bytes to re-create the session on another
    # provider (a fallback only GPU providers use): held for nothing. The session has its
    # own copy of everything it needs.
    if getattr(session, "_model_bytes", None) is model:
        session._model_bytes = None
    return session


def _runtime_key() -> str:
    """onnxruntime's version and this CPU (its model and instruction sets), short."""
    cpu = platform.machine()
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = [ln for ln in f if ln.startswith(("model name", "flags", "Features"))]
        cpu += "".join(sorted(set(lines)))
    return f"ort{ort.__version__}-{hashlib.sha256(cpu.encode()).hexdigest()[:8]}"
