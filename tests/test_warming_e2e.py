"""A read key pressed while the daemon is still warming: read once ready, end to end (the
tray daemon under Xvfb, the key pressed with XTEST, the audio captured from the PulseAudio
null sink and checked with the offline recogniser).

Its own module: a daemon of another module still running would hear the same key and read
the same selection over this one (tests/test_reading_e2e.py keeps one for all its tests)."""

from __future__ import annotations

import time

import pytest

from tests.asr import recognise, word_recall
from tests.fixtures_desktop import Daemon, Desktop, TimedRecorder, wait_for

pytestmark = pytest.mark.desktop


@pytest.fixture(scope="module")
def recorder(pulse):
    rec = TimedRecorder(pulse).start()
    yield rec
    rec.stop()


def test_a_key_pressed_while_warming_is_read_once_ready(desktop: Desktop, pulse, recorder, tmp_path):
    d = Daemon(desktop, pulse, tmp_path)
    text = "Pressed while warming: please bring the printed report and your notes to the meeting."
    desktop.set_selection("primary", text)
    try:
        d.start(wait_ready=False)
        # The socket answers once the keys are listened to (the app starts them first).
        st = wait_for(lambda: _status_or_none(d), 60, "the control socket")
        warming = st["state"] == "warming"
        notices = desktop.notifications()
        offset = recorder.mark()
        desktop.xdotool("key", "ctrl+alt+r")
        if warming:
            wait_for(lambda: desktop.notifications() > notices, 10, "the getting-ready notice")
        d.wait_ready(120)
        wait_for(lambda: d.status()["last_text"] == text, 30, "the press to be read")
        wait_for(lambda: recorder.first_sound_after(offset), 20, "sound")
        wait_for(lambda: d.status()["state"] == "idle", 40, "the read to end")
        time.sleep(0.3)
        heard = recognise(recorder.audio_since(offset), recorder.rate)
        print(f"\npressed while {'warming' if warming else 'ready'}; heard {heard!r}")
        assert word_recall(text, heard) >= 0.5, heard
    finally:
        d.stop()


def _status_or_none(d: Daemon):
    try:
        return d.status()
    except Exception:  # noqa: BLE001 - not listening yet
        return None
