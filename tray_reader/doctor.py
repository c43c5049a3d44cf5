"""`tray-reader doctor`: what a bug report needs, and the fix for each problem found."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tray_reader import __version__


@dataclass(frozen=True)
class Check:
    topic: str
    """What was looked at."""
    result: str
    """What was found."""
    fix: str = ""
    """What to do about it ('' when all is well)."""


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions() -> Iterator[Check]:
    yield Check("tray-reader", __version__)
    yield Check("Python", f"{platform.python_version()} ({sys.executable})")
    yield Check("system", platform.platform())
    for dist in ("onnxruntime", "numpy", "soxr", "sounddevice", "misaki", "pystray", "pynput", "PyGObject"):
        v = _version(dist)
        fix = f"pip install {dist} (or run ./dev setup)" if v == "not installed" else ""
        yield Check(dist, v, fix)


def audio() -> Iterator[Check]:
    try:
        import sounddevice
    except OSError as e:
        yield Check("audio", f"PortAudio not found ({e})", "sudo apt install libportaudio2")
        return
    try:
        devices = sounddevice.query_devices()
        default_out = sounddevice.default.device[1]
    except Exception as e:  # PortAudio reports host problems as plain exceptions
        yield Check("audio devices", f"cannot list ({e})", "check that PulseAudio/PipeWire runs: pactl info")
        return
    outs = [d for d in devices if d["max_output_channels"] > 0]
    if not outs:
        yield Check(
            "audio devices", "no output device", "start PulseAudio/PipeWire (pactl info) or plug in a device"
        )
    for d in outs:
        mark = " (default)" if d["index"] == default_out else ""
        yield Check("audio output", f"{d['name']}{mark}, {int(d['default_samplerate'])} Hz")


def enrolment() -> Iterator[Check]:
    """The recordings enrolment reads (optional: ffmpeg adds a phone's M4A and others)."""
    from tray_reader.voices.preprocess import formats_named

    extra = "" if shutil.which("ffmpeg") else "; install ffmpeg to enrol from a phone's M4A and other formats"
    yield Check("recordings read", formats_named() + extra)


def desktop() -> Iterator[Check]:
    from tray_reader import dbus_session
    from tray_reader.portal import GLOBAL_SHORTCUTS, manual_binding_hint
    from tray_reader.selection import session_type

    kind = session_type()
    where = os.environ.get("XDG_CURRENT_DESKTOP") or "unknown desktop"
    if kind == "wayland":
        shown = f"wayland ({where}, WAYLAND_DISPLAY={os.environ.get('WAYLAND_DISPLAY', 'unset')})"
    elif kind == "x11":
        shown = f"x11 ({where}, DISPLAY={os.environ.get('DISPLAY')})"
    else:
        shown = "none"
    yield Check("session", shown, "start tray-reader inside your desktop session" if kind == "none" else "")
    bus = dbus_session.connect()
    conn = bus.connection
    yield Check(
        "session bus",
        "connected" if conn is not None else bus.problem,
        ""
        if conn is not None
        else "start tray-reader from your desktop session (or a unit started after it)",
    )
    yield from _tray_checks(kind, conn)
    portal = dbus_session.portal_version(conn, GLOBAL_SHORTCUTS) if conn is not None else 0
    if portal:
        yield Check("shortcuts", f"desktop portal (GlobalShortcuts version {portal}); the desktop asks once")
    elif kind == "x11":
        yield Check("shortcuts", "pynput (X11 hotkeys)")
    else:
        yield Check("shortcuts", "none: this desktop offers no shortcuts portal", manual_binding_hint())
    yield Check(
        "media keys",
        "MPRIS (org.mpris.MediaPlayer2.tray_reader)" if conn is not None else "none (no session bus)",
    )
    yield from _clipboard_checks(kind)
    if kind == "x11" and shutil.which("xdpyinfo"):
        ok = subprocess.run(["xdpyinfo"], capture_output=True, timeout=5).returncode == 0
        yield Check("X display", f"{os.environ.get('DISPLAY')} {'reachable' if ok else 'NOT reachable'}",
                    "" if ok else "check DISPLAY and xhost")  # fmt: skip
    yield Check(
        "notifications",
        "over the session bus" if conn is not None else "none without a session bus (messages go to stderr)",
    )


def _tray_checks(kind: str, conn: object) -> Iterator[Check]:
    from tray_reader import dbus_session
    from tray_reader.tray import appindicator_available, gtk_available

    if not sys.platform.startswith("linux"):
        yield Check("tray backend", "pystray default")
        return
    if not gtk_available():
        yield Check("tray backend", "pystray xorg (no menu)",
                    "the tray menu needs PyGObject + GTK 3: sudo apt install gir1.2-gtk-3.0; pip install 'PyGObject<3.51'")  # fmt: skip
        return
    host = conn is not None and dbus_session.has_tray_host(conn)
    if kind == "wayland":
        if conn is None:
            yield Check("tray backend", "none (no session bus); tray-reader runs without an icon")
        elif not host:
            yield Check("tray backend", "none: no StatusNotifierWatcher (tray host) on the bus",
                        "on GNOME install and enable the AppIndicator extension "
                        "(gnome-shell-extension-appindicator); KDE, waybar and most panels have one")  # fmt: skip
        elif not appindicator_available():
            yield Check("tray backend", "none: the AppIndicator library is missing",
                        "sudo apt install gir1.2-ayatanaappindicator3-0.1")  # fmt: skip
        else:
            yield Check("tray backend", "pystray appindicator (StatusNotifierWatcher found)")
        return
    yield Check("tray backend", "pystray gtk (XEmbed)" + (", StatusNotifierWatcher found" if host else ""))


def _clipboard_checks(kind: str) -> Iterator[Check]:
    if kind == "wayland":
        tools, install = ["wl-paste", "wl-copy"], "sudo apt install wl-clipboard"
    else:
        tools, install = ["xsel", "xclip"], "sudo apt install xsel"
    found = [t for t in tools if shutil.which(t)]
    yield Check("clipboard tools", ", ".join(found) or "none", "" if found else install)
    if kind == "wayland" and "wl-paste" in found:
        yield _wayland_primary()


def _wayland_primary() -> Check:
    """Whether `wl-paste --primary` answers: it needs the compositor's data-control protocol,
    which GNOME's Mutter lacks (there it can hang or flash a window)."""
    from tray_reader.selection import TOOL_TIMEOUT

    try:
        out = subprocess.run(
            ["wl-paste", "--primary", "--list-types"], capture_output=True, timeout=TOOL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        out = None
    err = out.stderr.decode(errors="replace").strip() if out is not None else ""
    if out is not None and (out.returncode == 0 or "No selection" in err or "Nothing is copied" in err):
        return Check("Wayland PRIMARY", "readable (wl-paste --primary)")
    why = f"wl-paste --primary did not answer within {TOOL_TIMEOUT:g} s" if out is None else (err or "failed")
    return Check(
        "Wayland PRIMARY",
        f"not readable: {why}",
        "this compositor lacks the data-control protocol (GNOME): copy the text first (the clipboard "
        "is read when there is no selection), or run tray-reader under XWayland with GDK_BACKEND=x11",
    )


def models() -> Iterator[Check]:
    from tray_reader import model_files

    for what, result in model_files.verify_all():
        yield Check(what, result, "" if result == "ok" else "see the message; reinstall as it says")
    yield fast_decoder()
    yield optimised_models()


def fast_decoder() -> Check:
    """Whether the derived fast decoder is built; optional, so never counted as a problem."""
    from tray_reader.model import cache

    entry = cache.entry_dir(cache.shipped_sha256())
    # Hashed in full: the daemon rehashes only files that changed (see files.FileChecksums).
    if cache.cached_decoder(full=True) is not None:
        if cache.cached_fused_decoder(full=True) is not None:
            return Check("fast decoder", f"built and checked, with its compiled operators ({entry})")
        return Check(
            "fast decoder",
            f"built and checked ({entry}); without its compiled operators: {_why_not_fused(entry)}",
        )
    return Check(
        "fast decoder",
        "not built: the shipped decoder is used (build it for faster speech: "
        "tray-reader doctor --build-fast-model)",
    )


def optimised_models() -> Check:
    """onnxruntime's optimised models in the cache, hashed in full (the daemon trusts an
    unchanged file without reading it)."""
    from tray_reader.speech.sessions import check_optimised

    good, bad = check_optimised()
    if not bad:
        return Check("optimised models", f"{good} checked" if good else "none yet (made at the first start)")
    return Check(
        "optimised models",
        f"{len(bad)} did not match their checksums and were removed: {', '.join(p.name for p in bad)}",
        "nothing to do: the next start makes them again (if this recurs, check the disk)",
    )


def _why_not_fused(entry: Path) -> str:
    """The fused decoder's reason from the build's report (why it is not there)."""
    from tray_reader.model import cache

    reason = cache.fused_status(entry).get("reason")
    return str(reason or "it does not check out; rebuild with tray-reader doctor --build-fast-model")


def onnx() -> Iterator[Check]:
    try:
        import onnxruntime
    except ImportError as e:
        yield Check("ONNX Runtime", f"not importable ({e})", "pip install onnxruntime==1.32.0")
        return
    yield Check("ONNX Runtime providers", ", ".join(onnxruntime.get_available_providers()))


def daemon() -> Iterator[Check]:
    from tray_reader import config, control
    from tray_reader.errors import ControlError

    loaded = config.load(create=False)
    yield Check("settings", str(config.settings_path()))
    for p in loaded.problems:
        yield Check("settings problem", p, "edit the file (or delete it to get fresh defaults)")
    yield from lexicon()
    try:
        reply = control.send(control.socket_path(), "status", timeout=2)
        yield Check("daemon", f"running: state {reply.get('state')}, voice {reply.get('voice')}")
    except ControlError as e:
        yield Check("daemon", str(e))


def lexicon() -> Iterator[Check]:
    """The user's pronunciation lexicon, where there is one: a broken one is read past by the
    daemon (with a warning) and stops `say`."""
    from tray_reader.errors import ConfigError
    from tray_reader.text.lexicon import Lexicon, default_path

    path = default_path()
    try:
        words = len(Lexicon.load(path).entries)
    except ConfigError as e:
        yield Check(
            "lexicon problem",
            str(e),
            "fix what it names (or move the file away); until then the daemon reads without it "
            "and `tray-reader say` stops",
        )
        return
    if path.exists():
        yield Check("lexicon", f"{path}: {words} word(s)")


def speech_dispatcher() -> Iterator[Check]:
    """Whether tray-reader is a speech-dispatcher voice (optional: not a problem when not)."""
    from tray_reader.speechd import install

    dirs = install.UserDirs.from_environment()
    server = shutil.which("speech-dispatcher")
    yield Check("speech-dispatcher", server or "not installed (only needed for Orca, Firefox, spd-say)")
    if not install.configured(dirs):
        yield Check("tray-reader module", "not configured (tray-reader speechd install)")
        return
    failure = install.probe(dirs)
    if failure is None:
        yield Check("tray-reader module", f"configured and answers ({dirs.launcher})")
    else:
        yield Check(
            "tray-reader module", failure, "run tray-reader speechd install again, from this installation"
        )


SECTIONS: list[tuple[str, Callable[[], Iterator[Check]]]] = [
    ("Versions", versions),
    ("Audio", audio),
    ("Enrolment", enrolment),
    ("Desktop", desktop),
    ("Model files", models),
    ("ONNX Runtime", onnx),
    ("Daemon", daemon),
    ("speech-dispatcher", speech_dispatcher),
]


def report() -> tuple[list[str], int]:
    """The printed lines and the number of problems found."""
    lines: list[str] = []
    problems = 0
    for title, section in SECTIONS:
        lines.append(f"== {title}")
        try:
            checks = list(section())
        except Exception as e:  # doctor must report, never crash, whatever it finds
            checks = [
                Check(title, f"check failed: {type(e).__name__}: {e}", "please include this in a bug report")
            ]
        for c in checks:
            lines.append(f"  {c.topic}: {c.result}")
            if c.fix:
                problems += 1
                lines.append(f"    fix: {c.fix}")
    lines.append(f"{problems} problem(s) found." if problems else "No problems found.")
    return lines, problems
