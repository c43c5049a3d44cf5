"""The reading window under Xvfb, following a real player (on the in-memory output, in real
time): the highlighted sentence and word read back from the widget at two moments, next and
previous, a click on a sentence, closing without stopping the reading. Screenshots go to the
test artifacts."""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

from tests.test_app import _wait, rig  # noqa: F401 - the fixture
from tray_reader.audio.output import MemoryOutput
from tray_reader.audio.player import Player, PlayerConfig, PlayerState
from tray_reader.speech.timings import WordTiming
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk

TEXT = "First sentence here. Second one follows. Third comes last.\n\nFourth ends it all."
WORD_SECONDS = 0.4


def _chunks() -> list[AudioChunk]:
    """Each sentence 0.4 s per word (a quiet tone), its words' timings in it."""
    out = []
    sentences = [(m.start(), m.end()) for m in re.finditer(r"[^.\s][^.]*\.", TEXT)]
    for i, (a, b) in enumerate(sentences):
        words = [(a + m.start(), a + m.end()) for m in re.finditer(r"\w+", TEXT[a:b])]
        step = int(WORD_SECONDS * SAMPLE_RATE)
        timings = tuple(WordTiming(k * step, k * step + step - 2400, span) for k, span in enumerate(words))
        audio = np.full(step * len(words), 0.05, np.float32)
        out.append(AudioChunk(audio, i, i == len(sentences) - 1, timings, (a, b)))
    return out


@pytest.mark.desktop
def test_the_window_follows_the_player_and_a_click_jumps(desktop, monkeypatch):
    monkeypatch.setenv("DISPLAY", desktop.display)
    import gi

    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk

    from tray_reader import reading_window

    context = GLib.MainContext.default()

    def pump(seconds: float, until=lambda: False) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            while context.pending():
                context.iteration(False)
            if until():
                return True
            time.sleep(0.01)
        return bool(until())

    player = Player(MemoryOutput(pace=1.0), PlayerConfig(stall_s=60.0))

    def heard(sentence: int, word: str):
        def check() -> bool:
            r = player.reading
            return bool(
                r and r.sentence == sentence and r.word_span and TEXT[r.word_span[0] : r.word_span[1]] == word
            )

        return check

    def shot(name: str) -> None:
        """A screenshot of this moment: paused while it is taken (it may take a second)."""
        player.pause()
        print(f"\nscreenshot {desktop.screenshot(name)}")
        player.resume()

    try:
        reading_window.open_reading_window(reading_window.PlayerCaption(player, lambda: TEXT))
        assert pump(5, lambda: bool(reading_window._open)), "the window did not open"
        window = reading_window._open[0]
        assert not window.window.get_accept_focus()  # never takes the keyboard
        assert pump(3, lambda: desktop.xdotool("search", "--onlyvisible", "--name", "reading", check=False))
        assert window.tagged("sentence") == ""  # nothing read yet
        player.start_request()
        for chunk in _chunks():
            player.play(chunk)

        # Two moments: the widget's highlights are the sentence and word being heard.
        assert pump(5, heard(0, "sentence")), player.reading
        pump(0.12)
        assert window.tagged("sentence") == "First sentence here." and window.tagged("word") == "sentence"
        shot("reading-window-1.png")
        player.next()  # with most of the first sentence left
        assert pump(3, lambda: player.reading is not None and player.reading.sentence == 1)
        pump(0.12)
        assert window.tagged("sentence") == "Second one follows."
        player.previous()  # just begun: back to the one before
        assert pump(3, lambda: player.reading is not None and player.reading.sentence == 0)
        pump(0.12)
        assert window.tagged("sentence") == "First sentence here."
        assert pump(5, heard(1, "follows")), player.reading
        pump(0.12)
        assert window.tagged("sentence") == "Second one follows." and window.tagged("word") == "follows"
        shot("reading-window-2.png")

        # A click on the last sentence jumps there.
        target = TEXT.index("ends")
        rect = window.view.get_iter_location(window.buffer.get_iter_at_offset(target))
        wx, wy = window.view.buffer_to_window_coords(
            Gtk.TextWindowType.WIDGET, rect.x + 2, rect.y + rect.height // 2
        )
        _, ox, oy = window.view.get_window(Gtk.TextWindowType.WIDGET).get_origin()
        desktop.xdotool("mousemove", str(ox + wx), str(oy + wy))
        desktop.xdotool("click", "1")
        assert pump(3, lambda: player.reading is not None and player.reading.sentence == 3), player.reading
        pump(0.12)
        assert window.tagged("sentence") == "Fourth ends it all."
        player.pause()
        desktop.screenshot("reading-window-clicked.png")
        window.window.destroy()
        pump(0.3)
        assert not reading_window._open
        assert player.status.state is PlayerState.PAUSED  # closing leaves the reading as it was
        player.resume()
        assert pump(2, lambda: player.status.state is PlayerState.SPEAKING)
    finally:
        if reading_window._open:
            reading_window._open[0].window.destroy()
        player.close()


def test_the_tray_item_opens_the_window_over_the_text_being_read(rig):  # noqa: F811
    opened: list = []
    rig.parts.reading_window = lambda source, style: opened.append((source, style))
    rig.app = app = rig.make()
    threading.Thread(target=app.run, daemon=True).start()
    tray = rig.parts.tray
    _wait(tray.running.is_set)
    _wait(app.worker.ready.is_set)
    assert tray.shown is not None and tray.shown.can_show_reading
    app.dispatch("read", ["one two three four five six"])
    tray.choose("reading_window")
    _wait(lambda: opened)
    source, style = opened[0]
    assert style.font_size == 18 and style.keep_above and not style.high_contrast  # the settings
    assert source.caption()[0] == "one two three four five six"
    _wait(lambda: source.caption()[1] is not None)  # the player's position, while it reads
    rig.parts.hotkeys.press("reading_window")  # the hotkey opens it too
    _wait(lambda: len(opened) == 2)


DOCUMENT = (
    "# Reading along\n\n"
    "Many readers follow the words with their eyes while they listen. "
    "A highlighted sentence shows where the voice is, and a marked word shows the very word. "
    "This paragraph is long enough to be heard for a while, sentence after sentence, "
    "so that the highlight can be seen to move along the lines of the text as it goes.\n"
)
WORD_COLOUR = (0xFF, 0xC4, 0x00)


def _marked_box(desktop, geometry) -> tuple[int, int, int, int] | None:
    """The bounding box of the word highlight's colour in the window, from the screen."""
    x, y, w, h = geometry
    pixels = np.frombuffer(desktop.grab(x, y, w, h), np.uint8).reshape(h, w, 3)
    ys, xs = np.nonzero(np.all(pixels == WORD_COLOUR, axis=2))
    return None if not len(xs) else (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))


@pytest.mark.desktop
def test_the_tray_menu_opens_the_window_while_a_document_is_read(tray_daemon, desktop, tmp_path):
    """The real path: `read -f` to the daemon, the tray menu's "Show reading window" (right
    click, keyboard), the word highlight on the screen at two moments, in two places."""

    def shown() -> set[str]:
        return set(
            desktop.xdotool("search", "--onlyvisible", "--name", "tray-reader: reading", check=False).split()
        )

    doc = tmp_path / "along.md"
    doc.write_text(DOCUMENT)
    result = tray_daemon.cli("read", "-f", str(doc))
    assert result.returncode == 0, result.stderr
    tray_daemon.wait_state("speaking", 60)
    assert tray_daemon.status()["last_text"].startswith("Reading along\n\nMany readers")
    others = shown()
    _, x, y, w, h = _wait(desktop.tray_icons, 10)[0]
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2))
    desktop.xdotool("click", "3")
    time.sleep(0.8)
    # Read selection, Pause, Stop, Next, Previous, Voice, Speed, Enroll voice…, Settings…, then
    # Show reading window (10th).
    desktop.xdotool("key", "--delay", "80", *["Down"] * 10, "Return")
    wid = _wait(lambda: shown() - others, 15).pop()
    desktop.xdotool("mousemove", "900", "700")
    geometry = _wait(lambda: desktop._geometry(wid), 5)
    boxes = []
    for moment in (1, 2):
        boxes.append(_wait(lambda: _marked_box(desktop, geometry), 10))
        print(f"\nscreenshot {desktop.screenshot(f'reading-window-daemon-{moment}.png')}")
        time.sleep(1.5)
    assert boxes[0] != boxes[1], "the marked word did not move"
    assert tray_daemon.status()["state"] == "speaking"
    tray_daemon.cli("ctl", "stop")
    tray_daemon.wait_state("idle", 10)
    assert tray_daemon.proc is not None and tray_daemon.proc.poll() is None
