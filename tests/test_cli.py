"""The command line as a user meets it: what the commands print, where it cannot be
written (one clear line and a failing exit code for a full disk, nothing at all for a
reader that went away, `| head`)."""

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
