"""`tray-reader say` from the outside: bad input gets a clear message, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import soundfile

EXE = os.path.join(os.path.dirname(sys.executable), "tray-reader")


def run(*args: str, stdin: bytes | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], input=stdin, capture_output=True, timeout=timeout)


@pytest.mark.parametrize("text", ["", "   \n\t  "])
def test_empty_text_is_a_clear_error(text, tmp_path):
    result = run("say", "--out", str(tmp_path / "x.wav"), "-", stdin=text.encode())
    err = result.stderr.decode()
    assert result.returncode == 2
    assert "Traceback" not in err and "nothing" in err.lower()
    assert not (tmp_path / "x.wav").exists()


def test_only_unreadable_script_names_what_was_skipped(tmp_path):
    result = run("say", "--out", str(tmp_path / "x.wav"), "Привет мир 你好世界")
    err = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in err
    assert "skipped" in err.lower() and "你好世界" in err


def test_binary_junk_and_control_characters_read_what_is_readable(tmp_path):
    rng = np.random.default_rng(7)
    # binary data: control bytes and invalid UTF-8 (random printable ASCII would just be letters)
    junk = bytes(rng.choice([*range(0, 32), *range(128, 256)], 4000).astype(np.uint8))
    payload = junk + b"\x00\x07\x1b[31m Hello there, friend.\x1b[0m\r\n" + junk
    out = tmp_path / "junk.wav"
    result = run("say", "--out", str(out), "-", stdin=payload)
    assert result.returncode == 0, result.stderr.decode()
    audio, rate = soundfile.read(out, dtype="float32")
    assert rate == 24_000 and audio.size > rate // 2


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_stdin_in_unicode_with_a_byte_order_mark_is_read_as_text(encoding):
    # Windows' "Unicode" text and PowerShell's pipes are UTF-16 with a byte order mark.
    result = run("say", "--show-text", "-", stdin="Hello from Notepad.\r\nSecond line.".encode(encoding))
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().splitlines() == ["Hello from Notepad.", "Second line."]


def test_a_megabyte_of_text_streams_chunks_without_waiting_for_the_whole(tmp_path):
    sentence = "This is a long text that keeps going, sentence after sentence. "
    big = tmp_path / "big.txt"
    big.write_text(sentence * (1_000_000 // len(sentence) + 1))
    with big.open("rb") as stdin:
        proc = subprocess.Popen([EXE, "say", "--show-text", "-"], stdin=stdin, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().decode() for _ in range(50)]
        assert proc.poll() is None  # still working through the rest while the first lines are out
    finally:
        proc.stdout.close()  # a closed pipe ends it quietly (no BrokenPipe traceback)
        proc.wait(timeout=30)
    assert lines[0].split()[:4] == ["This", "is", "a", "long"]
    assert all(line.strip() for line in lines)


def test_enormous_word_does_not_break_synthesis(tmp_path):
    out = tmp_path / "long.wav"
    result = run("say", "--out", str(out), "Before " + "a" * 10_000 + " after.")
    assert result.returncode == 0, result.stderr.decode()
    assert "Traceback" not in result.stderr.decode()
    audio, _ = soundfile.read(out, dtype="float32")
    assert audio.size > 0


def test_unknown_voice_and_bad_speed_are_clear(tmp_path):
    bad_voice = run("say", "--voice", "zz_nobody", "--out", str(tmp_path / "x.wav"), "Hi.")
    assert bad_voice.returncode == 2 and "zz_nobody" in bad_voice.stderr.decode()
    assert "Traceback" not in bad_voice.stderr.decode()
    bad_speed = run("say", "--speed", "9", "Hi.")
    assert bad_speed.returncode == 2 and "0.5" in bad_speed.stderr.decode()


@pytest.mark.parametrize(
    "name, says",
    [
        ("speech", "without an extension"),
        ("speech.xyz", "cannot write .xyz; use one of .wav"),
        ("folder", "is a folder; give a file name in it"),
        ("missing/speech.wav", "is not a directory; create it first"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_any_speech_is_made(tmp_path, name, says):
    (tmp_path / "folder").mkdir()
    result = run("say", "--out", str(tmp_path / name), "Hello.", timeout=60)
    err = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in err
    assert says in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]  # nothing written, nothing made


@pytest.mark.parametrize("suffix", [".wav", ".ogg"])
def test_say_out_to_a_full_disk_is_one_clear_line(tmp_path, suffix):
    from tray_reader.export import _temporary

    out = tmp_path / f"speech{suffix}"
    _temporary(out).symlink_to("/dev/full")  # where the audio is written until it is complete
    result = run("say", "--out", str(out), "Hello there. This fills the disk.")
    assert result.returncode == 2
    assert result.stderr.decode() == f"tray-reader: cannot write {out}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_say_stops_it_cleanly_and_leaves_no_file(tmp_path):
    import signal
    import time

    from tray_reader.export import _temporary

    out = tmp_path / "book.wav"
    book = tmp_path / "book.txt"
    book.write_text("This is a long text that keeps going, sentence after sentence. " * 2000)
    # A shell runs a command in the background with SIGINT ignored, and the child would inherit
    # that (as a run of this suite started with `&` does): the child gets a terminal's default.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen([EXE, "say", "--out", str(out), "-f", str(book)], stderr=subprocess.PIPE)
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Not a timing test: the limits only stop a hung run (a loaded machine is slow to answer).
    with proc:
        try:
            deadline = time.monotonic() + 120
            while not (_temporary(out).exists() and _temporary(out).stat().st_size > 4096):
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.02)
            proc.send_signal(signal.SIGINT)  # what Ctrl+C sends
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 130 and err.decode() == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.txt"]  # nothing half-written


@pytest.mark.parametrize("suffix, kind", [(".ogg", "OGG"), (".flac", "FLAC")])
def test_say_writes_the_audio_kind_its_out_file_is_named_for(tmp_path, suffix, kind):
    out = tmp_path / f"hello{suffix}"
    result = run("say", "--out", str(out), "Hello there.")
    assert result.returncode == 0, result.stderr.decode()
    assert soundfile.info(str(out)).format == kind and soundfile.info(str(out)).frames > 0
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left


@pytest.mark.parametrize("setting, expected", [("fast_model = false\n", False), ("", True)])
def test_say_follows_the_fast_model_setting(tmp_path, monkeypatch, setting, expected):
    from tray_reader import speak

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "tray-reader").mkdir()
    (tmp_path / "tray-reader" / "settings.toml").write_text(setting)
    seen = []

    class Loaded(Exception):
        pass

    def load(threads, fast=True):
        seen.append(fast)
        raise Loaded

    monkeypatch.setattr(speak.KokoroEngine, "load", load)
    with pytest.raises(Loaded):
        speak.say("Hello.", None, None, str(tmp_path / "out.wav"), None)
    assert seen == [expected]


@pytest.mark.parametrize("command", [["say", "Hi."], ["export", "book.txt", "--out", "book.ogg"]])
@pytest.mark.parametrize("threads", ["-1", "99999", "two"])
def test_threads_out_of_range_are_refused_before_anything_starts(command, threads, capsys):
    from tray_reader import cli

    with pytest.raises(SystemExit) as exited:
        cli.main([*command, "--threads", threads])
    assert exited.value.code == 2
    assert "threads must be a whole number from 0 (automatic) to 16" in capsys.readouterr().err


@pytest.mark.parametrize(
    "setting, chosen, warned",
    [
        ('voice = "bf_emma"\n', "bf_emma", False),  # as the tray's Voice menu saves it
        ('voice = "nobody"\n', "am_adam", True),  # passed over: `voice use`'s, with a warning
        ("", "am_adam", False),
    ],
)
def test_say_speaks_in_the_settings_voice_before_the_one_voice_use_chose(
    tmp_path, monkeypatch, capsys, setting, chosen, warned
):
    from tray_reader import model_files, speak
    from tray_reader.voices.library import VoiceLibrary

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "config" / "tray-reader").mkdir(parents=True)
    (tmp_path / "config" / "tray-reader" / "settings.toml").write_text(setting)
    VoiceLibrary().use("am_adam")
    _, pack, _ = speak.one_shot_synthesizer(None, None, 1)
    assert np.array_equal(pack, model_files.stock_pack(chosen))
    assert ("voice = 'nobody': Unknown voice" in capsys.readouterr().err) == warned
    _, given, _ = speak.one_shot_synthesizer("af_sky", None, 1)  # --voice comes first
    assert np.array_equal(given, model_files.stock_pack("af_sky"))


def test_say_reads_a_document_s_parts_in_turn_and_reports_what_each_skipped(tmp_path, monkeypatch, capsys):
    import numpy as np
    import soundfile

    from tray_reader import speak
    from tray_reader.speech.types import AudioChunk

    read: list[str] = []

    class Synth:
        frontend = type("FrontEnd", (), {"last_skipped": []})()

        def stream(self, text, voice, cancel=None):
            read.append(text)
            self.frontend.last_skipped = [f"skipped in {text}"]
            yield AudioChunk(np.zeros(2400, dtype=np.float32), 0)

    monkeypatch.setattr(speak, "one_shot_synthesizer", lambda *a: (Synth(), np.zeros(1), 1.0))
    out = tmp_path / "out.wav"
    speak.say(iter(["First part.", "Second part.", "Third."]), None, None, str(out), None)
    assert read == ["First part.", "Second part.", "Third."]
    assert soundfile.info(str(out)).frames == 3 * 2400
    err = capsys.readouterr().err
    assert all(f"skipped in {part}" in err for part in read)
