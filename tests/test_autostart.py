"""Per-user autostart: the entry each platform reads at login, and `tray-reader autostart`."""

from __future__ import annotations

import plistlib
import subprocess
from pathlib import Path

import pytest

from tray_reader import autostart, cli
from tray_reader.errors import AutostartError


def test_xdg_entry_follows_xdg_config_home(tmp_path):
    entry = autostart.entry_for("linux", {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}, tmp_path / "home")
    assert entry.path == tmp_path / "cfg" / "autostart" / "tray-reader.desktop"
    fallback = autostart.entry_for("linux", {}, tmp_path / "home")
    assert fallback.path == tmp_path / "home" / ".config" / "autostart" / "tray-reader.desktop"


def test_enable_disable_round_trip(tmp_path):
    entry = autostart.entry_for("linux", {"XDG_CONFIG_HOME": str(tmp_path)}, tmp_path)
    assert not autostart.is_enabled(entry)
    assert autostart.enable(["/opt/tr/bin/tray-reader", "run"], entry) == entry.path
    assert autostart.is_enabled(entry)
    assert "Exec=/opt/tr/bin/tray-reader run\n" in entry.path.read_text()
    autostart.disable(entry)
    assert not autostart.is_enabled(entry)
    autostart.disable(entry)  # already off: no error
    assert not entry.path.exists()


def test_xdg_entry_is_valid_and_quotes_awkward_paths(tmp_path):
    odd = str(tmp_path / 'my "apps" $HOME 100%' / "bin" / "tray-reader")
    command = [odd, "run", "--settings", "/tmp/a b\\c.toml"]
    entry = autostart.entry_for("linux", {"XDG_CONFIG_HOME": str(tmp_path)}, tmp_path)
    autostart.enable(command, entry)
    done = subprocess.run(["desktop-file-validate", str(entry.path)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
    # Read Exec= back as desktops do (GLib's key file, then its argv split, then the
    # field code %% -> %): the exact arguments must come back.
    glib = pytest.importorskip("gi.repository.GLib")
    keys = glib.KeyFile()
    keys.load_from_file(str(entry.path), glib.KeyFileFlags.NONE)
    argv = glib.shell_parse_argv(keys.get_string("Desktop Entry", "Exec"))[1]
    assert [a.replace("%%", "%") for a in argv] == command


def test_launch_agent_plist(tmp_path):
    entry = autostart.entry_for("darwin", {}, tmp_path)
    assert entry.path == tmp_path / "Library" / "LaunchAgents" / "io.github.tray-reader.plist"
    autostart.enable(["/Users/me/tr/bin/tray-reader", "run"], entry)
    agent = plistlib.loads(entry.path.read_bytes())
    assert agent["Label"] == autostart.LAUNCH_AGENT_LABEL
    assert agent["ProgramArguments"] == ["/Users/me/tr/bin/tray-reader", "run"]
    assert agent["RunAtLoad"] is True
    assert agent["StandardErrorPath"] == str(tmp_path / "Library" / "Logs" / "tray-reader.log")


def test_windows_startup_shortcut_goes_through_the_writer(tmp_path):
    entry = autostart.entry_for("win32", {"APPDATA": str(tmp_path)}, tmp_path / "home")
    startup = tmp_path / "Microsoft" / "Windows" / "Start Menu" / "Programs" / "Startup"
    assert entry.path == startup / "tray-reader.lnk"
    calls = []

    def fake_writer(link: Path, command):
        calls.append((link, list(command)))
        link.parent.mkdir(parents=True)
        link.write_bytes(b"L\0\0\0")

    entry.make_shortcut = fake_writer
    command = [r"C:\Users\me\AppData\Local\tray-reader\venv\Scripts\pythonw.exe", "-m", "tray_reader.cli"]
    autostart.enable(command, entry)
    assert calls == [(entry.path, command)]
    assert autostart.is_enabled(entry)
    autostart.disable(entry)
    assert not autostart.is_enabled(entry)


def test_default_command_prefers_the_console_script_beside_python(tmp_path):
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.touch()
    assert autostart.default_command("linux", str(python)) == [str(python), "-m", "tray_reader.cli", "run"]
    (tmp_path / "bin" / "tray-reader").touch()
    assert autostart.default_command("linux", str(python)) == [str(tmp_path / "bin" / "tray-reader"), "run"]
    exe = tmp_path / "Scripts" / "python.exe"
    exe.parent.mkdir()
    exe.touch()
    assert autostart.default_command("win32", str(exe))[0] == str(exe)
    (tmp_path / "Scripts" / "pythonw.exe").touch()
    assert autostart.default_command("win32", str(exe))[0] == str(tmp_path / "Scripts" / "pythonw.exe")


def test_unwritable_location_is_a_clear_error(tmp_path):
    (tmp_path / "autostart").write_text("a file where a folder should be")
    entry = autostart.entry_for("linux", {"XDG_CONFIG_HOME": str(tmp_path)}, tmp_path)
    with pytest.raises(AutostartError, match="Cannot write the autostart entry"):
        autostart.enable(["tray-reader"], entry)


def test_cli_autostart_on_status_off(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    path = tmp_path / "autostart" / "tray-reader.desktop"
    assert cli.main(["autostart", "status"]) == 0
    assert capsys.readouterr().out.startswith("autostart off")
    assert cli.main(["autostart", "on"]) == 0
    assert "run\n" in path.read_text()  # the default command starts the daemon
    assert cli.main(["autostart"]) == 0
    assert f"autostart on: {path}" in capsys.readouterr().out
    assert cli.main(["autostart", "off"]) == 0
    assert not path.exists()
    assert f"autostart off: removed {path}" in capsys.readouterr().out
    assert cli.main(["autostart", "off"]) == 0  # already off: says so, not that it removed it
    assert capsys.readouterr().out == f"autostart off: it was not on ({path})\n"


def test_cli_reports_autostart_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "autostart").write_text("not a folder")
    assert cli.main(["autostart", "on"]) == 2
    assert "Cannot write the autostart entry" in capsys.readouterr().err
