"""The app's wiring with in-memory parts: the real player on a memory output, a fake
synthesis pipeline, memory tray/hotkeys/clipboard/notifier. No display, no sound card."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tray_reader import config
from tray_reader.app import App, AppState, Parts
from tray_reader.audio.output import MemoryOutput
from tray_reader.audio.player import Player
from tray_reader.errors import TrayReaderError, VoiceError
from tray_reader.hotkeys import MemoryHotkeys
from tray_reader.notify import MemoryNotifier
from tray_reader.selection import DesktopSelection, MemoryClipboard
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk, Prosody
from tray_reader.tray import MemoryTray


class FakeVoices:
    NAMES = ("af_heart", "am_adam", "bf_emma")

    def names(self) -> list[str]:
        return list(self.NAMES)

    chosen: str | None = None

    def default_voice(self) -> str | None:
        return self.chosen

    def pack(self, name: str) -> np.ndarray:
        if name not in self.NAMES:
            raise VoiceError(f"Unknown voice {name!r}. Available: {', '.join(self.NAMES)}")
        return np.full((510, 1, 256), self.NAMES.index(name), np.float32)

    def prosody(self, name: str) -> Prosody:
        return Prosody(1.0 + 0.1 * self.NAMES.index(name), 1.0)

    def speed(self, name: str) -> float:
        return 0.9 if name == "am_adam" else 1.0  # as if enrolled from a slow speaker

    def __init__(self) -> None:
        self.envelopes: dict[str, EnvelopeMap] = {}

    def envelope(self, name: str) -> EnvelopeMap | None:
        return self.envelopes.get(name)


class FakeEngine:
    prosody = Prosody()
    envelope: EnvelopeMap | None = None

    def use_prosody(self, prosody: Prosody) -> None:
        self.prosody = prosody

    def use_envelope(self, envelope: EnvelopeMap | None) -> None:
        self.envelope = envelope


class FakePipeline:
    """0.1 s (`word_seconds`) of tone per word, one chunk per word; records the voice/speed
    used per chunk and the engine's pitch each chunk was made at."""

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate
        self.engine = FakeEngine()
        self.pitches: list[float] = []
        self.envelopes: list[EnvelopeMap | None] = []
        self.hold_after: int | None = None
        """Clear the gate after this many chunks (to change things mid-request)."""
        self.texts: list[str] = []
        self.used: list[tuple[float, float]] = []
        self.word_seconds = 0.1

    def stream(self, text: str, voice, cancel: threading.Event, keep: bool = True) -> Iterator[AudioChunk]:
        self.texts.append(text)
        for i, _word in enumerate(text.split()):
            self.gate.wait(5)
            if cancel.is_set():
                return
            pack, speed = voice()
            self.used.append((float(pack[0, 0, 0]), speed))
            self.pitches.append(self.engine.prosody.pitch)
            self.envelopes.append(self.engine.envelope)
            if self.hold_after is not None and len(self.used) >= self.hold_after:
                self.gate.clear()
            t = np.arange(int(SAMPLE_RATE * self.word_seconds)) / SAMPLE_RATE
            yield AudioChunk((0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), sentence=i // 3)


@pytest.fixture
def rig(tmp_path: Path):
    gate = threading.Event()
    gate.set()
    pipeline = FakePipeline(gate)
    clip = MemoryClipboard()
    loads: list[tuple[int | None, float]] = []

    def load(threads, fast, pack, on_warning):
        assert fast is True  # the default setting
        loads.append((threads, float(pack[0, 0, 0])))
        if rig_warning:
            on_warning(rig_warning[0])
        return pipeline

    rig_warning: list[str] = []

    parts = Parts(
        player=Player(output=MemoryOutput(pace=4.0)),
        selection=DesktopSelection(clip, lambda: False, send_copy=clip.send_copy),
        hotkeys=MemoryHotkeys(),
        tray=MemoryTray(),
        notifier=MemoryNotifier(),
        voices=FakeVoices(),
        load_pipeline=load,
        open_file=lambda p: opened.append(p),
    )
    opened: list[Path] = []
    settings = tmp_path / "settings.toml"

    class Rig:
        pass

    r = Rig()
    r.parts, r.pipeline, r.clip, r.gate, r.loads, r.settings, r.opened = (
        parts, pipeline, clip, gate, loads, settings, opened
    )  # fmt: skip
    r.warning = rig_warning
    r.make = lambda: App(parts, settings)
    yield r
    if hasattr(r, "app"):
        r.app.shutdown()


def _wait(pred, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while not (value := pred()):
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)
    return value


def started(rig) -> App:
    rig.app = app = rig.make()
    app.start()
    _wait(app.worker.ready.is_set)
    return app


def test_starts_warm_with_default_settings_file(rig):
    app = started(rig)
    assert rig.settings.exists() and "# voice = " in rig.settings.read_text()
    assert rig.loads == [(None, 0.0)]  # automatic threads, warmed with the chosen voice
    assert app.state is AppState.IDLE
    st = app.status()
    assert st["ready"] and st["voice"] == "af_heart" and st["queue"] == 0
    assert rig.parts.hotkeys.bindings["read"] == "<ctrl>+<alt>+r"


def test_hotkey_reads_selection_and_tray_follows_state(rig):
    app = started(rig)
    rig.clip.data["primary"] = "one two three four"
    rig.parts.hotkeys.press("read")
    _wait(lambda: app.state is AppState.SPEAKING)
    _wait(lambda: app.state is AppState.IDLE)
    assert rig.pipeline.texts == ["one two three four"]
    st = app.status()
    assert st["last"]["pressed"] <= st["last"]["selection_read"] <= st["last"]["submitted"]


def test_nothing_selected_notifies_and_keeps_running(rig):
    app = started(rig)
    rig.parts.hotkeys.press("read")
    _wait(lambda: rig.parts.notifier.sent)
    assert rig.parts.notifier.sent[0][0] == "Nothing to read"
    assert app.state is AppState.IDLE
    app.dispatch("read", ["still works"])
    _wait(lambda: rig.pipeline.texts == ["still works"])


def test_read_before_ready_is_refused_with_a_message(rig):
    rig.app = app = rig.make()
    with pytest.raises(TrayReaderError, match="still loading"):
        app.dispatch("read", ["early"])
    assert app.state is AppState.WARMING


def test_a_read_key_pressed_while_warming_is_read_once_ready(rig):
    loading = threading.Event()
    load = rig.parts.load_pipeline
    rig.parts.load_pipeline = lambda *a: loading.wait(10) and load(*a)
    rig.app = app = rig.make()
    app.start()
    rig.clip.data["primary"] = "pressed while warming"
    rig.parts.hotkeys.press("read")
    _wait(lambda: rig.parts.notifier.sent)  # told at once that it is coming
    assert "getting ready" in rig.parts.notifier.sent[0][1]
    rig.clip.data["primary"] = "selected later"  # what was selected at the key counts
    assert app.state is AppState.WARMING and rig.pipeline.texts == []
    loading.set()
    _wait(lambda: rig.pipeline.texts == ["pressed while warming"])
    assert app.status()["last_text"] == "pressed while warming"


def test_queue_appends_now_replaces_stop_clears(rig):
    app = started(rig)
    rig.gate.clear()  # hold synthesis so the queue can be seen
    app.dispatch("read", ["first a b c"])
    _wait(lambda: rig.pipeline.texts == ["first a b c"])
    app.dispatch("queue", ["second"])
    app.dispatch("queue", ["third"])
    assert app.status()["queue"] == 2
    app.dispatch("read", ["now"])  # replaces the playing one and the queue
    assert app.status()["queue"] == 1
    rig.gate.set()
    _wait(lambda: rig.pipeline.texts[-1] == "now")
    assert rig.pipeline.texts == ["first a b c", "now"]
    rig.gate.clear()
    app.dispatch("read", ["x y"])
    app.dispatch("queue", ["z"])
    app.dispatch("stop", [])
    assert app.status()["queue"] == 0
    rig.gate.set()
    _wait(lambda: app.state is AppState.IDLE)
    assert "z" not in rig.pipeline.texts


def test_pause_resume_toggle(rig):
    app = started(rig)
    app.dispatch("read", [" ".join(["word"] * 30)])  # 3 s of audio
    _wait(lambda: rig.parts.player.status.state.value == "speaking")
    app.dispatch("pause", [])
    assert app.state is AppState.PAUSED
    app.dispatch("toggle", [])
    _wait(lambda: app.state is AppState.SPEAKING)
    app.dispatch("toggle", [])
    assert app.state is AppState.PAUSED
    app.dispatch("resume", [])
    assert app.state is AppState.SPEAKING
    app.dispatch("stop", [])
    _wait(lambda: app.state is AppState.IDLE)


def test_pause_before_the_first_audio_is_kept(rig):
    app = started(rig)
    rig.gate.clear()
    app.dispatch("read", ["a b c d e f"])
    _wait(lambda: rig.pipeline.texts)
    app.dispatch("pause", [])
    assert app.state is AppState.PAUSED
    rig.gate.set()
    _wait(lambda: rig.parts.player.status.state.value == "paused")
    app.dispatch("resume", [])
    _wait(lambda: app.state is AppState.IDLE)


def test_voice_and_speed_apply_to_the_next_chunk_and_persist(rig):
    envelope = EnvelopeMap(tuple(range(20)), np.zeros(20), np.eye(13) * 1.1)
    rig.parts.voices.envelopes["bf_emma"] = envelope  # as if enrolled with an envelope map
    app = started(rig)
    rig.pipeline.hold_after = 1
    app.dispatch("read", ["a b c d"])
    _wait(lambda: rig.pipeline.used)
    app.dispatch("voice", ["bf_emma"])
    app.dispatch("speed", ["1.5"])
    rig.pipeline.hold_after = None
    rig.gate.set()
    _wait(lambda: app.state is AppState.IDLE)
    assert rig.pipeline.used[0] == (0.0, 1.0) and rig.pipeline.used[-1] == (2.0, 1.5)
    # Each voice's own pitch (FakeVoices: 1 + 0.1 x its index) is on the engine from its first chunk.
    assert rig.pipeline.pitches[0] == 1.0 and rig.pipeline.pitches[-1] == pytest.approx(1.2)
    # ... and its envelope map: none for the first voice, bf_emma's after the switch.
    assert rig.pipeline.envelopes[0] is None and rig.pipeline.envelopes[-1] is envelope
    loaded = config.load(rig.settings)
    assert loaded.settings.voice == "bf_emma" and loaded.settings.speed == 1.5
    with pytest.raises(VoiceError, match="Available: af_heart"):
        app.dispatch("voice", ["nobody"])
    with pytest.raises(TrayReaderError, match="0.5 to 2.0"):
        app.dispatch("speed", ["fast"])
    assert app.status()["voice"] == "bf_emma"


def test_a_voice_reads_at_its_own_rate_times_the_chosen_speed(rig):
    app = started(rig)
    app.dispatch("voice", ["am_adam"])
    app.dispatch("speed", ["1.5"])
    app.dispatch("read", ["a b"])
    _wait(lambda: len(rig.pipeline.used) == 2)
    assert rig.pipeline.used[-1] == (1.0, pytest.approx(1.35))
    assert app.status()["speed"] == 1.5  # the setting, as chosen


def test_settings_file_changes_apply_while_running(rig):
    app = started(rig)
    text = rig.settings.read_text()
    rig.settings.write_text(
        text.replace("# volume = 1.0", "volume = 0.25").replace("# voice =", 'voice = "am_adam" #')
        + 'queue = "ctrl+alt+r"\npause = "ctrl+alt+k"\n'
    )
    app.reload_settings()
    assert rig.parts.player.volume == 0.25
    assert app.status()["voice"] == "am_adam"
    assert rig.parts.hotkeys.bindings == {
        "read": "<ctrl>+<alt>+r",
        "pause": "<ctrl>+<alt>+k",
        "stop": "<ctrl>+<alt>+s",
        "reading_window": "<ctrl>+<alt>+w",
    }
    assert any("hotkeys.queue" in p and "already used by hotkeys.read" in p for p in app.status()["problems"])
    assert any("settings" in s for s, _ in rig.parts.notifier.sent)


def test_broken_settings_file_starts_with_defaults_and_says_so(rig, capsys):
    rig.settings.write_text("voice = [oops\n")
    app = started(rig)
    assert app.settings == config.Settings()
    assert "not valid TOML" in capsys.readouterr().err
    assert rig.parts.notifier.sent and str(rig.settings) in rig.parts.notifier.sent[0][1]
    assert app.state is AppState.IDLE


def test_unknown_voice_in_settings_falls_back(rig):
    rig.settings.write_text('voice = "ghost"\n')
    app = started(rig)
    assert app.status()["voice"] == "af_heart"
    assert any("ghost" in p for p in app.status()["problems"])


def test_tray_menu_actions_and_quit(rig):
    rig.app = app = rig.make()
    done = threading.Event()
    worker = threading.Thread(target=lambda: (app.run(), done.set()), daemon=True)
    worker.start()
    tray: MemoryTray = rig.parts.tray
    _wait(tray.running.is_set)
    _wait(app.worker.ready.is_set)
    tray.choose("speed", "1.25")
    tray.choose("voice", "am_adam")
    _wait(lambda: app.status()["speed"] == 1.25 and app.status()["voice"] == "am_adam")
    _wait(lambda: tray.shown and tray.shown.voice == "am_adam" and tray.shown.voices == FakeVoices.NAMES)
    tray.choose("settings")
    _wait(lambda: rig.opened == [rig.settings])
    rig.clip.data["primary"] = "from the menu"
    tray.choose("read")
    _wait(lambda: rig.pipeline.texts == ["from the menu"])
    _wait(lambda: tray.states[-1] is AppState.IDLE and AppState.SPEAKING in tray.states)
    t0 = time.monotonic()
    tray.choose("quit")
    assert done.wait(5)
    print(f"quit took {time.monotonic() - t0:.3f} s")
    leftover = [
        t.name for t in threading.enumerate() if t.name in ("app-actions", "control-socket", "settings-watch")
    ]
    assert not leftover


def test_voice_chosen_with_voice_use_applies_unless_settings_name_one(rig):
    rig.parts.voices.chosen = "bf_emma"
    app = started(rig)
    assert app.status()["voice"] == "bf_emma"
    app.shutdown()
    rig.settings.write_text('voice = "am_adam"\n')
    rig.app = app = started(rig)
    assert app.status()["voice"] == "am_adam"


def test_pipeline_warnings_are_reported_not_fatal(rig):
    rig.warning.append("lexicon.toml line 3: bad entry (reading without your lexicon)")
    app = started(rig)
    assert app.state is AppState.IDLE
    assert any("lexicon.toml" in p for p in app.status()["problems"])
    assert any("lexicon.toml" in body for _, body in rig.parts.notifier.sent)


def test_a_settled_selection_has_its_first_words_prepared_from_primary_only(rig):
    prepared: list[str] = []
    rig.pipeline.prepare = lambda text, voice, cancel, hurry: prepared.append(text) or True
    changed: list = []
    stopped: list[bool] = []

    def watch(on_change):
        changed.append(on_change)
        return lambda: stopped.append(True)

    rig.parts.watch_selection = watch
    rig.clip.write("clipboard", "the clipboard is never read for this")
    app = started(rig)
    rig.clip.write("primary", "words just selected")
    for _ in range(3):  # a burst of owner changes while the mouse drags: prepared once
        changed[0]()
    _wait(lambda: prepared == ["words just selected"])
    assert app.status()["prepared_chars"] == len("words just selected")

    # Reading it now starts from the prepared audio (the fake marks it like the real one).
    rig.pipeline.served_prepared = True
    app.dispatch("read", [])
    _wait(lambda: app.status()["last"]["prepared"])

    # Off in the settings: the selection is only read on the hotkey.
    rig.settings.write_text("prepare_selection = false\n")
    app.reload_settings()
    _wait(lambda: app.state is AppState.IDLE)
    rig.clip.write("primary", "another selection")
    changed[0]()
    time.sleep(0.5)
    assert prepared == ["words just selected"]
    app.shutdown()
    assert stopped == [True]


def test_nothing_selected_prepares_nothing(rig):
    prepared: list[str] = []
    rig.pipeline.prepare = lambda text, voice, cancel, hurry: prepared.append(text) or True
    changed: list = []
    rig.parts.watch_selection = lambda on_change: changed.append(on_change) or (lambda: None)
    started(rig)
    rig.clip.write("primary", "   ")
    changed[0]()
    time.sleep(0.5)
    assert prepared == []


def test_a_selection_made_while_reading_is_prepared_while_reading(rig):
    prepared: list[str] = []
    rig.pipeline.prepare = lambda text, voice, cancel, hurry: prepared.append(text) or True
    changed: list = []
    rig.parts.watch_selection = lambda on_change: changed.append(on_change) or (lambda: None)
    app = started(rig)
    rig.gate.clear()  # the reading below holds until the gate opens
    app.dispatch("read", ["one two three"])
    _wait(lambda: app.state is AppState.SPEAKING)
    rig.clip.write("primary", "selected while reading")
    changed[0]()
    _wait(lambda: prepared == ["selected while reading"])
    assert app.state is AppState.SPEAKING  # "read now" will switch to it at once
    rig.gate.set()


def test_a_selection_that_grows_without_a_new_owner_is_prepared_for_its_final_text(rig):
    prepared: list[str] = []
    rig.pipeline.prepare = lambda text, voice, cancel, hurry: prepared.append(text) or True
    changed: list = []
    rig.parts.watch_selection = lambda on_change: changed.append(on_change) or (lambda: None)
    started(rig)
    rig.clip.write("primary", "The")  # the drag begins: PRIMARY changes owner once
    changed[0]()
    for grown in ("The quick", "The quick brown", "The quick brown fox."):
        time.sleep(0.4)  # the mouse moves on; no owner change
        rig.clip.write("primary", grown)
    _wait(lambda: prepared[-1:] == ["The quick brown fox."])
    time.sleep(1.5)
    assert prepared[-1] == "The quick brown fox." and prepared[0] == "The"


def test_every_command_of_the_table_runs_through_dispatch_and_answers_with_the_status(rig):
    from tray_reader.commands import COMMANDS

    app = started(rig)
    document = rig.settings.parent / "d.txt"
    document.write_text("A document.")
    arguments = {
        "read": ["a b"],
        "queue": ["c"],
        "document": [str(document)],
        "voice": ["bf_emma"],
        "speed": ["1.25"],
    }
    for name in COMMANDS:
        if name == "quit":
            continue
        reply = app.dispatch(name, arguments.get(name, []))
        assert reply["pid"] and reply["state"] in {s.value for s in AppState}, name
    assert app.status()["voice"] == "bf_emma" and app.status()["speed"] == 1.25
    app.dispatch("quit", [])
    assert app._quit.is_set()
    with pytest.raises(TrayReaderError, match="unknown command"):
        app.dispatch("explode", [])
