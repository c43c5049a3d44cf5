"""What start-up no longer redoes: a file's checksum while the file is unchanged, and
onnxruntime's graph optimisation while its optimised model is in the cache. Both must
notice when what they stand for changed."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tray_reader import files
from tray_reader.files import FileChecksums, sha256
from tray_reader.speech import sessions


@pytest.fixture
def hashed(monkeypatch) -> list[str]:
    """The files actually read and hashed."""
    seen: list[str] = []
    real = files._hash_file

    def counting(path):
        seen.append(path.name)
        return real(path)

    monkeypatch.setattr(files, "_hash_file", counting)
    return seen


def test_an_unchanged_file_is_hashed_once(tmp_path, hashed):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"model bytes")
    assert FileChecksums(tmp_path / "memo.json").sha256(model) == sha256(b"model bytes")
    # Another process (a later start) reads the memo instead of the file.
    assert FileChecksums(tmp_path / "memo.json").sha256(model) == sha256(b"model bytes")
    assert hashed == ["model.onnx"]


@pytest.mark.parametrize("how", ["rewritten", "replaced", "touched back"])
def test_a_changed_file_is_hashed_again(tmp_path, hashed, how):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"model bytes")
    FileChecksums(tmp_path / "memo.json").sha256(model)
    st = model.stat()
    if how == "replaced":
        other = tmp_path / "other"
        other.write_bytes(b"model byteS")
        other.replace(model)
    else:
        with open(model, "r+b") as f:  # the same size, in place
            f.write(b"M")
    if how == "touched back":  # the modification time put back, as `cp -p` or `touch -r` do
        os.utime(model, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert FileChecksums(tmp_path / "memo.json").sha256(model) != sha256(b"model bytes")
    assert len(hashed) == 2


def test_full_hashes_even_an_unchanged_file_and_corrects_the_memo(tmp_path, hashed):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"model bytes")
    memo = tmp_path / "memo.json"
    FileChecksums(memo).sha256(model)
    memo.write_text(memo.read_text().replace(sha256(b"model bytes"), sha256(b"rotted")))
    assert FileChecksums(memo).sha256(model) == sha256(b"rotted")  # what the memo says
    assert FileChecksums(memo, full=True).sha256(model) == sha256(b"model bytes")
    assert FileChecksums(memo).sha256(model) == sha256(b"model bytes")


def test_a_broken_memo_costs_only_a_hash(tmp_path, hashed):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"model bytes")
    (tmp_path / "memo.json").write_text("{ not json")
    assert FileChecksums(tmp_path / "memo.json").sha256(model) == sha256(b"model bytes")


def _tiny_model(scale: float) -> bytes:
    """y = x * scale + 1: two nodes the optimiser can fold."""
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "s"], ["m"]),
            helper.make_node("Add", ["m", "one"], ["y"]),
        ],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [
            helper.make_tensor("s", TensorProto.FLOAT, [1], [scale]),
            helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _run(session) -> np.ndarray:
    return session.run(None, {"x": np.arange(4, dtype=np.float32).reshape(1, 4)})[0]


def _optimised(tmp_path):
    return sorted((tmp_path / sessions.OPTIMISED_DIR).glob("*.onnx"))


def test_the_optimised_model_is_kept_and_loaded_instead_of_the_source(tmp_path):
    data = _tiny_model(2.0)
    made = []

    def source() -> bytes:
        made.append(1)
        return data

    first = sessions.cached_session(sha256(data), source, 1, cache_dir=tmp_path)
    [kept] = _optimised(tmp_path)
    onnx.checker.check_model(onnx.load(kept))
    second = sessions.cached_session(sha256(data), source, 1, cache_dir=tmp_path)
    assert made == [1]  # the second start did not need the source
    assert np.array_equal(_run(first), _run(second)) and np.allclose(_run(second), [[1, 3, 5, 7]])


def test_a_source_that_is_not_what_its_checksum_says_is_not_kept(tmp_path):
    session = sessions.cached_session(
        sha256(b"another model"), lambda: _tiny_model(3.0), 1, cache_dir=tmp_path
    )
    assert np.allclose(_run(session), [[1, 4, 7, 10]])
    assert not _optimised(tmp_path)


def test_a_changed_optimised_model_is_made_again_from_the_source(tmp_path):
    data = _tiny_model(2.0)
    sessions.cached_session(sha256(data), lambda: data, 1, cache_dir=tmp_path)
    [kept] = _optimised(tmp_path)
    kept.write_bytes(_tiny_model(3.0))  # another model in its place
    session = sessions.cached_session(sha256(data), lambda: data, 1, cache_dir=tmp_path)
    assert np.allclose(_run(session), [[1, 3, 5, 7]])
    # Kept again: the next start does not need the source.
    session = sessions.cached_session(sha256(data), lambda: b"", 1, cache_dir=tmp_path)
    assert np.allclose(_run(session), [[1, 3, 5, 7]])


def test_an_unreadable_optimised_model_is_made_again(tmp_path):
    data = _tiny_model(2.0)
    sessions.cached_session(sha256(data), lambda: data, 1, cache_dir=tmp_path)
    [kept] = _optimised(tmp_path)
    kept.write_bytes(b"not a model")
    kept.with_suffix(".sha256").write_text(sha256(b"not a model"))  # its checksum agrees
    session = sessions.cached_session(sha256(data), lambda: data, 1, cache_dir=tmp_path)
    assert np.allclose(_run(session), [[1, 3, 5, 7]])
    onnx.checker.check_model(onnx.load(kept))  # and kept again


def test_the_full_check_finds_a_file_that_changed_behind_the_memo_and_removes_it(tmp_path):
    data = _tiny_model(2.0)
    sessions.cached_session(sha256(data), lambda: data, 1, cache_dir=tmp_path)
    other = _tiny_model(5.0)
    sessions.cached_session(sha256(other), lambda: other, 1, cache_dir=tmp_path)
    assert sessions.check_optimised(tmp_path) == (2, [])
    first, second = _optimised(tmp_path)
    # Bytes that rot on the disk keep the file's size and times: only a full hash sees it.
    st = first.stat()
    rotted = bytearray(first.read_bytes())
    rotted[-1] ^= 1
    first.write_bytes(bytes(rotted))
    os.utime(first, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert sessions.check_optimised(tmp_path) == (1, [first])
    assert not first.exists() and second.exists()


def test_a_session_is_made_even_when_its_optimised_model_cannot_be_written(tmp_path):
    data = _tiny_model(2.0)
    name = f"{sha256(data)[:16]}-{sessions._runtime_key()}.onnx"
    # A directory where onnxruntime would write the file (as a full disk would, it fails).
    (tmp_path / sessions.OPTIMISED_DIR / f".{name}.{os.getpid()}.tmp").mkdir(parents=True)
    session = sessions.cached_session(sha256(data), lambda: data, 1, cache_dir=tmp_path)
    assert np.allclose(_run(session), [[1, 3, 5, 7]])
    assert not _optimised(tmp_path)
