"""Settings: defaults file, validation messages, hotkey parsing, saving single values."""

from __future__ import annotations

import tomllib

import pytest

from tray_reader import config


def test_first_run_writes_commented_defaults_that_parse_to_the_defaults(tmp_path):
    path = tmp_path / "tray-reader" / "settings.toml"
    loaded = config.load(path)
    assert path.exists()
    assert loaded.settings == config.Settings() and loaded.problems == ()
    text = path.read_text()
    for key in (
        "voice",
        "speed",
        "volume",
        "device",
        "threads",
        "copy_and_restore",
        "fast_model",
        "prepare_selection",
        "read",
        "queue",
        "pause",
        "stop",
    ):
        assert f"# {key} = " in text, key
    # Uncommenting every line gives the same settings.
    uncommented = "\n".join(
        line[2:] if " = " in line and line.startswith("# ") else line for line in text.splitlines()
    )
    assert config.validate(tomllib.loads(uncommented)).settings == config.Settings()


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ({"speed": 3}, ["speed", "0.5", "2.0"]),
        ({"speed": "fast"}, ["speed", "0.5"]),
        ({"volume": -1}, ["volume", "0.0", "1.0"]),
        ({"threads": 2.5}, ["threads", "16"]),
        ({"threads": True}, ["threads"]),
        ({"copy_and_restore": "yes"}, ["copy_and_restore", "true or false"]),
        ({"fast_model": 1}, ["fast_model", "true or false"]),
        ({"voice": "../etc"}, ["voice", "tray-reader voices"]),
        ({"voice": 3}, ["voice", "string"]),
        ({"colour": "red"}, ["unknown key 'colour'"]),
        ({"hotkeys": "ctrl+r"}, ["hotkeys", "table"]),
        ({"hotkeys": {"read": "ctrl+alt+xx"}}, ["hotkeys.read", "'xx'", "off"]),
        ({"hotkeys": {"read": "hyper+r"}}, ["hotkeys.read", "'hyper'"]),
        ({"hotkeys": {"read": "r"}}, ["hotkeys.read", "modifiers"]),
        ({"hotkeys": {"read": "shift+r"}}, ["hotkeys.read", "shift alone"]),
        ({"hotkeys": {"jump": "ctrl+alt+j"}}, ["'jump'", "read, queue, pause, stop"]),
        ({"hotkeys": {"queue": "ctrl+alt+r"}}, ["hotkeys.queue", "already used by hotkeys.read"]),
    ],
)
def test_invalid_values_are_named_and_replaced_by_defaults(raw, names):
    loaded = config.validate(raw, "/x/settings.toml")
    assert len(loaded.problems) == 1, loaded.problems
    message = loaded.problems[0]
    assert message.startswith("/x/settings.toml: ")
    for name in names:
        assert name in message
    defaults = config.Settings()
    for key in ("speed", "volume", "threads", "copy_and_restore", "voice"):
        assert getattr(loaded.settings, key) == getattr(defaults, key)


def test_conflicting_or_invalid_hotkey_is_turned_off_and_others_stay():
    loaded = config.validate({"hotkeys": {"queue": "ctrl+alt+r", "pause": "alt+ctrl+f5"}})
    assert loaded.hotkeys == {
        "read": "<ctrl>+<alt>+r",
        "pause": "<ctrl>+<alt>+<f5>",
        "stop": "<ctrl>+<alt>+s",
        "reading_window": "<ctrl>+<alt>+w",
    }


@pytest.mark.parametrize(
    ("text", "pynput"),
    [
        ("ctrl+alt+r", "<ctrl>+<alt>+r"),
        ("Alt + Control + R", "<ctrl>+<alt>+r"),
        ("super+shift+space", "<shift>+<cmd>+<space>"),
        ("ctrl+f12", "<ctrl>+<f12>"),
        ("ctrl+alt+1", "<ctrl>+<alt>+1"),
    ],
)
def test_parse_hotkey(text, pynput):
    assert config.parse_hotkey(text) == pynput


@pytest.mark.parametrize("text", ["", "ctrl+", "ctrl+ctrl+r", "ctrl+alt+<r>", "meta+r", "ctrl+alt+enterr"])
def test_parse_hotkey_refuses(text):
    with pytest.raises(ValueError):
        config.parse_hotkey(text)


def test_broken_toml_gives_defaults_and_one_clear_message(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text('voice = "am_adam"\nspeed = [broken\n')
    loaded = config.load(path)
    assert loaded.settings == config.Settings()
    assert (
        len(loaded.problems) == 1
        and str(path) in loaded.problems[0]
        and "not valid TOML" in loaded.problems[0]
    )
    assert path.read_text().startswith('voice = "am_adam"')  # the user's file is left alone


def test_save_values_replaces_the_line_and_keeps_comments(tmp_path):
    path = tmp_path / "settings.toml"
    config.load(path)
    config.save_values(path, voice="am_adam", speed=1.25)
    config.save_values(path, speed=0.9)
    text = path.read_text()
    assert text.count("speed = ") == 1 and "speed = 0.9" in text and 'voice = "am_adam"' in text
    assert "# Speaking rate" in text
    loaded = config.load(path)
    assert loaded.settings.voice == "am_adam" and loaded.settings.speed == 0.9 and not loaded.problems


def test_a_file_saved_with_a_byte_order_mark_is_read_and_saved_as_written(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_bytes('\ufeffspeed = 1.2\r\nvoice = "bf_emma"\r\n'.encode())  # as Notepad saves it
    loaded = config.load(path)
    assert not loaded.problems
    assert loaded.settings.speed == 1.2 and loaded.settings.voice == "bf_emma"
    config.save_values(path, speed=0.9)
    again = config.load(path)
    assert not again.problems and again.settings.speed == 0.9 and again.settings.voice == "bf_emma"


def test_save_values_adds_missing_key_before_the_first_table(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text('[hotkeys]\nread = "ctrl+alt+t"\n')
    config.save_values(path, volume=0.5)
    loaded = config.load(path)
    assert loaded.settings.volume == 0.5 and loaded.hotkeys["read"] == "<ctrl>+<alt>+t"


def test_config_dir_honours_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config.settings_path() == tmp_path / "tray-reader" / "settings.toml"


def test_given_lists_only_valid_keys_from_the_file():
    loaded = config.validate({"voice": "am_adam", "speed": 7, "hotkeys": {}})
    assert loaded.given == frozenset({"voice", "hotkeys"})


@pytest.mark.parametrize("value", [7, 73, 12.5, True, "big"])
def test_reading_font_size_outside_its_range_names_the_key_and_uses_the_default(value):
    loaded = config.validate({"reading_font_size": value})
    assert loaded.settings.reading_font_size == 18
    assert any("reading_font_size" in p and "8 to 72" in p for p in loaded.problems)


def test_reading_window_settings_are_read():
    loaded = config.validate(
        {"reading_font_size": 30, "reading_high_contrast": True, "reading_on_top": False}
    )
    s = loaded.settings
    assert (s.reading_font_size, s.reading_high_contrast, s.reading_on_top) == (30, True, False)
    assert not loaded.problems
