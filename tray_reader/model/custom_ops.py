"""The decoder's compiled operators, in one library built from ``kernels/norm_snake.c``
(its header comment gives their exact definitions).

- ``tray_reader.NormSnakeQuantize``: AdaIN norm + snake + quantise in one node. In the fast
  decoder each resblock activation is ``InstanceNormalization`` (the AdaIN), the snake
  ``x + sin(alpha x)^2 / alpha`` and the ``QuantizeLinear`` before the next int8
  convolution: about a dozen elementwise kernels, which onnxruntime runs one after another
  and each on one core. The operator does the same in three reads of each channel's row
  (mean, variance, result).
- ``tray_reader.DequantizeNormSnakeQuantize`` and ``DequantizeAddNormSnakeQuantize``: the
  same, reading the int8 convolution's output before it (and adding a resblock's skip
  connection) row by row, where onnxruntime writes the whole float tensor and reads it
  back; the values are DequantizeLinear's and Add's, bit for bit. All three share each
  run's rows out over the session's threads.
- ``tray_reader.Stft``: the harmonic source's STFT, with onnxruntime's own arithmetic
  (the same output, bit for bit: the phase of its numerically zero bins depends on it),
  but its tables made once per kernel and 8 frames at a time in vector code, where
  onnxruntime allocates and computes one frame at a time.

The library is built from that source with the system's C compiler when the fast model is
built (``build.build``), into the fast model's cache entry, and loaded only by sessions
of the decoder that uses it. Without a compiler, or if the library does not build or load,
the fast decoder without it is used (the same audio to float rounding, slower). Nothing is
compiled when the daemon starts.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

DOMAIN = "tray_reader"
"""The ONNX operator domain of the custom operators."""
NORM_SNAKE = "NormSnakeQuantize"
"""Inputs: x [N, C, T], norm scale [C], norm bias [C], alpha [C], 1/alpha [C], y_scale,
y_zero_point (uint8); attribute epsilon; output uint8 [N, C, T]."""
DEQUANTIZE_NORM_SNAKE = "DequantizeNormSnakeQuantize"
"""Inputs: q uint8 [N, C, T], q_scale, q_zero_point (uint8), then NormSnakeQuantize's from
its norm scale on; NormSnakeQuantize of DequantizeLinear(q), the same values."""
DEQUANTIZE_ADD_NORM_SNAKE = "DequantizeAddNormSnakeQuantize"
"""Inputs: q uint8 [N, C, T], q_scale, q_zero_point (uint8), residual float [N, C, T], then
NormSnakeQuantize's from its norm scale on; outputs sum = DequantizeLinear(q) + residual
(float) and NormSnakeQuantize(sum), the same values as those nodes'."""
NORM_SNAKES = (NORM_SNAKE, DEQUANTIZE_NORM_SNAKE, DEQUANTIZE_ADD_NORM_SNAKE)
STFT = "Stft"
"""Inputs: signal float [B, L] or [B, L, 1] (real), window float [N]; attributes
frame_step, frame_length (N: at most STFT_MAX_LENGTH, not a power of 2); output float
[B, F, N // 2 + 1, 2] with F = floor((L - N) / frame_step) + 1: ONNX's ``STFT`` (onesided)
as onnxruntime computes it."""
STFT_MAX_LENGTH = 256
"""The longest frame the Stft kernel takes (STFT_MAX_LENGTH in the C source)."""
SOURCE = "norm_snake.c"
LIBRARY = "libtray_reader_ops.so"
CFLAGS = ("-O3", "-fPIC", "-shared", "-fno-math-errno", "-fno-trapping-math", "-Wall")
"""-fno-trapping-math lets the compiler turn the clamping comparisons into vector code;
nothing here relies on floating-point traps. No -ffast-math: the rounding and the order
of additions are the source's. The Stft kernel also stops the compiler from fusing a
multiply and an add into one instruction (a pragma in the source, not a flag here, which
would change NormSnakeQuantize's code too): onnxruntime's arithmetic has no such fusing."""


def source_text() -> bytes:
    return resources.files("tray_reader.model").joinpath("kernels", SOURCE).read_bytes()


def source_sha256() -> str:
    """SHA-256 of the operator's source: part of the fast model's cache key, so a changed
    kernel is measured again by the quality gate before it is used."""
    return hashlib.sha256(source_text()).hexdigest()


NO_COMPILER = "no C compiler (install gcc, or set CC)"


def compiler() -> str | None:
    """The C compiler to build with: $CC, else cc or gcc on the PATH."""
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")


@dataclass(frozen=True)
class Built:
    """The outcome of `build_library`: the library, or why there is none."""

    path: Path | None
    reason: str = ""


def build_library(into: Path, timeout: float = 120.0) -> Built:
    """Compile the operator library into ``into``/LIBRARY (a fresh folder: the caller
    copies the library where it is kept), and check that onnxruntime loads it. Never
    raises for a missing or failing compiler: says why."""
    cc = compiler()
    if cc is None:
        return Built(None, NO_COMPILER)
    into.mkdir(parents=True, exist_ok=True)
    src, out = into / SOURCE, into / LIBRARY
    src.write_bytes(source_text())
    try:
        done = subprocess.run(
            [cc, *CFLAGS, "-o", str(out), str(src), "-lm"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return Built(None, f"{cc} failed to run: {e}")
    if done.returncode != 0:
        return Built(None, f"{cc} failed: {done.stderr.strip()[-500:]}")
    problem = check_loads(out)
    return Built(None, problem) if problem else Built(out)


def check_loads(library: Path) -> str:
    """'' if onnxruntime registers the library's operators, else why not."""
    import onnxruntime as ort

    try:
        ort.SessionOptions().register_custom_ops_library(str(library))
    except Exception as e:  # noqa: BLE001 - whatever onnxruntime objects to, the library is unusable
        return f"onnxruntime cannot load {library.name}: {e}"
    return ""
