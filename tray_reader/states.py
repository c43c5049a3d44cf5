"""The daemon's state as the user sees it (tray icon, `ctl status`); values cross the edges only."""

from __future__ import annotations

import enum


class AppState(enum.Enum):
    WARMING = "warming"  # the model is loading; hotkeys are answered with a notice
    IDLE = "idle"  # ready, nothing playing
    SPEAKING = "speaking"  # reading aloud
    PAUSED = "paused"  # playback paused; resume continues where it stopped
    ERROR = "error"  # the model failed to load; see `status` / doctor
