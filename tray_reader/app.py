"""The daemon: wires the speech worker, player, selection, hotkeys, tray and control socket.

Threads and what they own:
  main            the tray's GUI loop (pystray/GTK); returns when the app quits
  speech-worker   the model; synthesises and feeds the player
  app-actions     runs hotkey and menu actions (selection reading can take ~100 ms and
                  must not block the hotkey listener or the GUI); fed by a bounded queue
  control-socket  answers `tray-reader ctl` requests
  settings-watch  re-reads settings.toml when it changes
  app-signals     turns SIGTERM/SIGINT into a quit (the GUI loop runs in C, so Python
                  signal handlers would wait; the wakeup fd does not)
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import importlib
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from tray_reader import config, control
from tray_reader.errors import ControlError, SelectionError, TrayReaderError, VoiceError
from tray_reader.hotkeys import HotkeyListener
from tray_reader.notify import Notifier
from tray_reader.reading_window import CaptionSource, CaptionStyle, PlayerCaption
from tray_reader.selection import SelectionReader
from tray_reader.speech.types import AudioSink
from tray_reader.speech.worker import Mode, ReadRequest, SpeechPipeline, SpeechWorker, WorkerState
from tray_reader.tray import TrayModel, TrayView

log = logging.getLogger(__name__)

ACTION_QUEUE = 16
"""Most hotkey/menu actions waiting to run; more are dropped (a key held down)."""
WATCH_INTERVAL = 1.0
"""Seconds between checks of the settings file for changes."""
SELECTION_SETTLE = 0.15
"""Seconds the selection must stay put before its first words are prepared: a drag with
the mouse changes owner once, but some programs re-assert PRIMARY as it grows."""


class AppState(enum.Enum):
    WARMING = "warming"  # the model is loading; hotkeys are answered with a notice
    IDLE = "idle"  # ready, nothing playing
    SPEAKING = "speaking"  # reading aloud
    PAUSED = "paused"  # playback paused; resume continues where it stopped
    ERROR = "error"  # the model failed to load; see `status` / doctor


class PlaybackStatus(Protocol):
    @property
    def state(self) -> enum.Enum:
        """The player's state; its value is 'idle', 'speaking', 'paused' or 'error'."""
        ...


class Playback(Protocol):
    """What the app needs from the player (tray_reader.audio.player.Player) beyond being
    the worker's AudioSink."""

    volume: float
    """0.0 to 1.0; changes ramp without a click."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def next(self) -> None: ...

    def previous(self) -> None: ...

    @property
    def status(self) -> PlaybackStatus: ...

    @property
    def stats(self) -> Any:
        """Figures with `first_sample_latency` (s, last request) and `underruns`."""
        ...

    def add_listener(self, listener: Callable[[Any], None]) -> None: ...

    def open(self) -> None: ...

    def close(self) -> None: ...


class PlayerSink(AudioSink, Playback, Protocol):
    """The player: the worker's sink plus the transport controls."""


class VoiceCatalogue(Protocol):
    def names(self) -> list[str]: ...

    def default_voice(self) -> str | None:
        """The voice chosen outside the settings file (`tray-reader voice use`), if any."""
        ...

    def pack(self, name: str) -> np.ndarray:
        """The voice pack; VoiceError names the choices when `name` is unknown."""
        ...


class LibraryVoices:
    """The real catalogue: stock + enrolled voices from tray_reader.voices."""

    def __init__(self) -> None:
        from tray_reader.voices.library import VoiceLibrary

        self._lib = VoiceLibrary()

    def names(self) -> list[str]:
        return [v.name for v in self._lib.list()]

    def pack(self, name: str) -> np.ndarray:
        return self._lib.pack(name)

    def default_voice(self) -> str | None:
        """The voice chosen with `tray-reader voice use`, if any."""
        return self._lib.default_voice()


PipelineFactory = Callable[[int | None, bool, np.ndarray, Callable[[str], None]], SpeechPipeline]
"""(threads or None for automatic, use the fast decoder if built, pack to warm with,
on_warning) -> a loaded, warmed pipeline; `on_warning` gets problems that do not stop it
(e.g. a broken user lexicon)."""


@dataclass
class Parts:
    """The OS-facing parts, real or in-memory."""

    player: PlayerSink
    selection: SelectionReader
    hotkeys: HotkeyListener
    tray: TrayView
    notifier: Notifier
    voices: VoiceCatalogue
    load_pipeline: PipelineFactory
    open_file: Callable[[Path], None] = field(default=lambda p: None)
    """Opens a file in the user's editor (Settings…)."""
    enroll: Callable[[], None] | None = None
    """Starts voice enrolment, when the voices package offers it from the tray."""
    reading_window: Callable[[CaptionSource, CaptionStyle], None] | None = None
    """Opens the reading window over a caption source (reading_window.py), where GTK is."""
    choose_document: Callable[[Callable[[Path], None]], None] | None = None
    """Asks for a document to read, then calls its argument with the file (document_chooser.py)."""
    watch_selection: Callable[[Callable[[], None]], Callable[[], None] | None] | None = None
    """Starts calling its argument whenever the selection changes; returns how to stop
    (None: cannot watch here). See selection_watch."""


@dataclass
class Timings:
    """Monotonic timestamps of the last hotkey read, for latency figures."""

    pressed: float | None = None
    """The hotkey callback ran."""
    selection_read: float | None = None
    """The selected text was in hand."""
    submitted: float | None = None
    """The request reached the worker."""


class App:
    def __init__(self, parts: Parts, settings_file: Path, control_path: Path | None = None) -> None:
        self.parts = parts
        self.settings_file = settings_file
        self.control_path = control_path
        loaded = config.load(settings_file)
        self.settings = loaded.settings
        self.problems: list[str] = list(loaded.problems)
        self.hotkey_bindings: dict[str, str] = dict(loaded.hotkeys)
        self._mtime = self._settings_mtime()
        self._lock = threading.RLock()
        voice = self.settings.voice
        if "voice" not in loaded.given:
            # No voice in settings.toml: the one picked with `tray-reader voice use`, if any.
            voice = parts.voices.default_voice() or voice
        self._voice_name = voice
        self._pack = self._load_pack_or_default(voice)
        self._speed = self.settings.speed
        self._voice_names = self._list_voices()
        self.timings = Timings()
        self._pressed: float | None = None  # when the hotkey/menu item behind the next read fired
        self.last_text = ""
        self._pause_wanted = False
        self._actions: queue.Queue[tuple[str, str, float] | None] = queue.Queue(ACTION_QUEUE)
        self._quit = threading.Event()
        self._threads: list[threading.Thread] = []
        self.worker = SpeechWorker(
            self._make_pipeline,
            parts.player,
            self._current_voice,
            self._on_worker_state,
            self._on_worker_error,
        )
        self._server: control.ControlServer | None = None
        self._wakeup: tuple[socket.socket, socket.socket] | None = None
        self._selection_changed = threading.Event()
        self._stop_watching: Callable[[], None] | None = None
        self._prepare_when_idle = False

    # -- voice and speed (read by the worker before every chunk) ----------------------------
    def _current_voice(self) -> tuple[np.ndarray, float]:
        return self._pack, self._speed

    def _list_voices(self) -> tuple[str, ...]:
        return tuple(self.parts.voices.names())

    def _load_pack_or_default(self, name: str) -> np.ndarray:
        try:
            return self.parts.voices.pack(name)
        except VoiceError as e:
            default = config.Settings().voice
            self.problems.append(f"{self.settings_file}: voice = {name!r}: {e}. Using {default!r}.")
            self._voice_name = default
            return self.parts.voices.pack(default)

    def _make_pipeline(self) -> SpeechPipeline:
        return self.parts.load_pipeline(
            self.settings.threads or None, self.settings.fast_model, self._pack, self._on_pipeline_warning
        )

    def _on_pipeline_warning(self, message: str) -> None:
        self.problems.append(message)
        print(f"tray-reader: {message}", file=sys.stderr)
        self._notify("tray-reader", message)

    # -- state ------------------------------------------------------------------------------
    @property
    def state(self) -> AppState:
        w = self.worker.state
        if w is WorkerState.ERROR:
            return AppState.ERROR
        if w is WorkerState.WARMING:
            return AppState.WARMING
        player = self.parts.player.status.state.value
        if player == "paused" or (self._pause_wanted and w is WorkerState.SPEAKING):
            return AppState.PAUSED
        if w is WorkerState.SPEAKING or player == "speaking":
            return AppState.SPEAKING
        return AppState.IDLE

    def tray_model(self) -> TrayModel:
        state = self.state
        tip = f"tray-reader: {state.value} · {self._voice_name} · {self._speed:g}×"
        if self.worker.error:
            tip += f" · {self.worker.error}"
        return TrayModel(
            state=state.value,
            voice=self._voice_name,
            speed=self._speed,
            voices=self._voice_names,
            can_enroll=self.parts.enroll is not None,
            can_show_reading=self.parts.reading_window is not None,
            tooltip=tip,
        )

    def status(self) -> dict:
        t = self.timings
        stats = self.parts.player.stats
        return {
            "state": self.state.value,
            "ready": self.worker.ready.is_set(),
            "voice": self._voice_name,
            "speed": self._speed,
            "volume": self.settings.volume,
            "queue": self.worker.pending(),
            "error": self.worker.error,
            "pid": os.getpid(),
            "ready_seconds": self.worker.ready_seconds,
            "hotkeys": self.hotkey_bindings,
            "problems": self.problems,
            "last_text": self.last_text[:200],
            "prepare_selection": self.settings.prepare_selection,
            "prepared_chars": len(self.worker.prepared_text or ""),
            "preparing_chars": len(self.worker.preparing_text or ""),
            "last": {
                "pressed": t.pressed,
                "selection_read": t.selection_read,
                "submitted": t.submitted,
                "first_chunk": self.worker.first_chunk_at,
                "first_sample_latency": stats.first_sample_latency,
                "first_sample": getattr(stats, "first_sample_at", None),
                "underruns": stats.underruns,
                "prepared": self.worker.last_served_prepared,
            },
        }

    def _on_worker_state(self, state: WorkerState) -> None:
        if state is WorkerState.IDLE and self._prepare_when_idle:
            # The selection changed while reading: prepare it now that the worker is free.
            self._prepare_when_idle = False
            self._selection_changed.set()
        if state is WorkerState.IDLE and self.parts.player.status.state.value == "idle":
            self._pause_wanted = False  # nothing was left to pause
        self.parts.tray.refresh()

    def _on_worker_error(self, message: str) -> None:
        log.error("%s", message)
        self._notify("tray-reader could not read that", message)

    def _notify(self, summary: str, body: str = "") -> None:
        if self.settings.notifications:
            self.parts.notifier.notify(summary, body)

    # -- commands (control socket, hotkeys and menu all end here) -----------------------------
    def dispatch(self, cmd: str, args: list[str]) -> dict:
        """Run one command; returns reply fields, raises a TrayReaderError for the user."""
        with self._lock:
            reply = self._dispatch(cmd, args)
        self.parts.tray.refresh()
        return reply

    def _dispatch(self, cmd: str, args: list[str]) -> dict:
        if cmd in ("read", "queue"):
            return self._read(Mode.NOW if cmd == "read" else Mode.QUEUE, args[0] if args else None)
        if cmd == "document":
            from tray_reader.documents import load_document, text_from

            return self._read(
                Mode.NOW, text_from(load_document(Path(args[0])), args[1] if len(args) > 1 else None)
            )
        if cmd == "pause":
            self._pause(True)
        elif cmd == "resume":
            self._pause(False)
        elif cmd == "toggle":
            self._pause(self.state is not AppState.PAUSED)
        elif cmd == "stop":
            self._pause_wanted = False
            self.worker.stop()
        elif cmd == "next":
            self.parts.player.next()
        elif cmd == "prev":
            self.parts.player.previous()
        elif cmd == "voice":
            self.set_voice(args[0])
        elif cmd == "speed":
            self.set_speed(args[0])
        elif cmd == "quit":
            self.quit()
        elif cmd != "status":
            raise ControlError(f"unknown command {cmd!r}")
        return self.status()

    def _read(self, mode: Mode, text: str | None) -> dict:
        pressed, self._pressed = self._pressed, None
        if not self.worker.ready.is_set():
            raise TrayReaderError(
                "The voice model is still loading; try again in a moment."
                if self.worker.error is None
                else f"The voice model failed to load: {self.worker.error} (run `tray-reader doctor`)."
            )
        self.timings = Timings(pressed=pressed)
        if text is None:
            text = self.parts.selection.read()
            self.timings.selection_read = time.monotonic()
        if not text.strip():
            raise TrayReaderError("There is no text to read.")
        self.last_text = text
        if mode is Mode.NOW:
            self._pause_wanted = False
        if not self.worker.submit(ReadRequest(text, mode)):
            raise TrayReaderError("The reading queue is full; stop or wait, then try again.")
        self.timings.submitted = time.monotonic()
        return self.status()

    def _pause(self, paused: bool) -> None:
        # The player pauses only what it is playing; a pause asked for while the first
        # audio is still being made is kept and applied as soon as playback starts.
        self._pause_wanted = paused
        if paused:
            self.parts.player.pause()
        else:
            self.parts.player.resume()

    def _on_player(self, status: Any) -> None:
        if self._pause_wanted and status.state.value == "speaking":
            self.parts.player.pause()
        self.parts.tray.refresh()

    def set_voice(self, name: str, persist: bool = True) -> None:
        pack = self.parts.voices.pack(name)  # VoiceError lists the voices
        self._pack, self._voice_name = pack, name
        if name not in self._voice_names:
            self._voice_names = self._list_voices()
        if persist:
            self._persist(voice=name)

    def set_speed(self, value: str | float, persist: bool = True) -> None:
        try:
            speed = float(value)
        except ValueError:
            speed = float("nan")
        lo, hi = config.SPEED_RANGE
        if not lo <= speed <= hi:
            raise ControlError(f"speed must be a number from {lo} to {hi}, got {value!r}")
        self._speed = speed
        if persist:
            self._persist(speed=speed)

    def _persist(self, **values: Any) -> None:
        try:
            config.save_values(self.settings_file, **values)
        except OSError as e:
            raise ControlError(f"Changed, but could not save it to {self.settings_file}: {e}") from e
        self.settings = dataclasses.replace(self.settings, **values)
        self._mtime = self._settings_mtime()

    # -- hotkeys and menu -------------------------------------------------------------------
    def _on_hotkey(self, action: str, when: float) -> None:
        self._queue_action(action, "", when)

    def _on_menu(self, action: str, argument: str) -> None:
        self._queue_action(action, argument, time.monotonic())

    def _queue_action(self, action: str, argument: str, when: float) -> None:
        with contextlib.suppress(queue.Full):
            self._actions.put_nowait((action, argument, when))

    def _run_actions(self) -> None:
        while True:
            item = self._actions.get()
            if item is None:
                return
            action, argument, when = item
            try:
                self._run_action(action, argument, when)
            except SelectionError as e:
                self._notify("Nothing to read", str(e))
            except TrayReaderError as e:
                self._notify("tray-reader", str(e))

    def _run_action(self, action: str, argument: str, when: float) -> None:
        if action in ("read", "queue"):
            self._pressed = when
            self.dispatch(action, [])
        elif action == "pause":
            self.dispatch("toggle", [])
        elif action == "settings":
            self._open_settings()
        elif action == "enroll" and self.parts.enroll is not None:
            self.parts.enroll()
        elif action == "reading_window" and self.parts.reading_window is not None:
            s = self.settings
            style = CaptionStyle(s.reading_font_size, s.reading_high_contrast, s.reading_on_top)
            self.parts.reading_window(PlayerCaption(self.parts.player, lambda: self.last_text), style)
        elif action == "open_document" and self.parts.choose_document is not None:
            self.parts.choose_document(
                lambda path: self._queue_action("document", str(path), time.monotonic())
            )
        else:
            self.dispatch(action, [argument] if argument else [])

    # -- preparing the selection ----------------------------------------------------------------
    def _on_selection_changed(self) -> None:
        self._selection_changed.set()

    def _prepare_selections(self) -> None:
        """Once the selection has settled, have the idle worker synthesise its first words
        (PRIMARY only: a passive read that never touches the clipboard or sends keys)."""
        while not self._quit.is_set():
            if not self._selection_changed.wait(0.5):
                continue
            while self._selection_changed.is_set() and not self._quit.is_set():
                self._selection_changed.clear()
                time.sleep(SELECTION_SETTLE)
            if not self.settings.prepare_selection or not self.worker.ready.is_set():
                continue
            text = self.parts.selection.primary()
            if text.strip() and not self.worker.prepare(text):
                self._prepare_when_idle = True  # busy reading: once it is done

    def _open_settings(self) -> None:
        config.load(self.settings_file)  # writes the commented defaults if it is missing
        self.parts.open_file(self.settings_file)

    # -- settings file ------------------------------------------------------------------------
    def _settings_mtime(self) -> float:
        try:
            return self.settings_file.stat().st_mtime
        except OSError:
            return 0.0

    def _watch_settings(self) -> None:
        while not self._quit.wait(WATCH_INTERVAL):
            mtime = self._settings_mtime()
            if mtime != self._mtime:
                self._mtime = mtime
                self.reload_settings()

    def reload_settings(self) -> None:
        """Apply a changed settings file (voice, speed, volume, hotkeys, flags) while running."""
        loaded = config.load(self.settings_file, create=False)
        with self._lock:
            old = self.settings
            self.settings = loaded.settings
            self.problems = list(loaded.problems)
            try:
                if loaded.settings.voice != self._voice_name:
                    self.set_voice(loaded.settings.voice, persist=False)
            except VoiceError as e:
                self.problems.append(f"{self.settings_file}: voice: {e}")
            self._voice_names = self._list_voices()
            self._speed = loaded.settings.speed
            if loaded.settings.volume != old.volume:
                self.parts.player.volume = loaded.settings.volume
            if loaded.hotkeys != self.hotkey_bindings:
                self.hotkey_bindings = dict(loaded.hotkeys)
                self._start_hotkeys()
        for p in self.problems:
            print(f"tray-reader: {p}", file=sys.stderr)
        if loaded.problems:
            self._notify("tray-reader settings", "\n".join(loaded.problems))
        self.parts.tray.refresh()

    def _start_hotkeys(self) -> None:
        try:
            self.parts.hotkeys.start(self.hotkey_bindings, self._on_hotkey)
        except TrayReaderError as e:
            self.problems.append(str(e))
            print(f"tray-reader: {e}", file=sys.stderr)

    # -- life cycle ---------------------------------------------------------------------------
    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def start(self) -> None:
        """Start everything except the tray loop (tests call this, then stop())."""
        for p in self.problems:
            print(f"tray-reader: {p}", file=sys.stderr)
        if self.problems:
            self._notify("tray-reader settings", "\n".join(self.problems))
        self.parts.player.volume = self.settings.volume
        self.parts.player.add_listener(self._on_player)
        self.worker.start()
        try:
            self.parts.player.open()
        except TrayReaderError as e:
            self.problems.append(str(e))
            print(f"tray-reader: {e}", file=sys.stderr)
        if self.control_path is not None:
            self._server = control.ControlServer(self.control_path, self.dispatch)
            self._server.start()
        self._spawn(self._run_actions, "app-actions")
        self._spawn(self._watch_settings, "settings-watch")
        self._start_hotkeys()
        if self.parts.watch_selection is not None:
            self._stop_watching = self.parts.watch_selection(self._on_selection_changed)
            if self._stop_watching is not None:
                self._spawn(self._prepare_selections, "selection-prepare")

    def run(self) -> int:
        """Start, show the tray (blocks), then shut down. Returns the exit status."""
        self._install_signal_wakeup()
        self.start()
        self._spawn(self._refresh_when_ready, "app-ready")
        try:
            self.parts.tray.run(self.tray_model, self._on_menu, lambda: None)
        finally:
            self.shutdown()
        return 0

    def _refresh_when_ready(self) -> None:
        while not self._quit.is_set():
            if self.worker.ready.wait(0.2) or self.worker.error:
                self.parts.tray.refresh()
                return

    def quit(self) -> None:
        """Ask the app to end (any thread): the tray loop returns and run() shuts down."""
        self._quit.set()
        self.parts.tray.stop()

    def shutdown(self) -> None:
        self._quit.set()
        with contextlib.suppress(Exception):
            self.parts.hotkeys.stop()
        if self._stop_watching is not None:
            with contextlib.suppress(Exception):
                self._stop_watching()
        if self._server is not None:
            self._server.stop()
        with contextlib.suppress(queue.Full):
            self._actions.put_nowait(None)
        # The worker is a daemon thread: if it is inside a model run (or still loading),
        # waiting longer would only delay the exit; the player drops what it still gets.
        self.worker.shutdown(timeout=0.2)
        self.parts.player.close()
        if self._wakeup is not None:
            if threading.current_thread() is threading.main_thread():
                signal.set_wakeup_fd(-1)
            for s in reversed(self._wakeup):
                s.close()  # the write end first: EOF ends the app-signals thread
        deadline = time.monotonic() + 0.3
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(max(0.0, deadline - time.monotonic()))

    def _install_signal_wakeup(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        rsock, wsock = socket.socketpair()
        wsock.setblocking(False)
        for sig in (signal.SIGTERM, signal.SIGINT):
            # PyGObject's main loop replaces the wakeup fd with its own and then runs this
            # handler on the main thread; other loops leave the fd, and the thread below acts.
            signal.signal(sig, lambda *_: self.quit())
        signal.set_wakeup_fd(wsock.fileno())
        self._wakeup = (rsock, wsock)

        def wait_for_signal() -> None:
            with contextlib.suppress(OSError):
                if rsock.recv(1):
                    self.quit()

        self._spawn(wait_for_signal, "app-signals")


# -- the real parts ----------------------------------------------------------------------------
def _real_player(settings: config.Settings) -> PlayerSink:
    from tray_reader.audio.player import Player, PlayerConfig

    return Player(config=PlayerConfig(device=settings.device or None))


def _enroll_hook() -> Callable[[], None] | None:
    """The voices package's tray entry point for enrolment (`enroll_from_tray()`, taking
    no arguments), if it has one; without it the menu has no "Enroll voice…"."""
    for name in ("tray_reader.voices.commands", "tray_reader.voices.enroll"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        hook = getattr(module, "enroll_from_tray", None)
        if callable(hook):
            return hook
    return None


def _xdg_open(path: Path) -> None:
    opener = (
        "xdg-open" if sys.platform.startswith("linux") else ("open" if sys.platform == "darwin" else None)
    )
    if opener is None:
        os.startfile(path)  # type: ignore[attr-defined]
        return
    subprocess.Popen(
        [opener, str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def real_parts(settings: config.Settings, copy_and_restore: Callable[[], bool]) -> Parts:
    from tray_reader.document_chooser import choose_document
    from tray_reader.hotkeys import PynputHotkeys
    from tray_reader.notify import DBusNotifier
    from tray_reader.reading_window import open_reading_window
    from tray_reader.selection import (
        Clipboard,
        DesktopSelection,
        UnavailableClipboard,
        desktop_clipboard,
        session_type,
    )
    from tray_reader.selection_watch import watch_primary
    from tray_reader.speech.synthesis import load_synthesizer
    from tray_reader.tray import PystrayTray, gtk_available

    try:
        clipboard: Clipboard = desktop_clipboard()
    except SelectionError as e:
        print(f"tray-reader: {e}", file=sys.stderr)
        clipboard = UnavailableClipboard(str(e))
    return Parts(
        player=_real_player(settings),
        selection=DesktopSelection(clipboard, copy_and_restore, has_primary=session_type() != "none"),
        hotkeys=PynputHotkeys() if session_type() == "x11" or sys.platform != "linux" else _NoHotkeys(),
        tray=PystrayTray(),
        notifier=DBusNotifier(),
        voices=LibraryVoices(),
        load_pipeline=load_synthesizer,
        open_file=_xdg_open,
        enroll=_enroll_hook(),
        reading_window=open_reading_window if gtk_available() else None,
        choose_document=choose_document if gtk_available() else None,
        watch_selection=watch_primary if session_type() == "x11" else None,
    )


class _NoHotkeys:
    """Wayland: no global key grabs for apps; bind desktop shortcuts to `tray-reader ctl read`."""

    def start(self, bindings: Any, on_hotkey: Any) -> None:
        if bindings:
            raise TrayReaderError(
                "Global hotkeys are not available on Wayland: bind desktop shortcuts to `tray-reader ctl read` (and queue, toggle, stop)."
            )

    def stop(self) -> None:
        pass


def run_daemon(settings_file: Path | None = None) -> int:
    """`tray-reader` / `tray-reader run`: start the daemon, or, if one runs, say so and exit."""
    settings_file = settings_file or config.settings_path()
    runtime = control.runtime_dir()
    lock = control.InstanceLock(runtime / "daemon.lock")
    sock = runtime / "control.sock"
    if not lock.acquire():
        reply = forward(sock, "status", [])
        print(f"tray-reader is already running (pid {reply.get('pid')}, {reply.get('state')}).")
        return 0
    from tray_reader.selection import session_type

    if sys.platform.startswith("linux") and session_type() == "none":
        lock.release()
        raise TrayReaderError(
            "No desktop session (DISPLAY and WAYLAND_DISPLAY are unset): the tray needs one. "
            "Start tray-reader from your desktop, or use `tray-reader say` in a terminal."
        )
    try:
        holder: dict[str, App] = {}
        loaded = config.load(settings_file)
        parts = real_parts(loaded.settings, lambda: holder["app"].settings.copy_and_restore)
        app = holder["app"] = App(parts, settings_file, sock)
        code = app.run()
    finally:
        lock.release()
    # Everything is stopped; skip the interpreter's teardown of the loaded native libraries
    # (onnxruntime, spaCy, GTK), which takes over a second and would only delay the exit.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def forward(sock: Path, cmd: str, args: list[str], wait: float = 5.0) -> dict:
    """Send a command to the running daemon, waiting up to `wait` s for it to listen."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return control.send(sock, cmd, args)
        except ControlError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
