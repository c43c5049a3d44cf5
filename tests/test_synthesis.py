"""Joining pieces into a click-free stream (pure) and the real pipeline end to end."""

from __future__ import annotations

import dataclasses
import math
import threading
import time

import numpy as np
import pytest

from tests.fixtures_audio import silences
from tests.schedules import growing
from tray_reader import model_files
from tray_reader.speech import synthesis
from tray_reader.speech.synthesis import (
    EDGE_FADE,
    LEAD_IN_KEEP,
    LEAD_IN_LEVEL,
    PREPARED_FIRST_CHARS,
    PREPARED_SECONDS,
    SPLICE_FADE,
    Synthesizer,
    chunk_timings,
    faded_pieces,
    fixed_voice,
    without_lead_in,
)
from tray_reader.speech.timings import WordTiming
from tray_reader.speech.types import FRAME_SAMPLES, AudioChunk, Prosody
from tray_reader.text.frontend import TextFrontEnd


def test_faded_pieces_keeps_every_sample_and_fades_both_edges():
    pieces = [np.ones(1000, np.float32), np.ones(7, np.float32), np.ones(500, np.float32)]
    out = np.concatenate(list(faded_pieces(iter(pieces))))
    assert out.size == 1507
    assert out[0] == 0.0 and out[-1] < 0.01
    # the middle is untouched: pieces join without a dip
    assert np.all(out[EDGE_FADE:-EDGE_FADE] == 1.0)
    assert np.max(np.abs(np.diff(out))) < 0.05


def test_faded_pieces_handles_tiny_and_empty_pieces():
    out = list(faded_pieces(iter([np.ones(3, np.float32), np.zeros(0, np.float32)])))
    assert sum(p.size for p in out) == 3
    assert list(faded_pieces(iter([]))) == []


def test_a_reads_silent_lead_in_is_cut_up_to_its_first_sound_with_the_word_timings():
    sound = 0.3 * np.cos(np.arange(2400, dtype=np.float32) * 0.2)
    samples = np.concatenate([np.full(1200, 1e-4, np.float32), sound])  # 50 ms of hiss first
    words = (WordTiming(960, 2000, (0, 5)), WordTiming(2000, 3600, (6, 9)))
    out = without_lead_in(AudioChunk(samples, 0, words=words))
    cut = 1200 - LEAD_IN_KEEP
    assert out.samples.size == samples.size - cut
    assert np.array_equal(out.samples[LEAD_IN_KEEP:], sound)  # the sound itself is whole
    assert out.samples[0] == 0.0 and np.max(np.abs(out.samples[:LEAD_IN_KEEP])) <= 1e-4  # faded, no click
    assert [(w.start, w.end) for w in out.words] == [(0, 2000 - cut), (2000 - cut, 3600 - cut)]
    # Sound at once, or no sound at all: nothing to cut.
    for kept in (sound, np.zeros(500, np.float32)):
        piece = AudioChunk(kept, 0)
        assert without_lead_in(piece) is piece


def test_a_read_begins_at_its_first_sound_and_later_chunks_keep_their_timing(engine, phonemizer):
    # The same first windows every run (heard at once, the plan's: not sized by the speed).
    engine = dataclasses.replace(engine, schedule=growing(engine.plan))
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    voice = fixed_voice(model_files.stock_pack("af_heart"))
    text = "It was late. The rain had stopped."
    pieces = list(synth.stream(text, voice))
    first = np.flatnonzero(np.abs(pieces[0].samples) > LEAD_IN_LEVEL)[0]
    assert first == LEAD_IN_KEEP  # the model's own lead-in (25-55 ms) is gone
    # The second sentence's chunk starts as the model made it (its lead-in is rhythm).
    whole = list(
        synth.engine.stream(synth.frontend.ids(list(synth.frontend.chunks(text))[1].phonemes), *voice())
    )
    later = [p for p in pieces if p.sentence == 1]
    assert later[0].samples.size >= whole[0].size - EDGE_FADE
    assert np.flatnonzero(np.abs(later[0].samples) > LEAD_IN_LEVEL)[0] > LEAD_IN_KEEP


def test_stream_yields_sentences_in_order_with_pauses(engine, phonemizer):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    chunks = list(synth.stream("One fish. Two fish.", fixed_voice(model_files.stock_pack("af_heart"))))
    sentences = [c.sentence for c in chunks]
    assert sentences == sorted(sentences) and sentences[-1] >= 1
    audio = np.concatenate([c.samples for c in chunks])
    assert 1.0 < audio.size / 24_000 < 6.0
    # every chunk boundary is smooth: no sample-to-sample jump larger than speech itself makes
    assert np.max(np.abs(np.diff(audio))) < 0.5


def test_a_sentence_cut_into_chunks_runs_on_without_a_pause(engine, phonemizer):
    # The first chunk of a read is short ("The last message is"): Kokoro ends it as an
    # utterance, in ~0.45 s of near-silence, which stopped the sentence mid-phrase.
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    text = "The last message is about green apples. Then it ends."
    chunks = list(synth.frontend.chunks(text))
    assert chunks[0].sentence == chunks[1].sentence == 0 and chunks[2].sentence == 1
    pieces = list(synth.stream(text, fixed_voice(model_files.stock_pack("af_heart"))))
    sizes = np.cumsum([p.samples.size for p in pieces])
    audio = np.concatenate([p.samples for p in pieces])

    # Where the first chunk ends and the second begins: the audio of sentence 0 holds no
    # silence as long as a comma's, then the sentence's end holds a full pause.
    first_of = [i for i, p in enumerate(pieces) if p.sentence == 1][0]
    loud = np.flatnonzero(np.abs(audio) > 0.01)
    sentence_one_end = int(sizes[first_of - 1])
    last = int(loud[loud < sentence_one_end][-1])
    assert max(silences(audio[loud[0] : last], 24_000, LEAD_IN_LEVEL, between_sounds=False)) < 0.15
    assert max(silences(audio[last:sentence_one_end], 24_000, LEAD_IN_LEVEL, between_sounds=False)) >= 0.5
    # The chunk that continues the phrase starts inside it, where the first word it says
    # begins (a new sentence's keeps the model's lead-in: test_a_read_begins_at_its_first_sound...).
    starts = [p for p in pieces if p.words]
    assert [p.sentence for p in starts] == [0, 0, 1]
    assert starts[1].words[0].start == SPLICE_FADE // 2


def _whole(synth: Synthesizer, text: str, pack: np.ndarray) -> tuple[np.ndarray, dict[str, WordTiming]]:
    """``text`` rendered as one chunk: its audio and each word's timing."""
    chunk = next(synth.frontend.chunks(text, first_chars=len(text)))
    ids = synth.frontend.ids(chunk.phonemes)
    part_a = synth.engine.part_a(ids, pack, 1.0)
    audio = np.concatenate(list(synth.engine.stream(ids, pack, 1.0, part_a=part_a)))
    timings = chunk_timings(part_a, ids, chunk.words, synth.frontend.vocab)
    return audio, {text[w.span[0] : w.span[1]]: w for w in timings}


def _word_lengths(synth: Synthesizer, text: str, pack: np.ndarray) -> dict[str, float]:
    """Each word's length (s) when ``text`` is rendered as one chunk."""
    return {word: (w.end - w.start) / 24_000 for word, w in _whole(synth, text, pack)[1].items()}


def test_the_last_words_of_a_chunk_cut_inside_a_sentence_are_said_mid_sentence(engine, phonemizer):
    # Read alone, "The last message is" (the first chunk's 32 characters) ends as an
    # utterance: "is" lengthened to half a second and falling. The chunk takes two words
    # more and hands them to the next, which is rendered after the words before it.
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    pack = model_files.stock_pack("af_heart")
    text = "The last message is about green apples. Then it ends."
    first = next(synth.frontend.chunks(text, splice=True))
    assert first.text == "The last message is about green" and first.handover == 2
    pieces = list(synth.stream(text, fixed_voice(pack)))
    heard = [(text[w.span[0] : w.span[1]], (w.end - w.start) / 24_000) for p in pieces for w in p.words]
    assert [w for w, _ in heard] == [
        "The",
        "last",
        "message",
        "is",
        "about",
        "green",
        "apples",
        "Then",
        "it",
        "ends",
    ]
    alone = _word_lengths(synth, "The last message is", pack)["is"]
    whole = _word_lengths(synth, "The last message is about green apples.", pack)["is"]
    assert alone > whole + 0.2  # what the read said before
    assert dict(heard)["is"] == pytest.approx(whole, abs=0.03)
    # The join is inside the phrase: no pause, and no step larger than speech makes.
    audio = np.concatenate([p.samples for p in pieces])
    first_of = [i for i, p in enumerate(pieces) if p.sentence == 1][0]
    sentence = audio[: sum(p.samples.size for p in pieces[:first_of])]
    # (The sentence rendered whole has its own short quiet, the closures of "about green":
    # the join may add none longer.)
    whole_audio, whole_words = _whole(synth, "The last message is about green apples.", pack)

    def longest_quiet(a: np.ndarray) -> float:
        loud = np.flatnonzero(np.abs(a) > 0.01)
        return max(silences(a[loud[0] : loud[-1]], 24_000, LEAD_IN_LEVEL, between_sounds=False))

    assert longest_quiet(sentence) <= max(0.09, longest_quiet(whole_audio) + 0.02)
    taker = next(i for i, p in enumerate(pieces) if p.words and text[slice(*p.words[0].span)] == "about")
    join = sum(p.samples.size for p in pieces[:taker])
    # (Samples may step as far as the same words rendered whole step there: "is about"
    # has a /z/ at the join.)
    at = whole_words["about"].start
    step = np.max(np.abs(np.diff(whole_audio[at - SPLICE_FADE : at + SPLICE_FADE])))
    near = audio[join - SPLICE_FADE : join + SPLICE_FADE]
    assert np.max(np.abs(np.diff(near))) < 1.5 * step


def test_cancel_stops_before_the_next_chunk(engine, phonemizer):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    cancel = threading.Event()
    stream = synth.stream(
        "First sentence here. Second one. Third one.", fixed_voice(model_files.stock_pack("af_heart")), cancel
    )
    first = next(stream)
    cancel.set()
    rest = list(stream)
    assert first.sentence == 0
    assert rest == []


class CountingEngine:
    """The real engine, counting the chunks it is asked to synthesise and the part A runs
    made ahead for it."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.chunks: list[int] = []
        self.made_ahead: list[int] = []

    def stream(
        self, ids, pack, speed, lead=0.0, part_a=None, run_options=None, start=None, end=None, after=0.0
    ):
        self.chunks.append(len(ids))
        return self.engine.stream(ids, pack, speed, lead, part_a, run_options, start, end, after)

    def start_seconds(self, ids):
        return self.engine.start_seconds(ids)

    def part_a(self, ids, pack, speed, run_options=None):
        if threading.current_thread().name.startswith("tray-reader-ahead"):  # made ahead
            self.made_ahead.append(len(ids))
        return self.engine.part_a(ids, pack, speed, run_options)

    def __getattr__(self, name):
        return getattr(self.engine, name)


TEXT = "Prepared ahead of time, the first words come at once. The rest follows as usual."


def _read_plainly(engine, phonemizer):
    """A synthesiser over a counting engine, and TEXT read once without preparing (what
    the read kept is dropped: the tests start from nothing prepared)."""
    counting = CountingEngine(engine)
    synth = Synthesizer(TextFrontEnd(phonemizer), counting)  # type: ignore[arg-type]
    voice = fixed_voice(model_files.stock_pack("af_heart"))
    plain = list(synth.stream(TEXT, voice))
    synth.prepared = None
    return counting, synth, voice, plain


def assert_same_audio_length(read: list[AudioChunk], other: list[AudioChunk]) -> None:
    """Two reads of one text hold the same audio: the same length, but for where each chunk's
    quiet tail is cut, which moves by a few milliseconds with the decoder windows (their
    audio differs slightly at the seams, and windows are sized by time)."""
    sizes = [sum(c.samples.size for c in r) for r in (read, other)]
    chunks = sum(1 for c in other if c.words)  # each chunk's first piece brings its words
    assert chunks and abs(sizes[0] - sizes[1]) <= chunks * FRAME_SAMPLES, (sizes, chunks)


def test_a_read_keeps_its_first_chunk_for_the_next_read_of_the_same_text(engine, phonemizer):
    counting, synth, voice, plain = _read_plainly(engine, phonemizer)
    chunks = len(counting.chunks)
    cancel = threading.Event()
    stream = synth.stream(TEXT, voice, cancel)
    first = next(stream)  # a cold read, stopped after its first piece
    assert not synth.served_prepared and synth.prepared_text == TEXT
    cancel.set()
    assert list(stream) == []
    again = list(synth.stream(TEXT, voice))
    assert synth.served_prepared and np.array_equal(again[0].samples, first.samples)
    assert len(counting.chunks) == 2 * chunks  # the first chunk was made once, by the first read
    assert_same_audio_length(again, plain)
    # Another text replaces it.
    list(synth.stream("Something else.", voice))
    assert synth.prepared_text == "Something else."
    # A document's later part is never read alone: what is kept stays.
    list(synth.stream("A later part.", voice, keep=False))
    assert synth.prepared_text == "Something else."


def test_a_prepared_text_starts_with_its_ready_audio_and_loses_nothing(engine, phonemizer):
    counting, synth, voice, plain = _read_plainly(engine, phonemizer)
    chunks = len(counting.chunks)
    assert chunks >= 2 and not synth.served_prepared

    assert synth.prepare(TEXT, voice)
    assert len(counting.chunks) == chunks + 1  # the first chunk only
    assert synth.prepared is not None
    # Made before the key, it is the whole first sentence (a read's own first chunk is
    # short, for the first sound's sake, and ends mid-phrase as an utterance).
    cuts = [
        synth.frontend.ids(c.phonemes) for c in synth.frontend.chunks(TEXT, first_chars=PREPARED_FIRST_CHARS)
    ]
    first_sentence = next(synth.frontend.chunks(TEXT, first_chars=PREPARED_FIRST_CHARS))
    assert first_sentence.text == "Prepared ahead of time, the first words come at once."
    assert counting.chunks[-1] == len(cuts[0]) and synth.prepared.chunks == 1
    ready = synth.prepared.pieces
    again = list(synth.stream(TEXT, voice))
    assert synth.served_prepared
    # The very pieces made ahead, first (the first from its first sound on).
    assert np.array_equal(again[0].samples, without_lead_in(ready[0]).samples)
    assert again[1 : len(ready)] == ready[1:]
    # ...and the first chunk not made again; the read goes on with the preparation's cuts:
    # nothing lost or repeated.
    assert counting.chunks[chunks:] == [len(ids) for ids in cuts]
    assert [c.sentence for c in again][-1] == [c.sentence for c in plain][-1]
    # Prepared audio stays for a second read of the same selection.
    made = len(counting.chunks)
    assert synth.prepare(TEXT, voice) and len(counting.chunks) == made


def test_a_preparation_makes_the_first_seconds_and_the_read_the_rest(engine, phonemizer):
    # A whole first sentence is 4-6 s of audio and most selections are never read: the
    # preparation stops after its first seconds and a read makes the rest as it plays.
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    voice = fixed_voice(model_files.stock_pack("af_heart"))
    text = (
        "The old lighthouse stood at the edge of the cliff for a century, and its lamp turned slowly. Then."
    )
    assert synth.prepare(text, voice)
    prepared = synth.prepared
    assert prepared is not None and prepared.chunks == 1  # the whole first sentence
    made = sum(p.samples.size for p in prepared.pieces)
    assert made >= PREPARED_SECONDS * 24_000 and prepared.rest is not None
    read = list(synth.stream(text, voice))
    assert synth.served_prepared and prepared.rest is None  # the read made the rest
    whole = sum(p.samples.size for p in prepared.pieces)
    assert whole > made + 24_000
    # All of it was played: the chunk's audio but for the silence cut before its first sound.
    heard = sum(p.samples.size for p in read if p.sentence == 0)
    assert whole - 0.1 * 24_000 < heard <= whole


def test_prepared_audio_is_not_used_for_another_text_voice_or_speed(engine, phonemizer):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    heart = model_files.stock_pack("af_heart")
    assert synth.prepare("Hello there.", fixed_voice(heart))
    for text, voice in [
        ("Hello there!", fixed_voice(heart)),
        ("Hello there.", fixed_voice(model_files.stock_pack("am_adam"))),
        ("Hello there.", fixed_voice(heart, 1.5)),
    ]:
        assert list(synth.stream(text, voice)) and not synth.served_prepared


@pytest.mark.parametrize("prosody", [Prosody(1.2, 1.0), Prosody(1.0, 1.3)])
def test_prepared_audio_is_not_used_at_another_pitch_or_range(engine, phonemizer, prosody):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    voice = fixed_voice(model_files.stock_pack("af_heart"))
    assert synth.prepare("Hello there.", voice)
    try:
        engine.use_prosody(prosody)  # an enrolled voice's pitch, or speech-dispatcher's
        assert list(synth.stream("Hello there.", voice)) and not synth.served_prepared
        assert synth.prepared is not None and synth.prepared.prosody == prosody
        assert list(synth.stream("Hello there.", voice)) and synth.served_prepared
    finally:
        engine.use_prosody(Prosody())


def test_preparing_stops_when_cancelled_and_keeps_nothing(engine, phonemizer):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    cancel = threading.Event()
    cancel.set()
    assert not synth.prepare(TEXT, fixed_voice(model_files.stock_pack("af_heart")), cancel)
    assert synth.prepared is None
    assert not synth.prepare("", fixed_voice(model_files.stock_pack("af_heart")))


def test_a_read_during_preparation_takes_over_after_the_first_piece(engine, phonemizer):
    counting, synth, voice, plain = _read_plainly(engine, phonemizer)
    chunks = len(counting.chunks)
    hurry = threading.Event()
    hurry.set()  # a read of this text is waiting
    assert synth.prepare(TEXT, voice, hurry=hurry)
    prepared = synth.prepared
    assert prepared is not None and len(prepared.pieces) == 1 and prepared.rest is not None

    # A read that stops after the first piece leaves the chunk unfinished, not broken.
    cancel = threading.Event()
    stream = synth.stream(TEXT, voice, cancel)
    assert np.array_equal(next(stream).samples, without_lead_in(prepared.pieces[0]).samples)
    cancel.set()
    assert list(stream) == []

    again = list(synth.stream(TEXT, voice))
    assert synth.served_prepared and prepared.rest is None
    # The first chunk was made once, by preparing, and the read went on with its cuts:
    # nothing lost or repeated.
    cuts = [
        synth.frontend.ids(c.phonemes) for c in synth.frontend.chunks(TEXT, first_chars=PREPARED_FIRST_CHARS)
    ]
    assert counting.chunks[chunks:] == [len(ids) for ids in cuts]
    assert np.array_equal(again[0].samples, without_lead_in(prepared.pieces[0]).samples)
    assert again[1 : len(prepared.pieces)] == prepared.pieces[1:]
    assert [c.sentence for c in again][-1] == [c.sentence for c in plain][-1]


LONGER = (
    "The first words come quickly. Then the reading goes on, sentence by sentence, while the "
    "next chunk is made on the other core. Nothing is lost or repeated on the way, and the "
    "pauses stay where the punctuation puts them."
)


def test_chunks_made_ahead_give_the_same_reading(engine, phonemizer, monkeypatch):
    counting = CountingEngine(engine)
    synth = Synthesizer(TextFrontEnd(phonemizer), counting)  # type: ignore[arg-type]
    voice = fixed_voice(model_files.stock_pack("af_heart"))
    with monkeypatch.context() as never_ahead:
        never_ahead.setattr(synthesis, "AHEAD_LEAD", math.inf)
        plain = list(synth.stream(LONGER, voice))
    assert counting.made_ahead == []
    # Always ahead, however loaded the machine (a lead of 1 s needs faster than real time).
    monkeypatch.setattr(synthesis, "AHEAD_LEAD", 0.0)
    ahead = list(synth.stream(LONGER, voice))
    assert counting.made_ahead
    # Windows are sized by time, so pieces differ; the chunks' audio does not.
    assert_same_audio_length(ahead, plain)
    assert sorted({c.sentence for c in ahead}) == sorted({c.sentence for c in plain})


def test_part_a_made_ahead_is_used_only_for_its_own_chunk_voice_and_speed(engine, phonemizer):
    frontend = TextFrontEnd(phonemizer)
    heart, michael = model_files.stock_pack("af_heart"), model_files.stock_pack("am_michael")
    ids = frontend.ids(phonemizer("A chunk made ahead."))
    other = frontend.ids(phonemizer("Another chunk."))
    made = engine.part_a(ids, heart, 1.0)
    assert made.made_for(ids, heart, 1.0)
    assert not made.made_for(other, heart, 1.0)
    assert not made.made_for(ids, michael, 1.0)
    assert not made.made_for(ids, heart, 1.2)
    engine = dataclasses.replace(engine, schedule=growing(engine.plan))  # the same windows every run
    plain = np.concatenate(list(engine.stream(ids, heart, 1.0)))
    handed = np.concatenate(list(engine.stream(ids, heart, 1.0, 0.0, made)))
    np.testing.assert_array_equal(handed, plain)
    # Handed part A for another voice: made again for the right one.
    in_michael = np.concatenate(list(engine.stream(ids, michael, 1.0)))
    mismatched = np.concatenate(list(engine.stream(ids, michael, 1.0, 0.0, made)))
    np.testing.assert_array_equal(mismatched, in_michael)


def test_a_part_a_run_stops_when_told_to(engine, phonemizer):
    # What stopping a read relies on to end the work ahead at once.
    import onnxruntime as ort

    ids = TextFrontEnd(phonemizer).ids(phonemizer("Stopped before it starts."))
    options = ort.RunOptions()
    options.terminate = True
    with pytest.raises(Exception, match="(?i)terminat"):
        engine.part_a(ids, model_files.stock_pack("af_heart"), 1.0, options)


def test_interrupt_ends_a_read_inside_a_model_run_and_keeps_the_first_chunk_whole(engine, phonemizer):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    voice = fixed_voice(model_files.stock_pack("af_heart"))
    plain = list(synth.stream(LONGER, voice))
    synth.prepared = None
    cancel = threading.Event()
    got: list = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for piece in synth.stream(LONGER, voice, cancel):
                got.append(piece)
        except BaseException as e:  # noqa: BLE001 - the test reports it
            errors.append(e)

    reader = threading.Thread(target=read)
    reader.start()
    while not any(c.sentence >= 1 for c in got):  # into a later chunk
        time.sleep(0.001)
    cancel.set()
    synth.interrupt()
    reader.join(10)
    assert not reader.is_alive() and errors == []
    again = list(synth.stream(LONGER, voice))
    assert synth.served_prepared  # the first chunk, kept whole
    assert_same_audio_length(again, plain)


def test_a_long_sentence_cut_many_times_says_every_word_once_in_order(engine, phonemizer):
    # Each chunk after a cut is rendered after the words before it (its context) and hands
    # some of its own last words on: none may be heard twice, or lost.
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    text = (
        "When the old ferry finally pulled away from the crowded harbour on that grey and windy "
        "morning in early spring the passengers who had waited for hours on the wet stones of the "
        "quay pressed against the rails to watch the town grow smaller while the gulls followed "
        "the wake and a child somewhere near the stern began to sing a song that nobody else knew."
    )
    chunks = list(synth.frontend.chunks(text, splice=True))
    assert len(chunks) >= 4 and sum(c.handover > 0 for c in chunks) >= 3
    for before, after in zip(chunks, chunks[1:], strict=False):
        if after.context:
            assert before.text.split()[-after.context :] == after.text.split()[: after.context]
    pieces = list(synth.stream(text, fixed_voice(model_files.stock_pack("af_heart"))))
    heard = [w.span for p in pieces for w in p.words]
    assert [text[a:b] for a, b in heard] == text.rstrip(".").split()
    at, starts = 0, []
    for p in pieces:
        starts += [at + w.start for w in p.words]
        at += p.samples.size
    assert starts == sorted(starts)
