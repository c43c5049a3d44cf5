"""Enrolment for real: a held-out stock voice enrols closer to itself than any remaining stock voice."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import pytest
import soxr

from tray_reader import model_files
from tray_reader.errors import EnrollmentError, VoiceError
from tray_reader.speech.types import DecoderKind
from tray_reader.voices import intelligibility, stock_profiles
from tray_reader.voices.embedder import SpeakerEmbedder, cosine
from tray_reader.voices.enroll import (
    HALF_WAY,
    MAPPED,
    Candidate,
    Enroller,
    EnrollSettings,
    _Pace,
    build_pack,
    match,
    speak16k,
)
from tray_reader.voices.library import VoiceLibrary
from tray_reader.voices.measure import ahs_distance
from tray_reader.voices.preprocess import prepare
from tray_reader.voices.render import VoiceRenderer

HELD_OUT = "bf_emma"
TEXT_A = (
    "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
    "The rainbow is a division of white light into many beautiful colours."
)
TEXT_B = "Please call Stella and ask her to bring these things with her from the store."
SEARCH_ONLY = EnrollSettings(
    budget_seconds=0.0,
    fit_seconds=0.0,
    fit_blend=False,
    match_prosody=False,
    envelope_maps=False,
    exclude=("am_adam",),
)
"""The search's first renders and the guard, no more (for the tests of what the search renders
and says; am_adam, the `adam` recording's own voice, left out)."""


@pytest.fixture(scope="module")
def enroller(users_engine, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    return Enroller(
        VoiceRenderer(users_engine, TextFrontEnd(phonemizer)),
        SpeakerEmbedder.load(),
        stock_profiles.load(),
        stock_profiles.load_other(),
    )


@pytest.fixture(scope="module")
def adam(enroller):
    """am_adam reading TEXT_A, prepared as a recording (shared: a render takes seconds)."""
    return prepare(enroller.renderer.render(model_files.stock_pack("am_adam"), 1.0, [TEXT_A]), 24_000)


def test_stock_profiles_are_shipped_and_consistent():
    p = stock_profiles.load()
    assert list(p.names) == [v.name for v in model_files.stock_voices()]
    assert p.embeddings.shape == (len(p.names), 256)
    assert np.allclose(np.linalg.norm(p.embeddings, axis=1), 1, atol=1e-4)
    female = p.f0[[n[1] == "f" for n in p.names]]
    male = p.f0[[n[1] == "m" for n in p.names]]
    assert np.median(female) > np.median(male) * 1.3  # the pitch estimate sees the obvious


def test_held_out_voice_enrols_closer_than_the_nearest_remaining_stock_voice(enroller, tmp_path):
    r = enroller.renderer
    pack = model_files.stock_pack(HELD_OUT)
    recording = prepare(r.render(pack, 1.0, [TEXT_A]), 24_000)
    progress: list[tuple[float, str]] = []
    lib = VoiceLibrary(tmp_path)
    # Counts, not the clock, end the search and the fit (the caps are far away).
    settings = EnrollSettings(
        budget_seconds=120,
        fit_seconds=120,
        total_seconds=float("inf"),
        refit_rounds=0,
        random_blends=1,
        fit_steps=3,
        half_way=0.5,
        exclude=(HELD_OUT,),
    )
    info, result = enroller.enroll(
        lib,
        "emma-like",
        recording,
        consent=True,
        text=TEXT_A,
        settings=settings,
        progress=lambda f, m: progress.append((f, m)),
    )
    assert HELD_OUT not in result.best.timbre and HELD_OUT not in result.best.prosody
    assert result.nearest_stock != HELD_OUT
    fractions = [f for f, _ in progress]
    assert fractions[-1] == 1.0 and fractions == sorted(fractions) and fractions[0] >= 0
    assert any("step 3 of 3" in m for _, m in progress)
    assert np.array_equal(lib.pack("emma-like"), result.pack)
    assert "nearest stock voice" in result.summary()
    assert (result.random_blends, result.fit_steps, result.cut_by_time) == (1, 3, False)
    assert info.scores["search"] == {"random_blends": 1, "fit_steps": 3, "cut_by_time": False}
    assert "busy" not in result.summary()
    # The nearest stock voice, the fitted style and (asked for) the style half way from the
    # search's best to it were also judged through envelope maps.
    mapped = [c for c in result.judged if c.envelope is not None]
    assert result.fitted is not None and result.fitted.pack is not None
    half = f"{result.fitted.label}{HALF_WAY}{MAPPED}"
    assert {c.label for c in mapped} >= {f"stock {result.nearest_stock}{MAPPED}", half}
    assert all(c.label.endswith(MAPPED) for c in mapped)
    start = build_pack(result.searched)
    middle = next(c for c in mapped if c.label == half).pack
    assert middle is not None and not np.array_equal(start, result.fitted.pack)
    assert np.allclose(middle, (start + result.fitted.pack) / 2, atol=1e-6)
    stored = lib.info("emma-like").envelope
    assert (stored is None) == (result.best.envelope is None)

    # Judge on words the enrolment never heard, by the encoder and by the MFCC measure.
    truth = soxr.resample(r.render(pack, 1.0, [TEXT_B]), 24_000, 16_000)
    target = enroller.embedder.embed(truth)
    nearest = Candidate("n", {result.nearest_stock: 1.0}, {result.nearest_stock: 1.0})

    def score(c: Candidate) -> tuple[float, float]:
        audio = speak16k(r, c, [TEXT_B])  # as it reads: through its envelope map, if it has one
        return cosine(enroller.embedder.embed(audio), target), ahs_distance(audio, truth)

    enc_near, ahs_near = score(nearest)
    enc_final, ahs_final = score(result.best)
    # The guard's contract: a made voice is kept only if it was clearly closer on the
    # held-back part, and then it is closer on other words too; otherwise the nearest stock
    # voice is kept and the user is told.
    assert result.verdict is not None
    judged = lib.info("emma-like").scores["judged"]
    assert judged["fell_back"] == result.fell_back and judged["kept"] == result.best.label
    assert (judged["passed_over"], judged["unchecked"]) == (
        result.verdict.passed_over,
        result.verdict.unchecked,
    )
    if result.fell_back:
        assert np.array_equal(result.pack, model_files.stock_pack(result.nearest_stock))
        assert "kept the nearest stock voice" in result.summary()
    else:
        assert result.verdict.chosen.beats(result.verdict.stock)
        assert enc_final > enc_near and ahs_final < ahs_near

    # Export and import keep the voice and what it says about itself.
    lib.export("emma-like", tmp_path / "emma.npz")
    other = VoiceLibrary(tmp_path / "other")
    back = other.import_file(tmp_path / "emma.npz")
    assert np.array_equal(other.pack("emma-like"), result.pack)
    assert back.scores == info.scores and back.method == info.method and back.kind == "enrolled"
    assert back.settings == info.settings  # its pitch, range, speed and envelope map


def test_enrolment_needs_consent_a_free_name_and_stops_on_cancel(enroller, adam, tmp_path):
    recording = adam
    lib = VoiceLibrary(tmp_path)
    with pytest.raises(EnrollmentError, match="confirmation"):
        enroller.enroll(lib, "me", recording, consent=False)
    with pytest.raises(VoiceError, match="stock voice"):
        enroller.enroll(lib, "am_adam", recording, consent=True)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(EnrollmentError, match="cancelled"):
        enroller.enroll(lib, "me", recording, consent=True, cancel=cancel)
    assert [v.name for v in lib.list() if v.kind != "stock"] == []


@pytest.fixture
def no_recogniser(monkeypatch):
    """The guard without its intelligibility check (tested in test_enroll_guard.py), to save time."""
    monkeypatch.setattr(intelligibility, "available", lambda: False)


def test_the_same_recording_gives_the_same_voice(enroller, adam, no_recogniser):
    """Counts, not the clock, end the search and the fit, so a second enrolment of one
    recording (here under the load of the first) makes the same pack."""
    recording = adam
    settings = EnrollSettings(
        budget_seconds=120,
        fit_seconds=120,
        total_seconds=float("inf"),
        fit_blend=False,
        match_pitch=False,
        random_blends=1,
        fit_steps=3,
        match_prosody=False,
        exclude=("am_adam",),
    )
    runs = [
        match(recording, enroller.renderer, enroller.embedder, enroller.profiles, None, settings)
        for _ in "ab"
    ]
    assert [(r.random_blends, r.fit_steps, r.cut_by_time) for r in runs] == [(1, 3, False)] * 2
    assert runs[0].fitted is not None and runs[1].fitted is not None
    assert np.array_equal(runs[0].fitted.pack, runs[1].fitted.pack)
    assert runs[0].best.label == runs[1].best.label and np.array_equal(runs[0].pack, runs[1].pack)
    assert runs[0].tried == runs[1].tried


def test_a_capped_search_says_so_and_a_text_read_in_part_is_matched_by_its_words_said(
    enroller, adam, no_recogniser
):
    """The recording says TEXT_A; the text given goes on with TEXT_B (a passage stopped
    early): the search renders the words said and the summary says how many."""
    settings = SEARCH_ONLY
    text = f"{TEXT_A} {TEXT_B}"
    result = match(adam, enroller.renderer, enroller.embedder, enroller.profiles, text, settings)
    assert result.random_blends == 0 and result.cut_by_time
    assert "busy" in result.summary() and "idle" in result.summary()
    said = len(TEXT_A.split())
    assert result.said is not None and result.said.first == 0 and abs(result.said.end - said) <= 1
    assert result.said.total == said + len(TEXT_B.split()) and result.said.usable
    # The search renders the start of the words said (SEARCH_SECONDS of them), never TEXT_B's.
    assert result.text is not None and TEXT_A.startswith(result.text) and len(result.text.split()) >= 20
    assert f"says the first {result.said.end} of the text's {result.said.total} words" in result.summary()
    # A text with nothing the voices can say is no text: the search renders its own sentences.
    other_script = match(
        adam, enroller.renderer, enroller.embedder, enroller.profiles, "中文的文字。", settings
    )
    assert other_script.text is None and other_script.said is None
    assert "The text given has nothing the voices can say" in other_script.summary()


def test_a_speaker_no_stock_voice_is_near_is_brought_nearer_by_another_languages_timbre(
    enroller, no_recogniser
):
    """Kokoro's Italian voice if_sara reading English: the search tries the timbres of the
    other languages' voices nearest the recording, and hers, beside the nearest stock voice's
    prosody half, sounds more like the recording to the encoder than any English voice or
    blend of them."""
    r = enroller.renderer
    recording = prepare(r.render(model_files.other_pack("if_sara"), 1.0, [TEXT_A]), 24_000)
    settings = EnrollSettings(
        budget_seconds=120,
        fit_seconds=0,
        total_seconds=float("inf"),
        refit_rounds=0,
        random_blends=0,
        match_pitch=False,
        match_rate=False,
        match_prosody=False,
        envelope_maps=False,  # the search's timbres are the point here, not the guard's maps
    )
    result = match(
        recording, r, enroller.embedder, enroller.profiles, TEXT_A, settings, others=enroller.others
    )
    tried = dict(result.tried)
    hers = [s for label, s in tried.items() if label.startswith("timbre of if_sara (Italian voice)")]
    assert len(hers) == 1
    assert sum(label.startswith("timbre of ") for label in tried) == settings.other_timbres
    english = [tried[f"stock {result.nearest_stock}"], tried["top-5 blend"]]
    assert hers[0] > max(english) + 0.02
    assert result.searched is not None and result.searched.timbre.get("if_sara", 0.0) >= 0.5
    # Her own voice left out (as the bench holds a speaker out), nothing of hers is used.
    held = match(
        recording,
        r,
        enroller.embedder,
        enroller.profiles,
        TEXT_A,
        dataclasses.replace(settings, exclude=("if_sara",)),
        others=enroller.others,
    )
    assert not any("if_sara" in label for label, _ in held.tried)
    assert held.searched is not None and "if_sara" not in held.searched.timbre


def test_fit_simplex_recovers_a_convex_combination():
    from tray_reader.voices.enroll import fit_simplex

    rng = np.random.default_rng(0)
    e = rng.normal(size=(6, 256))
    w = np.array([0.5, 0.3, 0.2, 0, 0, 0])
    got = fit_simplex(e, w @ e, iterations=3000)
    assert np.allclose(got, w, atol=0.02) and got.min() >= 0 and got.sum() == pytest.approx(1)
    outside = fit_simplex(e, 3 * e[0])  # beyond the hull: the nearest vertex
    assert np.argmax(outside) == 0 and outside.min() >= 0


def test_the_fraction_done_keeps_pace_with_the_clock_when_a_phase_runs_over_or_ends_early():
    """The progress fraction (and so the time left told from it) follows the time planned:
    a search that runs past its plan (a slow machine's first renders) counts as the time it
    took, not as its plan; a fit that ends early never sends the fraction back."""
    from tray_reader.voices.job import TimeLeft

    now = [0.0]
    pace = _Pace(EnrollSettings(), clock=lambda: now[0])
    pace.plan(10.0, 20.0, 30.0)
    left = TimeLeft(clock=lambda: now[0])
    told = []
    for t in (1.0, 5.0, 10.0, 15.0, 20.0):  # the search: 20 s against 10 planned
        now[0] = t
        told.append((pace(), left.update(pace())))
    assert told[-1][0] == pytest.approx(20.0 / 70.0)  # 20 s of 70: search as taken, fit and rest as planned
    pace.enter(1)
    now[0] = 30.0
    assert pace() == pytest.approx(30.0 / 70.0)
    assert left.update(pace()) == pytest.approx(40.0, abs=1.0)  # the plan's 70 s, less the 30 taken
    now[0] = 32.0  # the fit ends after 12 s of its 20, all its steps done
    before = pace(1.0)
    assert before == pytest.approx(40.0 / 70.0)
    pace.enter(2)
    assert pace() == before  # not back to 32/62 (the fit counted as 12 s, not 20)
    now[0] = 47.0
    assert pace() == pytest.approx(47.0 / 62.0)
    fractions = [f for f, _ in told]
    assert fractions == sorted(fractions)
    # While the search ran over, the time left stayed the fit's and the last phase's 50 s (with
    # the search weighed by its plan the fraction stalled at 10/60: 105 s told at 20 s).
    assert [round(t) for _, t in told[2:]] == [50, 50, 50]


def test_with_the_words_known_the_rate_is_matched_by_how_long_they_take(enroller):
    """A speaker who takes longer over the same words than the voice (am_michael, matched
    with am_santa; TEXT_A known): the prosody-matched voice says them in about the recording's
    speech time. (The voiced stretches per second, used when the words are not known, left
    this pair's length 16 % off.)"""
    from tray_reader.voices import guard
    from tray_reader.voices.enroll import SpeakerProsody, match_prosody, speech_seconds

    r = enroller.renderer
    recording = r.render16k(model_files.stock_pack("am_michael"), 1.0, [TEXT_A])
    said = speech_seconds(recording)
    speaker = SpeakerProsody.of(recording)
    assert speaker is not None
    base = Candidate("stock am_santa", {"am_santa": 1.0}, {"am_santa": 1.0})
    matched = match_prosody(base, speaker, r, [TEXT_A], guard.band_gain(recording), said)
    assert matched is not None and matched.speed > 1.0
    again = r.render16k(build_pack(matched), matched.speed, [TEXT_A], matched.intonation)
    assert abs(speech_seconds(again) / said - 1) < 0.05


def test_without_a_text_the_words_heard_are_matched_only_when_the_recogniser_is_sure(
    enroller, adam, monkeypatch
):
    """No text given: enrolment renders the words the recogniser hears in the recording
    when it is sure of them (am_adam reading TEXT_A), and its own sentences when it is not
    (the same recording played backwards: the same voice and channel, no English words, as
    another language is to the English model); the summary says which."""
    from tests.asr import word_recall

    settings = SEARCH_ONLY
    result = match(adam, enroller.renderer, enroller.embedder, enroller.profiles, None, settings)
    assert result.heard is not None and result.heard.sure
    assert result.text is not None and len(result.text.split()) >= 12
    # What the search renders is what was said: most of its words are TEXT_A's.
    assert word_recall(result.text, TEXT_A) >= 0.7
    assert "words were recognised in your recording" in result.summary()

    backwards = intelligibility.transcribe(adam.speech16k[::-1].copy())
    assert backwards.words >= intelligibility.MIN_HEARD_WORDS and not backwards.sure
    unsure = dataclasses.replace(result, heard=backwards, text=None, said=None)
    assert "recogniser was not sure" in unsure.summary() and "giving the text" in unsure.summary()
    none = dataclasses.replace(result, heard=None, text=None, said=None)
    monkeypatch.setattr(intelligibility, "available", lambda: False)
    assert "no recogniser is installed" in none.summary()


def test_on_a_machine_too_slow_for_the_time_allowed_the_search_is_shortened_and_the_user_told(
    enroller, adam, no_recogniser
):
    """With no time left for the search and the fit within `total_seconds` (as on a machine
    that renders speech slowly), the search gets its least time and stops before its count,
    and the summary says why; given the time, it runs to its count."""
    settings = EnrollSettings(
        total_seconds=0.0,
        fit_seconds=0.0,
        match_prosody=False,
        envelope_maps=False,  # the search's time is the point here, not the guard's maps
        refit_rounds=0,
        exclude=("am_adam",),
    )
    short = match(adam, enroller.renderer, enroller.embedder, enroller.profiles, None, settings)
    assert short.shortened and short.cut_by_time and short.random_blends < settings.random_blends
    assert "renders speech too slowly" in short.summary()
    # Run on the model's shipped decoder (no faster one built), the way to the full search is
    # building it, not a faster machine.
    assert short.decoder is enroller.renderer.engine.decoder_kind
    shipped = dataclasses.replace(short, decoder=DecoderKind.SHIPPED)
    assert "tray-reader doctor --build-fast-model" in shipped.summary()
    assert "too slowly" not in shipped.summary() and "busy" not in shipped.summary()
    roomy = dataclasses.replace(settings, total_seconds=float("inf"), budget_seconds=600.0, random_blends=1)
    full = match(adam, enroller.renderer, enroller.embedder, enroller.profiles, None, roomy)
    assert not full.shortened and not full.cut_by_time and full.random_blends == 1
    assert "slowly" not in full.summary() and "busy" not in full.summary()
    # Without the other languages' profiles, nothing but the stock voices is tried.
    assert not any(label.startswith("timbre of ") for label, _ in full.tried)
    assert full.searched is not None
    assert all(n in {v.name for v in model_files.stock_voices()} for n in full.searched.timbre)
    # Each phase's time is told (the fit did not run; the guard always does), within the whole.
    search_s, fit_s, last_s, planned = full.phase_seconds
    assert search_s > 0 and fit_s == 0 and last_s > 0 and planned > 0
    assert search_s + last_s <= full.seconds


def test_a_stock_voices_word_errors_are_kept_for_the_next_enrolment(enroller, tmp_path, monkeypatch):
    """The guard's recogniser check of the nearest stock voice is the same every time the
    same model says the same words: the first enrolment measures it and keeps it on disk, the
    next takes it without rendering; a damaged file is only a cache missed. Here the shipped
    table (tests/test_stock_checks.py) was measured under other conditions (another
    recogniser, say), so it is not used."""
    from tray_reader.voices import guard, stock_checks
    from tray_reader.voices.enroll import check_word_errors, stock_check_kept

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(stock_checks, "conditions", lambda part="check": "another recogniser")
    stock_checks.samples.cache_clear()
    try:
        r = enroller.renderer
        kind = r.engine.decoder_kind
        stock = Candidate("stock af_heart", {"af_heart": 1.0}, {"af_heart": 1.0})
        judge = r.render16k(build_pack(stock), 1.0, [guard.JUDGE_TEXT])
        assert not stock_check_kept("af_heart", kind)
        before = r.renders
        first = check_word_errors(r, stock, judge, "af_heart")
        assert first is not None and first < 0.2 and r.renders > before
        assert stock_check_kept("af_heart", kind) and not stock_check_kept("am_adam", kind)
        again = r.renders
        assert check_word_errors(r, stock, judge, "af_heart") == first and r.renders == again
        # The second text's are kept beside them, under a key of their own.
        confirmed = check_word_errors(r, stock, judge, "af_heart", "confirm")
        assert confirmed is not None and confirmed < 0.2 and r.renders > again
        again = r.renders
        assert check_word_errors(r, stock, judge, "af_heart", "confirm") == confirmed and r.renders == again
        assert check_word_errors(r, stock, judge, "af_heart") == first
        (tmp_path / "tray-reader" / "enrol-stock-checks.json").write_text("{damaged")
        assert not stock_check_kept("af_heart", kind)
    finally:
        stock_checks.samples.cache_clear()


def test_a_made_voice_is_confirmed_on_a_second_text_as_the_recogniser_hears_it_here(enroller):
    """The guard's checks (`_Checks`) hear a made voice in the recogniser's own process while
    it says the second text here: its check and its confirmation are what the recogniser in
    this process hears of the same renders, the confirmation pooled over both texts' words;
    the stock voice's come from the shipped table without rendering."""
    from tray_reader.voices import guard, stock_checks
    from tray_reader.voices.enroll import CHECKED_TEXT, _Checks, both_texts, check_audio

    r = enroller.renderer
    kind = r.engine.decoder_kind
    stock = Candidate("stock af_heart", {"af_heart": 1.0}, {"af_heart": 1.0})
    made = Candidate("made", {"af_heart": 0.7, "af_bella": 0.3}, {"af_heart": 1.0})
    judge = [r.render16k(build_pack(c), 1.0, [guard.JUDGE_TEXT]) for c in (stock, made)]
    with _Checks(r, [stock, made], "af_heart", 0.1) as checks:
        assert checks.confirm(1) is None  # not before its check
        before = r.renders
        assert checks(0, judge[0]) == stock_checks.shipped(kind, "af_heart")
        stock_both = checks.confirm(0)
        assert r.renders == before
        check, confirm = (stock_checks.shipped(kind, "af_heart", part) for part in stock_checks.PARTS)
        assert check is not None and confirm is not None
        assert stock_both == pytest.approx(both_texts(check, confirm))
        first = checks(1, judge[1])
        both = checks.confirm(1)
    here = intelligibility.word_errors(check_audio(r, made, judge[1]), CHECKED_TEXT)
    second = intelligibility.word_errors(speak16k(r, made, [guard.CONFIRM_TEXT]), guard.CONFIRM_TEXT)
    assert here is not None and second is not None
    assert first == pytest.approx(here) and both == pytest.approx(both_texts(here, second))
    assert second < 0.3  # a voice near af_heart is followed on the second text too
