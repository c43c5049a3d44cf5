"""The Kokoro-82M int8 ONNX engine: a session built by `load()`, warmed explicitly.

Session options were chosen by measurement on 2 cores (see bench/ and README):
graph optimisation ALL, intra-op threads = physical cores (2), inter-op 1, and
spinning off so a busy neighbour process does not stall us.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import onnxruntime as ort

from tray_reader import model_files

MAX_IDS = 510
"""Most token ids one model run takes, including the two padding zeros."""
MAX_PHONEME_IDS = MAX_IDS - 2
"""Most phoneme ids one chunk may have."""


def default_threads() -> int:
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


@dataclass
class KokoroEngine:
    """Holds an onnxruntime session for Kokoro and turns token ids into audio."""

    session: ort.InferenceSession
    threads: int
    load_seconds: float = 0.0
    warm_seconds: float = 0.0

    @classmethod
    def load(cls, threads: int | None = None) -> KokoroEngine:
        threads = threads or default_threads()
        t0 = time.perf_counter()
        session = ort.InferenceSession(
            model_files.kokoro_model_bytes(), session_options(threads), providers=["CPUExecutionProvider"]
        )
        return cls(session=session, threads=threads, load_seconds=time.perf_counter() - t0)

    def warm_up(self, pack: np.ndarray) -> None:
        """Run the model on typical input lengths so the first real request is fast."""
        t0 = time.perf_counter()
        for n in (12, 60):
            self.synthesize(list(range(40, 40 + n)), pack, 1.0)
        self.warm_seconds = time.perf_counter() - t0

    def synthesize(self, ids: Sequence[int], pack: np.ndarray, speed: float) -> np.ndarray:
        """Audio (float32, 24 kHz) for one chunk of phoneme ids (at most MAX_PHONEME_IDS)."""
        if not 0 < len(ids) <= MAX_PHONEME_IDS:
            raise ValueError(f"a chunk must have 1..{MAX_PHONEME_IDS} ids, got {len(ids)}")
        tokens = np.array([[0, *ids, 0]], dtype=np.int64)
        style = np.ascontiguousarray(pack[len(ids)], dtype=np.float32).reshape(1, 256)
        out = self.session.run(
            None, {"tokens": tokens, "style": style, "speed": np.array([speed], dtype=np.float32)}
        )[0]
        return np.asarray(out, dtype=np.float32).reshape(-1)

    def stream(self, ids: Sequence[int], pack: np.ndarray, speed: float) -> Iterator[np.ndarray]:
        """Audio for one chunk, yielded in pieces as they become available."""
        yield self.synthesize(ids, pack, speed)
