"""`tray-reader doctor` on the user's own files: what it finds wrong in them, and the fix.

Run as the user runs it, in a process of its own: doctor starts GTK to see the tray's
backend, and GTK started here without the test desktop's display would stay unusable for
the window tests that follow in this process."""

from __future__ import annotations

import os
import subprocess
import sys


def _doctor(config_home, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_home), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    return subprocess.run(
        [sys.executable, "-m", "tray_reader.cli", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_doctor_names_a_broken_lexicon_and_what_to_do(tmp_path):
    (tmp_path / "run").mkdir(mode=0o700)
    lexicon = tmp_path / "tray-reader" / "lexicon.toml"
    lexicon.parent.mkdir()
    lexicon.write_text("[words\n")
    done = _doctor(tmp_path, tmp_path)
    assert done.returncode == 1, done
    out = done.stdout
    assert f"  lexicon problem: {lexicon}: cannot read the pronunciation lexicon: Expected ']'" in out
    assert "    fix: fix what it names (or move the file away)" in out
    lexicon.write_text('[words]\nnginx = "engine x"\n')
    out = _doctor(tmp_path, tmp_path).stdout
    assert f"  lexicon: {lexicon}: 1 word(s)\n" in out and "lexicon problem" not in out
    lexicon.unlink()  # none at all: nothing to say
    assert "lexicon" not in _doctor(tmp_path, tmp_path).stdout
