"""`tray-reader voice …` end to end, as a user runs it (subprocess, data dir in tmp_path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tray_reader import model_files
from tray_reader.speech.envelope import CEPS, EnvelopeMap

EXE = Path(sys.executable).parent / "tray-reader"


def run(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    # The settings too: `voice use` changes a voice set there.
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return subprocess.run(
        [str(EXE), *args], env=env, input=stdin, capture_output=True, text=True, timeout=600
    )


def user_voices(tmp_path: Path) -> list[str]:
    out = run(tmp_path, "voice", "list").stdout.splitlines()
    return [line[2:].split()[0] for line in out if "stock" not in line.split()[1:2]]


def test_manage_voices(tmp_path):
    r = run(tmp_path, "voice", "mix", "warm", "af_sarah:0.6", "bf_emma:0.4")
    assert r.returncode == 0, r.stderr
    assert run(tmp_path, "voice", "use", "warm").returncode == 0
    listing = run(tmp_path, "voice", "list").stdout
    assert "* warm" in listing and "af_sarah" in listing
    assert listing.splitlines()[0].startswith("* warm")  # own voices first, as in the tray
    assert run(tmp_path, "voices").stdout == listing
    exported = tmp_path / "warm.npz"
    assert run(tmp_path, "voice", "export", "warm", str(exported)).returncode == 0
    assert run(tmp_path, "voice", "import", str(exported), "--name", "copy").returncode == 0
    assert run(tmp_path, "voice", "rename", "copy", "copy2").returncode == 0
    assert user_voices(tmp_path) == ["copy2", "warm"]
    assert run(tmp_path, "voice", "remove", "copy2").returncode == 0
    assert user_voices(tmp_path) == ["warm"]
    state = json.loads((tmp_path / "data" / "tray-reader" / "state.json").read_text())
    assert state["voice"] == "warm"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["mix", "m", "af_sarah:0"], "positive"),
        (["mix", "m", "af_sarah"], "NAME:WEIGHT"),
        (["mix", "m", "nobody:1"], "Unknown voice"),
        (["mix", "../m", "af_sarah:1"], "Invalid voice name"),
        (["use", "nobody"], "Unknown voice"),
        (["remove", "af_sarah"], "stock voice"),
        (["import", "/nonexistent.npz"], "no such file"),
        (["import", "/"], "/ is a folder; give a voice file (.npz) in it."),
    ],
)
def test_errors_are_clear(tmp_path, args, message):
    r = run(tmp_path, "voice", *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_a_corrupt_voice_does_not_break_listing(tmp_path):
    assert run(tmp_path, "voice", "mix", "ok", "af_sarah:1").returncode == 0
    (tmp_path / "data" / "tray-reader" / "voices" / "broken.json").write_text("{")
    r = run(tmp_path, "voice", "list")
    assert r.returncode == 0 and "broken" in r.stderr and "ok" in r.stdout


def test_add_refuses_bad_audio_and_missing_consent(tmp_path, engine, phonemizer):
    junk = tmp_path / "junk.wav"
    junk.write_text("hello")
    r = run(tmp_path, "voice", "add", "me", str(junk), "--yes")
    assert r.returncode == 2 and "not an audio file" in r.stderr

    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.voices.render import VoiceRenderer

    renderer = VoiceRenderer(engine, TextFrontEnd(phonemizer))
    text = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background."
    audio = renderer.render(model_files.stock_pack("am_adam"), 1.0, [text, text])
    wav = tmp_path / "me.wav"
    soundfile.write(str(wav), np.concatenate([np.zeros(12000, np.float32), audio]), 24000)
    r = run(tmp_path, "voice", "add", "me", str(wav))  # stdin is not a terminal, no --yes
    assert r.returncode == 2 and "--yes" in r.stderr
    assert user_voices(tmp_path) == []

    # The recording says the text twice; the text file has it three times.
    words = tmp_path / "words.txt"
    words.write_text(" ".join([text] * 3), encoding="utf-8")
    r = run(tmp_path, "voice", "add", "me", str(wav), "--text", "x", "--text-file", str(words))
    assert r.returncode == 2 and "not allowed with" in r.stderr
    args = ["--text-file", str(words), "--yes", "--budget", "0", "--threads", "2"]
    r = run(tmp_path, "voice", "add", "me", str(wav), *args)
    assert r.returncode == 0, r.stderr
    assert "held back from the fit" in r.stdout and "nearest stock voice am_adam" in r.stdout
    n = len(text.split())
    assert f"says the first {2 * n} of the text's {3 * n} words" in r.stdout
    assert "%]" in r.stderr  # progress was shown
    info = json.loads((tmp_path / "data" / "tray-reader" / "voices" / "me.json").read_text())
    assert info["consent"] is True and info["kind"] == "enrolled"
    assert len(info["source_sha256"]) == 64 and info["scores"]["similarity"] > 0.5
    assert info["scores"]["text"]["end"] == 2 * n and info["settings"]["text_used"].startswith("The birch")
    line = next(x for x in run(tmp_path, "voice", "list").stdout.splitlines() if " me " in x)
    assert "held back from the fit" in line and "MFCC distance" in line
    out = tmp_path / "said.wav"
    r = run(tmp_path, "say", "--voice", "me", "--out", str(out), "--threads", "2", "Hello.")
    assert r.returncode == 0, r.stderr
    assert soundfile.info(str(out)).duration > 0.3


def _enrolled(
    method: str,
    settings: dict,
    fell_back: bool = False,
    cut_by_time: bool = False,
    passed_over: int = 0,
    unchecked: int = 0,
):
    from tray_reader.voices.library import VoiceInfo

    judged = {
        "fell_back": fell_back,
        "passed_over": passed_over,
        "unchecked": unchecked,
        "judged_seconds": 6.0,
        "ahs": 0.66,
        "stock_ahs": 0.75,
        "enc": 0.84,
        "stock_enc": 0.8,
    }
    search = {"random_blends": 20 - 12 * cut_by_time, "fit_steps": 54, "cut_by_time": cut_by_time}
    scores = {"nearest_stock": "af_kore", "judged": judged, "search": search}
    return VoiceInfo("me", "enrolled", "2026-12-02T00:00:00+00:00", method, scores=scores, settings=settings)


@pytest.mark.parametrize(
    ("method", "settings", "fell_back", "says"),
    [
        ("stock af_kore", {}, True, "stock voice af_kore (nothing made was closer);"),
        ("top-5 blend", {"speed": 1.0}, False, "blend of stock voices;"),
        (
            "fitted style from top-5 blend, your pitch x1.10 range x0.97 speed 0.87",
            {"speed": 0.87, "pitch": 1.1, "pitch_range": 0.97},
            False,
            "style fitted to your recording, at your pitch (x1.10, range x0.97, speed 0.87);",
        ),
        (
            "timbre of ef_dora (Spanish voice) with af_kore's prosody half",
            {"timbre": {"ef_dora": 1.0}, "prosody": {"af_kore": 1.0}},
            False,
            "timbre of ef_dora, a voice made for Spanish, with af_kore's rhythm and intonation;",
        ),
        (
            "random blend 3",
            {"timbre": {"ff_siwis": 0.6, "bf_alice": 0.4}, "prosody": {"bf_alice": 1.0}},
            False,
            "blend of stock voices and voices made for other languages;",
        ),
        (
            "stock af_kore, your pitch x0.90 range x1.20 speed 1.00",
            {"pitch": 0.9, "pitch_range": 1.2},
            False,
            "stock voice af_kore, at your pitch (x0.90, range x1.20, speed 1.00);",
        ),
        (
            "fitted style from top-5 blend, envelope mapped",
            {"envelope": EnvelopeMap(tuple(range(30)), np.zeros(30), np.eye(CEPS - 1)).to_json()},
            False,
            "style fitted to your recording, through a filter that moves its sound as yours moves;",
        ),
    ],
)
def test_voice_list_says_how_an_enrolled_voice_was_made_and_its_judged_score(
    method, settings, fell_back, says
):
    from tray_reader.voices.commands import describe

    line = describe(_enrolled(method, settings, fell_back), None)
    assert says in line
    assert "MFCC distance 0.660 vs nearest stock af_kore 0.750" in line
    assert "speaker encoder 0.84 vs 0.80" in line  # enrolled before the guard's second encoder


def test_a_stock_voice_kept_says_whether_made_voices_were_further_or_harder_to_follow():
    from tray_reader.voices.commands import made_by

    assert "(nothing made was closer)" in made_by(_enrolled("stock af_kore", {}, True))
    harder = made_by(_enrolled("stock af_kore", {}, True, passed_over=2))
    assert harder.startswith(
        "stock voice af_kore (the made voices closer to you were harder for a recogniser to follow)"
    )
    timed_out = made_by(_enrolled("stock af_kore", {}, True, passed_over=3, unchecked=5))
    assert "harder for a recogniser to follow; time ran out before the rest were checked)" in timed_out
    # A voice enrolled before the count was kept: its guard's message tells.
    older = _enrolled("stock af_kore", {}, True)
    del older.scores["judged"]["passed_over"]
    older.scores["judged"]["guard"] = "kept the nearest stock voice af_kore: the made voices closer to your "
    older.scores["judged"]["guard"] += (
        "recording were harder for a recogniser to follow: top-5 blend (word errors 0.3)"
    )
    assert "harder for a recogniser to follow" in made_by(older)
    # A made voice kept after another was passed over is not a fallback.
    kept = made_by(
        _enrolled("stock af_kore, your pitch x0.90 range x1.20 speed 1.00", {"pitch": 0.9}, passed_over=1)
    )
    assert "harder" not in kept and "nothing made" not in kept


def test_voice_list_shows_both_speaker_encoders_when_the_guard_had_two():
    from tray_reader.voices.commands import describe

    info = _enrolled("top-5 blend", {})
    info.scores["judged"].update(judge=0.77, stock_judge=0.71)
    assert "speaker encoders 0.84 and 0.77 vs 0.80 and 0.71 (higher is closer)" in describe(info, None)


def test_voice_list_says_which_words_of_the_text_were_matched():
    from tray_reader.voices.commands import describe

    info = _enrolled("top-5 blend", {})
    assert "text" not in describe(info, None)  # enrolled without one
    for said, says in [
        (
            {"first": 0, "end": 26, "words": 51, "used": True},
            "matched on the first 26 of your text's 51 words",
        ),
        (
            {"first": 13, "end": 40, "words": 51, "used": True},
            "matched on words 14 to 40 of your text's 51 words",
        ),
        ({"first": 0, "end": 51, "words": 51, "used": False}, "without your text (the recording did not say"),
    ]:
        info.scores["text"] = said
        assert f"blend of stock voices, {says}" in describe(info, None)
    # No text given: the words recognised in the recording, or none.
    del info.scores["text"]
    info.scores["heard"] = {"words": 30, "sure": 0.66, "used": True}
    assert "blend of stock voices, matched on the words recognised in your recording" in describe(info, None)
    info.scores["heard"] = {"words": 30, "sure": 0.31, "used": False}
    assert "without words to match (no text given, none recognised surely)" in describe(info, None)


def test_voice_list_says_when_a_busy_computer_cut_the_search_short():
    from tray_reader.voices.commands import describe

    assert "busy" not in describe(_enrolled("top-5 blend", {}), None)
    line = describe(_enrolled("top-5 blend", {}, cut_by_time=True), None)
    assert "blend of stock voices (search cut short by its time limit);" in line


def test_voice_record_passes_the_passage_however_far_the_reading_got(tmp_path, monkeypatch):
    """Enter stops the recording; enrolment is given the passage all the same (it finds the
    words said, voices/align.py), and the recording has what was read until then."""
    import threading
    import time

    from tray_reader.voices import commands
    from tray_reader.voices.enroll import Enroller
    from tray_reader.voices.library import VoiceLibrary
    from tray_reader.voices.record import PASSAGE, MemorySource

    calls = []

    class Recorded(Exception):
        pass

    class FakeEnroller:
        def enroll(self, library, name, recording, **kw):
            calls.append((recording, kw))
            raise Recorded

    monkeypatch.setattr(Enroller, "load", classmethod(lambda cls, **kw: FakeEnroller()))
    rate = 16_000
    t = np.arange(12 * rate) / rate
    tone = (np.sin(2 * np.pi * 140 * t) * (0.5 + 0.5 * np.sin(6 * np.pi * t)) ** 2).astype(np.float32)
    pressed = threading.Event()

    class Microphone(MemorySource):
        """Twenty times real time, with Enter pressed after 6 s of it."""

        def read(self, timeout):
            if self._pos >= 6 * rate:
                pressed.set()
            time.sleep(0.005)
            return super().read(timeout)

    lines: list[str] = []
    with pytest.raises(Recorded):
        commands.record_and_add(
            VoiceLibrary(tmp_path),
            "me",
            True,
            0,
            source=Microphone(0.3 * tone, rate),
            wait_for_enter=pressed.wait,
            out=lines.append,
            err=lambda _m: None,
        )
    ((recording, kw),) = calls
    assert kw["text"] == PASSAGE and "press Enter when you are done" in lines[0]
    assert 5.5 < recording.source_seconds < 7.5  # stopped by Enter, not the end of the source


@pytest.mark.parametrize("seconds", ["-5", "0", "1e6", "soon"])
def test_voice_record_refuses_a_length_no_enrolment_can_use(seconds, capsys):
    from tray_reader import cli

    with pytest.raises(SystemExit) as exited:
        cli.main(["voice", "record", "me", "--yes", "--seconds", seconds])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "seconds must be" in err and "from 5 to 600 seconds" in err


def test_voice_record_help_gives_the_recorders_own_longest_recording(capsys):
    from tray_reader import cli
    from tray_reader.voices.record import MAX_SECONDS

    with pytest.raises(SystemExit):
        cli.main(["voice", "record", "--help"])
    assert f"(default {MAX_SECONDS:g})" in " ".join(capsys.readouterr().out.split())


def test_importing_a_voice_whose_name_is_taken_says_how_to_keep_both(tmp_path):
    assert run(tmp_path, "voice", "mix", "warm", "af_sarah:0.6", "bf_emma:0.4").returncode == 0
    exported = tmp_path / "warm.npz"
    assert run(tmp_path, "voice", "export", "warm", str(exported)).returncode == 0
    again = run(tmp_path, "voice", "import", str(exported))
    assert again.returncode == 2 and "already exists" in again.stderr and "--name NEW_NAME" in again.stderr
    assert run(tmp_path, "voice", "import", str(exported), "--name", "warm2").returncode == 0
    meta = json.loads(np.load(exported)["meta"].tobytes())
    renamed = tmp_path / "renamed.npz"
    np.savez(
        renamed,
        pack=np.load(exported)["pack"],
        meta=np.frombuffer(json.dumps({**meta, "name": "a/b"}).encode(), np.uint8),
    )
    bad_name = run(tmp_path, "voice", "import", str(renamed))
    assert "Invalid voice name 'a/b'" in bad_name.stderr and "--name NEW_NAME" in bad_name.stderr
    assert run(tmp_path, "voice", "import", str(renamed), "--name", "fine").returncode == 0
    to_folder = run(tmp_path, "voice", "export", "warm", str(tmp_path))
    assert to_folder.returncode == 2 and "Traceback" not in to_folder.stderr
    assert "is a folder" in to_folder.stderr


def test_voice_add_of_a_folder_says_it_is_one(tmp_path):
    r = run(tmp_path, "voice", "add", "me", str(tmp_path), "--yes")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{tmp_path} is a folder; give a recording in it" in r.stderr


def test_voice_use_changes_the_voice_settings_toml_sets_which_comes_first(tmp_path):
    settings = tmp_path / "config" / "tray-reader" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('# my settings\nvoice = "bf_emma"\nspeed = 1.2\n')
    r = run(tmp_path, "voice", "use", "am_adam")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"default voice: am_adam (set in {settings} too)\n"
    assert settings.read_text() == '# my settings\nvoice = "am_adam"\nspeed = 1.2\n'
    settings.unlink()  # no settings file: none is written
    r = run(tmp_path, "voice", "use", "af_sky")
    assert r.stdout == "default voice: af_sky\n" and not settings.exists()


def test_voice_rename_of_the_voice_settings_toml_sets_follows_it_there(tmp_path):
    settings = tmp_path / "config" / "tray-reader" / "settings.toml"
    settings.parent.mkdir(parents=True)
    assert run(tmp_path, "voice", "mix", "warm", "af_sarah:0.6", "bf_emma:0.4").returncode == 0
    assert run(tmp_path, "voice", "mix", "cool", "am_adam:1").returncode == 0
    settings.write_text('voice = "warm"\n')
    r = run(tmp_path, "voice", "rename", "cool", "cold")  # not the settings' voice: left alone
    assert r.stdout == "renamed cool to cold\n" and settings.read_text() == 'voice = "warm"\n'
    r = run(tmp_path, "voice", "rename", "warm", "warmer")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"renamed warm to warmer (set in {settings} too)\n"
    assert settings.read_text() == 'voice = "warmer"\n'


def test_import_offers_another_name_for_any_name_the_library_refuses_whatever_its_words(
    tmp_path, monkeypatch, capsys
):
    from tray_reader import cli
    from tray_reader.errors import VoiceError, VoiceNameError
    from tray_reader.voices.library import VoiceLibrary

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    refusal: VoiceError = VoiceNameError("That name is not free.")

    def import_file(self, path, name=None):
        raise refusal

    monkeypatch.setattr(VoiceLibrary, "import_file", import_file)
    assert cli.main(["voice", "import", "warm.npz"]) == 2
    hint = " Or import it under another name: --name NEW_NAME."
    assert capsys.readouterr().err == f"tray-reader: That name is not free.{hint}\n"
    assert cli.main(["voice", "import", "warm.npz", "--name", "other"]) == 2  # a name given: no hint
    assert capsys.readouterr().err == "tray-reader: That name is not free.\n"
    refusal = VoiceError("warm.npz: damaged, though its voice already exists.")  # not about the name
    assert cli.main(["voice", "import", "warm.npz"]) == 2
    assert hint not in capsys.readouterr().err


@pytest.mark.parametrize(
    "data",
    [
        "Hello there, my friend.\n".encode("utf-8-sig"),  # as Notepad saves UTF-8
        "Hello there, my friend.\r\n".encode("utf-16"),  # Windows' "Unicode" text
        b"Hello there, my friend.\n",
    ],
    ids=["utf-8 with a byte order mark", "utf-16", "utf-8"],
)
def test_voice_add_reads_the_text_file_as_text_in_any_of_its_encodings(tmp_path, monkeypatch, data):
    from tray_reader import cli
    from tray_reader.voices import commands

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    given = []
    monkeypatch.setattr(commands, "add", lambda library, name, path, text, *rest: given.append(text))
    words = tmp_path / "words.txt"
    words.write_bytes(data)
    assert cli.main(["voice", "add", "me", "me.wav", "--text-file", str(words), "--yes"]) == 0
    assert [text.strip() for text in given] == ["Hello there, my friend."]


@pytest.mark.parametrize(
    "data, says",
    [
        (b"", "is empty: put the words the recording says in it"),
        (b" \n\t\n", "is empty: put the words the recording says in it"),
        (bytes(range(256)) * 8, "does not hold text (it looks like a binary file named .wav)"),
        (None, "is a folder; give a text file in it"),
    ],
    ids=["empty", "blank", "not text", "a folder"],
)
def test_voice_add_refuses_a_text_file_without_words_before_anything_is_loaded(tmp_path, data, says):
    words = tmp_path / "words.wav"
    if data is None:
        words.mkdir()
    else:
        words.write_bytes(data)
    r = run(tmp_path, "voice", "add", "me", str(tmp_path / "missing.wav"), "--text-file", str(words), "--yes")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"tray-reader: {words} {says}") and r.stderr.count("\n") == 1


@pytest.mark.parametrize("kind", ["a recording", "a voice's own .npy"])
def test_importing_a_file_that_is_no_exported_voice_says_what_is(tmp_path, kind):
    if kind == "a recording":
        given = tmp_path / "me.wav"
        soundfile.write(given, np.zeros(24_000, np.float32), 24_000)
    else:
        given = tmp_path / "warm.npy"
        np.save(given, model_files.stock_pack("af_sarah"))
    r = run(tmp_path, "voice", "import", str(given))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "pickle" not in r.stderr
    assert r.stderr == (
        f"tray-reader: {given} is not a tray-reader voice file (`tray-reader voice export` makes "
        f"them); to make a voice from a recording, use `tray-reader voice add NAME {given}`.\n"
    )


def test_voice_record_without_a_microphone_says_so_before_showing_the_passage(tmp_path):
    from tray_reader.errors import AudioDeviceError
    from tray_reader.voices import commands
    from tray_reader.voices.library import VoiceLibrary
    from tray_reader.voices.record import MicrophoneSource

    lines: list[str] = []
    with pytest.raises(AudioDeviceError, match="Cannot open the microphone"):
        commands.record_and_add(
            VoiceLibrary(tmp_path),
            "me",
            True,
            0,
            source=MicrophoneSource(device="no-such-microphone"),
            out=lines.append,
            err=lines.append,
        )
    assert lines == []  # the passage was not shown
    assert [v.name for v in VoiceLibrary(tmp_path).list() if v.kind != "stock"] == []
