"""Word timings: spans in the written text (pure), durations from part A's features (pure),
the player's view of them, and the real model's timings against its own audio."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.schedules import growing
from tray_reader import model_files
from tray_reader.audio.timeline import Timeline
from tray_reader.speech.synthesis import Synthesizer, fixed_voice
from tray_reader.speech.timings import SOUND_LEAD_FRAMES, WordTiming, token_frames, word_timings
from tray_reader.speech.types import FRAME_SAMPLES, SAMPLE_RATE, AudioChunk
from tray_reader.text.frontend import TextFrontEnd
from tray_reader.text.normalize import normalize
from tray_reader.text.spans import spoken_spans


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Hello, world.", ["Hello", "world"]),
        ("It is 42 degrees.", ["It", "is", "42", "degrees"]),
        ("Dr. Smith said (twice) \u201cno\u201d!", ["Dr", "Smith", "said", "twice", "no"]),
        ("In 1999 we met.", ["In", "1999", "1999", "we", "met"]),
    ],
)
def test_spoken_words_map_back_to_the_written_words(written, expected):
    spoken = normalize(written).split()
    spans = spoken_spans(written, spoken, start=10)
    assert [(written + " " * 10)[a - 10 : b - 10] for a, b in spans] == expected


def test_token_frames_are_the_runs_of_equal_columns():
    cols = np.array([[0, 0, 0, 1, 2, 2, 3, 3, 3, 3]], np.float32)  # 4 tokens: 3, 1, 2, 4 frames
    asr = np.repeat(cols, 4, axis=0)[None]
    assert token_frames(asr).tolist() == [3, 1, 2, 4]


def test_word_timings_skip_spaces_and_punctuation_and_count_from_the_first_frame():
    vocab = {" ": 16, ",": 3, "a": 43, "b": 44}
    ids = [43, 43, 3, 16, 44]  # "aa, b"
    frames = np.array([10, 2, 3, 4, 5, 6, 7])  # pad, a, a, comma, space, b, pad
    words = [(0, 2), (4, 5)]
    out = word_timings(ids, frames, 8, words, vocab)
    lead = SOUND_LEAD_FRAMES
    assert out == (
        WordTiming(max(0, 10 - lead - 8) * FRAME_SAMPLES, (15 - lead - 8) * FRAME_SAMPLES, (0, 2)),
        WordTiming((24 - lead - 8) * FRAME_SAMPLES, (30 - lead - 8) * FRAME_SAMPLES, (4, 5)),
    )
    # the runs do not match the ids: no timings rather than wrong ones
    assert word_timings(ids, frames[:-1], 8, words, vocab) == ()


def test_the_timeline_knows_the_word_at_a_play_position():
    tl = Timeline()
    tl.append(0, np.zeros(1000, np.float32), (WordTiming(100, 400, (0, 3)),), (0, 9))
    tl.append(0, np.zeros(1000, np.float32), (WordTiming(0, 500, (4, 9)),), (0, 9))
    tl.append(1, np.zeros(500, np.float32), (WordTiming(50, 450, (10, 14)),), (10, 15))
    assert tl.word_at(0, 50) is None
    assert tl.word_at(0, 700).span == (0, 3)  # the last word begun, in the pause after it
    assert tl.word_at(0, 1200).span == (4, 9)
    assert tl.word_at(1, 60).span == (10, 14)
    assert tl.sentence_span(1) == (10, 15)


def test_the_player_reports_the_sentence_and_word_being_heard():
    from tests.test_player import make, wait_for

    player, out = make(pace=None)

    def advance(blocks: int) -> None:
        """Play ``blocks`` 10 ms blocks, letting the feeder refill the ring between them."""
        for _ in range(blocks):
            wait_for(lambda: player.buffered >= 0.1 or player._req.timeline.ahead() == 0)
            stream.pull(1)

    words = (WordTiming(0, 4800, (0, 3)), WordTiming(9600, 14400, (4, 8)))
    try:
        first = AudioChunk(
            np.full(SAMPLE_RATE, 0.1, np.float32), 0, words=words, sentence_span=(0, 9), text="T" * 20
        )
        player.play(first)
        player.play(AudioChunk(np.full(SAMPLE_RATE // 2, 0.1, np.float32), 1, True, (), (10, 20)))
        wait_for(lambda: player.buffered >= 0.29)
        stream = out.streams[0]
        advance(30)  # 300 ms
        reading = player.reading
        assert reading is not None and reading.sentence == 0 and reading.word_span == (0, 3)
        assert reading.text == "T" * 20  # the text the spans index, from the first piece
        advance(15)  # 450 ms: the second word began at 400 ms
        assert player.reading.word_span == (4, 8)
        advance(60)  # 1050 ms: the second sentence
        reading = player.reading
        assert reading.sentence == 1 and reading.sentence_span == (10, 20) and reading.word_span is None
    finally:
        player.close()


QUIET_RUN = SAMPLE_RATE // 200
"""5 ms: what counts as a quiet stretch before a word."""


def _onsets(engine, phonemizer, text: str, voice: str) -> list[tuple[str, float]]:
    """(word, its timing's start minus where its sound starts, ms) for each word that follows
    a quiet stretch: the first rise to -30 dB of the loudest 5 ms after the last 5 ms below
    -45 dB. The same windows on every machine and run (`growing`): where they fall moves the
    near-silence before a read's first word by a few dB, and whether it is measured."""
    engine = dataclasses.replace(engine, schedule=growing(engine.plan))
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    pos, marks, pieces = 0, [], []
    for c in synth.stream(text, fixed_voice(model_files.stock_pack(voice))):
        marks += [(pos + w.start, text[w.span[0] : w.span[1]]) for w in c.words]
        pos += c.samples.size
        pieces.append(c.samples)
    audio = np.concatenate(pieces)
    env = np.sqrt(np.convolve(audio**2, np.ones(120) / 120, "same"))
    db = 20 * np.log10(env / env.max() + 1e-9)
    found = []
    window = SAMPLE_RATE // 10
    for start, word in marks:
        lo = max(0, start - window)
        seg = db[lo : start + window]
        quiet = seg[: start - lo + window // 5] < -45
        # The last 5 ms all below -45 dB (a dip of a sample or two, where chunks join or the
        # envelope crosses zero, is no pause).
        run = np.convolve(quiet, np.ones(QUIET_RUN, int), "valid") == QUIET_RUN
        if not run.any():
            continue  # no pause before this word
        end = np.flatnonzero(run)[-1] + QUIET_RUN - 1
        rise = np.flatnonzero(seg[end:] > -30)
        if len(rise):
            found.append((word, (start - (lo + end + rise[0])) * 1000 / SAMPLE_RATE))
    return found


@pytest.mark.parametrize(
    ("text", "voice"),
    [
        ("Olive, amber, ivory, emerald, and indigo.", "af_heart"),
        ("Lemons, melons, and mangoes; now, a question.", "af_heart"),
        ("Monday. Tuesday, Wednesday. Thursday.", "am_michael"),
    ],
)
def test_word_starts_match_where_their_speech_starts(engine, phonemizer, text, voice):
    found = _onsets(engine, phonemizer, text, voice)
    assert len(found) >= 3, found  # the words after pauses were measured
    words = [w for w, _ in found]
    assert all(w in text for w in words) and words == sorted(words, key=text.index)
    assert all(abs(ms) <= 30 for _, ms in found), found


def test_every_spoken_word_has_a_timing_in_order(engine, phonemizer):
    text = "It cost $5.50 in 1999, said Dr. Jones.\n\nA second paragraph follows."
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    pos, timings = 0, []
    chunks = list(synth.stream(text, fixed_voice(model_files.stock_pack("af_heart"))))
    assert chunks[0].text == text and all(c.text is None for c in chunks[1:])
    for c in chunks:
        timings += [WordTiming(pos + w.start, pos + w.end, w.span) for w in c.words]
        pos += c.samples.size
        if c.words:
            assert c.sentence_span is not None
            assert all(c.sentence_span[0] <= w.span[0] <= w.span[1] <= c.sentence_span[1] for w in c.words)
    written = [text[a:b] for a, b in dict.fromkeys(t.span for t in timings)]
    assert written == [
        "It",
        "cost",
        "$5.50",
        "in",
        "1999",
        "said",
        "Dr",
        "Jones",
        "A",
        "second",
        "paragraph",
        "follows",
    ]
    starts = [t.start for t in timings]
    assert starts == sorted(starts) and all(t.end > t.start for t in timings)
    assert timings[-1].end <= pos
