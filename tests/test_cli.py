"""The command line as a user meets it: what the commands print, where it cannot be
written (one clear line and a failing exit code for a full disk, nothing at all for a
reader that went away, `| head`), and arguments that cannot be right."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXE = Path(sys.executable).parent / "tray-reader"

PRINTING = [
    ["voices"],
    ["voice", "list"],
    ["say", "--show-text", "Hello there. And again."],
    ["autostart"],
    ["--help"],
    ["say", "--help"],
]


def run(tmp_path: Path, args: list[str], stdout: object) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return subprocess.run(
        [str(EXE), *args], env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60
    )


@pytest.mark.parametrize("args", PRINTING, ids=" ".join)
def test_output_to_a_full_disk_is_one_clear_line(tmp_path, args):
    with open("/dev/full", "w") as full:
        r = run(tmp_path, args, full)
    assert r.returncode != 0
    assert r.stderr == "tray-reader: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("args", [["voices"], ["say", "--show-text", "Hello there."]], ids=" ".join)
def test_output_to_a_closed_pipe_ends_quietly(tmp_path, args):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away before the first line, as `| head -0` does
    try:
        r = run(tmp_path, args, write_end)
    finally:
        os.close(write_end)
    assert r.stderr == ""
    assert r.returncode == 128 + 13  # as a shell reports coreutils ended by the closed pipe


@pytest.mark.parametrize(
    "args, says",
    [
        (["voice"], "voice takes 1 argument(s), got 0"),
        (["speed", "1", "2"], "speed takes 1 argument(s), got 2"),
    ],
)
def test_ctl_with_the_wrong_arguments_says_so_whether_the_daemon_runs_or_not(
    tmp_path, monkeypatch, capsys, args, says
):
    from tray_reader import cli

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # no daemon there
    assert cli.main(["ctl", *args]) == 2
    assert capsys.readouterr().err == f"tray-reader: {says}\n"


def test_ctrl_c_while_the_model_library_loads_ends_quietly(monkeypatch, capsys):
    from tray_reader import cli, speak

    def say(*args, **kwargs):
        # What onnxruntime's native module makes of a Ctrl+C during its initialisation.
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise ImportError("initialization failed") from e

    monkeypatch.setattr(speak, "say", say)
    assert cli.main(["say", "Hello."]) == 130
    assert capsys.readouterr().err == ""


def test_ctl_help_says_what_each_command_does(capsys):
    from tray_reader import cli

    with pytest.raises(SystemExit):
        cli.main(["ctl", "--help"])
    shown = capsys.readouterr().out
    assert "  toggle     pause or resume\n" in shown and "  status     the daemon's state as JSON\n" in shown
    assert "  voice      NAME: use this voice\n" in shown  # what it takes, too


@pytest.mark.parametrize("args", [[], ["run"], ["speechd-module"]], ids=repr)
def test_the_daemons_keep_the_real_stdout(monkeypatch, args):
    # Their exit guard flushes it expecting an OSError at most, never the commands' OutputError.
    from tray_reader import cli, daemon
    from tray_reader.speechd import module

    seen = []
    monkeypatch.setattr(daemon, "run_daemon", lambda settings: seen.append(sys.stdout) or 0)
    monkeypatch.setattr(module, "serve", lambda threads: seen.append(sys.stdout) or 0)
    real = sys.stdout
    assert cli.main(args) == 0
    assert seen == [real]


def test_say_without_a_sound_device_offers_writing_a_file(monkeypatch, capsys):
    from tray_reader import cli, speak
    from tray_reader.errors import AudioDeviceError

    def say(*args, **kwargs):
        raise AudioDeviceError("No audio output device was found.")

    monkeypatch.setattr(speak, "say", say)
    assert cli.main(["say", "Hello."]) == 2
    assert capsys.readouterr().err == (
        "tray-reader: No audio output device was found. Or write the speech to a file: --out speech.wav\n"
    )


def test_run_with_a_settings_folder_or_a_file_in_no_folder_says_so(tmp_path, monkeypatch, capsys):
    from tray_reader import cli, daemon

    started: list[object] = []
    monkeypatch.setattr(daemon, "run_daemon", lambda path: started.append(path) or 0)
    assert cli.main(["run", "--settings", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert cli.main(["run", "--settings", str(tmp_path / "none" / "s.toml")]) == 2
    assert "is not a directory; create it first" in capsys.readouterr().err
    assert started == []
    # A file not made yet, in a folder that is there, is the daemon's to write with the defaults.
    assert cli.main(["run", "--settings", str(tmp_path / "s.toml")]) == 0
    assert started == [tmp_path / "s.toml"]
