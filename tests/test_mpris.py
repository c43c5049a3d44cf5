"""The MPRIS player's rules in memory: which action a method asks for, what the properties say."""

from __future__ import annotations

import pytest

from tray_reader.mpris import NO_TRACK, NowPlaying, SentenceText, action_for, player_properties
from tray_reader.states import AppState


@pytest.mark.parametrize(
    ("method", "state", "action"),
    [
        ("PlayPause", AppState.SPEAKING, "toggle"),
        ("PlayPause", AppState.PAUSED, "resume"),
        ("PlayPause", AppState.IDLE, "read"),
        ("Play", AppState.SPEAKING, None),
        ("Play", AppState.PAUSED, "resume"),
        ("Play", AppState.IDLE, "read"),
        ("Pause", AppState.SPEAKING, "toggle"),
        ("Pause", AppState.PAUSED, None),
        ("Pause", AppState.IDLE, None),
        ("Stop", AppState.SPEAKING, "stop"),
        ("Next", AppState.SPEAKING, "next"),
        ("Previous", AppState.PAUSED, "prev"),
        ("Quit", AppState.IDLE, "quit"),
        ("Raise", AppState.IDLE, None),
        ("Seek", AppState.SPEAKING, None),
    ],
)
def test_methods_map_to_app_actions(method, state, action):
    assert action_for(method, state) == action


def test_properties_follow_what_is_heard():
    props = player_properties(NowPlaying(AppState.SPEAKING, "The first sentence.", 0, "af_heart", 0.8))
    assert props["PlaybackStatus"] == "Playing"
    assert props["CanGoNext"] and props["CanGoPrevious"] and props["CanPause"] and props["CanPlay"]
    meta = props["Metadata"]
    assert meta["xesam:title"] == ("s", "The first sentence.")
    assert meta["xesam:artist"] == ("as", ["af_heart"])
    assert meta["mpris:trackid"][1].endswith("/sentence/0")
    assert props["Volume"] == 0.8


@pytest.mark.parametrize(
    ("state", "status", "can_play"),
    [
        (AppState.IDLE, "Stopped", True),
        (AppState.WARMING, "Stopped", False),
        (AppState.ERROR, "Stopped", False),
    ],
)
def test_nothing_heard_is_no_track(state, status, can_play):
    props = player_properties(NowPlaying(state, "", None, "af_heart"))
    assert props["PlaybackStatus"] == status and props["CanPlay"] is can_play
    assert not props["CanGoNext"] and not props["CanPause"]
    assert props["Metadata"]["mpris:trackid"] == ("o", NO_TRACK)
    assert "xesam:title" not in props["Metadata"]


def test_sentence_text_counts_only_readable_sentences():
    text = "One here.  ... \n\nTwo, on\na new line! Three?"
    find = SentenceText()
    assert [find(text, i) for i in range(4)] == ["One here.", "Two, on a new line!", "Three?", ""]
    assert find("Other text.", 0) == "Other text."
