"""The daemon's app: wires the speech worker, player, selection, hotkeys, tray and control socket.

Threads and what they own:
  main               the tray's GUI loop (pystray/GTK); returns when the app quits
  speech-worker      the model; synthesises and feeds the player
  app-actions        runs hotkey and menu actions (selection reading can take ~100 ms and
                     must not block the hotkey listener or the GUI); fed by a bounded queue
  control-socket     answers `tray-reader ctl` requests
  settings-watch     re-reads settings.toml when it changes
  selection-prepare  prepares a settled selection's first words (preparation.py)
  app-document       reads in a document chosen in the tray (its first part can take
                     seconds: the actions after it do not wait)
  app-signals        turns SIGTERM/SIGINT into a quit (the GUI loop runs in C, so Python
                     signal handlers would wait; the wakeup fd does not)

The real parts and the process around the app are in daemon.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import queue
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tray_reader import config, control, model_files
from tray_reader.audio.player import PlayerState
from tray_reader.commands import COMMANDS
from tray_reader.errors import ControlError, SelectionError, TrayReaderError, VoiceError
from tray_reader.hotkeys import HotkeyListener
from tray_reader.notify import Notifier
from tray_reader.preparation import SelectionPreparer, warmed_read
from tray_reader.reading_window import CaptionSource, CaptionStyle, PlayerCaption
from tray_reader.selection import SelectionReader
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import AudioSink, Prosody
from tray_reader.speech.worker import Mode, ReadRequest, SpeechPipeline, SpeechWorker, WorkerState
from tray_reader.states import AppState
from tray_reader.tray import TrayModel, TrayView

if TYPE_CHECKING:
    from tray_reader.documents import PartsAhead

log = logging.getLogger(__name__)

ACTION_QUEUE = 16
"""Most hotkey/menu actions waiting to run; more are dropped (a key held down)."""
WATCH_INTERVAL = 1.0
"""Seconds between checks of the settings file for changes."""
MENU_ONLY_ACTIONS = ("settings", "enroll")
"""Tray menu entries that are not daemon commands."""

__all__ = ["App", "AppState", "Parts", "Timings"]


class PlaybackStatus(Protocol):
    @property
    def state(self) -> PlayerState:
        """The player's state."""
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

    def prosody(self, name: str) -> Prosody:
        """The pitch level and range the voice reads with (an enrolled speaker's own)."""
        ...

    def speed(self, name: str) -> float:
        """The voice's own speaking rate (an enrolled speaker's; 1 for stock voices)."""
        ...

    def envelope(self, name: str) -> EnvelopeMap | None:
        """The envelope map the voice's audio goes through (an enrolled voice's; else None)."""
        ...


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
    notes: list[str] = field(default_factory=list)
    """What this desktop lacks and what to do about it (no tray host, no shortcuts portal…)."""


@dataclass
class DocumentReading:
    """The document being read in and read (one at a time)."""

    path: str
    stop: threading.Event = field(default_factory=threading.Event)
    """Set once it is no longer wanted (a stop, another read now, the read's end): none of
    its parts is made or read after."""
    rest: PartsAhead | None = None
    """Its later parts, from when its first is read in and given to the worker."""


@dataclass
class Timings:
    """Monotonic timestamps of the last hotkey read, for latency figures."""

    pressed: float | None = None
    """The hotkey callback ran."""
    selection_read: float | None = None
    """The selected text was in hand."""
    submitted: float | None = None
    """The request reached the worker."""


class VoiceChoice:
    """The voice and speed the worker reads with (read before every chunk: the chosen speed
    times the voice's own rate), and the voice's pitch level and range (set on the engine
    whenever the voice changes)."""

    def __init__(
        self, voices: VoiceCatalogue, name: str, speed: float, problems: list[str], source: Path
    ) -> None:
        self._voices = voices
        self.speed = speed
        self.names = tuple(voices.names())
        try:
            self.pack = voices.pack(name)
        except VoiceError as e:
            default = config.Settings().voice
            problems.append(f"{source}: voice = {name!r}: {e}. Using {default!r}.")
            name, self.pack = default, voices.pack(default)
        self.name = name
        self.prosody, self.own_speed = voices.prosody(name), voices.speed(name)
        self.envelope = voices.envelope(name)

    def current(self) -> tuple[np.ndarray, float]:
        return self.pack, self.speed * self.own_speed

    def use(self, name: str) -> None:
        pack = self._voices.pack(name)  # VoiceError lists the voices
        self.pack, self.name = pack, name
        self.prosody, self.own_speed = self._voices.prosody(name), self._voices.speed(name)
        self.envelope = self._voices.envelope(name)
        if name not in self.names:
            self.refresh_names()

    def refresh_names(self) -> None:
        self.names = tuple(self._voices.names())


@functools.cache
def _stock_ids() -> tuple[str, ...]:
    """The stock voices' ids (the tray groups them apart from the user's own)."""
    return tuple(v.name for v in model_files.stock_voices())


def parse_speed(value: str | float) -> float:
    try:
        speed = float(value)
    except ValueError:
        speed = float("nan")
    lo, hi = config.SPEED_RANGE
    if not lo <= speed <= hi:
        raise ControlError(f"speed must be a number from {lo} to {hi}, got {value!r}")
    return speed


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
        self.voice = VoiceChoice(parts.voices, voice, self.settings.speed, self.problems, settings_file)
        self._engine: object | None = None
        """The loaded pipeline's engine, whose pitch the voice sets (None until loaded)."""
        self.timings = Timings()
        self.last_text = ""
        self._document: DocumentReading | None = None
        self._pause_wanted = False
        self._actions: queue.Queue[tuple[str, str, float] | None] = queue.Queue(ACTION_QUEUE)
        self._quit = threading.Event()
        self._threads: list[threading.Thread] = []
        self.worker = SpeechWorker(
            self._make_pipeline,
            parts.player,
            self.voice.current,
            self._on_worker_state,
            self._on_worker_error,
        )
        self._preparer = SelectionPreparer(
            self.worker, parts.selection.primary, lambda: self.settings.prepare_selection, self._quit
        )
        self._server: control.ControlServer | None = None
        self._wakeup: tuple[socket.socket, socket.socket] | None = None
        self._stop_watching: Callable[[], None] | None = None
        self.on_ending: Callable[[], None] = lambda: None
        """Called as soon as the app starts to end (the daemon bounds how long that takes)."""

    def _make_pipeline(self) -> SpeechPipeline:
        pipeline = self.parts.load_pipeline(
            self.settings.threads or None,
            self.settings.fast_model,
            self.voice.pack,
            self._on_pipeline_warning,
        )
        self._engine = getattr(pipeline, "engine", None)
        self._apply_prosody()
        return pipeline

    def _apply_prosody(self) -> None:
        """The current voice's pitch level and range, and its envelope map, on the engine
        (from its next chunk)."""
        use = getattr(self._engine, "use_prosody", None)
        if use is not None:
            use(self.voice.prosody)
        use_envelope = getattr(self._engine, "use_envelope", None)
        if use_envelope is not None:
            use_envelope(self.voice.envelope)

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
        player = self.parts.player.status.state
        if player is PlayerState.PAUSED or (self._pause_wanted and w is WorkerState.SPEAKING):
            return AppState.PAUSED
        if w is WorkerState.SPEAKING or player is PlayerState.SPEAKING:
            return AppState.SPEAKING
        return AppState.IDLE

    def tray_model(self) -> TrayModel:
        state = self.state
        tip = f"tray-reader: {state.value} · {self.voice.name} · {self.voice.speed:g}×"
        if self.worker.error:
            tip += f" · {self.worker.error}"
        return TrayModel(
            state=state,
            voice=self.voice.name,
            speed=self.voice.speed,
            voices=self.voice.names,
            stock_voices=_stock_ids(),
            can_enroll=self.parts.enroll is not None,
            can_show_reading=self.parts.reading_window is not None,
            tooltip=tip,
        )

    def status(self) -> dict[str, Any]:
        t = self.timings
        stats = self.parts.player.stats
        return {
            "state": self.state.value,
            "ready": self.worker.ready.is_set(),
            "voice": self.voice.name,
            "speed": self.voice.speed,
            "volume": self.settings.volume,
            "queue": self.worker.pending(),
            "error": self.worker.error,
            "pid": os.getpid(),
            "ready_seconds": self.worker.ready_seconds,
            "hotkeys": self.hotkey_bindings,
            "problems": self.problems,
            "desktop": self.parts.notes,
            "last_text": self.last_text[:200],
            "document": self._document_status(),
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

    def _document_status(self) -> dict[str, Any] | None:
        """The document being read: its path, and whether parts of it are still being read
        in (its first: nothing of it is read yet; its rest: it is being read)."""
        document = self._document
        if document is None or document.stop.is_set():
            return None
        return {"path": document.path, "loading": document.rest is None or document.rest.loading}

    def _on_worker_state(self, state: WorkerState) -> None:
        if state is WorkerState.IDLE:
            self._preparer.worker_idle()
            if self.parts.player.status.state is PlayerState.IDLE:
                self._pause_wanted = False  # nothing was left to pause
        self.parts.tray.refresh()

    def _on_worker_error(self, message: str) -> None:
        log.error("%s", message)
        self._notify("tray-reader could not read that", message)

    def _notify(self, summary: str, body: str = "") -> None:
        if self.settings.notifications:
            self.parts.notifier.notify(summary, body)

    # -- commands (control socket, hotkeys and menu all end here; see commands.py) ----------
    def dispatch(self, cmd: str, args: list[str]) -> dict[str, Any]:
        """Run one command of the table; returns the status, raises a TrayReaderError for the user."""
        if cmd not in COMMANDS:
            raise ControlError(f"unknown command {cmd!r}")
        command = COMMANDS[cmd]
        if not command.locked:
            command.run(self, args)  # takes the lock itself to act
        with self._lock:
            if command.locked:
                command.run(self, args)
            reply = self.status()
        self.parts.tray.refresh()
        return reply

    def read(self, text: str | None, pressed: float | None = None) -> None:
        self._submit(Mode.NOW, text, pressed)

    def read_document(self, path: str, start: str | None = None) -> None:
        """Read the document at ``path`` (from ``start``: see documents.chapters_from) now.

        Called without the command lock (commands.py): its first part is read in on this
        thread while other commands are served, then read; its rest is read in meanwhile
        and read on as one text (`ReadRequest.rest`). A stop or another read now that comes
        while the first part is read in wins: the document is not read."""
        from tray_reader.documents import document_reading

        with self._lock:
            self._check_ready()  # before the file is read
            self._end_document()
            document = self._document = DocumentReading(path)
        try:
            made = document_reading(Path(path), start, document.stop)
        except BaseException:
            with self._lock:
                if self._document is document:
                    self._document = None
            raise
        with self._lock:
            if made is None or self._document is not document:
                if made is not None:
                    made[1].close()
                log.info("%s: not read, a stop or another read came while it was read in", path)
                return
            first, document.rest = made
            try:
                self._submit(Mode.NOW, first, None, document)
            except BaseException:
                self._end_document()
                raise

    def queue(self, text: str | None, pressed: float | None = None) -> None:
        self._submit(Mode.QUEUE, text, pressed)

    def _check_ready(self) -> None:
        if not self.worker.ready.is_set():
            raise TrayReaderError(
                "The voice model is still loading; try again in a moment."
                if self.worker.error is None
                else f"The voice model failed to load: {self.worker.error} (run `tray-reader doctor`)."
            )

    def _end_document(self, keep: DocumentReading | None = None) -> None:
        """The document being read in or read (but ``keep``) is no longer wanted: none of
        its parts is made or read after this."""
        document = self._document
        if document is not None and document is not keep:
            document.stop.set()
            self._document = keep

    def _submit(
        self, mode: Mode, text: str | None, pressed: float | None, document: DocumentReading | None = None
    ) -> None:
        """Give the worker a read (of ``document``'s first part, and its rest)."""
        self._check_ready()
        self.timings = Timings(pressed=pressed)
        if text is None:
            text = self.parts.selection.read()
            self.timings.selection_read = time.monotonic()
        if not text.strip():
            raise TrayReaderError("There is no text to read.")
        self.last_text = text
        if mode is Mode.NOW:
            self._pause_wanted = False
            self._end_document(keep=document)
        rest = document.rest if document is not None else None
        if not self.worker.submit(ReadRequest(text, mode, rest=rest)):
            raise TrayReaderError("The reading queue is full; stop or wait, then try again.")
        self.timings.submitted = time.monotonic()

    def pause(self) -> None:
        # The player pauses only what it is playing; a pause asked for while the first
        # audio is still being made is kept and applied as soon as playback starts.
        self._pause_wanted = True
        self.parts.player.pause()

    def resume(self) -> None:
        self._pause_wanted = False
        self.parts.player.resume()

    def toggle(self) -> None:
        if self.state is AppState.PAUSED:
            self.resume()
        else:
            self.pause()

    def stop(self) -> None:
        self._pause_wanted = False
        self._end_document()
        self.worker.stop()

    def next(self) -> None:
        self.parts.player.next()

    def previous(self) -> None:
        self.parts.player.previous()

    def set_voice(self, name: str, persist: bool = True) -> None:
        self.voice.use(name)
        self._apply_prosody()
        if persist:
            self._persist(voice=name)

    def set_speed(self, value: str | float, persist: bool = True) -> None:
        self.voice.speed = parse_speed(value)
        if persist:
            self._persist(speed=self.voice.speed)

    def _on_player(self, status: Any) -> None:
        if self._pause_wanted and status.state is PlayerState.SPEAKING:
            self.parts.player.pause()
        self.parts.tray.refresh()

    # -- hotkeys and menu -------------------------------------------------------------------
    def _on_hotkey(self, action: str, when: float) -> None:
        self._queue_action(action, "", when)

    def _on_menu(self, action: str, argument: str) -> None:
        self._queue_action(action, argument, time.monotonic())

    def act(self, action: str, argument: str = "") -> None:
        """Run an action like a menu click (any thread, never blocks): media keys, shortcuts."""
        self._on_menu(action, argument)

    def _queue_action(self, action: str, argument: str, when: float) -> None:
        with contextlib.suppress(queue.Full):
            self._actions.put_nowait((action, argument, when))

    def _run_actions(self) -> None:
        while True:
            item = self._actions.get()
            if item is None:
                return
            self._reporting(self._run_action, *item)

    def _reporting(self, run: Callable[..., object], *args: Any) -> None:
        """Run an action no one waits on: what it refuses is said in a notification."""
        try:
            run(*args)
        except SelectionError as e:
            self._notify("Nothing to read", str(e))
        except TrayReaderError as e:
            self._notify("tray-reader", str(e))

    def _run_action(self, action: str, argument: str, when: float) -> None:
        if action in ("read", "queue"):
            text = warmed_read(self.worker, self.parts.selection, self._quit, self._notify)
            with self._lock:
                (self.read if action == "read" else self.queue)(text, pressed=when)
            self.parts.tray.refresh()
        elif action == "pause":  # the hotkey's name for it
            self.dispatch("toggle", [])
        elif action == "settings":
            config.load(self.settings_file)  # writes the commented defaults if it is missing
            self.parts.open_file(self.settings_file)
        elif action == "enroll":
            if self.parts.enroll is not None:
                self.parts.enroll()
        elif action == "reading_window" and self.parts.reading_window is not None:
            s = self.settings
            style = CaptionStyle(s.reading_font_size, s.reading_high_contrast, s.reading_on_top)
            self.parts.reading_window(PlayerCaption(self.parts.player, lambda: self.last_text), style)
        elif action == "document":
            # Read in on a thread of its own: a key pressed while a long document's first
            # part is read in is not kept waiting for it.
            threading.Thread(
                target=self._reporting,
                args=(self.dispatch, action, [argument]),
                name="app-document",
                daemon=True,
            ).start()
        elif action == "open_document" and self.parts.choose_document is not None:
            self.parts.choose_document(
                lambda path: self._queue_action("document", str(path), time.monotonic())
            )
        else:
            self.dispatch(action, [argument] if argument else [])

    # -- settings file ------------------------------------------------------------------------
    def _persist(self, **values: Any) -> None:
        try:
            config.save_values(self.settings_file, **values)
        except OSError as e:
            raise ControlError(f"Changed, but could not save it to {self.settings_file}: {e}") from e
        self.settings = dataclasses.replace(self.settings, **values)
        self._mtime = self._settings_mtime()

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
                if loaded.settings.voice != self.voice.name:
                    self.set_voice(loaded.settings.voice, persist=False)
            except VoiceError as e:
                self.problems.append(f"{self.settings_file}: voice: {e}")
            self.voice.refresh_names()
            self.voice.speed = loaded.settings.speed
            if loaded.settings.volume != old.volume:
                self.parts.player.volume = loaded.settings.volume
            if loaded.hotkeys != self.hotkey_bindings:
                self.hotkey_bindings = dict(loaded.hotkeys)
                self._start_hotkeys()
        self._report_problems(loaded.problems)
        self.parts.tray.refresh()

    def _report_problems(self, new: list[str] | tuple[str, ...]) -> None:
        for p in self.problems:
            print(f"tray-reader: {p}", file=sys.stderr)
        if new:
            self._notify("tray-reader settings", "\n".join(new))

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
        self._report_problems(self.problems)
        self.parts.player.volume = self.settings.volume
        self.parts.player.add_listener(self._on_player)
        self.worker.start()
        self._spawn(self._open_player, "app-audio")  # the tray shows meanwhile
        self._spawn(self._run_actions, "app-actions")
        self._start_hotkeys()  # before the socket answers: a `ctl status` reply means keys work
        if self.control_path is not None:
            self._server = control.ControlServer(self.control_path, self.dispatch)
            self._server.start()
        self._spawn(self._watch_settings, "settings-watch")
        if self.parts.watch_selection is not None:
            self._stop_watching = self.parts.watch_selection(self._preparer.changed)
            if self._stop_watching is not None:
                self._spawn(self._preparer.run, "selection-prepare")

    def _open_player(self) -> None:
        try:
            self.parts.player.open()
        except TrayReaderError as e:
            self.problems.append(str(e))
            print(f"tray-reader: {e}", file=sys.stderr)

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
        self.on_ending()
        self._quit.set()
        self.parts.tray.stop()

    def shutdown(self) -> None:
        self.on_ending()
        self._quit.set()
        self._end_document()
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
