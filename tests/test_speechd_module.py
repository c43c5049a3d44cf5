"""tray-reader's speech-dispatcher module driven over its stdin/stdout with the real model
and player (PulseAudio null sink), every command and the bad inputs of issue 20."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tests.asr import recognise, word_recall
from tests.fixtures_audio import silences
from tests.fixtures_desktop import TimedRecorder
from tests.speechd_helpers import ModuleProcess, kept_capture, last_sound, median_f0, speech_seconds

pytestmark = pytest.mark.desktop

SET_DEFAULTS = (
    "SET\npitch=0\npitch_range=0\nrate=0\nvolume=100\npunctuation_mode=none\nspelling_mode=off\n"
    "cap_let_recogn=none\nvoice=male1\nlanguage=c\nsynthesis_voice=NULL\n.\n"
)


@pytest.fixture(scope="module")
def module(pulse):
    proc = ModuleProcess(pulse.env)
    proc.send("INIT\n")
    assert proc.line(60) == "299-tray-reader: the model is loading and warming"
    assert proc.line() == "299 OK LOADED SUCCESSFULLY"
    try:
        yield proc
    finally:
        proc.close()


def speak(module: ModuleProcess, text: str, kind: str = "SPEAK") -> None:
    module.send(SET_DEFAULTS)
    assert module.until("203 OK SETTINGS RECEIVED")[0] == [
        "203 OK RECEIVING SETTINGS",
        "203 OK SETTINGS RECEIVED",
    ]
    module.send(f"{kind}\n{text}\n.\n")
    assert module.line() == "202 OK RECEIVING MESSAGE"
    assert module.line() == "200 OK SPEAKING"


def test_setup_commands(module) -> None:
    module.send("AUDIO\naudio_output_method=server\n.\n")
    assert module.until("300 MODULE ERROR")[0][0] == "207 OK RECEIVING AUDIO SETTINGS"
    module.send(
        "AUDIO\naudio_output_method=pulse\naudio_pulse_device=default\naudio_pulse_min_length=100\n.\n"
    )
    assert module.until("203 OK AUDIO INITIALIZED")[0] == [
        "207 OK RECEIVING AUDIO SETTINGS",
        "203 OK AUDIO INITIALIZED",
    ]
    module.send("LOGLEVEL\nlog_level=3\n.\n")
    assert module.until("203 OK LOGLEVEL SET")[0][0] == "207 OK RECEIVING LOGLEVEL SETTINGS"
    module.send("LIST VOICES\n")
    voices, _ = module.until("200 OK VOICE LIST SENT")
    assert "200-af_heart\ten-US\tnone" in voices and "200-bf_emma\ten-GB\tnone" in voices
    assert len(voices) >= 29  # the 28 stock voices and the end line
    module.send("LIST VOICES en GB\n")
    assert module.line() == "304 CANT LIST VOICES"


def test_speak_is_heard_with_marks_in_order(module, pulse) -> None:
    rec = TimedRecorder(pulse).start()
    try:
        speak(
            module,
            '<speak><mark name="one"/>Good morning. <mark name="two"/>The weather is fine.<mark name="three"/></speak>',
        )
        events, _ = module.until("702 END", 60)
    finally:
        rec.stop()
        audio = rec.audio_since(0)
    assert events == [
        "701 BEGIN",
        "700-one",
        "700 INDEX MARK",
        "700-two",
        "700 INDEX MARK",
        "700-three",
        "700 INDEX MARK",
        "702 END",
    ]
    heard = recognise(audio, pulse.rate)
    assert word_recall("good morning the weather is fine", heard) >= 0.6, heard


def test_a_mark_before_every_word_is_one_phrase_followed_word_by_word(module, pulse) -> None:
    # Orca puts a mark before every word. Said piece by piece, each word was an utterance
    # of its own with a sentence's pause after it, and the marks came in bursts.
    words = ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"]
    body = " ".join(f'<mark name="w{i}"/>{w}' for i, w in enumerate(words))
    rec = TimedRecorder(pulse).start()
    try:
        speak(module, f"<speak>{body}.</speak>")
        events: list[tuple[float, str]] = []
        while not events or events[-1][1] != "702 END":
            events.append(module.lines.get(timeout=60))
        time.sleep(0.2)
    finally:
        rec.stop()
    audio = rec.audio_since(0)
    marks = [(at, line[4:]) for at, line in events if line.startswith("700-")]
    assert [name for _, name in marks] == [f"w{i}" for i in range(len(words))]
    # Reported as the words are heard: spread over the sentence, one after another.
    assert marks[-1][0] - marks[0][0] > 0.4 * speech_seconds(audio, pulse.rate)
    assert max(silences(audio, pulse.rate)) < 0.25  # one phrase, no pause between words
    heard = recognise(audio, pulse.rate)
    recall = word_recall(" ".join(words), heard)
    assert recall >= 0.6, kept_capture("speechd-marks", audio, pulse.rate, heard)


def test_char_key_and_sound_icon(module, pulse) -> None:
    def capture(kind: str, text: str) -> np.ndarray:
        rec = TimedRecorder(pulse).start()
        try:
            speak(module, text, kind)
            assert module.until("702 END", 30)[0] == ["701 BEGIN", "702 END"]
            time.sleep(0.1)
        finally:
            rec.stop()
        return rec.audio_since(0)

    # The key's name is spoken. The small recogniser, on three isolated words as captured,
    # sometimes hears other words ("can try to beat"): a second capture settles it.
    heard = []
    for _ in range(2):
        heard.append(recognise(capture("KEY", "control_alt_delete"), pulse.rate))
        if {"control", "alt", "delete"} & set(heard[-1].split()):
            break
    else:
        raise AssertionError(f"the key's name was not heard: {heard}")
    char = capture("CHAR", "space")
    loud = np.flatnonzero(np.abs(char) > 0.02)
    assert loud.size and 0.2 < (loud[-1] - loud[0]) / pulse.rate < 1.5  # one short word
    icon = capture("SOUND_ICON", "message")  # no sounds of its own: silent, and it ends
    assert np.abs(icon).max() < 0.01


def test_stop_silences_and_reports(module, pulse) -> None:
    rec = TimedRecorder(pulse).start()
    try:
        speak(module, "This is a long text that a key press will interrupt after a moment. " * 5)
        assert module.line(30) == "701 BEGIN"
        offset = rec.mark()
        deadline = time.monotonic() + 30
        while rec.first_sound_after(offset) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.5)
        stopped = module.send("STOP\n")
        assert module.line() == "703 STOP"
        time.sleep(0.5)
        tail = last_sound(rec, offset)
    finally:
        rec.stop()
    assert tail is not None and tail - stopped < 0.15, f"sound {tail - stopped:.3f} s after STOP"
    module.send("STOP\n")  # nothing speaking: no event, no reply
    assert module.drain(0.3) == []


def test_pause_stops_at_the_next_mark(module) -> None:
    speak(
        module,
        '<speak>One sentence here. <mark name="a"/>Another sentence there. <mark name="b"/>A third one.</speak>',
    )
    assert module.line(30) == "701 BEGIN"
    module.send("PAUSE\n")
    events, _ = module.until("704 PAUSE", 30)
    assert events == ["700-a", "700 INDEX MARK", "704 PAUSE"]


def test_bad_input_never_kills_it(module, pulse) -> None:
    module.send("WHAT IS THIS\n")
    assert module.line() == "300 ERR UNKNOWN COMMAND"
    module.send(b"\x00\xff\xfe\x80 junk \x1b[31m\n")
    assert module.line() == "300 ERR UNKNOWN COMMAND"
    module.send("SET\nrate\n=\n.\n")
    assert module.until("302 ERROR BAD SYNTAX")[0] == ["203 OK RECEIVING SETTINGS", "302 ERROR BAD SYNTAX"]
    module.send("SET\nrate=900\n.\n")
    assert module.until("303 ERROR INVALID PARAMETER OR VALUE")[0][0] == "203 OK RECEIVING SETTINGS"
    module.send("SPEAK\n.\n")
    assert module.until("301 ERROR CANT SPEAK")[0] == ["202 OK RECEIVING MESSAGE", "301 ERROR CANT SPEAK"]
    module.send("CHAR\nab\ncd\n.\n")
    assert module.until("305 DATA MORE THAN ONE LINE")[0][0] == "202 OK RECEIVING MESSAGE"
    # Binary junk as a message: spoken as far as it is text, then it ends.
    module.send(b"SPEAK\n" + bytes(range(1, 256)).replace(b"\n", b"") + b"\n.\n")
    assert module.until("200 OK SPEAKING")[0] == ["202 OK RECEIVING MESSAGE", "200 OK SPEAKING"]
    events, _ = module.until("702 END", 60)
    assert events[0] == "701 BEGIN"
    # A megabyte of text: accepted, and stopped.
    started = time.monotonic()
    module.send(b"SPEAK\n" + b"All work and no play makes a dull reader. " * 25_000 + b"\n.\n")
    assert module.until("200 OK SPEAKING", 30)[0][-1] == "200 OK SPEAKING"
    assert module.line(30) == "701 BEGIN"
    module.send("STOP\n")
    assert module.line() == "703 STOP"
    assert time.monotonic() - started < 30
    # Still speaking after all of it.
    rec = TimedRecorder(pulse).start()
    try:
        speak(module, "Still here and talking.")
        assert module.until("702 END", 60)[0][0] == "701 BEGIN"
    finally:
        rec.stop()
        audio = rec.audio_since(0)
    heard = recognise(audio, pulse.rate)
    assert word_recall("still here and talking", heard) >= 0.5, heard
    assert module.proc.poll() is None


def test_quit_and_end_of_input(pulse) -> None:
    quitting = ModuleProcess(pulse.env)
    try:
        quitting.send("INIT\n")
        quitting.until("299 OK LOADED SUCCESSFULLY", 60)
        quitting.send("QUIT\n")
        assert quitting.line() == "210 OK QUIT"
        assert quitting.proc.wait(20) == 0
    finally:
        quitting.close()
    closing = ModuleProcess(pulse.env)
    try:
        closing.send("INIT\n")
        closing.until("299 OK LOADED SUCCESSFULLY", 60)
        assert closing.proc.stdin is not None
        closing.proc.stdin.close()
        assert closing.proc.wait(20) == 0
    finally:
        closing.close()
    never = ModuleProcess(pulse.env)
    try:
        never.send("HELLO\n")
        assert never.proc.wait(20) == 3  # not INIT first: exits like speech-dispatcher's modules
    finally:
        never.close()


def test_volume_and_pitch(module, pulse) -> None:
    def render(settings: str) -> np.ndarray:
        rec = TimedRecorder(pulse).start()
        try:
            module.send(f"SET\n{settings}\n.\n")
            module.until("203 OK SETTINGS RECEIVED")
            module.send("SPEAK\nA quiet test of the level.\n.\n")
            module.until("702 END", 60)
        finally:
            rec.stop()
            audio = rec.audio_since(0)
        return audio

    loud = render("volume=100\npitch=0")
    half = render("volume=0\npitch=0")
    mute = render("volume=-100\npitch=0")
    assert np.abs(mute).max() < 0.01
    assert 0.3 < np.percentile(np.abs(half), 99.9) / np.percentile(np.abs(loud), 99.9) < 0.7
    low = render("volume=100\npitch=-100")
    high = render("volume=100\npitch=100")
    f0 = [median_f0(a, pulse.rate) for a in (low, loud, high)]
    assert f0[0] < 0.9 * f0[1] and f0[2] > 1.1 * f0[1], f0
    for audio in (low, high):
        heard = recognise(audio, pulse.rate)
        assert word_recall("a quiet test of the level", heard) >= 0.3, heard
