"""Settings: a TOML file in the platform config dir, read into frozen dataclasses.

Everything is validated here, in one place. A bad value never stops the daemon: it is
replaced by its default and reported with the file, the key and what is allowed. On first
run the file is written with every setting commented with its default.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from tray_reader.files import write_atomic
from tray_reader.paths import config_dir

SPEED_RANGE = (0.5, 2.0)
VOLUME_RANGE = (0.0, 1.0)
MAX_THREADS = 16
FONT_SIZES = (8, 72)

MODIFIERS = {"ctrl": "ctrl", "control": "ctrl", "alt": "alt", "shift": "shift", "super": "cmd", "win": "cmd"}
"""Modifier names a hotkey may use, and their pynput names."""
NAMED_KEYS = {
    *(f"f{i}" for i in range(1, 21)),
    *[
        "space",
        "tab",
        "enter",
        "esc",
        "home",
        "end",
        "page_up",
        "page_down",
        "insert",
        "delete",
        "up",
        "down",
        "left",
        "right",
        "pause",
    ],
    "print_screen",
    "backspace",
}
"""Non-character keys a hotkey may end with (pynput names)."""


def settings_path() -> Path:
    return config_dir() / "settings.toml"


@dataclass(frozen=True)
class Hotkeys:
    """Global hotkeys, written like "ctrl+alt+r" ('' turns one off)."""

    read: str = "ctrl+alt+r"
    """Read the selected text now, interrupting what is playing."""
    queue: str = "ctrl+alt+q"
    """Add the selected text to the end of the queue."""
    pause: str = "ctrl+alt+p"
    """Pause or resume playback."""
    stop: str = "ctrl+alt+s"
    """Stop and clear the queue."""
    reading_window: str = "ctrl+alt+w"
    """Show the reading window (the text being read, its sentence and word highlighted)."""


@dataclass(frozen=True)
class Settings:
    """Everything a user can set in settings.toml."""

    voice: str = "af_heart"
    """Voice name: a stock voice (see `tray-reader voices`) or one you enrolled."""
    speed: float = 1.0
    """Speaking rate, 0.5 to 2.0."""
    volume: float = 1.0
    """Playback volume, 0.0 to 1.0."""
    device: str = ""
    """Audio output device name (part of it is enough); '' is the system default."""
    threads: int = 0
    """Inference threads; 0 picks one per core (up to 4). Needs a restart."""
    fast_model: bool = True
    """Use the faster derived decoder when it has been built and passed its
    quality check (`tray-reader doctor --build-fast-model`); false uses the shipped model
    only. Needs a restart."""
    prepare_selection: bool = True
    """When you select text (X11), synthesise its first words in the background, so the
    hotkey speaks at once. The text and audio stay in memory only; each selection costs a
    fraction of a second of processor time. false: read the selection only on the hotkey."""
    copy_and_restore: bool = False
    """When nothing is selected (X11 PRIMARY empty), send Ctrl+C, read the clipboard, then
    put your previous clipboard text back."""
    notifications: bool = True
    """Show a short desktop notification when there is nothing to read or something fails."""
    reading_font_size: int = 18
    """Text size in the reading window, in points (8 to 72)."""
    reading_high_contrast: bool = False
    """The reading window in white on black with a strong highlight, instead of the theme's colours."""
    reading_on_top: bool = True
    """Keep the reading window above other windows."""
    hotkeys: Hotkeys = field(default_factory=Hotkeys)
    """The [hotkeys] table."""


RESTART_NEEDED = ("device", "threads", "fast_model")
"""Settings that take effect only after a restart; the rest apply while running."""


def _docs(cls: type) -> dict[str, str]:
    """Field docstrings, read from the source (they are the one description of each key)."""
    import inspect

    lines = inspect.getsource(cls).splitlines()
    docs: dict[str, str] = {}
    for i, line in enumerate(lines):
        m = re.match(r"\s+(\w+): .*=", line)
        if m and i + 1 < len(lines) and lines[i + 1].strip().startswith('"""'):
            text = []
            for more in lines[i + 1 :]:
                text.append(more.strip().strip('"'))
                if more.rstrip().endswith('"""') and (more.strip() != '"""' or len(text) > 1):
                    break
            docs[m.group(1)] = " ".join(t for t in text if t)
    return docs


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(v)


def default_file_text() -> str:
    """The settings file written on first run: every key commented, with its default."""
    out = [
        "# tray-reader settings. Remove the leading '# ' of a line to change it.",
        "# voice, speed, volume, prepare_selection, copy_and_restore, notifications and",
        "# hotkeys apply while tray-reader runs; device, threads and fast_model need a restart.",
        "",
    ]
    defaults = Settings()
    docs = _docs(Settings)
    for f in fields(Settings):
        if f.name == "hotkeys":
            continue
        out.append(f"# {docs.get(f.name, '')}")
        out.append(f"# {f.name} = {_toml_value(getattr(defaults, f.name))}")
        out.append("")
    out.append("[hotkeys]")
    out.append("# Modifiers: ctrl, alt, shift, super; then one key (a letter, digit, f1..f20, space, ...).")
    hk_docs = _docs(Hotkeys)
    for f in fields(Hotkeys):
        out.append(f"# {hk_docs.get(f.name, '')}")
        out.append(f"# {f.name} = {_toml_value(getattr(defaults.hotkeys, f.name))}")
    return "\n".join(out) + "\n"


def parse_hotkey(text: str) -> str:
    """'ctrl+alt+r' -> pynput's '<ctrl>+<alt>+r'; ValueError says what is wrong."""
    parts = [p.strip().lower() for p in text.split("+")]
    if len(parts) < 2 or any(not p for p in parts):
        raise ValueError("needs one or more modifiers and a key, like ctrl+alt+r")
    *mods, key = parts
    seen = []
    for m in mods:
        if m not in MODIFIERS:
            raise ValueError(f"unknown modifier {m!r} (allowed: ctrl, alt, shift, super)")
        if MODIFIERS[m] in seen:
            raise ValueError(f"modifier {m!r} appears twice")
        seen.append(MODIFIERS[m])
    if seen == ["shift"]:
        raise ValueError("shift alone would fire while typing; add ctrl, alt or super")
    if len(key) == 1 and key.isprintable() and key not in "+<> ":
        key_out = key
    elif key in NAMED_KEYS:
        key_out = f"<{key}>"
    else:
        raise ValueError(
            f"unknown key {key!r} (allowed: one letter or digit, or {', '.join(sorted(NAMED_KEYS))})"
        )
    order = ["ctrl", "alt", "shift", "cmd"]
    return "+".join([f"<{m}>" for m in sorted(seen, key=order.index)] + [key_out])


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    """The settings to use (defaults where the file was missing or wrong)."""
    problems: tuple[str, ...] = ()
    """One message per problem found, naming the file, the key and what is allowed."""
    hotkeys: dict[str, str] = field(default_factory=dict)
    """action -> pynput hotkey, only the valid, non-conflicting ones."""
    given: frozenset[str] = frozenset()
    """Top-level keys the file set to a valid value (the rest are defaults)."""


def _number(
    raw: dict, key: str, lo: float, hi: float, default: float, where: str, problems: list[str]
) -> float:
    if key not in raw:
        return default
    v = raw[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
        problems.append(
            f"{where}: {key} = {v!r} is not allowed; use a number from {lo} to {hi}. Using {default}."
        )
        return default
    return float(v)


def validate(raw: dict, where: str = "settings") -> LoadedSettings:
    """Turn parsed TOML into Settings; every invalid value is replaced by its default and reported."""
    problems: list[str] = []
    d = Settings()
    known = {f.name for f in fields(Settings)}
    for k in raw:
        if k not in known:
            problems.append(f"{where}: unknown key {k!r} ignored (known keys: {', '.join(sorted(known))}).")

    def text(key: str, default: str) -> str:
        v = raw.get(key, default)
        if not isinstance(v, str):
            problems.append(f"{where}: {key} = {v!r} must be a quoted string. Using {default!r}.")
            return default
        return v

    voice = text("voice", d.voice).strip()
    if not voice or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", voice):
        problems.append(
            f"{where}: voice = {voice!r} is not a voice name (letters, digits, '_' and '-'; see `tray-reader voices`). Using {d.voice!r}."
        )
        voice = d.voice
    speed = _number(raw, "speed", *SPEED_RANGE, d.speed, where, problems)
    volume = _number(raw, "volume", *VOLUME_RANGE, d.volume, where, problems)
    device = text("device", d.device)
    threads = d.threads
    if "threads" in raw:
        v = raw["threads"]
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_THREADS:
            problems.append(
                f"{where}: threads = {v!r} is not allowed; use a whole number from 0 (automatic) to {MAX_THREADS}. Using 0."
            )
        else:
            threads = v
    flags = {}
    font_size = d.reading_font_size
    if "reading_font_size" in raw:
        v = raw["reading_font_size"]
        if isinstance(v, bool) or not isinstance(v, int) or not FONT_SIZES[0] <= v <= FONT_SIZES[1]:
            problems.append(
                f"{where}: reading_font_size = {v!r} is not allowed; use a whole number from "
                f"{FONT_SIZES[0]} to {FONT_SIZES[1]}. Using {d.reading_font_size}."
            )
        else:
            font_size = v
    for key in (
        "copy_and_restore",
        "notifications",
        "fast_model",
        "prepare_selection",
        "reading_high_contrast",
        "reading_on_top",
    ):
        v = raw.get(key, getattr(d, key))
        if not isinstance(v, bool):
            problems.append(
                f"{where}: {key} = {v!r} must be true or false. Using {str(getattr(d, key)).lower()}."
            )
            v = getattr(d, key)
        flags[key] = v

    hk_raw = raw.get("hotkeys", {})
    if not isinstance(hk_raw, dict):
        problems.append(f"{where}: hotkeys must be a table ([hotkeys]). Using the default hotkeys.")
        hk_raw = {}
    hk_known = [f.name for f in fields(Hotkeys)]
    for k in hk_raw:
        if k not in hk_known:
            problems.append(f"{where}: unknown hotkey action {k!r} ignored (actions: {', '.join(hk_known)}).")
    chosen: dict[str, str] = {}
    for action in hk_known:
        default = getattr(Hotkeys(), action)
        v = hk_raw.get(action, default)
        if not isinstance(v, str):
            problems.append(
                f'{where}: hotkeys.{action} = {v!r} must be a string like "ctrl+alt+r". Using {default!r}.'
            )
            v = default
        chosen[action] = v
    active: dict[str, str] = {}
    by_combo: dict[str, str] = {}
    for action, v in chosen.items():
        if not v.strip():
            continue
        try:
            combo = parse_hotkey(v)
        except ValueError as e:
            problems.append(f"{where}: hotkeys.{action} = {v!r}: {e}. This hotkey is off.")
            continue
        if combo in by_combo:
            problems.append(
                f"{where}: hotkeys.{action} = {v!r} is already used by hotkeys.{by_combo[combo]}. "
                f"hotkeys.{action} is off; give it a different key."
            )
            continue
        by_combo[combo] = action
        active[action] = combo
    settings = Settings(
        voice=voice,
        speed=speed,
        volume=volume,
        device=device,
        threads=threads,
        copy_and_restore=flags["copy_and_restore"],
        prepare_selection=flags["prepare_selection"],
        notifications=flags["notifications"],
        fast_model=flags["fast_model"],
        reading_font_size=font_size,
        reading_high_contrast=flags["reading_high_contrast"],
        reading_on_top=flags["reading_on_top"],
        hotkeys=Hotkeys(**chosen),
    )
    bad = {k for k in known if any(p.startswith(f"{where}: {k} ") for p in problems)}
    return LoadedSettings(settings, tuple(problems), active, frozenset(k for k in raw if k in known) - bad)


def load(path: Path | None = None, create: bool = True) -> LoadedSettings:
    """Read the settings file (writing the commented defaults first if it does not exist).
    Never raises for a bad file: the problems are in the result and defaults are used."""
    path = path or settings_path()
    if not path.exists() and create:
        try:
            write_atomic(path, default_file_text())
        except OSError as e:
            return replace(validate({}), problems=(f"{path}: cannot be created ({e}); using the defaults.",))
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM, as some editors write
    except FileNotFoundError:
        raw = {}
    except (OSError, UnicodeDecodeError) as e:
        loaded = validate({})
        return replace(loaded, problems=(f"{path}: cannot be read ({e}); using the defaults.",))
    except tomllib.TOMLDecodeError as e:
        loaded = validate({})
        return replace(
            loaded,
            problems=(
                f"{path}: is not valid TOML ({e}); using the defaults for every setting. Fix the file or delete it to get a fresh one.",
            ),
        )
    return validate(raw, str(path))


def save_values(path: Path, **values: Any) -> None:
    """Set top-level keys in the settings file, keeping everything else (comments included):
    an existing `key = ...` line (or its commented default) is replaced, else one is added."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except FileNotFoundError:
        lines = default_file_text().splitlines()
    first_table = next((i for i, line in enumerate(lines) if line.strip().startswith("[")), len(lines))
    for key, value in values.items():
        new = f"{key} = {_toml_value(value)}"
        pattern = re.compile(rf"^\s*(#\s*)?{re.escape(key)}\s*=")
        hits = [i for i in range(first_table) if pattern.match(lines[i])]
        live = [i for i in hits if not lines[i].lstrip().startswith("#")]
        if live or hits:
            lines[(live or hits)[0]] = new
        else:
            lines.insert(first_table, new)
            first_table += 1
    write_atomic(path, "\n".join(lines) + "\n")
