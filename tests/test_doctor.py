"""`tray-reader doctor` on the user's own files: what it finds wrong in them, and the fix."""

from __future__ import annotations

from tray_reader import cli


def test_doctor_names_a_broken_lexicon_and_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    lexicon = tmp_path / "tray-reader" / "lexicon.toml"
    lexicon.parent.mkdir()
    lexicon.write_text("[words\n")
    assert cli.main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert f"  lexicon problem: {lexicon}: cannot read the pronunciation lexicon: Expected ']'" in out
    assert "    fix: fix what it names (or move the file away)" in out
    lexicon.write_text('[words]\nnginx = "engine x"\n')
    cli.main(["doctor"])
    out = capsys.readouterr().out
    assert f"  lexicon: {lexicon}: 1 word(s)\n" in out and "lexicon problem" not in out
    lexicon.unlink()  # none at all: nothing to say
    cli.main(["doctor"])
    assert "lexicon" not in capsys.readouterr().out
