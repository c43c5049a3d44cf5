"""Which words of a text a recording says (voices/align.py): on renders whose word timings the
model gives exactly, and on a real speaker reading known prompts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import soxr

from tray_reader import model_files
from tray_reader.speech.synthesis import chunk_timings
from tray_reader.speech.types import NEUTRAL, SAMPLE_RATE
from tray_reader.voices import align
from tray_reader.voices.record import MAX_SECONDS, PASSAGE
from tray_reader.voices.render import VoiceRenderer


def test_dtw_finds_a_stretch_read_slower_or_faster_anywhere_in_the_render():
    rng = np.random.default_rng(0)
    # A render of 400 frames whose features wander, like speech's, around their mean.
    render = np.cumsum(rng.normal(size=(400, 12)), axis=0)
    render -= render.mean(axis=0)
    for start, end, rate in [(0, 400, 1.0), (0, 250, 0.6), (120, 330, 1.7), (60, 200, 1.0)]:
        # The recording says render frames start..end, each taking 1/rate frames, plus noise.
        n = int((end - start) / rate)
        at = np.minimum(start + (np.arange(n) * rate).astype(int), end - 1)
        recording = render[at] + rng.normal(scale=0.3, size=(n, 12))
        got = align.dtw(recording, render)
        assert np.all(np.diff(got.render_frame) >= 0)
        assert abs(got.render_frame[0] - start) <= 3 and abs(got.render_frame[-1] - (end - 1)) <= 3
        assert np.abs(got.render_frame - at).max() <= 6


def test_a_recording_over_twice_as_long_as_its_render_has_no_path():
    got = align.dtw(np.ones((100, 4)), np.ones((30, 4)))
    assert got.cost == float("inf") and got.render_frame[-1] == 29


def _part(first: int, end: int, total: int, ratio: float) -> align.ReadPart:
    return align.ReadPart(first, end, total, "…", align.Alignment(np.zeros(1, np.int64), 0.1 * ratio, 0.1))


def test_what_the_user_is_told_about_the_words_found():
    assert _part(0, 51, 51, 3.0).whole and _part(0, 51, 51, 3.0).usable
    assert "first 20 of the text's 51 words; those were matched" in _part(0, 20, 51, 3.0).describe()
    assert "words 13 to 38 of" in _part(12, 38, 51, 3.0).describe()
    few = _part(0, 5, 51, 3.0)
    assert not few.usable and "too few to match by" in few.describe()
    other = _part(0, 51, 51, 7.0)
    assert not other.usable and "does not seem to say the text" in other.describe()
    assert _part(0, 5, 5, 3.0).usable  # a short text said whole


@pytest.fixture(scope="module")
def renderer(users_engine, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    return VoiceRenderer(users_engine, TextFrontEnd(phonemizer))


@pytest.fixture(scope="module")
def passage(renderer):
    """PASSAGE by af_heart, timed, as the enrolment renders it to align a recording."""
    render = align.timed_render(renderer, model_files.stock_pack("af_heart"), PASSAGE)
    assert render is not None
    return render


def test_the_passage_takes_about_30_s_and_a_slow_reading_fits_the_recorder(passage):
    """The guard judges on a third of the speech: the passage gives it about 10 s. Read at
    0.6 of af_heart's pace (about 90 words a minute) it still ends before the recorder stops."""
    seconds = len(passage.audio16k) / 16_000
    assert 25 <= seconds <= 40, seconds
    assert passage.word_ends[-1] / 0.6 < MAX_SECONDS


def speaker(renderer: VoiceRenderer, voice: str, speed: float, text: str) -> tuple[np.ndarray, np.ndarray]:
    """``text`` by another voice at another speed (the 'recording', 16 kHz), and the
    seconds at which each of its words ends, from the model's own durations."""
    pack = model_files.stock_pack(voice)
    pieces, ends, offset = [], [], 0
    gap = np.zeros(SAMPLE_RATE // 4, np.float32)
    for chunk in renderer.frontend.chunks(text):
        ids = renderer.frontend.ids(chunk.phonemes)
        part_a = renderer.engine.part_a(ids, pack, speed)
        timings = chunk_timings(part_a, ids, chunk.words, renderer.frontend.vocab)
        audio = renderer.engine.synthesize(ids, pack, speed, NEUTRAL)
        ends += [(offset + t.end) / SAMPLE_RATE for t in timings]
        pieces += [audio, gap]
        offset += len(audio) + len(gap)
    return soxr.resample(np.concatenate(pieces), SAMPLE_RATE, 16_000).astype(np.float32), np.array(ends)


@pytest.mark.parametrize(("voice", "speed"), [("bf_emma", 0.8), ("am_adam", 1.25)])
def test_alignment_finds_the_words_said_in_a_render_with_known_durations(renderer, passage, voice, speed):
    """Another voice, reading slower or faster than the render, stops after a known word
    (or starts at one): the words found are those, within one."""
    audio, ends = speaker(renderer, voice, speed, PASSAGE)
    total = len(ends)
    assert total == len(passage.word_ends) == len(PASSAGE.split())

    def cut(first: int, end: int) -> np.ndarray:
        lo = 0 if first == 0 else int((ends[first - 1] + 0.03) * 16_000)
        return audio[lo : int((ends[end - 1] + 0.05) * 16_000)]

    whole = align.read_part(audio, PASSAGE, passage)
    assert whole.whole and whole.text == PASSAGE and whole.usable
    # The first words said and the stretch of the recording that says them (the search
    # renders a bounded head of a long text, and matches the rate on that stretch).
    head, seconds = whole.head(passage.word_ends[9] + 0.01)
    assert head == PASSAGE[: passage.word_spans[9][1]] and head.endswith("they act")
    assert abs(seconds - ends[9]) < 0.15, (seconds, ends[9])
    for first, end in [(0, 20), (0, 36), (14, 40)]:
        got = align.read_part(cut(first, end), PASSAGE, passage)
        assert abs(got.first - first) <= 1 and abs(got.end - end) <= 1, (first, end, got.first, got.end)
        assert got.usable and not got.whole
        words = PASSAGE[passage.word_spans[got.first][0] : passage.word_spans[got.end - 1][1]]
        assert got.text == words


def test_of_a_long_text_only_what_the_recording_can_reach_is_rendered(renderer, passage):
    # The render itself, to the end of its first sentence (17 words).
    recording = passage.audio16k[: int((passage.word_ends[16] + 0.05) * 16_000)]
    long_text = " ".join([PASSAGE] * 20)
    before = renderer.renders
    got = align.words_said(recording, long_text, renderer, model_files.stock_pack("af_heart"))
    assert got is not None and (got.first, got.end) == (0, 17) and not got.complete
    assert renderer.renders - before < 10 and got.total < 3 * len(PASSAGE.split())  # not all 20 copies
    assert "says the first 17 of the text's words; those were matched" in got.describe()


def test_a_recording_of_other_words_is_found_not_to_say_the_text(renderer, passage):
    audio, _ = speaker(
        renderer,
        "af_sarah",
        1.0,
        "Please call Stella and ask her to bring these things with her from the store. "
        "Six spoons of fresh snow peas, five thick slabs of blue cheese, and maybe a snack.",
    )
    got = align.read_part(audio, PASSAGE, passage)
    assert got.alignment.order_ratio > align.MAX_ORDER_RATIO and not got.usable
    assert "does not seem to say the text" in got.describe()


ALLISON = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
PROMPTS = {
    # Two prompts of the Debian package asterisk-core-sounds-en-wav and their words, from
    # the package's own transcript (core-sounds-en.txt).
    "demo-abouttotry": "I am about to attempt an Inter-Asterisk Exchange connection to a demonstration "
    "server located at Digium.  In order for this to work you must already be connected to the "
    "Internet.  Please wait a moment while I attempt to make the connection.",
    "demo-nogo": "I am afraid I was unable to create a connection to the Digium demonstration "
    "Asterisk server.  You may find some helpful debugging information on the Asterisk console.",
}


@pytest.mark.skipif(not ALLISON.is_dir(), reason="needs the package asterisk-core-sounds-en-wav")
def test_a_real_speaker_is_found_saying_the_prompts_she_read(renderer):
    """A real voice through a telephone channel (8 kHz), reading two prompts: given both
    texts, recordings of the first, the second and both are found saying those words."""
    clips = []
    for name in PROMPTS:
        x, rate = sf.read(ALLISON / f"{name}.wav", dtype="float32")
        clips.append(soxr.resample(x, rate, 16_000).astype(np.float32))
    text = " ".join(PROMPTS.values())
    render = align.timed_render(renderer, model_files.stock_pack("af_heart"), text)
    assert render is not None
    starts = np.cumsum([0] + [len(align_words(renderer, t)) for t in PROMPTS.values()])
    gap = np.zeros(4_800, np.float32)
    for a, b in [(0, 1), (1, 2), (0, 2)]:
        recording = np.concatenate([p for clip in clips[a:b] for p in (clip, gap)])
        got = align.read_part(recording, text, render)
        assert abs(got.first - starts[a]) <= 1 and abs(got.end - starts[b]) <= 1, (a, b, got.first, got.end)
        assert got.usable and got.alignment.order_ratio < align.MAX_ORDER_RATIO
        assert got.text.startswith(list(PROMPTS.values())[a][:20])


def align_words(renderer: VoiceRenderer, text: str) -> list[tuple[int, int]]:
    return [w for chunk in renderer.frontend.chunks(text) for w in chunk.words]
