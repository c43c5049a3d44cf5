"""The voice library: stock voices plus the user's enrolled and mixed voices on disk.

Each user voice is two files in the data dir (``$XDG_DATA_HOME/tray-reader/voices``):
``NAME.npy`` (the pack, float32 [510, 1, 256], read with ``allow_pickle=False``) and
``NAME.json`` (its metadata). Writes go to a temp file first and land with ``os.replace``.
A file that cannot be read as a voice is reported in ``problems`` and skipped.
Export/import use one ``.npz`` file (the pack and the metadata as UTF-8 bytes), never pickle.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from tray_reader import model_files
from tray_reader.errors import VoiceError, VoiceNameError
from tray_reader.files import output_place_problem, sha256, write_atomic
from tray_reader.paths import data_dir
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import NEUTRAL, Prosody

PACK_SHAPE = model_files.PACK_SHAPE
FORMAT = "tray-reader-voice/1"
"""Marks our metadata files and exports; anything else is foreign."""
MAX_NAME = 40
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
STATE_FILE = "state.json"
PITCH_LIMITS = (0.25, 4.0)
"""A stored pitch or range factor outside these is ignored (a damaged or foreign file)."""


@dataclass(frozen=True)
class VoiceInfo:
    """What the library knows about one voice."""

    name: str
    """The voice's name, as used by `say --voice` and the tray menu."""
    kind: str
    """'stock', 'enrolled' or 'mixed'."""
    created: str = ""
    """ISO 8601 UTC time the voice was made ('' for stock voices)."""
    method: str = ""
    """How the pack was made (e.g. 'top-5 blend + speed', 'mix af_sarah:0.6 bf_emma:0.4')."""
    source_sha256: str = ""
    """SHA-256 of the recording it was enrolled from."""
    source_seconds: float = 0.0
    """Duration of that recording, in seconds."""
    checks: tuple[str, ...] = ()
    """Warnings the recording's checks gave (clipping, noise, ...)."""
    scores: dict = field(default_factory=dict)
    """Similarity figures reached at enrolment (e.g. {'similarity': 0.78, 'nearest_stock': ...})."""
    settings: dict = field(default_factory=dict)
    """Settings used to make it, and synthesis hints applied at every read: the matched
    'speed', 'pitch' (factor on the model's f0) and 'pitch_range' (factor on log-f0's
    deviation from its median); a voice without them reads at 1. 'envelope': the envelope
    map its audio goes through (speech/envelope.py), if it was made with one."""
    consent: bool = False
    """The user confirmed the voice is their own or used with permission."""
    pack_sha256: str = ""
    """SHA-256 of the pack's float32 bytes, to detect a damaged pack file."""

    def to_json(self) -> dict:
        d = asdict(self)
        d["checks"] = list(self.checks)
        d["format"] = FORMAT
        return d

    @classmethod
    def from_json(cls, d: object) -> VoiceInfo:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise VoiceError("not a tray-reader voice file")
        try:
            return cls(
                name=str(d["name"]),
                kind=str(d["kind"]),
                created=str(d.get("created", "")),
                method=str(d.get("method", "")),
                source_sha256=str(d.get("source_sha256", "")),
                source_seconds=float(d.get("source_seconds", 0.0)),
                checks=tuple(str(c) for c in d.get("checks", ())),
                scores=dict(d.get("scores", {})),
                settings=dict(d.get("settings", {})),
                consent=bool(d.get("consent", False)),
                pack_sha256=str(d.get("pack_sha256", "")),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise VoiceError(f"voice metadata is malformed ({e})") from None

    @property
    def speed(self) -> float:
        """The speaking speed this voice was matched at (1.0 if none)."""
        try:
            return float(self.settings.get("speed", 1.0))
        except (TypeError, ValueError):
            return 1.0

    @property
    def prosody(self) -> Prosody:
        """The pitch level and range this voice reads with (the model's own if none)."""
        try:
            pitch = float(self.settings.get("pitch", 1.0))
            spread = float(self.settings.get("pitch_range", 1.0))
        except (TypeError, ValueError):
            return NEUTRAL
        if not (PITCH_LIMITS[0] <= pitch <= PITCH_LIMITS[1] and PITCH_LIMITS[0] <= spread <= PITCH_LIMITS[1]):
            return NEUTRAL
        return Prosody(pitch, spread)

    @property
    def envelope(self) -> EnvelopeMap | None:
        """The envelope map this voice reads through (None if none, or a damaged entry)."""
        stored = self.settings.get("envelope")
        if stored is None:
            return None
        try:
            return EnvelopeMap.from_json(stored)
        except (KeyError, TypeError, ValueError):
            return None


def validate_name(name: str) -> str:
    """Return `name` if it can name a voice file, else raise VoiceNameError saying why."""
    if not isinstance(name, str) or not name:
        raise VoiceNameError("A voice name cannot be empty.")
    if len(name) > MAX_NAME:
        raise VoiceNameError(f"A voice name can have at most {MAX_NAME} characters.")
    if not _NAME.match(name):
        raise VoiceNameError(
            f"Invalid voice name {name!r}: use letters, digits, '-' and '_', starting with a letter or digit."
        )
    return name


def check_pack(pack: object) -> np.ndarray:
    """A valid voice pack as float32 [510, 1, 256], or VoiceError."""
    arr = np.asarray(pack)
    if arr.shape != PACK_SHAPE or arr.dtype != np.float32:
        raise VoiceError(
            f"a voice pack must be float32 {list(PACK_SHAPE)}, got {arr.dtype} {list(arr.shape)}"
        )
    if not np.all(np.isfinite(arr)):
        raise VoiceError("the voice pack holds non-finite values")
    return np.ascontiguousarray(arr)


def pack_sha256(pack: np.ndarray) -> str:
    return sha256(np.ascontiguousarray(pack, dtype=np.float32).tobytes())


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _npy_bytes(pack: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, pack, allow_pickle=False)
    return buf.getvalue()


def _write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``, durably; VoiceError saying why it cannot (a full disk)."""
    try:
        write_atomic(path, data, durable=True)
    except OSError as e:
        raise VoiceError(f"cannot write {path}: {e.strerror or e}") from None


def _load_npy(data: bytes) -> np.ndarray:
    try:
        return np.asarray(np.load(io.BytesIO(data), allow_pickle=False))
    except (ValueError, OSError, EOFError) as e:
        raise VoiceError(f"the pack is unreadable ({e})") from None


class VoiceLibrary:
    """Stock voices (read-only) and user voices in `root` (default: the platform data dir)."""

    def __init__(self, root: Path | None = None) -> None:
        self.base = Path(root) if root is not None else data_dir()
        self.dir = self.base / "voices"
        self.problems: list[str] = []
        """Files the last `list()` skipped, each with the reason."""

    # --- reading -------------------------------------------------------------------------
    def stock_names(self) -> list[str]:
        return [v.name for v in model_files.stock_voices()]

    def _paths(self, name: str) -> tuple[Path, Path]:
        return self.dir / f"{name}.npy", self.dir / f"{name}.json"

    def _read_user(self, name: str) -> tuple[VoiceInfo, np.ndarray]:
        npy, meta = self._paths(name)
        try:
            info = VoiceInfo.from_json(json.loads(meta.read_text(encoding="utf-8")))
            data = npy.read_bytes()
        except FileNotFoundError:
            raise VoiceError(f"{name}: a file of this voice is missing") from None
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise VoiceError(f"{name}: unreadable ({e})") from None
        if info.name != name:
            raise VoiceError(f"{meta.name}: names a different voice ({info.name!r})")
        pack = check_pack(_load_npy(data))
        if info.pack_sha256 and pack_sha256(pack) != info.pack_sha256:
            raise VoiceError(f"{npy.name}: the pack does not match its checksum")
        return info, pack

    def _user_names(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.stem for p in self.dir.glob("*.json") if not p.name.startswith("."))

    def list(self) -> list[VoiceInfo]:
        """Stock voices, then user voices; unreadable user files go to `problems`."""
        out = [VoiceInfo(v.name, "stock") for v in model_files.stock_voices()]
        self.problems = []
        for name in self._user_names():
            try:
                validate_name(name)
                out.append(self._read_user(name)[0])
            except VoiceError as e:
                self.problems.append(f"skipped {self.dir / (name + '.json')}: {e}")
        return out

    def info(self, name: str) -> VoiceInfo:
        if name in self.stock_names():
            return VoiceInfo(name, "stock")
        return self._read_user(self._existing(name))[0]

    def pack(self, name: str) -> np.ndarray:
        """The pack of a stock or user voice, float32 [510, 1, 256]."""
        if name in self.stock_names():
            return model_files.stock_pack(name)
        return self._read_user(self._existing(name))[1]

    def _existing(self, name: str) -> str:
        try:
            validate_name(name)
        except VoiceError:
            raise VoiceError(self._unknown(name)) from None
        if not self._paths(name)[1].exists():
            raise VoiceError(self._unknown(name))
        return name

    def _unknown(self, name: str) -> str:
        names = ", ".join(v.name for v in self.list())
        return f"Unknown voice {name!r}. Available: {names}"

    def exists(self, name: str) -> bool:
        return name in self.stock_names() or (bool(_NAME.match(name)) and self._paths(name)[1].exists())

    # --- writing -------------------------------------------------------------------------
    def _free_name(self, name: str, overwrite: bool = False) -> str:
        validate_name(name)
        if name in self.stock_names():
            raise VoiceNameError(f"{name!r} is a stock voice; choose another name.")
        if not overwrite and self._paths(name)[1].exists():
            raise VoiceNameError(f"A voice named {name!r} already exists; remove or rename it first.")
        return name

    def check_new_name(self, name: str) -> str:
        """`name` if a new user voice may take it, else VoiceNameError saying why."""
        return self._free_name(name)

    def save(self, info: VoiceInfo, pack: np.ndarray, overwrite: bool = False) -> VoiceInfo:
        """Store a user voice (pack first, then the metadata that makes it visible)."""
        name = self._free_name(info.name, overwrite)
        pack = check_pack(pack)
        info = replace(info, pack_sha256=pack_sha256(pack), created=info.created or now_iso())
        npy, meta = self._paths(name)
        _write(npy, _npy_bytes(pack))
        _write(meta, json.dumps(info.to_json(), indent=1).encode("utf-8"))
        return info

    def remove(self, name: str) -> None:
        if name in self.stock_names():
            raise VoiceError(f"{name!r} is a stock voice and cannot be removed.")
        name = self._existing(name)
        npy, meta = self._paths(name)
        meta.unlink(missing_ok=True)
        npy.unlink(missing_ok=True)
        if self.default_voice() == name:
            self._write_state({})

    def rename(self, old: str, new: str) -> VoiceInfo:
        if old in self.stock_names():
            raise VoiceError(f"{old!r} is a stock voice and cannot be renamed.")
        info, pack = self._read_user(self._existing(old))
        self._free_name(new)
        saved = self.save(replace(info, name=new), pack)
        was_default = self.default_voice() == old
        for p in self._paths(old):
            p.unlink(missing_ok=True)
        if was_default:
            self.use(new)
        return saved

    def mix(self, name: str, parts: Sequence[tuple[str, float]], speed: float = 1.0) -> VoiceInfo:
        """A new voice from a weighted blend of stock and/or user voices (weights normalised)."""
        self._free_name(name)
        if not parts:
            raise VoiceError("A mix needs at least one voice, as NAME:WEIGHT.")
        for voice, w in parts:
            if not np.isfinite(w) or w <= 0:
                raise VoiceError(f"The weight of {voice!r} must be a positive number, got {w}.")
        largest = max(w for _, w in parts)  # weights as shares of the largest: their sum stays finite
        parts = [(voice, w / largest) for voice, w in parts]
        total = sum(w for _, w in parts)
        if not 0.5 <= speed <= 2.0:
            raise VoiceError(f"speed must be from 0.5 to 2.0, got {speed}")
        pack = np.zeros(PACK_SHAPE, np.float32)
        for voice, w in parts:
            pack += np.float32(w / total) * self.pack(voice)
        recipe = " ".join(f"{v}:{w / total:.3g}" for v, w in parts)
        info = VoiceInfo(
            name=name,
            kind="mixed",
            method=f"mix {recipe}",
            settings={"parts": [[v, w / total] for v, w in parts], "speed": speed},
            consent=True,
        )
        return self.save(info, pack)

    # --- export / import -----------------------------------------------------------------
    def export(self, name: str, path: Path) -> None:
        """Write one self-contained .npz file (pack + metadata JSON; no pickle)."""
        if name in self.stock_names():
            info, pack = VoiceInfo(name, "stock"), self.pack(name)
        else:
            info, pack = self._read_user(self._existing(name))
        path = Path(path)
        problem = output_place_problem(path, f"{name}.npz")
        if problem:
            raise VoiceError(problem)
        meta = np.frombuffer(json.dumps(info.to_json()).encode("utf-8"), dtype=np.uint8)
        buf = io.BytesIO()
        np.savez(buf, pack=pack, meta=meta)
        _write(path, buf.getvalue())

    def import_file(self, path: Path, name: str | None = None) -> VoiceInfo:
        """Add a voice from a file made by `export` (optionally under another name)."""
        path = Path(path)
        if path.is_dir():
            raise VoiceError(f"{path} is a folder; give a voice file (.npz) in it.")
        if path.exists() and not zipfile.is_zipfile(path):  # a recording, a voice's own .npy
            raise VoiceError(
                f"{path} is not a tray-reader voice file (`tray-reader voice export` makes them); "
                f"to make a voice from a recording, use `tray-reader voice add NAME {path}`."
            )
        try:
            with np.load(path, allow_pickle=False) as z:
                pack = check_pack(z["pack"])
                meta = z["meta"]
                if meta.dtype != np.uint8 or meta.ndim != 1:
                    raise VoiceError("metadata has the wrong type")
                info = VoiceInfo.from_json(json.loads(meta.tobytes().decode("utf-8")))
        except FileNotFoundError:
            raise VoiceError(f"{path}: no such file") from None
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as e:
            raise VoiceError(f"{path} is not a tray-reader voice file ({e})") from None
        except VoiceError as e:
            raise VoiceError(f"{path} is not a usable tray-reader voice file: {e}") from None
        if info.pack_sha256 and info.pack_sha256 != pack_sha256(pack):
            raise VoiceError(f"{path}: the pack does not match its checksum (damaged file?)")
        kind = "mixed" if info.kind == "stock" else info.kind
        return self.save(replace(info, name=name or info.name, kind=kind), pack)

    # --- default voice -------------------------------------------------------------------
    # The settings TOML (tray_reader/config.py) is the long-term home of the default voice;
    # until it is wired, `use` keeps it in a small state file beside the voices.
    def _read_state(self) -> dict:
        try:
            state = json.loads((self.base / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) else {}

    def _write_state(self, state: dict) -> None:
        _write(self.base / STATE_FILE, json.dumps(state).encode("utf-8"))

    def use(self, name: str) -> None:
        """Make `name` the default voice (it must exist)."""
        if name not in self.stock_names():
            self._existing(name)
        self._write_state({**self._read_state(), "voice": name})

    def default_voice(self) -> str | None:
        """The voice chosen with `use`, or None."""
        v = self._read_state().get("voice")
        return v if isinstance(v, str) and v else None
