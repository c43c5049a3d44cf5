"""Global hotkeys: the in-memory listener and pynput's, driven by XTEST key presses."""

from __future__ import annotations

import queue

import pytest

from tray_reader.hotkeys import MemoryHotkeys


def test_memory_hotkeys_call_back_only_bound_actions():
    got: list[str] = []
    keys = MemoryHotkeys()
    keys.start({"read": "<ctrl>+<alt>+r"}, lambda action, when: got.append(action))
    keys.press("read")
    keys.press("queue")
    keys.stop()
    keys.press("read")
    assert got == ["read"]


@pytest.mark.desktop
def test_pynput_hotkeys_fire_on_xtest_keys(desktop, monkeypatch):
    monkeypatch.setenv("DISPLAY", desktop.display)
    from tray_reader.hotkeys import PynputHotkeys

    got: queue.Queue[str] = queue.Queue()
    keys = PynputHotkeys()
    keys.start(
        {"read": "<ctrl>+<alt>+r", "stop": "<ctrl>+<alt>+<home>"}, lambda action, when: got.put(action)
    )
    try:
        desktop.xdotool("key", "ctrl+alt+r")
        assert got.get(timeout=5) == "read"
        desktop.xdotool("key", "ctrl+alt+Home")
        assert got.get(timeout=5) == "stop"
        desktop.xdotool("key", "ctrl+r")  # not bound
        with pytest.raises(queue.Empty):
            got.get(timeout=0.5)
        # Restarting with new bindings drops the old ones.
        keys.start({"queue": "<ctrl>+<alt>+q"}, lambda action, when: got.put(action))
        desktop.xdotool("key", "ctrl+alt+r")
        desktop.xdotool("key", "ctrl+alt+q")
        assert got.get(timeout=5) == "queue"
    finally:
        keys.stop()
        desktop.xdotool("key", "shift")  # pynput's listener ends at its next event
