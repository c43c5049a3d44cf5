"""The compiled operators (custom_ops.py, kernels/norm_snake.c), built with the system's
C compiler and run by onnxruntime: NormSnakeQuantize against the same arithmetic in NumPy,
Stft against onnxruntime's own STFT, bit for bit; and the graph rewrites that put them
into the decoder (tray_reader/model/rewrites.py).

`./dev setup` installs gcc (installer/debian-packages.txt): these tests build the library
for real, as the fast model's build does.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tray_reader.model import custom_ops
from tray_reader.model import rewrites as gr


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    assert custom_ops.compiler() is not None, "no C compiler: install gcc (./dev setup does)"
    built = custom_ops.build_library(tmp_path_factory.mktemp("ops"))
    assert built.path is not None, built.reason
    return built.path


def _session(model: onnx.ModelProto, library, threads: int = 0) -> ort.InferenceSession:
    """A session with the library; ``threads`` 0 is onnxruntime's default (one per core)."""
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = threads
    so.register_custom_ops_library(str(library))
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def _failures(library):
    """The library's count of runs it could not compute (any operator)."""
    import ctypes

    failures = ctypes.CDLL(str(library)).tray_reader_op_failures
    failures.restype = ctypes.c_long
    return failures


def _op_model(channels: int, alpha: np.ndarray, y_scale: float, zero: int, epsilon: float) -> onnx.ModelProto:
    """One NormSnakeQuantize node; x, scale and bias are inputs, the rest stored."""
    node = helper.make_node(
        custom_ops.NORM_SNAKE,
        ["x", "scale", "bias", "alpha", "inverse", "y_scale", "zero"],
        ["y"],
        domain=custom_ops.DOMAIN,
        epsilon=epsilon,
    )
    graph = helper.make_graph(
        [node],
        "op",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "C", "T"]),
            helper.make_tensor_value_info("scale", TensorProto.FLOAT, ["C"]),
            helper.make_tensor_value_info("bias", TensorProto.FLOAT, ["C"]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
        [
            numpy_helper.from_array(alpha.astype(np.float32), "alpha"),
            numpy_helper.from_array((1 / alpha).astype(np.float32), "inverse"),
            numpy_helper.from_array(np.array(y_scale, np.float32), "y_scale"),
            numpy_helper.from_array(np.array(zero, np.uint8), "zero"),
        ],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid(custom_ops.DOMAIN, 1)]
    )


def _reference(x, scale, bias, alpha, y_scale, zero, epsilon) -> np.ndarray:
    """The operator's definition in float64: instance norm, snake, QuantizeLinear."""
    x = x.astype(np.float64)
    mean = x.mean(axis=2, keepdims=True)
    var = x.var(axis=2, keepdims=True)
    c = (None, slice(None), None)  # [C] -> [1, C, 1]
    h = scale[c] * (x - mean) / np.sqrt(var + epsilon) + bias[c]
    s = h + np.sin(alpha[c] * h) ** 2 / alpha[c]
    return np.clip(np.round(s / y_scale) + zero, 0, 255).astype(np.uint8)  # np.round: ties to even


@pytest.mark.parametrize(
    ("batch", "channels", "steps"),
    [(1, 16, 300), (1, 128, 3840 + 5), (2, 7, 1), (1, 3, 17)],
    ids=["typical", "a stage-2 window, odd length", "one step", "shorter than a vector"],
)
def test_the_operator_computes_its_definition(library, batch, channels, steps):
    rng = np.random.default_rng(steps)
    # Offsets and spreads per channel (the norm must remove them), alphas as in the model:
    # mostly 0.1-2.3, some tiny, some negative.
    x = rng.normal(size=(batch, channels, steps)) * rng.uniform(0.01, 5, (1, channels, 1))
    x = (x + rng.uniform(-30, 30, (1, channels, 1))).astype(np.float32)
    alpha = rng.uniform(0.1, 2.3, channels).astype(np.float32)
    alpha[: min(3, channels)] = [1e-4, -0.026, -3e-3][: min(3, channels)]
    scale = rng.normal(1, 0.3, channels).astype(np.float32)
    bias = rng.normal(0, 0.3, channels).astype(np.float32)
    y_scale, zero, epsilon = 0.02, 131, 1e-5

    got = _session(_op_model(channels, alpha, y_scale, zero, epsilon), library).run(
        None, {"x": x, "scale": scale, "bias": bias}
    )[0]
    want = _reference(x, scale, bias, alpha, y_scale, zero, epsilon)
    assert got.dtype == np.uint8 and got.shape == x.shape
    # Float32 rounding moves a value across a rounding edge now and then: one step, rarely.
    diff = np.abs(got.astype(int) - want.astype(int))
    assert diff.max() <= 1
    assert (diff == 0).mean() > 0.995
    if x.size > 1000:
        assert want.min() == 0 and want.max() == 255  # both ends of the range are exercised


def test_a_constant_channel_gives_its_bias(library):
    # Zero variance: (x - mean) is 0, so the norm gives the bias, as InstanceNormalization does.
    x = np.full((1, 2, 50), 7.5, np.float32)
    alpha = np.array([0.5, 1.5], np.float32)
    scale, bias = np.ones(2, np.float32), np.array([0.4, -1.0], np.float32)
    got = _session(_op_model(2, alpha, 0.01, 128, 1e-5), library).run(
        None, {"x": x, "scale": scale, "bias": bias}
    )[0]
    np.testing.assert_array_equal(got, _reference(x, scale, bias, alpha, 0.01, 128, 1e-5))


def test_inputs_of_the_wrong_shape_give_silence_and_are_counted(library):
    failures = _failures(library)
    session = _session(_op_model(4, np.ones(4, np.float32), 0.05, 128, 1e-5), library)
    before = failures()
    x = np.ones((1, 5, 10), np.float32)  # 5 channels, 4 alphas
    got = session.run(None, {"x": x, "scale": np.ones(5, np.float32), "bias": np.zeros(5, np.float32)})[0]
    assert got.shape == (1, 5, 10) and (got == 128).all()  # the zero point: silence
    assert failures() == before + 1
    flat = np.ones((4, 10), np.float32)  # not [N, C, T]: for a graph that does not say
    model = _op_model(4, np.ones(4, np.float32), 0.05, 128, 1e-5)
    model.graph.input[0].type.tensor_type.ClearField("shape")
    got = _session(model, library).run(
        None, {"x": flat, "scale": np.ones(4, np.float32), "bias": np.zeros(4, np.float32)}
    )[0]
    assert got.shape == (4, 10) and (got == 128).all()
    assert failures() == before + 2
    # The session still works for good inputs.
    feeds = {"x": x[:, :4], "scale": np.ones(4, np.float32), "bias": np.full(4, 1.0, np.float32)}
    assert (session.run(None, feeds)[0] != 128).all()
    assert failures() == before + 2


def test_a_library_that_does_not_build_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    built = custom_ops.build_library(tmp_path / "out")
    assert built.path is None and "no-such-compiler" in built.reason
    assert not (tmp_path / "out" / custom_ops.LIBRARY).exists()


# --- the rewrite ----------------------------------------------------------------------

C, T = 16, 400


def _activation_model(extra_user: bool = False) -> onnx.ModelProto:
    """InstanceNormalization -> snake (as exported) -> QuantizeLinear -> DequantizeLinear,
    as in each resblock of the fast decoder; ``extra_user`` also outputs the norm."""
    rng = np.random.default_rng(5)
    alpha = rng.uniform(0.1, 2.3, (1, C, 1)).astype(np.float32)
    nodes = [
        helper.make_node("InstanceNormalization", ["x", "scale", "bias"], ["h"], epsilon=1e-5),
        helper.make_node("Mul", ["alpha", "h"], ["ah"]),
        helper.make_node("Sin", ["ah"], ["s"]),
        helper.make_node("Pow", ["s", "two"], ["s2"]),
        helper.make_node("Mul", ["inverse", "s2"], ["scaled"]),
        helper.make_node("Add", ["h", "scaled"], ["snake"]),
        helper.make_node("QuantizeLinear", ["snake", "y_scale", "zero"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "y_scale", "zero"], ["y"]),
    ]
    outputs = ["y", "h"] if extra_user else ["y"]
    graph = helper.make_graph(
        nodes,
        "activation",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, "T"]),
            helper.make_tensor_value_info("scale", TensorProto.FLOAT, [C]),
            helper.make_tensor_value_info("bias", TensorProto.FLOAT, [C]),
        ],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        [
            numpy_helper.from_array(alpha, "alpha"),
            numpy_helper.from_array((1 / alpha).astype(np.float32), "inverse"),
            numpy_helper.from_array(np.array(2.0, np.float32), "two"),
            numpy_helper.from_array(np.array(0.03, np.float32), "y_scale"),
            numpy_helper.from_array(np.array(120, np.uint8), "zero"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def test_an_activation_becomes_one_operator_with_the_same_output(library):
    rng = np.random.default_rng(6)
    feeds = {
        "x": (rng.normal(size=(1, C, T)) * 3 + 2).astype(np.float32),
        "scale": rng.normal(1, 0.3, C).astype(np.float32),
        "bias": rng.normal(0, 0.3, C).astype(np.float32),
    }
    model = _activation_model()
    before = _session(model, library).run(None, feeds)[0]

    assert gr.fused_norm_snakes(model) == 1
    assert [n.op_type for n in model.graph.node] == [custom_ops.NORM_SNAKE, "DequantizeLinear"]
    after = _session(model, library).run(None, feeds)[0]
    # One quantisation step (0.03) at most, where rounding differs; mostly equal.
    steps = np.abs(after - before) / 0.03
    assert steps.max() <= 1.001 and (steps < 0.5).mean() > 0.99


def test_a_norm_used_elsewhere_is_left_alone():
    model = _activation_model(extra_user=True)
    ops = [n.op_type for n in model.graph.node]
    assert gr.fused_norm_snakes(model) == 0
    assert [n.op_type for n in model.graph.node] == ops


# --- reading the convolution's output --------------------------------------------------


def _after_convolutions_model(extra_user: bool = False, early_user: bool = False) -> onnx.ModelProto:
    """Two activations as the fast decoder's resblocks have them after `fused_norm_snakes`:
    q1 -> DequantizeLinear -> NormSnakeQuantize -> y1 (after a convolution), and q2 ->
    DequantizeLinear -> Add(residual) -> NormSnakeQuantize -> y2, its sum also an output
    (a skip connection: the next Add reads it). As in the decoder, the second norm's scale
    is made between the Add and the norm. ``extra_user`` also outputs the first
    dequantised tensor; ``early_user`` adds a user of the sum before the second norm."""
    rng = np.random.default_rng(8)
    alpha = rng.uniform(0.1, 2.3, C).astype(np.float32)
    activation = ["bias", "alpha", "inverse", "y_scale", "zero"]

    def norm_snake(x: str, scale: str, y: str) -> onnx.NodeProto:
        return helper.make_node(
            custom_ops.NORM_SNAKE, [x, scale, *activation], [y], domain=custom_ops.DOMAIN, epsilon=1e-5
        )

    nodes = [
        helper.make_node("DequantizeLinear", ["q1", "q1_scale", "q1_zero"], ["x1"]),
        norm_snake("x1", "scale", "y1"),
        helper.make_node("DequantizeLinear", ["q2", "q2_scale", "q2_zero"], ["x2"]),
        helper.make_node("Add", ["residual", "x2"], ["sum"]),
        *([helper.make_node("Neg", ["sum"], ["negated"])] if early_user else []),
        helper.make_node("Identity", ["scale"], ["scale2"]),
        norm_snake("sum", "scale2", "y2"),
    ]
    outputs = ["y1", "sum", "y2", *(["x1"] if extra_user else []), *(["negated"] if early_user else [])]
    uint8 = [helper.make_tensor_value_info(q, TensorProto.UINT8, ["N", C, "T"]) for q in ("q1", "q2")]
    graph = helper.make_graph(
        nodes,
        "after convolutions",
        [
            *uint8,
            helper.make_tensor_value_info("residual", TensorProto.FLOAT, ["N", C, "T"]),
            helper.make_tensor_value_info("scale", TensorProto.FLOAT, [C]),
            helper.make_tensor_value_info("bias", TensorProto.FLOAT, [C]),
        ],
        [
            helper.make_tensor_value_info(
                o, TensorProto.UINT8 if o.startswith("y") else TensorProto.FLOAT, None
            )
            for o in outputs
        ],
        [
            numpy_helper.from_array(alpha, "alpha"),
            numpy_helper.from_array((1 / alpha).astype(np.float32), "inverse"),
            numpy_helper.from_array(np.array(0.03, np.float32), "y_scale"),
            numpy_helper.from_array(np.array(120, np.uint8), "zero"),
            numpy_helper.from_array(np.array(0.0137, np.float32), "q1_scale"),
            numpy_helper.from_array(np.array(97, np.uint8), "q1_zero"),
            numpy_helper.from_array(np.array(0.021, np.float32), "q2_scale"),
            numpy_helper.from_array(np.array(140, np.uint8), "q2_zero"),
        ],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid(custom_ops.DOMAIN, 1)]
    )


def _after_convolutions_feeds(batch: int, steps: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(steps)
    return {
        "q1": rng.integers(0, 256, (batch, C, steps), dtype=np.uint8),
        "q2": rng.integers(0, 256, (batch, C, steps), dtype=np.uint8),
        "residual": (rng.normal(size=(batch, C, steps)) * 2).astype(np.float32),
        "scale": rng.normal(1, 0.3, C).astype(np.float32),
        "bias": rng.normal(0, 0.3, C).astype(np.float32),
    }


def _in_order(model: onnx.ModelProto) -> bool:
    """Whether every node's inputs are made before it (as ONNX requires)."""
    made = {i.name for i in model.graph.input} | {t.name for t in model.graph.initializer} | {""}
    for node in model.graph.node:
        if not set(node.input) <= made:
            return False
        made |= set(node.output)
    return True


@pytest.mark.parametrize(
    ("batch", "steps"), [(1, 3845), (2, 1), (1, 17)], ids=["a window", "one step", "short"]
)
def test_reading_the_convolutions_output_gives_the_nodes_values_to_the_bit(library, batch, steps):
    model = _after_convolutions_model()
    feeds = _after_convolutions_feeds(batch, steps)
    before = _session(model, library).run(None, feeds)

    assert gr.fused_dequantize(model) == 2
    ops = [n.op_type for n in model.graph.node]
    assert ops == [custom_ops.DEQUANTIZE_NORM_SNAKE, "Identity", custom_ops.DEQUANTIZE_ADD_NORM_SNAKE]
    assert _in_order(model)
    # The rows are shared out over the session's threads: one or four, the same bits.
    for threads in (1, 4):
        after = _session(model, library, threads).run(None, feeds)
        for name, want, got in zip(("y1", "sum", "y2"), before, after, strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want), (name, threads)
    if steps > 1000:
        assert len(np.unique(before[0])) > 100  # the activations are not all clamped


def test_a_dequantised_tensor_used_elsewhere_is_left_alone(library):
    model = _after_convolutions_model(extra_user=True)
    assert gr.fused_dequantize(model) == 1  # only the skip connection's
    assert [n.op_type for n in model.graph.node] == [
        "DequantizeLinear",
        custom_ops.NORM_SNAKE,
        "Identity",
        custom_ops.DEQUANTIZE_ADD_NORM_SNAKE,
    ]
    outputs = _session(model, library).run(None, _after_convolutions_feeds(1, 50))
    assert [o.shape for o in outputs] == [(1, C, 50)] * 4
    # A user of the sum before the norm: the fused node, in the norm's place, would come
    # after it, so that activation is left alone.
    model = _after_convolutions_model(early_user=True)
    assert gr.fused_dequantize(model) == 1
    assert [n.op_type for n in model.graph.node].count(custom_ops.NORM_SNAKE) == 1
    assert _in_order(model)


def test_a_residual_of_another_shape_gives_silence_and_zeros_and_is_counted(library):
    model = _after_convolutions_model()
    gr.fused_dequantize(model)
    model.graph.input[2].type.tensor_type.ClearField("shape")  # lets a wrong one through
    session = _session(model, library)
    failures = _failures(library)
    before = failures()
    feeds = _after_convolutions_feeds(1, 40)
    feeds["residual"] = feeds["residual"][:, :, :39]
    y1, total, y2 = session.run(None, feeds)
    assert (y2 == 120).all() and (total == 0).all() and total.shape == (1, C, 40)
    assert (y1 != 120).any()  # the other node is fine
    assert failures() == before + 1


# --- Stft -------------------------------------------------------------------------------

N_FFT, HOP = 20, 5
"""The harmonic source's STFT in the decoder."""


def _hann(n: int) -> np.ndarray:
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(np.float32)


def _stft_model(
    window: np.ndarray,
    hop: int,
    custom: bool = False,
    signal_shape: list | None = None,
    onesided: int = 1,
    window_input: bool = False,
) -> onnx.ModelProto:
    """One STFT of a signal input: ONNX's (signal, frame_step, window, frame_length) or, with
    ``custom``, the compiled one (signal, window). The window is stored unless
    ``window_input``; ``signal_shape`` None declares no shape."""
    n = len(window)
    if custom:
        node = helper.make_node(
            custom_ops.STFT, ["x", "w"], ["y"], domain=custom_ops.DOMAIN, frame_step=hop, frame_length=n
        )
    else:
        node = helper.make_node("STFT", ["x", "hop", "w", "n"], ["y"], onesided=onesided)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, signal_shape)]
    inits = [] if custom else [_int("hop", hop), _int("n", n)]
    if window_input:
        inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, ["N"]))
    else:
        inits.append(numpy_helper.from_array(window, "w"))
    graph = helper.make_graph(
        [node], "stft", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(custom_ops.DOMAIN, 1)]
    )


def _int(name: str, value: int) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Equal values, equal signs of every zero, so equal phases: what the decoder takes is
    atan2(im, re), +pi or -pi by the sign of a zero imaginary part where re < 0."""
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    assert np.array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert np.array_equal(np.arctan2(got[..., 1], got[..., 0]), np.arctan2(want[..., 1], want[..., 0]))


def _compare(library, signal: np.ndarray, window: np.ndarray, hop: int) -> np.ndarray:
    """Runs onnxruntime's STFT and the compiled one on ``signal``; onnxruntime's output."""
    shape = ["B", "L"] if signal.ndim == 2 else ["B", "L", 1]
    want = _session(_stft_model(window, hop, signal_shape=shape), library).run(None, {"x": signal})[0]
    got = _session(_stft_model(window, hop, custom=True, signal_shape=shape), library).run(
        None, {"x": signal}
    )[0]
    _assert_same_bits(got, want)
    return want


def _signal(kind: str, batch: int, length: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "random":
        return rng.normal(size=(batch, length)).astype(np.float32)
    if kind == "zeros":
        return np.zeros((batch, length), np.float32)
    if kind == "constant":  # every bin but DC is rounding left-overs
        return np.full((batch, length), -0.3, np.float32)
    # Runs of exact zeros of both signs between random samples.
    zeros = np.where(rng.random((batch, length)) < 0.5, 0.0, -0.0)
    return np.where(rng.random((batch, length)) < 0.6, zeros, rng.normal(size=(batch, length))).astype(
        np.float32
    )


@pytest.mark.parametrize("kind", ["random", "zeros", "constant", "exact zeros"])
@pytest.mark.parametrize(
    ("length", "window", "hop", "batch", "rank"),
    [
        (19220, N_FFT, HOP, 1, 2),  # a 32-frame decoder window
        (N_FFT, N_FFT, HOP, 2, 2),  # one frame: the signal is the window's length
        (N_FFT + 4, N_FFT, HOP, 1, 3),  # the last samples make no frame
        (333, 7, 3, 2, 3),
        (1000, 100, 25, 1, 2),
        (700, 255, 64, 1, 2),  # the longest frame of a power-of-2 FFT length (512)
    ],
    ids=["decoder window", "one frame", "leftover samples", "short frame", "long frame", "longest frame"],
)
def test_stft_is_onnxruntimes_to_the_bit(library, kind, length, window, hop, batch, rank):
    signal = _signal(kind, batch, length, seed=length + window)
    _compare(library, signal if rank == 2 else signal[..., None], _window(window), hop)


def _window(n: int) -> np.ndarray:
    """The decoder's window for its frame length; others with negative values and zeros of
    both signs, for the signs of the products."""
    if n == N_FFT:
        return _hann(n)
    w = np.random.default_rng(n).uniform(-0.2, 1, n).astype(np.float32)
    w[1:3] = [0.0, -0.0]
    return w


@pytest.fixture(scope="module")
def decoder_source(engine, phonemizer):
    """The shipped decoder's graph, and its STFT's input signal (the harmonic source), window
    and frame step over the first 32 frames of a sentence."""
    from onnx import numpy_helper as nh

    from tray_reader import model_files
    from tray_reader.model.split import cached_split
    from tray_reader.text.frontend import TextFrontEnd

    decoder = onnx.load_from_string(cached_split(model_files.kokoro_model_bytes).decoder)
    stft = next(n for n in decoder.graph.node if n.op_type == "STFT")
    stored = {t.name: nh.to_array(t) for t in decoder.graph.initializer}
    window, hop = stored[stft.input[2]], int(stored[stft.input[1]])
    probe = onnx.load_from_string(decoder.SerializeToString())
    probe.graph.output.append(helper.make_tensor_value_info(stft.input[0], TensorProto.FLOAT, None))
    so = ort.SessionOptions()
    so.log_severity_level = 3
    session = ort.InferenceSession(probe.SerializeToString(), so, providers=["CPUExecutionProvider"])
    del probe
    ids = TextFrontEnd(phonemizer).ids(phonemizer("The old lighthouse stood at the edge of the cliff."))
    pa = engine.part_a(ids, model_files.stock_pack("af_heart"), 1.0)
    feeds = {"asr": pa.asr[:, :, :32], "f0": pa.f0[:, :64], "energy": pa.energy[:, :64], "style": pa.style}
    feeds["phase_offset"] = np.zeros((1, 1, 9), np.float32)
    signal = session.run([stft.input[0]], {i.name: feeds[i.name] for i in session.get_inputs()})[0]
    return decoder, signal, window, hop


def test_stft_on_the_decoders_own_signal(library, decoder_source):
    _, signal, window, hop = decoder_source
    assert signal.shape == (1, 32 * 600 + len(window)) and (len(window), hop) == (N_FFT, HOP)
    want = _compare(library, signal, window, hop)
    # Where it matters: at DC the imaginary part is rounding left-overs of both signs, and
    # the real part mostly negative, so the phase is +pi or -pi by those signs.
    dc = want[0, :, 0]
    assert (np.abs(dc[:, 1]) < 1e-6).all() and (dc[:, 0] < 0).mean() > 0.5
    assert 0 < np.signbit(dc[:, 1]).mean() < 1


def test_the_decoders_stft_is_rewritten(decoder_source):
    decoder = onnx.ModelProto()
    decoder.CopyFrom(decoder_source[0])
    assert gr.fused_stft(decoder) == 1
    (node,) = [n for n in decoder.graph.node if n.op_type in ("STFT", custom_ops.STFT)]
    assert (node.op_type, node.domain) == (custom_ops.STFT, custom_ops.DOMAIN)
    assert {a.name: a.i for a in node.attribute} == {"frame_step": HOP, "frame_length": N_FFT}


def test_stft_inputs_it_does_not_take_give_zeros_and_are_counted(library):
    failures = _failures(library)
    session = _session(_stft_model(_hann(N_FFT), HOP, custom=True, window_input=True), library)
    window = _hann(N_FFT)
    before = failures()
    rng = np.random.default_rng(8)
    complex_signal = rng.normal(size=(1, 200, 2)).astype(np.float32)  # [B, L, 2]: not a real signal
    got = session.run(None, {"x": complex_signal, "w": window})[0]
    assert got.shape == (1, 37, N_FFT // 2 + 1, 2) and not got.any()
    long_window = _hann(N_FFT + 1)  # not the frame length the kernel was made for
    got = session.run(None, {"x": rng.normal(size=(1, 200)).astype(np.float32), "w": long_window})[0]
    assert got.shape == (1, 37, N_FFT // 2 + 1, 2) and not got.any()
    short = rng.normal(size=(2, N_FFT - 1)).astype(np.float32)  # no whole frame
    assert session.run(None, {"x": short, "w": window})[0].shape == (2, 0, N_FFT // 2 + 1, 2)
    assert failures() == before + 3
    # A frame length the kernel does not compute (a power of 2): every run.
    pow2 = _session(_stft_model(_hann(16), 4, custom=True), library)
    got = pow2.run(None, {"x": rng.normal(size=(1, 100)).astype(np.float32)})[0]
    assert not got.any() and failures() == before + 4
    # The session still works for good inputs.
    signal = rng.normal(size=(1, 200)).astype(np.float32)
    want = _session(_stft_model(window, HOP, signal_shape=["B", "L"]), library).run(None, {"x": signal})[0]
    _assert_same_bits(session.run(None, {"x": signal, "w": window})[0], want)
    assert failures() == before + 4


def _reshaped_signal_model() -> onnx.ModelProto:
    """As in the decoder: the signal is a Reshape of [B, L, 1] to its computed [B, L], so only
    shape inference says it is real and 2-D."""
    model = _stft_model(_hann(N_FFT), HOP)
    graph = model.graph
    graph.input[0].CopyFrom(helper.make_tensor_value_info("raw", TensorProto.FLOAT, ["B", "L", 1]))
    graph.initializer.extend(
        [_int("zero", 0), _int("one", 1), numpy_helper.from_array(np.array([0]), "axes")]
    )
    nodes = [
        helper.make_node("Shape", ["raw"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"]),
        helper.make_node("Gather", ["shape", "one"], ["l"]),
        helper.make_node("Unsqueeze", ["b", "axes"], ["b1"]),
        helper.make_node("Unsqueeze", ["l", "axes"], ["l1"]),
        helper.make_node("Concat", ["b1", "l1"], ["bl"], axis=0),
        helper.make_node("Reshape", ["raw", "bl"], ["x"]),
        *graph.node,
    ]
    del graph.node[:]
    graph.node.extend(nodes)
    return model


@pytest.mark.parametrize("reshaped", [False, True], ids=["declared signal", "reshaped signal"])
def test_an_stft_becomes_the_compiled_one_with_the_same_output(library, reshaped):
    signal = np.random.default_rng(9).normal(size=(1, 500)).astype(np.float32)
    if reshaped:
        model, feeds = _reshaped_signal_model(), {"raw": signal[..., None]}
    else:
        model, feeds = _stft_model(_hann(N_FFT), HOP, signal_shape=[1, "L"]), {"x": signal}
    before = _session(model, library).run(None, feeds)[0]
    assert gr.fused_stft(model) == 1
    assert [n.op_type for n in model.graph.node][-1] == custom_ops.STFT
    assert "STFT" not in [n.op_type for n in model.graph.node]
    # The frame step and length were stored for the STFT only: they go with it.
    assert [t.name for t in model.graph.initializer if t.name in ("w", "hop", "n")] == ["w"]
    _assert_same_bits(_session(model, library).run(None, feeds)[0], before)


@pytest.mark.parametrize(
    "model",
    [
        _stft_model(_hann(N_FFT), HOP, signal_shape=[1, "L"], onesided=0),
        _stft_model(_hann(N_FFT), HOP, signal_shape=[1, "L"], window_input=True),
        _stft_model(_hann(16), 4, signal_shape=[1, "L"]),
        _stft_model(_hann(N_FFT), HOP, signal_shape=[1, "L", 2]),
        _stft_model(_hann(N_FFT), HOP, signal_shape=None),
    ],
    ids=["two-sided", "window is an input", "power-of-2 frame", "complex signal", "signal of unknown rank"],
)
def test_an_stft_the_kernel_does_not_compute_is_left_alone(model):
    ops = [n.op_type for n in model.graph.node]
    assert gr.fused_stft(model) == 0
    assert [n.op_type for n in model.graph.node] == ops
