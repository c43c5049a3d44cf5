"""onnxruntime sessions with the options every part of the model runs with (chosen by measurement,
see docs/benchmarks.md): graph optimisation ALL, one inter-op thread, no spinning (a busy
neighbour process must not stall us)."""

from __future__ import annotations

import os
from pathlib import Path

import onnxruntime as ort


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
    so = session_options(threads)
    so.enable_cpu_mem_arena = arena
    if library is not None:
        so.register_custom_ops_library(str(library))
    session = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    # onnxruntime's wrapper keeps the model bytes to re-create the session on another
    # provider (a fallback only GPU providers use): held for nothing. The session has its
    # own copy of everything it needs.
    if getattr(session, "_model_bytes", None) is model:
        session._model_bytes = None
    return session
