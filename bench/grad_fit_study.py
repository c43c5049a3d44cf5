"""Study: fit all 128 timbre dims of the style with gradients (JAX on CPU) instead of SPSA
over 16 principal directions, and compare the two at equal wall time on the DEV speakers.

Issue 16 asked to measure the ways to a differentiable decoder without torch; only the
gradient-free one (style_fit.py) was built. This script measures the JAX one:

* The decoder (part B of model.split, the shipped int8 graph) is run by a small ONNX
  interpreter in jax.numpy (`JaxDecoder`). Only the nodes that depend on `style` are
  interpreted; every tensor they read from the rest of the graph (the harmonic source and
  its STFT, which depend on f0 and the phase only, the asr/F0/N convolutions, the shape
  arithmetic) is computed by onnxruntime once per crop, from the graph cut down to those
  tensors, and fed in as constants.
* The int8 ops are made differentiable by not rounding: DynamicQuantizeLinear returns
  x / scale + zero_point (scale and zero point held constant), so ConvInteger and
  MatMulInteger on (xq - x_zp) and (W - W_zp), times the graph's scale product, are the
  float computation with dequantized weights; the biases' quantisation (Floor) is left out
  the same way, so the forward is smooth in the style.
* Loss: style_fit's crop loss (log-mel frames at 16 kHz in the recording's band, the smooth
  channel removed, each crop frame's L1 distance to its nearest fit frame), written in JAX;
  24 kHz to 16 kHz by cutting the spectrum (an FFT resampler) instead of soxr. The frame
  selection (within 35 dB of the loud frames) is a weight held constant.
* Fit: Adam over z in R^128 added to the start pack's timbre half, a small L2 pull to the
  start, z projected onto a ball (radius: `--max-norm` times the RMS spread of the stock
  timbres' top 16 directions, as style_fit's ball is 1.5 in units of those spreads); random
  crops of style_fit's size with the streaming decoder's context; held-out early stopping
  with style_fit's own held_loss (onnxruntime, the whole text). The time cap starts after
  the first JIT compile, which is timed apart.

JAX is not a project dependency: `.venv/bin/pip install jax` (CPU) first.

    nice -n 10 .venv/bin/python bench/grad_fit_study.py check [--ref austen]
        (forward vs onnxruntime, gradient vs a central difference, compile and step times)
    nice -n 10 .venv/bin/python bench/grad_fit_study.py compare [--refs austen,allison,menardi,ve9qrp]
        [--seconds 50] [--longer 150] [--seed 0]
        (SPSA and Adam from the nearest stock voice, each for --seconds, on DEV speakers only)

Results: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from jax import lax  # noqa: E402
from onnx import numpy_helper  # noqa: E402

from tray_reader.paths import cache_dir  # noqa: E402
from tray_reader.speech.types import FRAME_SAMPLES  # noqa: E402

jax.config.update("jax_platforms", "cpu")

CONTEXT = 8
"""The streaming decoder's context frames on each side (WindowPlan.context)."""
ONNX_FLOAT = 1


def decoder_path() -> str:
    """The split decoder the engine caches (model.split.cached_split)."""
    found = sorted(glob.glob(str(cache_dir() / "split-*" / "decoder.onnx")))
    if not found:
        raise SystemExit("no split decoder cached: run `tray-reader say hello` once")
    return found[0]


def _attrs(node: onnx.NodeProto) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _conv(x, w, pads, strides, dilations, group):
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=tuple(strides),
        padding=[(int(pads[0]), int(pads[1]))],
        rhs_dilation=tuple(dilations),
        dimension_numbers=("NCH", "OIH", "NCH"),
        feature_group_count=int(group),
    )


def _conv_transpose(x, w, a: dict):
    """ONNX ConvTranspose (1-D): weight [C_in, C_out / group, k]."""
    w = np.asarray(w, np.float32) if not isinstance(w, jax.Array) else w
    group = int(a.get("group", 1))
    cin, cog, k = w.shape
    stride = a.get("strides", [1])[0]
    dil = a.get("dilations", [1])[0]
    pads = a.get("pads", [0, 0])
    outpad = a.get("output_padding", [0])[0]
    wt = w.reshape(group, cin // group, cog, k).transpose(0, 2, 1, 3).reshape(group * cog, cin // group, k)
    wt = wt[:, :, ::-1]
    lo = dil * (k - 1) - pads[0]
    hi = dil * (k - 1) - pads[1] + outpad
    return lax.conv_general_dilated(
        x,
        wt,
        window_strides=(1,),
        padding=[(lo, hi)],
        lhs_dilation=(stride,),
        rhs_dilation=(dil,),
        dimension_numbers=("NCH", "OIH", "NCH"),
        feature_group_count=group,
    )


def _static(v) -> np.ndarray:
    if isinstance(v, jax.core.Tracer):
        raise TypeError("a shape argument depends on the style")
    return np.asarray(v)


class JaxDecoder:
    """The style-dependent part of the decoder graph in JAX, fed the rest by onnxruntime."""

    def __init__(self, path: str, threads: int = 2, rounding: bool = False) -> None:
        self.rounding = rounding
        """Round as onnxruntime does (the check of the interpreter; not differentiable)."""
        model = onnx.load(path)
        graph = model.graph
        self.inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        tainted = {"style"}
        self.nodes: list[onnx.NodeProto] = []
        for n in graph.node:
            if n.op_type != "Shape" and any(i in tainted for i in n.input):
                tainted.update(n.output)
                self.nodes.append(n)
        self.output = graph.output[0].name
        frontier: list[str] = []
        for n in self.nodes:
            for i in n.input:
                if i and i not in tainted and i not in self.inits and i not in frontier:
                    frontier.append(i)
        self.frontier = frontier
        inferred = onnx.shape_inference.infer_shapes(model)
        types = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info}
        types.update({v.name: v.type.tensor_type.elem_type for v in graph.input})
        inputs = {i.name for i in graph.input}
        del graph.output[:]
        for name in frontier:
            if name not in inputs:
                graph.output.append(
                    onnx.helper.make_tensor_value_info(name, types.get(name, ONNX_FLOAT), None)
                )
        self.from_ort = [o.name for o in graph.output]
        # Only what the frontier needs: onnxruntime would otherwise run the whole decoder.
        needed = set(self.from_ort)
        kept = []
        for n in reversed(list(graph.node)):
            if any(o in needed for o in n.output):
                kept.append(n)
                needed.update(i for i in n.input if i)
        del graph.node[:]
        graph.node.extend(reversed(kept))
        used = {i for n in kept for i in n.input}
        keep_inits = [i for i in graph.initializer if i.name in used]
        del graph.initializer[:]
        graph.initializer.extend(keep_inits)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            model.SerializeToString(), opts, providers=["CPUExecutionProvider"]
        )
        self._jitted: dict = {}

    def constants(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The frontier tensors for one window (the style's value does not matter)."""
        got = dict(zip(self.from_ort, self.session.run(self.from_ort, feeds), strict=True))
        for name in self.frontier:
            if name not in got:
                got[name] = feeds[name]
        return got

    def split_constants(self, const: dict[str, np.ndarray]) -> tuple[dict, dict]:
        """(float tensors passed to the jitted function, the rest: shapes and indices)."""
        dyn = {k: v for k, v in const.items() if v.dtype == np.float32 and v.size > 64}
        static = {k: v for k, v in const.items() if k not in dyn}
        return dyn, static

    def audio(self, style, dyn: dict, static: dict):
        """The decoder's audio [1, samples] for `style` [1, 256] (a JAX array)."""
        env: dict = {}
        env.update(self.inits)
        env.update(static)
        env.update(dyn)
        env["style"] = style
        for n in self.nodes:
            outs = self._run(n, [env[i] if i else None for i in n.input])
            for name, v in zip(n.output, outs, strict=False):
                env[name] = v
        return env[self.output]

    def _run(self, n: onnx.NodeProto, x: list) -> list:  # noqa: C901, PLR0911, PLR0912
        op, a = n.op_type, _attrs(n)
        if op == "Add":
            return [x[0] + x[1]]
        if op == "Sub":
            return [x[0] - x[1]]
        if op == "Mul":
            return [x[0] * x[1]]
        if op == "Div":
            return [x[0] / x[1]]
        if op == "Pow":
            return [x[0] ** x[1]]
        if op == "Sqrt":
            return [jnp.sqrt(x[0])]
        if op == "Sin":
            return [jnp.sin(x[0])]
        if op == "Cos":
            return [jnp.cos(x[0])]
        if op == "Exp":
            return [jnp.exp(x[0])]
        if op == "Tanh":
            return [jnp.tanh(x[0])]
        if op == "Floor":
            # Only the biases' quantisation floors style-dependent values: without rounding the
            # bias is added as it is, as in the float computation.
            return [jnp.floor(x[0]) if self.rounding else x[0]]
        if op == "LeakyRelu":
            return [jnp.where(x[0] >= 0, x[0], x[0] * a.get("alpha", 0.01))]
        if op == "Cast":
            # Integer casts of style-dependent values stay float: nothing is rounded.
            return [jnp.asarray(x[0], jnp.float32)]
        if op == "ReduceMean":
            axes = a.get("axes")
            if axes is None and len(x) > 1 and x[1] is not None:
                axes = _static(x[1]).tolist()
            return [
                jnp.mean(
                    x[0], axis=tuple(axes) if axes is not None else None, keepdims=bool(a.get("keepdims", 1))
                )
            ]
        if op == "DynamicQuantizeLinear":
            v = x[0]
            lo = jnp.minimum(0.0, jnp.min(v))
            hi = jnp.maximum(0.0, jnp.max(v))
            scale = lax.stop_gradient((hi - lo) / 255.0)
            zp = lax.stop_gradient(jnp.clip(jnp.round(-lo / scale), 0, 255))
            q = jnp.clip(jnp.round(v / scale) + zp, 0, 255) if self.rounding else v / scale + zp
            return [q, scale, zp]
        if op == "ConvInteger":
            w = np.asarray(x[1], np.float32) - np.asarray(x[3], np.float32).reshape(-1, 1, 1)
            return [
                _conv(
                    x[0] - x[2],
                    w,
                    a.get("pads", [0, 0]),
                    a.get("strides", [1]),
                    a.get("dilations", [1]),
                    a.get("group", 1),
                )
            ]
        if op == "MatMulInteger":
            b = np.asarray(x[1], np.float32) - np.asarray(x[3], np.float32)
            return [jnp.matmul(x[0] - x[2], b)]
        if op == "MatMul":
            return [jnp.matmul(x[0], x[1])]
        if op == "Conv":
            y = _conv(
                x[0],
                x[1],
                a.get("pads", [0, 0]),
                a.get("strides", [1]),
                a.get("dilations", [1]),
                a.get("group", 1),
            )
            return [y + x[2].reshape(1, -1, 1) if len(x) > 2 and x[2] is not None else y]
        if op == "ConvTranspose":
            y = _conv_transpose(x[0], x[1], a)
            return [y + x[2].reshape(1, -1, 1) if len(x) > 2 and x[2] is not None else y]
        if op == "Reshape":
            shape = [int(s) for s in _static(x[1])]
            shape = [x[0].shape[i] if s == 0 else s for i, s in enumerate(shape)]
            return [jnp.reshape(x[0], shape)]
        if op == "Unsqueeze":
            v = x[0]
            for ax in sorted(int(i) for i in _static(x[1])):
                v = jnp.expand_dims(v, ax if ax >= 0 else ax + v.ndim + 1)
            return [v]
        if op == "Squeeze":
            axes = tuple(int(i) for i in _static(x[1])) if len(x) > 1 and x[1] is not None else None
            return [jnp.squeeze(x[0], axis=axes)]
        if op == "Split":
            axis = a.get("axis", 0)
            size = x[0].shape[axis]
            if len(x) > 1 and x[1] is not None:
                sizes = [int(s) for s in _static(x[1])]
            else:
                k = a["num_outputs"]
                each = -(-size // k)
                sizes = [min(each, size - each * i) for i in range(k)]
            cuts = np.cumsum(sizes)[:-1].tolist()
            return list(jnp.split(x[0], cuts, axis=axis))
        if op == "Concat":
            return [jnp.concatenate([jnp.asarray(v, jnp.float32) for v in x], axis=a["axis"])]
        if op == "Slice":
            v = x[0]
            starts, ends = _static(x[1]), _static(x[2])
            axes = _static(x[3]) if len(x) > 3 and x[3] is not None else np.arange(len(starts))
            steps = _static(x[4]) if len(x) > 4 and x[4] is not None else np.ones(len(starts), int)
            index = [slice(None)] * v.ndim
            for s, e, ax, st in zip(starts, ends, axes, steps, strict=True):
                dim = v.shape[int(ax)]
                s, e = int(max(min(s, dim), -dim)), int(max(min(e, dim), -dim - 1))
                index[int(ax)] = slice(s, e, int(st))
            return [v[tuple(index)]]
        if op == "Gather":
            return [jnp.take(x[0], _static(x[1]).astype(np.int64), axis=a.get("axis", 0))]
        if op == "Transpose":
            return [jnp.transpose(x[0], a.get("perm"))]
        if op == "Resize":
            if (
                a.get("mode", b"nearest") != b"nearest"
                or a.get("coordinate_transformation_mode") != b"asymmetric"
            ):
                raise NotImplementedError(f"Resize {a}")
            scales = _static(x[2])
            v = x[0]
            for ax, s in enumerate(scales):
                if s != 1:
                    out = int(np.floor(v.shape[ax] * s))
                    v = jnp.take(v, np.floor(np.arange(out) / s).astype(np.int64), axis=ax)
            return [v]
        if op == "Pad":
            pads = [int(p) for p in _static(x[1])]
            half = len(pads) // 2
            widths = list(zip(pads[:half], pads[half:], strict=True))
            mode = a.get("mode", b"constant").decode()
            return [jnp.pad(x[0], widths, mode=mode)]
        if op == "ScatterND":
            idx = _static(x[1]).astype(np.int64)
            where = tuple(idx[..., k] for k in range(idx.shape[-1]))
            return [jnp.asarray(x[0]).at[where].set(x[2])]
        raise NotImplementedError(op)

    def jitted(self, dyn: dict, static: dict) -> Callable:
        """audio(style, dyn) compiled for these shapes and static constants."""
        key = (
            tuple(sorted((k, v.shape) for k, v in dyn.items())),
            tuple(sorted((k, v.tobytes()) for k, v in static.items())),
        )
        if key not in self._jitted:
            self._jitted[key] = jax.jit(lambda style, d: self.audio(style, d, static))
        return self._jitted[key]


def window_feeds(part_a, a: int, b: int, style: np.ndarray) -> dict[str, np.ndarray]:
    """The decoder's inputs for frames [a, b) as streaming would feed them (with context)."""
    n = part_a.asr.shape[2]
    lo, hi = max(0, a - CONTEXT), min(n, b + CONTEXT)
    offset = part_a.phase[:, 2 * lo - 1 : 2 * lo, :] if lo > 0 else np.zeros((1, 1, 9), np.float32)
    return {
        "asr": np.ascontiguousarray(part_a.asr[:, :, lo:hi]),
        "f0": np.ascontiguousarray(part_a.f0[:, 2 * lo : 2 * hi]),
        "energy": np.ascontiguousarray(part_a.energy[:, 2 * lo : 2 * hi]),
        "style": style.astype(np.float32),
        "phase_offset": np.ascontiguousarray(offset, np.float32),
    }


def _mel_basis(bands: np.ndarray, order: int) -> np.ndarray:
    """style_fit.frames' smooth channel basis over the kept bands."""
    n = int(bands.sum())
    basis = np.cos(np.pi * np.outer(np.arange(order), np.arange(n) + 0.5) / n)
    return basis / np.linalg.norm(basis, axis=1, keepdims=True)


def jax_frames(x24k, bands: np.ndarray, order: int):
    """style_fit.frames in JAX on 24 kHz audio: (log-mel frames [n, bands] with the smooth
    channel removed, the weight of each frame: 1 within 35 dB of the loud frames, else 0)."""
    from tray_reader.voices import embedder

    n24 = x24k.shape[0]
    n16 = n24 * 2 // 3
    spec = jnp.fft.rfft(x24k)[: n16 // 2 + 1]
    x = jnp.fft.irfft(spec, n=n16) * (n16 / n24)
    n_frames = 1 + (n16 - embedder.N_FFT) // embedder.HOP
    idx = np.arange(n_frames)[:, None] * embedder.HOP + np.arange(embedder.N_FFT)[None, :]
    power = jnp.abs(jnp.fft.rfft(x[idx] * embedder._frame_window(), axis=-1)) ** 2
    mel = power @ embedder.mel_filterbank()[bands].T
    lm = jnp.log(mel + 1e-10)
    level = lax.stop_gradient(lm.max(axis=1))
    w = (level > jnp.percentile(level, 95) - np.log(10) * 3.5).astype(jnp.float32)
    mean = (w[:, None] * lm).sum(axis=0) / w.sum()
    if order > 0:
        basis = _mel_basis(bands, order)
        mean = basis.T @ (basis @ mean)
    return lm - mean, w


class GradFit:
    """Adam over all 128 timbre dims, on a StyleFit's features, frames and held-out check."""

    def __init__(self, fit, decoder: JaxDecoder, max_norm: float, lr: float, pull: float) -> None:
        from tray_reader.voices.style_fit import subspace

        self.fit = fit
        self.decoder = decoder
        s = fit.settings
        _d, spreads = subspace(s.dims, s.other_languages)
        self.radius = float(max_norm * np.sqrt(np.mean(spreads**2)))
        self.lr = lr * self.radius
        self.pull = pull
        self.row = fit._row.astype(np.float32)
        self.train = jnp.asarray(fit.train, jnp.float32)
        self._loss_fns: dict = {}
        self.constant_seconds = 0.0

    def crop(self, rng: np.random.Generator) -> tuple[int, int]:
        """A crop of `crop_frames` with the whole streaming context inside the chunk (one shape)."""
        n = self.fit._part_a.asr.shape[2]
        k = self.fit.settings.crop_frames
        lo = max(self.fit._lo, CONTEXT)
        hi = min(self.fit._hi, n - CONTEXT) - k
        a = int(rng.integers(lo, hi)) if hi > lo else lo
        return a, a + k

    def loss_fn(self, span: tuple[int, int]):
        """(value_and_grad of the crop loss in z, its float inputs) for this crop."""
        t = time.monotonic()
        feeds = window_feeds(self.fit._part_a, *span, self.row.reshape(1, 256))
        dyn, static = self.decoder.split_constants(self.decoder.constants(feeds))
        self.constant_seconds += time.monotonic() - t
        key = tuple(sorted((k, v.tobytes()) for k, v in static.items()))
        if key not in self._loss_fns:
            s = self.fit.settings
            keep = slice(CONTEXT * FRAME_SAMPLES, (CONTEXT + span[1] - span[0]) * FRAME_SAMPLES)
            bands = self.fit.bands
            row = jnp.asarray(self.row)

            def loss(z, d):
                style = row.at[:128].add(z).reshape(1, 256)
                audio = self.decoder.audio(style, d, static).reshape(-1)[keep]
                got, w = jax_frames(audio, bands, s.channel_order)
                dist = jnp.abs(got[:, None, :] - self.train[None, :, :]).mean(axis=2).min(axis=1)
                fit = (w * dist).sum() / w.sum()
                return fit + self.pull * jnp.sum(z**2) / self.radius**2, fit

            self._loss_fns[key] = jax.jit(jax.value_and_grad(loss, has_aux=True))
            self.forward_loss = jax.jit(lambda z, d: loss(z, d)[1])
        return self._loss_fns[key], dyn

    def held_loss(self, z: np.ndarray) -> float:
        """style_fit's held-out loss (onnxruntime, the whole text) with z in all 128 dims."""
        fit = self.fit
        directions = fit.directions
        try:
            fit.directions = np.eye(128, dtype=np.float32)
            return float(fit.held_loss(np.asarray(z, np.float64)))
        finally:
            fit.directions = directions

    def pack(self, z: np.ndarray) -> np.ndarray:
        pack = self.fit.start.copy()
        pack[:, 0, :128] += np.asarray(z, np.float32)[None, :]
        return pack

    def run(
        self, seconds: float, seed: int = 0, check_every: int = 2, log=print, longer: float = 0.0
    ) -> dict:
        """Adam for `seconds` (the clock starts after the first compile); the best z by held-out
        loss; with `longer` > `seconds` it goes on until then and also returns that run's best
        ("z_longer", "loss_longer", "steps_longer")."""
        rng = np.random.default_rng(seed)
        z = jnp.zeros(128, jnp.float32)
        m = jnp.zeros_like(z)
        v = jnp.zeros_like(z)
        b1, b2 = 0.9, 0.999
        f, dyn = self.loss_fn(self.crop(rng))
        t = time.monotonic()
        jax.block_until_ready(f(z, dyn))
        compile_s = time.monotonic() - t
        t0 = time.monotonic()
        start_held = self.held_loss(np.zeros(128))
        best_z, best_held = np.zeros(128), start_held
        step, per_step = 0, 0.0
        at_cap: dict = {}
        end = t0 + max(seconds, longer)
        while time.monotonic() + per_step * 1.2 < end:
            if not at_cap and time.monotonic() + per_step * 1.2 >= t0 + seconds:
                at_cap = {
                    "z": best_z.copy(),
                    "loss": best_held,
                    "steps": step,
                    "seconds": time.monotonic() - t0,
                }
            ts = time.monotonic()
            step += 1
            if step > 1:
                f, dyn = self.loss_fn(self.crop(rng))
            (_total, crop_loss), g = f(z, dyn)
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g**2
            z = z - self.lr * (m / (1 - b1**step)) / (jnp.sqrt(v / (1 - b2**step)) + 1e-8)
            norm = float(jnp.linalg.norm(z))
            if norm > self.radius:
                z = z * (self.radius / norm)
            held = None
            if step % check_every == 0:
                held = self.held_loss(np.asarray(z))
                if held < best_held:
                    best_z, best_held = np.asarray(z).copy(), held
            log(
                f"    adam {step}: crop {float(crop_loss):.4f} |z|/R {norm / self.radius:.2f}"
                + (f" held {held:.4f}" if held is not None else "")
            )
            per_step = time.monotonic() - ts
        if not at_cap:
            at_cap = {"z": best_z, "loss": best_held, "steps": step, "seconds": time.monotonic() - t0}
        return {
            **at_cap,
            "z_longer": best_z,
            "loss_longer": best_held,
            "steps_longer": step,
            "start_loss": start_held,
            "compile": compile_s,
            "compiled": len(self._loss_fns),
        }


class Setup:
    """The engine, renderer, encoders and profiles, loaded once."""

    def __init__(self, threads: int = 2) -> None:
        from tray_reader.speech.engine import KokoroEngine
        from tray_reader.text.frontend import TextFrontEnd
        from tray_reader.text.g2p import EnglishPhonemizer
        from tray_reader.voices import stock_profiles
        from tray_reader.voices.embedder import SpeakerEmbedder
        from tray_reader.voices.render import VoiceRenderer

        self.engine = KokoroEngine.load(threads)
        self.renderer = VoiceRenderer(self.engine, TextFrontEnd(EnglishPhonemizer()))
        self.embedder = SpeakerEmbedder.load()
        self.profiles = stock_profiles.load()
        self.decoder = JaxDecoder(decoder_path(), threads)

    def speaker(self, ref: str, clip_seconds: float = 28.0):
        """(recording, clip B at 16 kHz, the fit part, the nearest stock voice's name) as
        bench_enroll and enroll.match make them (no text: the profile sentences are spoken)."""
        import bench_enroll

        from tray_reader.voices import guard
        from tray_reader.voices.preprocess import prepare

        (a, ra), (b, rb), _exclude = bench_enroll.clips(ref, self.renderer, clip_seconds)
        rec = prepare(a, ra)
        b16 = prepare(b, rb).speech16k
        fit16k, _judged = guard.split(rec.speech16k)
        band = guard.band_gain(fit16k)
        profiles = self.profiles.for_band(guard.band_top(band))
        sims = profiles.embeddings.astype(np.float64) @ self.embedder.embed(fit16k).astype(np.float64)
        return rec, b16, fit16k, profiles.names[int(np.argmax(sims))]

    def style_fit(self, start: np.ndarray, fit16k: np.ndarray, seed: int):
        from tray_reader.voices.render import PROFILE_SENTENCES
        from tray_reader.voices.style_fit import FitSettings, StyleFit

        ids = [i for chunk in self.renderer.ids(" ".join(PROFILE_SENTENCES[:2])) for i in chunk]
        return StyleFit(self.engine, ids, start, fit16k, FitSettings(seed=seed))


def check(args: argparse.Namespace) -> None:
    """Forward against onnxruntime, gradient against a finite difference, timings."""
    from tray_reader import model_files

    s = Setup(args.threads)
    rec, _b16, fit16k, nearest = s.speaker(args.ref)
    print(f"{args.ref}: nearest stock voice {nearest}")
    fit = s.style_fit(model_files.stock_pack(nearest), fit16k, args.seed)
    gf = GradFit(fit, s.decoder, args.max_norm, args.lr, args.pull)
    rng = np.random.default_rng(args.seed)
    span = gf.crop(rng)
    print(f"crop {span} of frames [{fit._lo}, {fit._hi}), window {span[1] - span[0] + 2 * CONTEXT} frames")

    # Forward: the interpreter against onnxruntime running the same graph.
    feeds = window_feeds(fit._part_a, *span, gf.row.reshape(1, 256))
    shipped = ort.InferenceSession(decoder_path(), _options(args.threads), providers=["CPUExecutionProvider"])
    ref = shipped.run(None, feeds)[0].reshape(-1)
    dyn, static = s.decoder.split_constants(s.decoder.constants(feeds))

    def snr(a, b) -> float:
        return float(10 * np.log10(np.sum(a**2) / np.sum((a - b) ** 2)))

    for rounding in (True, False):
        d = JaxDecoder(decoder_path(), args.threads, rounding=rounding) if rounding else s.decoder
        out = np.asarray(
            jax.jit(lambda st, dd, d=d: d.audio(st, dd, static))(jnp.asarray(feeds["style"]), dyn)
        )
        print(
            f"forward SNR vs onnxruntime ({'rounding as onnxruntime' if rounding else 'no rounding'}): {snr(ref, out.reshape(-1)):.1f} dB"
        )
    fast = s.engine.decoder.run(None, feeds)[0].reshape(-1)
    print(
        f"for scale: the engine's decoder ({s.engine.decoder_kind.value}) vs the shipped one: {snr(ref, fast):.1f} dB"
    )

    # Timings.
    f, dyn = gf.loss_fn(span)
    z0 = jnp.zeros(128, jnp.float32)
    t = time.monotonic()
    jax.block_until_ready(f(z0, dyn))
    print(f"JIT compile (value and gradient): {time.monotonic() - t:.1f} s")
    times = []
    for _ in range(3):
        t = time.monotonic()
        jax.block_until_ready(f(z0, dyn))
        times.append(time.monotonic() - t)
    print(
        f"forward+backward per step: {np.median(times):.2f} s (median of 3: {', '.join(f'{x:.2f}' for x in times)})"
    )
    times = []
    for _ in range(3):
        gf.constant_seconds = 0.0
        gf.loss_fn(gf.crop(rng))
        times.append(gf.constant_seconds)
    print(f"onnxruntime constants per crop: {np.median(times):.2f} s")
    fwd = jax.jit(lambda st, dd: s.decoder.audio(st, dd, static))
    jax.block_until_ready(fwd(jnp.asarray(feeds["style"]), dyn))
    t = time.monotonic()
    for _ in range(3):
        jax.block_until_ready(fwd(jnp.asarray(feeds["style"]), dyn))
    print(f"JAX forward only: {(time.monotonic() - t) / 3:.2f} s")
    for name, sess in (("engine's", s.engine.decoder), ("shipped", shipped)):
        sess.run(None, feeds)
        t = time.monotonic()
        for _ in range(3):
            sess.run(None, feeds)
        print(f"onnxruntime forward ({name} decoder): {(time.monotonic() - t) / 3:.2f} s")
    z = np.zeros(fit.settings.dims)
    fit.crop_loss(z, span)
    t = time.monotonic()
    for _ in range(3):
        fit.crop_loss(z + 0.1, span)
        fit.crop_loss(z - 0.1, span)
    print(f"SPSA step (two crop losses, engine's decoder): {(time.monotonic() - t) / 3:.2f} s")

    # Gradient against a central difference through the same JAX forward (the crop loss
    # without the pull), along random directions and along the gradient.
    fl = gf.forward_loss
    z1 = jnp.asarray(rng.normal(size=128) * gf.radius * 0.3 / np.sqrt(128), jnp.float32)
    (total, crop), g = f(z1, dyn)
    g = np.asarray(g) - np.asarray(2 * gf.pull * z1 / gf.radius**2)
    print(f"loss at a random point {float(crop):.4f}, |grad| {np.linalg.norm(g):.4f}")
    for h in (1e-2, 1e-3):
        fds, ads = [], []
        for k in range(6):
            u = rng.normal(size=128) if k < 5 else g
            u = (u / np.linalg.norm(u)).astype(np.float32)
            step = h * gf.radius
            fd = (float(fl(z1 + step * u, dyn)) - float(fl(z1 - step * u, dyn))) / (2 * step)
            fds.append(fd)
            ads.append(float(g @ u))
        rel = [abs(a - b) / max(abs(b), 1e-9) for a, b in zip(fds, ads, strict=True)]
        print(
            f"h = {h} R: "
            + "; ".join(f"fd {a:+.5f} ad {b:+.5f}" for a, b in zip(fds, ads, strict=True))
            + f"; along the gradient rel. error {rel[-1]:.1%}, random directions median {np.median(rel[:-1]):.1%}"
        )


def _options(threads: int) -> ort.SessionOptions:
    o = ort.SessionOptions()
    o.intra_op_num_threads = threads
    o.inter_op_num_threads = 1
    return o


def compare(args: argparse.Namespace) -> None:
    """SPSA (StyleFit.run) against the Adam fit at equal wall time, on the DEV speakers."""
    import bench_enroll

    from tray_reader import model_files
    from tray_reader.voices import guard

    s = Setup(args.threads)
    rows = []
    for ref in args.refs.split(","):
        if ref not in bench_enroll.DEV:
            raise SystemExit(f"{ref}: not a DEV speaker (bench_enroll.DEV); nothing is tuned on the others")
        rec, b16, fit16k, nearest = s.speaker(ref)
        start = model_files.stock_pack(nearest)
        print(f"{ref}: nearest stock voice {nearest}", flush=True)
        fit = s.style_fit(start, fit16k, args.seed)
        t = time.monotonic()
        spsa = fit.run(time.monotonic() + args.seconds)
        print(
            f"    SPSA: {spsa.steps} steps, held {spsa.start_loss:.4f} -> {spsa.loss:.4f}, {time.monotonic() - t:.0f} s",
            flush=True,
        )
        fit = s.style_fit(start, fit16k, args.seed)
        gf = GradFit(fit, s.decoder, args.max_norm, args.lr, args.pull)
        adam = gf.run(args.seconds, args.seed, log=lambda m: print(m, flush=True), longer=args.longer)
        print(
            f"    Adam: {adam['steps']} steps, held {adam['start_loss']:.4f} -> {adam['loss']:.4f}, "
            f"{adam['seconds']:.0f} s (+ compile {adam['compile']:.0f} s, {adam['compiled']} compiled)",
            flush=True,
        )
        measure = bench_enroll.distance_to(b16, s.embedder)
        d = {
            "start": measure(s.renderer.render16k(start, 1.0, [guard.JUDGE_TEXT])),
            "spsa": measure(s.renderer.render16k(spsa.pack, 1.0, [guard.JUDGE_TEXT])),
            "adam": measure(s.renderer.render16k(gf.pack(adam["z"]), 1.0, [guard.JUDGE_TEXT])),
            "adam_longer": measure(s.renderer.render16k(gf.pack(adam["z_longer"]), 1.0, [guard.JUDGE_TEXT])),
            "ceiling": measure(rec.speech16k),
        }
        row = {
            "ref": ref,
            "nearest": nearest,
            "spsa_loss": (spsa.start_loss, spsa.loss, spsa.steps),
            "adam_loss": (adam["start_loss"], adam["loss"], adam["steps"]),
            "adam_longer_loss": (adam["start_loss"], adam["loss_longer"], adam["steps_longer"]),
            "compile": adam["compile"],
            "load": os.getloadavg()[0],
            "spsa_z_norm": float(np.linalg.norm(spsa.pack[0, 0, :128] - start[0, 0, :128])),
            "adam_z_norm": float(np.linalg.norm(adam["z"])),
            **d,
        }
        rows.append(row)
        _print_row(row)
    print()
    print(
        "| speaker (start) | held-out loss start / SPSA / Adam | steps SPSA / Adam | d start (enc/ahs/ge2e) | gap closed SPSA | gap closed Adam |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['ref']} ({r['nearest']}) | {r['spsa_loss'][0]:.3f} / {r['spsa_loss'][1]:.3f} / {r['adam_loss'][1]:.3f} | "
            f"{r['spsa_loss'][2]} / {r['adam_loss'][2]} | {'/'.join(f'{x:.3f}' for x in r['start'])} | "
            f"{_closed(r, 'spsa')} | {_closed(r, 'adam')} |"
        )
    print()
    print(f"Adam run on to {args.longer:.0f} s:")
    print("| speaker | held-out loss | steps | gap closed |")
    print("|---|---|---|---|")
    for r in rows:
        a = r["adam_longer_loss"]
        print(f"| {r['ref']} | {a[1]:.3f} | {a[2]} | {_closed(r, 'adam_longer')} |")
    print("compile s: " + ", ".join(f"{r['ref']} {r['compile']:.0f}" for r in rows))
    print("load after each: " + ", ".join(f"{r['ref']} {r['load']:.1f}" for r in rows))
    for key in ("spsa", "adam", "adam_longer"):
        means = [np.mean([_gap(r, key, i) for r in rows]) for i in range(3)]
        print(f"mean gap closed {key}: {'/'.join(f'{m:+.0%}' for m in means)}")


def _gap(r: dict, key: str, i: int) -> float:
    gap = r["start"][i] - r["ceiling"][i]
    return (r["start"][i] - r[key][i]) / gap if abs(gap) > 1e-9 else float("nan")


def _closed(r: dict, key: str) -> str:
    return "/".join(f"{_gap(r, key, i):+.0%}" for i in range(3))


def _print_row(r: dict) -> None:
    for key in ("ceiling", "start", "spsa", "adam", "adam_longer"):
        print(f"    d {key}: {'/'.join(f'{x:.3f}' for x in r[key])}")
    print(
        f"    gap closed SPSA {_closed(r, 'spsa')}, Adam {_closed(r, 'adam')}, Adam longer {_closed(r, 'adam_longer')}; |change| SPSA {r['spsa_z_norm']:.3f}, Adam {r['adam_z_norm']:.3f}",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=("check", "compare"))
    ap.add_argument("--ref", default="austen", help="check: the speaker whose fit features are used")
    ap.add_argument("--refs", default="austen,allison,menardi,ve9qrp")
    ap.add_argument("--seconds", type=float, default=50.0, help="each fit's wall time (style_fit's cap)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--longer", type=float, default=150.0, help="compare: Adam also run on to this many seconds"
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--max-norm",
        type=float,
        default=1.5,
        help="the ball's radius in RMS spreads of the top 16 directions",
    )
    ap.add_argument("--lr", type=float, default=0.02, help="Adam's step, in units of the ball's radius")
    ap.add_argument("--pull", type=float, default=0.01, help="L2 pull to the start, per (|z| / radius)^2")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    (check if args.command == "check" else compare)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
