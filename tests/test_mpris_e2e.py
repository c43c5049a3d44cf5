"""Media keys end to end: the daemon as an MPRIS player, driven by `playerctl` on the test
desktop's session bus, checked in `ctl status`, on the PulseAudio capture and with
`dbus-monitor` for the PropertiesChanged signals."""

from __future__ import annotations

import shutil
import subprocess
import time

import numpy as np
import pytest

from tests.fixtures_audio import _stop
from tests.fixtures_desktop import Daemon, Desktop, TimedRecorder, wait_for

pytestmark = pytest.mark.desktop

SENTENCES = [
    "First, the river rose over the old stone bridge in the night.",
    "Second, the farmers moved all of their cattle up into the green hills.",
    "Third, the children watched the water from the top of the school.",
    "Fourth, the rain stopped and the sun came out over the quiet valley.",
    "Fifth, everyone went back down to see what the flood had left behind.",
]
TEXT = " ".join(SENTENCES)


@pytest.fixture(scope="module")
def playerctl(desktop: Desktop):
    if shutil.which("playerctl") is None:
        pytest.fail("playerctl is missing: run ./dev test (installs installer/debian-test-packages.txt)")

    def run(*args: str) -> str:
        out = subprocess.run(
            ["playerctl", "--player=tray_reader", *args],
            env=desktop.env,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() if out.returncode == 0 else f"ERROR {out.returncode}: {out.stderr.strip()}"

    return run


@pytest.fixture(scope="module")
def recorder(pulse):
    rec = TimedRecorder(pulse).start()
    yield rec
    rec.stop()


def _ok(out: str) -> str:
    return "" if out.startswith("ERROR") else out


def _loud(audio: np.ndarray, rate: int) -> float:
    """Seconds of 20 ms frames with speech-like energy."""
    frame = rate // 50
    frames = audio[: len(audio) // frame * frame].reshape(-1, frame)
    return float(np.count_nonzero(np.sqrt((frames**2).mean(axis=1)) > 0.01)) / 50


def test_the_daemon_is_an_mpris_player(tray_daemon: Daemon, desktop: Desktop, playerctl):
    listed = wait_for(
        lambda: (
            "tray_reader"
            in subprocess.run(["playerctl", "-l"], env=desktop.env, capture_output=True, text=True).stdout
        ),
        10,
        "playerctl to list tray_reader",
    )
    assert listed
    assert playerctl("status") == "Stopped"
    assert playerctl("metadata", "artist") == tray_daemon.status()["voice"]


def test_media_keys_drive_the_reading(tray_daemon: Daemon, desktop: Desktop, playerctl, recorder, tmp_path):
    monitor_log = tmp_path / "monitor.log"
    with open(monitor_log, "wb") as log:
        monitor = subprocess.Popen(
            [
                "dbus-monitor",
                "--session",
                "type='signal',interface='org.freedesktop.DBus.Properties',path='/org/mpris/MediaPlayer2'",
            ],
            env=desktop.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        time.sleep(0.5)  # dbus-monitor is listening
        assert tray_daemon.cli("ctl", "read", TEXT).returncode == 0
        wait_for(lambda: playerctl("status") == "Playing", 20, "Playing")
        title = wait_for(lambda: _ok(playerctl("metadata", "title")), 10, "a title")
        assert title == SENTENCES[0], playerctl("metadata")
        assert playerctl("metadata", "artist") == "af_heart"

        assert playerctl("pause").startswith("ERROR") is False
        tray_daemon.wait_state("paused", timeout=10)
        assert playerctl("status") == "Paused"
        time.sleep(0.3)  # what was already on its way out of the sound server
        mark = recorder.mark()
        time.sleep(1.5)
        paused_sound = _loud(recorder.audio_since(mark), recorder.rate)
        print(f"\nsound while paused: {paused_sound:.2f} s")
        assert paused_sound < 0.2

        mark = recorder.mark()
        playerctl("play")
        tray_daemon.wait_state("speaking", timeout=10)
        time.sleep(1.5)
        resumed_sound = _loud(recorder.audio_since(mark), recorder.rate)
        print(f"sound after play: {resumed_sound:.2f} s")
        assert resumed_sound > 0.5

        playerctl("next")
        wait_for(lambda: playerctl("metadata", "title") == SENTENCES[1], 15, "the second sentence's title")
        playerctl("next")
        wait_for(lambda: playerctl("metadata", "title") == SENTENCES[2], 15, "the third sentence's title")
        playerctl("previous")
        wait_for(
            lambda: playerctl("metadata", "title") in (SENTENCES[1], SENTENCES[2]),
            15,
            "the title after previous",
        )
        playerctl("stop")
        tray_daemon.wait_state("idle", timeout=10)
        assert playerctl("status") == "Stopped"
        time.sleep(0.5)
    finally:
        _stop(monitor)
    seen = monitor_log.read_text(errors="replace")
    for expected in ('"PlaybackStatus"', '"Playing"', '"Paused"', '"Stopped"', '"xesam:title"', SENTENCES[1]):
        assert expected in seen, f"{expected} not among the PropertiesChanged signals:\n{seen[-3000:]}"
