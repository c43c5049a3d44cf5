"""Reading as a person does it, end to end: the tray daemon under Xvfb, text selected with
the mouse in a real GTK window, keys pressed with XTEST, the audio captured from the
PulseAudio null sink and checked with the offline recogniser. These tests check what is
read and how it began (prepared or not, no press lost), never how fast."""

from __future__ import annotations

import random
import time

import pytest

from tests.asr import recognise, word_recall
from tests.fixtures_desktop import Daemon, Desktop, TimedRecorder, wait_for
from tests.selecting import TextWindow

pytestmark = pytest.mark.desktop

PARAGRAPH = (
    "The quick brown fox jumps over the lazy dog. "
    "Our meeting will start half an hour later than usual, so please bring your notes."
)
LONGER = (
    "Please bring the printed report, your notes from the last quarter, and any questions "
    "about the new schedule to the meeting on Thursday morning."
)


@pytest.fixture(scope="module")
def recorder(pulse):
    rec = TimedRecorder(pulse).start()
    yield rec
    rec.stop()


def _press_and_hear(daemon: Daemon, desktop: Desktop, recorder: TimedRecorder, stop_after: float = 0):
    """Press the read key; wait for the read to end (or stop it after ``stop_after`` s of
    sound); return the status then and what the recogniser heard."""
    before = daemon.status()["last"]["pressed"]
    underruns = daemon.status()["last"]["underruns"]
    offset = recorder.mark()
    desktop.xdotool("key", "ctrl+alt+r")
    wait_for(lambda: daemon.status()["last"]["pressed"] != before, 20, "the key to be taken")
    wait_for(lambda: recorder.first_sound_after(offset), 20, "sound")
    if stop_after:
        time.sleep(stop_after)
        daemon.cli("ctl", "stop")
    wait_for(lambda: daemon.status()["state"] == "idle", 40, "the read to end")
    time.sleep(0.3)
    st = daemon.status()
    print(f"\n  underruns in this read: {st['last']['underruns'] - underruns}")
    return st, recognise(recorder.audio_since(offset), recorder.rate)


def _assert_heard(said: str, heard: str, not_said: str) -> None:
    """The recogniser (pocketsphinx, weak on synthetic speech) heard ``said``: it is
    closer to it than to the text next to it, which was not selected."""
    right, wrong = word_recall(said, heard), word_recall(not_said, heard)
    print(f"  recall {right:.2f} of the selection, {wrong:.2f} of the text beside it")
    assert right >= 0.3 and right > wrong, heard


def _noticed(daemon: Daemon, text: str) -> bool:
    st = daemon.status()
    return len(text) in (st["prepared_chars"], st["preparing_chars"])


def test_text_selected_with_the_mouse_is_read(tray_daemon: Daemon, desktop: Desktop, recorder):
    with TextWindow(desktop, PARAGRAPH) as win:
        # A drag over the first sentence.
        first = PARAGRAPH[: PARAGRAPH.index(".") + 1]
        win.drag(0, len(first))
        wait_for(lambda: desktop.get_selection("primary") == first, 5, "the drag's selection")
        # PRIMARY changed owner once, as the drag began; the text it grew to is prepared.
        wait_for(lambda: _noticed(tray_daemon, first), 10, "the dragged text prepared")
        time.sleep(random.uniform(0.2, 0.6))
        st, heard = _press_and_hear(tray_daemon, desktop, recorder)
        print(f"\ndragged {first!r}: heard {heard!r}, prepared {st['last']['prepared']}")
        assert st["last_text"] == first and st["last"]["prepared"]
        _assert_heard(first, heard, PARAGRAPH[len(first) :])

        # A double click on a word, then shift+click to extend to the end.
        start = PARAGRAPH.index("Our")
        second = PARAGRAPH[start:]
        win.double_click(start + 1)
        time.sleep(0.4)
        win.shift_click(len(PARAGRAPH))
        wait_for(lambda: desktop.get_selection("primary") == second, 5, "the extended selection")
        wait_for(lambda: _noticed(tray_daemon, second), 10, "the extended text prepared")
        time.sleep(random.uniform(0.2, 0.6))
        st, heard = _press_and_hear(tray_daemon, desktop, recorder)
        print(f"extended {second!r}: heard {heard!r}, prepared {st['last']['prepared']}")
        assert st["last_text"] == second and st["last"]["prepared"]
        _assert_heard(second, heard, first)


def test_the_press_after_a_takeover_is_prepared(tray_daemon: Daemon, desktop: Desktop, recorder):
    """Select, press while the first words are still being prepared (the read takes the
    preparation over), stop, press again: the second read starts with prepared audio."""
    took_over = 0
    for i in range(3):  # until a press came during the preparation (most often the first)
        text = f"{LONGER} Number {i + 1}{'.' * (i + 1)}"  # a new length each time
        desktop.set_selection("primary", text)
        wait_for(lambda: _noticed(tray_daemon, text), 10, "the selection noticed")  # noqa: B023
        took = tray_daemon.status()["preparing_chars"] == len(text)
        took_over += took
        first, _ = _press_and_hear(tray_daemon, desktop, recorder, stop_after=0.8)
        assert first["last"]["prepared"] and first["last_text"] == text
        time.sleep(1.0)
        again, heard = _press_and_hear(tray_daemon, desktop, recorder)
        print(f"\nrepeat {i + 1}: prepared {again['last']['prepared']}, heard {heard!r}")
        assert again["last"]["prepared"], "the repeated press was cold"
        assert again["prepared_chars"] == len(text)
        assert word_recall(text, heard) >= 0.5, heard
        if took:
            break
    print(f"pressed during the preparation {took_over} of {i + 1} times")
    assert took_over >= 1, "never pressed while preparing: the takeover was not exercised"
