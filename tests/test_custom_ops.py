"""The compiled NormSnakeQuantize operator (custom_ops.py, kernels/norm_snake.c), built
with the system's C compiler and run by onnxruntime, against the same arithmetic in
NumPy; and the graph rewrite that puts it into the decoder (graph_rewrites.py).

`./dev setup` installs gcc (installer/debian-packages.txt): these tests build the library
for real, as the fast model's build does.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tray_reader.speech import custom_ops
from tray_reader.speech import graph_rewrites as gr


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    assert custom_ops.compiler() is not None, "no C compiler: install gcc (./dev setup does)"
    built = custom_ops.build_library(tmp_path_factory.mktemp("ops"))
    assert built.path is not None, built.reason
    return built.path


def _session(model: onnx.ModelProto, library) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.register_custom_ops_library(str(library))
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


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
    import ctypes

    failures = ctypes.CDLL(str(library)).tray_reader_norm_snake_failures
    failures.restype = ctypes.c_long
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
