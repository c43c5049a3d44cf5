"""Getting the selected text: order of sources, copy-and-restore, real X11 selections."""

from __future__ import annotations

import time

import pytest

from tray_reader import selection
from tray_reader.errors import SelectionError
from tray_reader.selection import DesktopSelection, MemoryClipboard


def reader(
    clip: MemoryClipboard, copy_and_restore: bool = False, has_primary: bool = True
) -> DesktopSelection:
    return DesktopSelection(clip, lambda: copy_and_restore, send_copy=clip.send_copy, has_primary=has_primary)


@pytest.mark.parametrize(
    ("primary", "clipboard", "on_copy", "copy_and_restore", "expected"),
    [
        ("selected", "clip", "copied", True, "selected"),  # PRIMARY first
        ("", "clip", None, False, "clip"),  # else the clipboard
        ("  \n", "clip", None, False, "clip"),  # blank PRIMARY counts as nothing
        ("", "clip", "copied", True, "copied"),  # copy-and-restore before the old clipboard
        ("", "clip", None, True, "clip"),  # the app did not copy: the clipboard
        ("", "", "copied", True, "copied"),
    ],
)
def test_sources_in_order(primary, clipboard, on_copy, copy_and_restore, expected):
    clip = MemoryClipboard(primary, clipboard, on_copy)
    assert reader(clip, copy_and_restore).read() == expected


def test_copy_and_restore_puts_the_previous_clipboard_back(monkeypatch):
    monkeypatch.setattr(selection, "COPY_TIMEOUT", 0.05)
    clip = MemoryClipboard("", "user's text", on_copy="the selection")
    assert reader(clip, True).read() == "the selection"
    assert clip.data["clipboard"] == "user's text"


def test_copy_and_restore_restores_even_when_sending_fails():
    clip = MemoryClipboard("", "user's text")

    def broken() -> None:
        raise SelectionError("no keyboard")

    sel = DesktopSelection(clip, lambda: True, send_copy=broken)
    with pytest.raises(SelectionError):
        sel.read()
    assert clip.data["clipboard"] == "user's text"


def test_without_primary_selection_it_is_not_read():
    clip = MemoryClipboard("stale primary", "clip")
    assert reader(clip, has_primary=False).read() == "clip"


def test_nothing_selected_says_what_to_do():
    with pytest.raises(SelectionError, match="select some text"):
        reader(MemoryClipboard()).read()


@pytest.mark.parametrize(
    ("env", "kind"),
    [
        ({"WAYLAND_DISPLAY": "wayland-0"}, "wayland"),
        ({"DISPLAY": ":1"}, "x11"),
        ({}, "none"),
        # XWayland chosen on purpose (GNOME without data-control): the X11 path.
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0", "GDK_BACKEND": "x11"}, "x11"),
        ({"WAYLAND_DISPLAY": "wayland-0", "GDK_BACKEND": "x11"}, "wayland"),
    ],
)
def test_session_type(monkeypatch, env, kind):
    for k in ("WAYLAND_DISPLAY", "DISPLAY", "XDG_SESSION_TYPE", "GDK_BACKEND"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert selection.session_type() == kind


@pytest.mark.desktop
@pytest.mark.parametrize("tool", [selection.XselClipboard, selection.XclipClipboard])
def test_real_x11_selections(desktop, monkeypatch, tool):
    monkeypatch.setenv("DISPLAY", desktop.display)
    clip = tool()
    clip.write("primary", "Primary text ünïcode")
    assert clip.read("primary") == "Primary text ünïcode"
    clip.clear("primary")
    assert clip.read("primary") == ""
    clip.write("clipboard", "clipboard text")
    assert DesktopSelection(clip, lambda: False).read() == "clipboard text"


@pytest.mark.desktop
def test_the_watcher_sees_each_new_primary_owner_and_stops(desktop, monkeypatch):
    import threading

    from tray_reader.selection_watch import watch_primary

    monkeypatch.setenv("DISPLAY", desktop.display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    seen = threading.Semaphore(0)
    stop = watch_primary(seen.release)
    assert stop is not None
    clip = selection.XselClipboard()
    try:
        for text in ("first selection", "second selection"):
            clip.write("primary", text)
            assert seen.acquire(timeout=5), text
        time.sleep(0.2)
        while seen.acquire(timeout=0):  # a program may claim PRIMARY more than once per write
            pass
        clip.write("clipboard", "not PRIMARY")  # CLIPBOARD is not watched
        assert not seen.acquire(timeout=0.5)
    finally:
        stop()
    clip.write("primary", "after stopping")
    assert not seen.acquire(timeout=0.5)


def test_no_watcher_without_x11(monkeypatch):
    from tray_reader.selection_watch import watch_primary

    monkeypatch.delenv("DISPLAY", raising=False)
    assert watch_primary(lambda: None) is None
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert watch_primary(lambda: None) is None


def test_without_keystrokes_copy_and_restore_never_runs():
    # Wayland: the setting is on, but nothing may press keys in another app.
    clip = MemoryClipboard("", "clip", on_copy="copied")
    sel = DesktopSelection(clip, lambda: True, send_copy=None)
    assert sel.read() == "clip"


class _HangingPrimary(MemoryClipboard):
    def read(self, which: str) -> str:
        if which == "primary":
            raise SelectionError("wl-paste failed: timed out after 1.0 seconds")
        return super().read(which)


def test_a_primary_that_does_not_answer_falls_back_to_the_clipboard():
    assert reader(_HangingPrimary("", "copied text")).read() == "copied text"
    with pytest.raises(SelectionError, match="could not be read .*timed out.*copy the text"):
        reader(_HangingPrimary("", "")).read()


def test_a_hanging_wl_paste_is_cut_off(monkeypatch, tmp_path):
    # A wl-paste that never answers, as on a compositor without data-control.
    fake = tmp_path / "wl-paste"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    monkeypatch.setattr(selection, "TOOL_TIMEOUT", 0.3)
    started = time.monotonic()
    with pytest.raises(SelectionError, match="wl-paste failed"):
        selection.WaylandClipboard().read("primary")
    assert time.monotonic() - started < 5
