"""The tray's "Enroll voice…" window: name, audio (record or file), consent, progress, result.

Two layers:
  EnrollFlow    the state machine, no GTK (unit-tested with fakes): validates the name, records
                from the microphone or takes a file, runs the enrolment as an EnrollmentJob,
                and turns what happened into a `FlowView` snapshot
  EnrollWindow  a thin GTK 3 view: it forwards clicks to the flow and, every 100 ms, draws
                the flow's snapshot

All GTK calls run on the GUI thread (pystray's GLib main loop on the daemon's main thread):
`open_enroll_window()` may be called from any thread and schedules the window with
GLib.idle_add. The recording and the enrolment run on their own threads and only update the
flow's state under its lock; the window polls it.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from tray_reader.errors import TrayReaderError
from tray_reader.files import sha256
from tray_reader.voices.job import EnrollmentJob, Progress
from tray_reader.voices.library import VoiceInfo, VoiceLibrary
from tray_reader.voices.preprocess import formats_named, readable_suffixes
from tray_reader.voices.record import MAX_SECONDS, PASSAGE, AudioSource, record

POLL_MS = 100
"""How often the window redraws the flow's state."""
CONSENT_LABEL = "This is my voice, or I have permission to use it"


class Phase(enum.Enum):
    EDITING = "editing"  # filling in the form (name, audio, consent)
    RECORDING = "recording"  # the microphone is capturing; Stop ends it
    ENROLLING = "enrolling"  # the background job runs; Cancel keeps the best voice so far
    DONE = "done"  # a voice was made; its figures are shown
    FAILED = "failed"  # the enrolment ended with an error; the form can be used again


class VoiceEnroller(Protocol):
    """What the flow needs from tray_reader.voices.enroll.Enroller."""

    def enroll(
        self,
        library: VoiceLibrary,
        name: str,
        recording: Any,
        *,
        consent: bool,
        source_sha256: str = "",
        text: str | None = None,
        settings: Any = None,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[VoiceInfo, Any]: ...

    def comparison(self, result: Any) -> np.ndarray:
        """24 kHz audio: the nearest stock voice, then the voice made, saying one text."""
        ...


@dataclass(frozen=True)
class Audio:
    """The audio chosen for enrolment: a file, or samples just recorded."""

    label: str
    """What the window says about it ("rainbow.wav", "recording, 12.4 s")."""
    path: Path | None = None
    """The file, when one was chosen."""
    samples: np.ndarray | None = None
    """The recorded samples, when recorded."""
    rate: int = 0
    """Their sample rate."""
    text: str | None = None
    """The text read from, when known (the passage; enrolment finds how much of it was said)."""


@dataclass(frozen=True)
class FlowView:
    """Everything the window shows, as of one moment."""

    phase: Phase
    name_error: str
    """Why the name cannot be used ('' when it can, or nothing was typed yet)."""
    audio: str
    """The chosen audio, or what to do to give some."""
    level_db: float
    """Last recorded block's level (dBFS), for the meter."""
    recorded_seconds: float
    """Seconds recorded so far."""
    fraction: float
    """Enrolment progress 0..1."""
    message: str
    """What is happening, or the error, in plain words."""
    result: str
    """The outcome in plain words and numbers ('' until DONE)."""
    can_start: bool
    can_cancel: bool
    can_use: bool
    """'Use this voice' is offered (DONE, and not used yet)."""
    compare_with: str = ""
    """The nearest stock voice, when 'Hear it beside …' is offered (DONE, not playing)."""


class EnrollFlow:
    """The window's logic. Methods are called from the GUI thread; `view()` is cheap."""

    def __init__(
        self,
        library: VoiceLibrary,
        load_enroller: Callable[[], VoiceEnroller],
        switch_voice: Callable[[str], None],
        microphone: Callable[[], AudioSource],
        settings: Any = None,
        max_seconds: float = MAX_SECONDS,
        play: Callable[[np.ndarray, int], None] | None = None,
    ) -> None:
        self.library = library
        self._load_enroller = load_enroller
        self._enroller: VoiceEnroller | None = None
        self._switch_voice = switch_voice
        self._microphone = microphone
        self.settings = settings
        self.max_seconds = max_seconds
        self.formats = formats_named()
        """The formats a chosen file may be in (looked up once, not at every redraw)."""
        self._play = play or play_on_device
        """Plays float32 mono audio at a rate (blocking until it ends)."""
        self._result: Any = None
        """The EnrollResult of the voice made (DONE)."""
        self._playing = False
        self._lock = threading.Lock()
        self.phase = Phase.EDITING
        self.name = ""
        self.name_error = ""
        self.consent = False
        self.audio: Audio | None = None
        self.message = ""
        self.result = ""
        self.voice: str | None = None
        """The name of the voice made (DONE)."""
        self._used = False
        self._level = -100.0
        self._recorded = 0.0
        self._stop_recording = threading.Event()
        self._job: EnrollmentJob[tuple[VoiceInfo, Any]] | None = None

    # -- the form ---------------------------------------------------------------------------
    def set_name(self, name: str) -> None:
        self.name = name.strip()
        self.name_error = ""
        if self.name:
            try:
                self.library.check_new_name(self.name)
            except TrayReaderError as e:
                self.name_error = str(e)

    def set_consent(self, consent: bool) -> None:
        self.consent = consent

    def choose_file(self, path: Path) -> None:
        if self.phase in (Phase.RECORDING, Phase.ENROLLING):
            return
        self.audio = Audio(Path(path).name, path=Path(path))
        self.message = ""

    def can_start(self) -> bool:
        return (
            self.phase in (Phase.EDITING, Phase.FAILED, Phase.DONE)
            and bool(self.name)
            and not self.name_error
            and self.consent
            and self.audio is not None
            and self.name != self.voice  # just made: another go needs another name
        )

    # -- recording --------------------------------------------------------------------------
    def start_recording(self) -> None:
        """Capture from the microphone on a thread until `stop_recording()` or the limit."""
        if self.phase in (Phase.RECORDING, Phase.ENROLLING):
            return
        self.phase, self.message, self.audio = Phase.RECORDING, "", None
        self._level, self._recorded = -100.0, 0.0
        self._stop_recording = threading.Event()
        stop = self._stop_recording
        threading.Thread(target=self._record, args=(stop,), name="voice-recording", daemon=True).start()

    def _on_level(self, seconds: float, db: float) -> None:
        with self._lock:
            self._recorded, self._level = seconds, db

    def _record(self, stop: threading.Event) -> None:
        from tray_reader.voices.preprocess import prepare

        audio: Audio | None = None
        message = ""
        try:
            source = self._microphone()
            samples = record(source, self.max_seconds, stop, self._on_level)
            prepare(
                samples, source.rate, from_start=True
            )  # the checks (too short, silent, clipped) speak now
            # However far the reading got (stopped, or at the time limit), enrolment finds
            # which of the passage's words were said and matches those.
            text = PASSAGE
            seconds = len(samples) / source.rate
            audio = Audio(f"recording, {seconds:.1f} s", samples=samples, rate=source.rate, text=text)
        except TrayReaderError as e:
            message = str(e)
        finally:
            with self._lock:
                self.audio, self.phase = audio, Phase.EDITING
                self.message = message if audio is not None or message else "The recording failed."

    def stop_recording(self) -> None:
        self._stop_recording.set()

    # -- enrolment --------------------------------------------------------------------------
    def start(self) -> None:
        if not self.can_start():
            return
        assert self.audio is not None
        name, audio = self.name, self.audio
        self.phase, self.message, self.result, self.voice, self._used = Phase.ENROLLING, "", "", None, False
        self._job = EnrollmentJob(lambda progress, cancel: self._enroll(name, audio, progress, cancel))
        self._job.start()

    def _enroll(
        self, name: str, audio: Audio, progress: Progress, cancel: threading.Event
    ) -> tuple[VoiceInfo, Any]:
        from tray_reader.voices.enroll import file_sha256
        from tray_reader.voices.preprocess import load_audio, prepare

        progress(0.0, "checking the recording")
        if audio.path is not None:
            recording = prepare(*load_audio(audio.path), from_start=audio.text is not None)
            sha = file_sha256(audio.path)
        else:
            assert audio.samples is not None
            recording = prepare(audio.samples, audio.rate, from_start=audio.text is not None)
            sha = sha256(audio.samples.tobytes())
        if self._enroller is None:
            progress(0.0, "loading the voice models…")
            self._enroller = self._load_enroller()
        return self._enroller.enroll(
            self.library,
            name,
            recording,
            consent=True,
            source_sha256=sha,
            text=audio.text,
            settings=self.settings,
            progress=progress,
            cancel=cancel,
        )

    def cancel(self) -> None:
        """Stop recording, or end the enrolment early (the best voice found so far is kept)."""
        self._stop_recording.set()
        if self._job is not None and self.phase is Phase.ENROLLING:
            self._job.cancel()
            self.message = "stopping; keeping the best voice found so far…"

    def use_voice(self) -> None:
        if self.voice is None or self._used:
            return
        try:
            self._switch_voice(self.voice)
        except TrayReaderError as e:
            self.message = f"Could not switch to {self.voice}: {e}"
            return
        self._used = True
        self.message = f"tray-reader now reads with {self.voice}."

    def compare(self) -> None:
        """Play the nearest stock voice, then the voice made, saying the same text (blocks:
        the window calls it on a thread of its own)."""
        result, enroller = self._result, self._enroller
        if self.phase is not Phase.DONE or result is None or enroller is None or self._playing:
            return
        self._playing = True
        stock = getattr(result, "nearest_stock", "the nearest stock voice")
        self.message = f"Playing {stock}, then {self.voice}…"
        try:
            self._play(enroller.comparison(result), 24_000)
            self.message = f"That was {stock}, then {self.voice}."
        except Exception as e:  # noqa: BLE001 - no sound device is a message, not a crash
            self.message = f"Could not play the comparison: {e}"
        finally:
            self._playing = False

    def close(self) -> None:
        """The window is closing: stop what runs (a cancelled enrolment still saves its voice)."""
        self._stop_recording.set()
        if self._job is not None:
            self._job.cancel()

    # -- what the window shows --------------------------------------------------------------
    def _collect(self) -> None:
        job = self._job
        if job is None or self.phase is not Phase.ENROLLING or not job.status().done:
            return
        try:
            info, result = job.result(0)
        except TrayReaderError as e:
            self.phase, self.message = Phase.FAILED, str(e)
            return
        except RuntimeError:  # a bug, not a user problem: the job thread printed its traceback
            self.phase, self.message = Phase.FAILED, "Enrolment failed unexpectedly (see the daemon's log)."
            return
        self.phase, self.voice, self.message, self._result = Phase.DONE, info.name, "", result
        self.result = describe_result(info, result)
        self.name_error = ""  # the name is taken now, by this very voice

    def view(self) -> FlowView:
        self._collect()
        with self._lock:
            phase, level, recorded, message = self.phase, self._level, self._recorded, self.message
        status = self._job.status() if self._job is not None and phase is Phase.ENROLLING else None
        if status is not None and not message:  # else "stopping…" after Cancel
            left = status.seconds_left
            message = status.message + (f" — about {left:.0f} s left" if left is not None else "")
        if self.audio is not None:
            audio = self.audio.label
        elif phase is Phase.RECORDING:
            audio = f"recording… {recorded:.1f} s of up to {self.max_seconds:.0f} s"
        else:
            audio = f"Record up to {self.max_seconds:.0f} s, or choose a file ({self.formats})."
        fraction = 1.0 if phase is Phase.DONE else (status.fraction if status else 0.0)
        return FlowView(
            phase=phase,
            name_error=self.name_error,
            audio=audio,
            level_db=level,
            recorded_seconds=recorded,
            fraction=fraction,
            message=message,
            result=self.result,
            can_start=self.can_start(),
            can_cancel=phase in (Phase.RECORDING, Phase.ENROLLING),
            can_use=phase is Phase.DONE and not self._used,
            compare_with=""
            if phase is not Phase.DONE or self._playing or self._result is None
            else str(getattr(self._result, "nearest_stock", "")),
        )


def describe_result(info: VoiceInfo, result: Any) -> str:
    """The outcome in plain words and numbers."""
    from tray_reader.voices.commands import made_by

    lines = [f"Made {info.name}: {result.summary()}."]
    if getattr(result, "stopped_early", False):
        lines.append("Stopped early: this is the best voice found until then.")
    lines.extend(f"Note: {w}" for w in info.checks)
    lines.append(f"Made as: {made_by(info)}; {result.renders} tries in {result.seconds:.0f} s.")
    return "\n".join(lines)


# -- the real parts ------------------------------------------------------------------------------
def play_on_device(audio: np.ndarray, rate: int) -> None:
    """Play on the default output device, beside the daemon's own stream, until it ends."""
    import sounddevice

    sounddevice.play(np.asarray(audio, np.float32), rate, blocking=True)


def switch_daemon_voice(name: str) -> None:
    """Switch the running daemon's voice the way `tray-reader ctl voice NAME` does."""
    from tray_reader import control

    control.send(control.runtime_dir() / "control.sock", "voice", [name], timeout=10)


def load_enroller(threads: int = 1) -> VoiceEnroller:
    """The models for enrolment (a session of its own, one thread, so reading aloud keeps
    the other core)."""
    from tray_reader.voices.enroll import Enroller as RealEnroller

    return RealEnroller.load(threads=threads)


def real_flow(library: VoiceLibrary | None = None, settings: Any = None) -> EnrollFlow:
    from tray_reader.voices.record import MicrophoneSource

    return EnrollFlow(
        library or VoiceLibrary(),
        load_enroller,
        switch_daemon_voice,
        MicrophoneSource,
        settings=settings,
    )


# -- the GTK view ---------------------------------------------------------------------------------
class EnrollWindow:
    """A thin GTK 3 view over an EnrollFlow (create and use on the GUI thread only)."""

    def __init__(self, flow: EnrollFlow, on_closed: Callable[[], None] = lambda: None) -> None:
        import gi

        gi.require_version("Gtk", "3.0")
        from gi.repository import GLib, Gtk

        self._Gtk, self._GLib = Gtk, GLib
        self.flow = flow
        self._on_closed = on_closed
        win = self.window = Gtk.Window(title="Enroll a voice — tray-reader")
        self._width = 520
        self._drawn: Phase | None = None
        win.set_default_size(self._width, -1)
        win.set_border_width(12)
        win.set_position(Gtk.WindowPosition.CENTER)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
        win.add(box)

        def label(text: str = "", wrap: bool = True) -> Any:
            w = Gtk.Label(label=text, xalign=0)
            w.set_line_wrap(wrap)
            w.set_max_width_chars(64)
            return w

        row = Gtk.Box(spacing=8)
        row.pack_start(label("Name", wrap=False), False, False, 0)
        self.name = Gtk.Entry(placeholder_text="e.g. my-voice")
        self.name.connect("changed", lambda e: self.flow.set_name(e.get_text()))
        row.pack_start(self.name, True, True, 0)
        box.pack_start(row, False, False, 0)
        self.name_error = label()
        box.pack_start(self.name_error, False, False, 0)

        row = Gtk.Box(spacing=8)
        self.record = Gtk.Button(label=f"Record (up to {flow.max_seconds:.0f} s)")
        self.record.connect("clicked", lambda b: self.flow.start_recording())
        self.choose = Gtk.Button(label="Choose a file…")
        self.choose.connect("clicked", lambda b: self._choose_file())
        row.pack_start(self.record, False, False, 0)
        row.pack_start(self.choose, False, False, 0)
        box.pack_start(row, False, False, 0)
        self.audio = label()
        box.pack_start(self.audio, False, False, 0)

        self.recording = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        self.recording.pack_start(
            label(
                "Read this aloud in your normal voice; press Stop when you are done (what you read is used):"
            ),
            False,
            False,
            0,
        )
        passage = label(PASSAGE)
        passage.set_selectable(True)
        self.recording.pack_start(passage, False, False, 0)
        row = Gtk.Box(spacing=8)
        self.level = Gtk.LevelBar(min_value=0.0, max_value=60.0, valign=Gtk.Align.CENTER)
        row.pack_start(self.level, True, True, 0)
        self.stop = Gtk.Button(label="Stop")
        self.stop.connect("clicked", lambda b: self.flow.stop_recording())
        row.pack_start(self.stop, False, False, 0)
        self.recording.pack_start(row, False, False, 0)
        box.pack_start(self.recording, False, False, 0)

        self.consent = Gtk.CheckButton(label=CONSENT_LABEL)
        self.consent.connect("toggled", lambda c: self.flow.set_consent(c.get_active()))
        box.pack_start(self.consent, False, False, 0)

        self.progress = Gtk.ProgressBar(show_text=False)
        box.pack_start(self.progress, False, False, 0)
        self.message = label()
        box.pack_start(self.message, False, False, 0)
        self.result = label()
        self.result.set_selectable(True)
        box.pack_start(self.result, False, False, 0)

        buttons = Gtk.Box(spacing=8)
        self.start = Gtk.Button(label="Start")
        self.start.connect("clicked", lambda b: self.flow.start())
        self.cancel = Gtk.Button(label="Cancel")
        self.cancel.connect("clicked", lambda b: self.flow.cancel())
        self.use = Gtk.Button(label="Use this voice")
        self.use.connect("clicked", lambda b: self._use_voice())
        self.compare = Gtk.Button(label="Hear it beside the stock voice")
        self.compare.connect("clicked", lambda b: self._compare())
        close = Gtk.Button(label="Close")
        close.connect("clicked", lambda b: self.window.destroy())
        for b in (close, self.use, self.compare, self.cancel, self.start):
            buttons.pack_end(b, False, False, 0)
        box.pack_end(buttons, False, False, 0)

        win.connect("destroy", self._destroyed)
        win.show_all()
        self._timer = GLib.timeout_add(POLL_MS, self._tick)
        self.draw()

    def _choose_file(self) -> None:
        Gtk = self._Gtk
        dialog = Gtk.FileChooserDialog(
            title="Choose a recording of the voice",
            transient_for=self.window,
            action=Gtk.FileChooserAction.OPEN,
        )
        dialog.add_buttons("_Cancel", Gtk.ResponseType.CANCEL, "_Open", Gtk.ResponseType.OK)
        audio = Gtk.FileFilter()
        audio.set_name(f"Audio ({formats_named()})")
        for suffix in readable_suffixes():
            audio.add_pattern(f"*.{suffix}")
            audio.add_pattern(f"*.{suffix.upper()}")
        dialog.add_filter(audio)
        try:
            if dialog.run() == Gtk.ResponseType.OK and dialog.get_filename():
                self.flow.choose_file(Path(dialog.get_filename()))
        finally:
            dialog.destroy()
        self.draw()

    def _use_voice(self) -> None:
        # The daemon answers on its control thread, which may briefly wait for its own lock:
        # do not hold the GUI thread meanwhile.
        self.use.set_sensitive(False)
        threading.Thread(target=self.flow.use_voice, name="voice-use", daemon=True).start()

    def _compare(self) -> None:
        self.compare.set_sensitive(False)  # drawn again from the flow once it has played
        threading.Thread(target=self.flow.compare, name="voice-compare", daemon=True).start()

    def _tick(self) -> bool:
        self.draw()
        return True

    def draw(self) -> None:
        v = self.flow.view()
        if v.phase is not self._drawn:
            self._drawn = v.phase
            self.window.resize(self._width, 1)  # shrink to fit what this phase shows
        self.name_error.set_markup(
            f'<span foreground="#c01c28">{self._GLib.markup_escape_text(v.name_error)}</span>'
        )
        self.name_error.set_visible(bool(v.name_error))
        busy = v.phase in (Phase.RECORDING, Phase.ENROLLING)
        for w in (self.name, self.record, self.choose, self.consent):
            w.set_sensitive(not busy)
        self.audio.set_text(v.audio)
        self.recording.set_visible(v.phase is Phase.RECORDING)
        self.level.set_value(max(0.0, min(60.0, v.level_db + 60.0)))
        self.progress.set_visible(v.phase in (Phase.ENROLLING, Phase.DONE))
        self.progress.set_fraction(v.fraction)
        problem = v.phase in (Phase.EDITING, Phase.FAILED)  # messages there are problems
        text = self._GLib.markup_escape_text(v.message)
        self.message.set_markup(f'<span foreground="#c01c28">{text}</span>' if problem else text)
        self.message.set_visible(bool(v.message))
        self.result.set_text(v.result)
        self.result.set_visible(bool(v.result))
        self.start.set_sensitive(v.can_start)
        self.cancel.set_visible(v.can_cancel)
        self.use.set_visible(v.phase is Phase.DONE)
        self.use.set_sensitive(v.can_use)
        self.compare.set_visible(v.phase is Phase.DONE)
        self.compare.set_sensitive(bool(v.compare_with))
        if v.compare_with:
            self.compare.set_label(f"Hear it beside {v.compare_with}")

    def _destroyed(self, _window: Any) -> None:
        self._GLib.source_remove(self._timer)
        self.flow.close()
        self._on_closed()


_open: list[EnrollWindow] = []  # the window now shown (GUI thread only)


def open_enroll_window(make_flow: Callable[[], EnrollFlow] = real_flow) -> None:
    """Show the window (or raise the one already open); any thread."""
    from gi.repository import GLib

    def show() -> bool:
        # PyGObject prints an exception raised here and the loop goes on: the daemon stays up.
        if _open:
            _open[0].window.present()
        else:
            window = EnrollWindow(make_flow(), on_closed=_open.clear)
            _open.append(window)
            window.window.present()
        return False

    GLib.idle_add(show)
