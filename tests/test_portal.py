"""The shortcuts portal's rules in memory: triggers, the shortcut list, the by-hand hints."""

from __future__ import annotations

import pytest

from tray_reader.portal import DESCRIPTIONS, manual_binding_hint, portal_trigger, shortcuts_for


@pytest.mark.parametrize(
    ("combo", "trigger"),
    [
        ("<ctrl>+<alt>+r", "CTRL+ALT+r"),
        ("<ctrl>+<shift>+<f5>", "CTRL+SHIFT+F5"),
        ("<cmd>+<print_screen>", "LOGO+Print"),
        ("<alt>+<space>", "ALT+space"),
    ],
)
def test_pynput_hotkeys_become_portal_triggers(combo, trigger):
    assert portal_trigger(combo) == trigger


def test_every_action_is_offered_with_a_description_and_hotkeys_keep_their_keys():
    shortcuts = dict(shortcuts_for({"read": "<ctrl>+<alt>+r", "pause": "<ctrl>+<alt>+p"}))
    assert set(shortcuts) == {"read", "pause", "next", "prev"}  # queue and stop are off
    assert shortcuts["read"] == {"description": DESCRIPTIONS["read"], "preferred_trigger": "CTRL+ALT+r"}
    assert "preferred_trigger" not in shortcuts["next"]


@pytest.mark.parametrize(
    ("desktop", "says"),
    [
        ("GNOME", "Custom Shortcuts"),
        ("ubuntu:GNOME", "Custom Shortcuts"),
        ("KDE", "System Settings"),
        ("sway", "bindsym Ctrl+Alt+r exec tray-reader ctl read"),
        ("Hyprland", "hyprland.conf"),
        ("", "keyboard settings"),
    ],
)
def test_the_hint_says_how_to_bind_ctl_read_on_this_desktop(desktop, says):
    hint = manual_binding_hint(desktop)
    assert says in hint and "ctl read" in hint
