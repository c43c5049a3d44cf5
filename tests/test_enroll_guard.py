"""The guard and the recording checks, on real renders: a made voice is kept only if it is
closer to speech it never saw; bad recordings are refused with their own message, nothing saved."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest
import soxr

from tray_reader import model_files
from tray_reader.errors import EnrollmentError
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import Prosody
from tray_reader.voices import guard, stock_profiles
from tray_reader.voices.embedder import SpeakerEmbedder
from tray_reader.voices.enroll import Candidate, Enroller, build_pack, timbre_of
from tray_reader.voices.library import VoiceLibrary
from tray_reader.voices.preprocess import prepare
from tray_reader.voices.render import VoiceRenderer

TEXT_A = (
    "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
    "The rainbow is a division of white light into many beautiful colours."
)
TEXT_B = "Please call Stella and ask her to bring these things with her from the store."


@pytest.fixture(scope="module")
def enroller(users_engine, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    return Enroller(
        VoiceRenderer(users_engine, TextFrontEnd(phonemizer)), SpeakerEmbedder.load(), stock_profiles.load()
    )


@pytest.fixture(scope="module")
def heart(enroller):
    """af_heart reading TEXT_A, 24 kHz."""
    return enroller.renderer.render(model_files.stock_pack("af_heart"), 1.0, [TEXT_A])


def telephone(x: np.ndarray, rate: int) -> np.ndarray:
    """300-3400 Hz band, 8 kHz samples: a phone line."""
    spec = np.fft.rfft(x.astype(np.float64))
    f = np.maximum(np.fft.rfftfreq(len(x), 1 / rate), 1.0)
    spec *= 1 / (1 + (300 / f) ** 8) / (1 + (f / 3400) ** 8)
    return soxr.resample(np.fft.irfft(spec, len(x)), rate, 8000).astype(np.float32)


def test_split_is_disjoint_and_holds_back_enough():
    rng = np.random.default_rng(0)
    x = rng.normal(size=16_000 * 12).astype(np.float32)
    x[16_000 * 7 : 16_000 * 7 + 800] = 0  # a pause near two thirds
    fit, judged = guard.split(x)
    assert len(fit) + len(judged) == len(x)
    assert np.array_equal(np.concatenate([fit, judged]), x)
    assert len(judged) >= guard.MIN_JUDGE_SECONDS * 16_000
    assert abs(len(fit) - (16_000 * 7 + 400)) <= 16_000 * 0.03  # cut in the pause


def test_band_limit_follows_a_telephone_recording(heart):
    band = guard.band_gain(soxr.resample(telephone(heart, 24_000), 8000, 16_000))
    freqs, gain = band
    inside = freqs[gain > 0]
    assert 150 < inside.min() < 450 and 3000 < inside.max() < 4200


def test_guard_falls_back_when_the_made_voice_is_further(enroller, heart):
    """A made voice that drifted away (here a blend towards a male voice) is not kept."""
    recording = prepare(telephone(heart, 24_000), 8000)
    _fit, judged = guard.split(recording.speech16k)
    stock = Candidate("stock af_heart", {"af_heart": 1.0}, {"af_heart": 1.0})
    drifted = Candidate("fitted style", {"af_heart": 0.5, "am_adam": 0.5}, {"af_heart": 1.0})
    pool = [stock, drifted]
    verdict = guard.decide(
        "af_heart",
        [c.label for c in pool],
        lambda i: enroller.renderer.render16k(build_pack(pool[i]), 1.0, [guard.JUDGE_TEXT]),
        judged,
        enroller.embedder,
    )
    assert verdict.kept == 0 and verdict.chosen.label == "stock af_heart"
    assert "kept the nearest stock voice af_heart" in verdict.message
    assert not verdict.judgements[1].beats(verdict.judgements[0])


def test_guard_keeps_a_made_voice_that_is_closer_by_every_measure(enroller, heart):
    recording = prepare(telephone(heart, 24_000), 8000)
    _fit, judged = guard.split(recording.speech16k)
    far = Candidate("stock am_adam", {"am_adam": 1.0}, {"am_adam": 1.0})
    close = Candidate("made", {"af_heart": 0.9, "am_adam": 0.1}, {"af_heart": 1.0})
    pool = [far, close]
    verdict = guard.decide(
        "am_adam",
        [c.label for c in pool],
        lambda i: enroller.renderer.render16k(build_pack(pool[i]), 1.0, [guard.JUDGE_TEXT]),
        judged,
        enroller.embedder,
    )
    assert verdict.kept == 1 and verdict.message.startswith("kept made")
    assert verdict.chosen.ahs < verdict.stock.ahs and verdict.chosen.enc > verdict.stock.enc
    assert verdict.chosen.judge > verdict.stock.judge


@pytest.fixture(scope="module")
def closer_made_voice(enroller, heart):
    """(labels, renders, judged part): am_adam as the nearest stock voice, and a made voice
    near the speaker (af_heart through a telephone band), which the measures keep."""
    recording = prepare(telephone(heart, 24_000), 8000)
    _fit, judged = guard.split(recording.speech16k)
    pool = [
        Candidate("stock am_adam", {"am_adam": 1.0}, {"am_adam": 1.0}),
        Candidate("made", {"af_heart": 0.9, "am_adam": 0.1}, {"af_heart": 1.0}),
    ]
    renders = [enroller.renderer.render16k(build_pack(c), 1.0, [guard.JUDGE_TEXT]) for c in pool]
    return [c.label for c in pool], renders, judged


@pytest.mark.parametrize(
    ("made_errors", "kept", "said"),
    [
        (0.40, 0, "harder for a recogniser to follow: made (word errors 0.40, am_adam 0.10)"),
        (0.13, 0, "harder for a recogniser to follow: made (word errors 0.13, am_adam 0.10)"),
        (0.12, 1, "a recogniser understands it as well (word errors 0.12, am_adam 0.10)"),
        (0.00, 1, "a recogniser understands it as well"),
        (None, 1, "was not checked (no offline recogniser installed)"),
    ],
)
def test_a_closer_voice_is_kept_only_if_understood_about_as_well_as_the_stock_voice(
    enroller, closer_made_voice, made_errors, kept, said
):
    labels, renders, judged = closer_made_voice
    heard: list[int] = []

    def word_errors(index: int, judge_audio: np.ndarray) -> float | None:
        assert judge_audio is renders[index]  # the guard's own render, not a second one
        heard.append(index)
        return None if made_errors is None else (0.10 if index == 0 else made_errors)

    verdict = guard.decide("am_adam", labels, lambda i: renders[i], judged, enroller.embedder, word_errors)
    assert verdict.kept == kept and said in verdict.message
    assert heard == ([0] if made_errors is None else [0, 1])  # the stock voice first, once


@pytest.fixture(scope="module")
def two_closer_made_voices(enroller, closer_made_voice):
    """`closer_made_voice` and a second made voice near the speaker: (labels, renders, judged
    part, the two made voices' indexes in the order the guard checks them)."""
    labels, renders, judged = closer_made_voice
    second = Candidate("made 2", {"af_heart": 0.8, "am_adam": 0.2}, {"af_heart": 1.0})
    labels = [*labels, second.label]
    renders = [*renders, enroller.renderer.render16k(build_pack(second), 1.0, [guard.JUDGE_TEXT])]
    verdict = guard.decide("am_adam", labels, lambda i: renders[i], judged, enroller.embedder)
    return labels, renders, judged, guard.winners(verdict.judgements)


@pytest.mark.parametrize("time_left", [True, False])
def test_after_a_failed_check_the_next_voice_is_checked_only_if_time_is_left(
    enroller, two_closer_made_voices, time_left
):
    labels, renders, judged, order = two_closer_made_voices
    first, second = order
    heard: list[int] = []
    asked: list[int] = []

    def word_errors(index: int, _audio: np.ndarray) -> float | None:
        heard.append(index)
        return {0: 0.10, first: 0.40, second: 0.10}[index]

    def another_check() -> bool:
        asked.append(len(heard))
        return time_left

    verdict = guard.decide(
        "am_adam",
        labels,
        lambda i: renders[i],
        judged,
        enroller.embedder,
        word_errors,
        another_check=another_check,
    )
    assert asked == [2]  # only after a voice failed its check
    if time_left:
        assert verdict.kept == second and heard == [0, first, second]
        assert "passed over as harder to follow" in verdict.message
        assert (verdict.passed_over, verdict.unchecked) == (1, 0)
    else:
        assert verdict.kept == 0 and heard == [0, first]
        assert verdict.message.endswith("1 more made voice was not checked: enrolment's time was up")
        assert (verdict.passed_over, verdict.unchecked) == (1, 1)


@pytest.mark.parametrize(("first_both", "kept"), [(0.13, "second"), (0.12, "first")])
def test_a_voice_that_passes_is_heard_on_a_second_text_before_it_is_kept(
    enroller, two_closer_made_voices, first_both, kept
):
    """A voice that passes the check is confirmed on both texts together (`confirm`), and the
    stock voice's is asked once: one over the limit there is passed over for the next voice."""
    labels, renders, judged, order = two_closer_made_voices
    first, second = order
    heard: list[int] = []
    confirmed: list[int] = []

    def confirm(index: int) -> float | None:
        confirmed.append(index)
        return {0: 0.10, first: first_both, second: 0.11}[index]

    verdict = guard.decide(
        "am_adam",
        labels,
        lambda i: renders[i],
        judged,
        enroller.embedder,
        lambda i, _audio: heard.append(i) or 0.10,
        confirm=confirm,
    )
    if kept == "first":
        assert verdict.kept == first and heard == [0, first] and confirmed == [0, first]
        assert "on that and a second text 0.12, am_adam 0.10" in verdict.message
    else:
        assert verdict.kept == second and heard == [0, first, second]
        assert confirmed == [0, first, second]
        assert "passed over as harder to follow" in verdict.message
        assert "on that and a second text 0.13, am_adam 0.10" in verdict.message


def test_the_recogniser_tells_a_clear_render_from_garbled_speech(closer_made_voice):
    from tray_reader.voices import intelligibility

    _labels, renders, _judged = closer_made_voice
    clear = intelligibility.word_errors(renders[1], guard.JUDGE_TEXT)
    garbled = intelligibility.word_errors(renders[1][::-1].copy(), guard.JUDGE_TEXT)  # backwards
    assert intelligibility.available()
    assert clear is not None and garbled is not None
    assert clear <= 0.3 and garbled >= 0.7


def test_a_copy_of_the_judged_speech_is_at_no_distance_though_the_recording_has_sound_outside_its_band(
    enroller, heart
):
    """Renders and the judged part go through the same band: weak noise outside a telephone
    band (45 dB down, below the band's floor) must not make a copy of the judged speech
    look far from it, as cutting only the render to exact silence there did."""
    speech = soxr.resample(telephone(heart, 24_000), 8000, 16_000).astype(np.float32)
    hiss = np.random.default_rng(3).normal(size=len(speech)) * np.sqrt(np.mean(speech**2)) * 10 ** (-45 / 20)
    judged = (speech + hiss).astype(np.float32)
    other = enroller.renderer.render16k(model_files.stock_pack("am_adam"), 1.0, [guard.JUDGE_TEXT])
    pool = [other, judged]
    verdict = guard.decide(
        "am_adam",
        ["stock am_adam", "copy"],
        lambda i: pool[i],
        judged,
        enroller.embedder,
        lambda i, _audio: 0.0,
    )
    copy = verdict.judgements[1]
    assert copy.ahs < 0.01 and copy.enc > 0.999 and copy.judge > 0.999
    assert copy.wins == 1.0 and verdict.kept == 1


def _windows(rng: np.random.Generator, direction: np.ndarray, n: int) -> np.ndarray:
    windows = direction + 0.6 * rng.normal(size=(n, len(direction)))
    return np.asarray(windows / np.linalg.norm(windows, axis=1, keepdims=True))


def _measured(
    rng: np.random.Generator, direction: np.ndarray, scales: np.ndarray, judge: np.ndarray | None = None
) -> guard._Measured:
    """A fake clip: 20 window embeddings around ``direction``, 400 feature frames with
    standard deviations ``scales``, and 12 second-encoder partials around ``judge`` (by
    default the same direction)."""
    return guard._Measured(
        _windows(rng, direction, 20),
        rng.normal(size=(400, len(scales))) * scales,
        _windows(rng, direction if judge is None else judge, 12),
    )


def test_win_share_separates_a_closer_voice_from_one_that_only_differs_by_chance():
    rng = np.random.default_rng(0)
    speaker, stock = rng.normal(size=16), rng.normal(size=16)
    speaker_scales = np.linspace(0.5, 2.0, 12)
    stock_scales = speaker_scales[::-1]
    away = stock - 0.5 * speaker  # further from the speaker than the stock voice
    judged = _measured(rng, speaker, speaker_scales)
    renders = [
        _measured(rng, stock, stock_scales),  # the nearest stock voice
        _measured(rng, speaker, speaker_scales),  # the speaker's own voice: closer by both
        _measured(rng, stock, stock_scales),  # the stock voice again: only chance differs
        _measured(rng, speaker, speaker_scales, judge=away),  # closer but for the second encoder
        _measured(rng, away, speaker_scales, judge=speaker),  # closer by the second encoder only
        _measured(rng, speaker, stock_scales),  # closer by both encoders, not by the MFCC frames
    ]
    wins = guard.win_shares(renders, judged, draws=100)
    assert wins[0] == 0.0
    assert wins[1] >= 0.95
    assert wins[2] < guard.WIN_SHARE and wins[3] < guard.WIN_SHARE and wins[4] < guard.WIN_SHARE
    # The MFCC distance is a veto on the point estimates (`winners`), not part of the share.
    assert wins[5] >= 0.95


def test_winners_need_both_encoders_margins_the_win_share_and_not_clearly_further_mfcc_distance():
    J = guard.Judgement
    stock = J("stock", 0.80, 1.00, 0.70)
    noisy = J("noisy", 0.90, 0.80, 0.80, wins=guard.WIN_SHARE - 0.05)  # far better, but not reliably
    small = J("small", 0.81, 0.90, 0.75, wins=0.99)  # reliably better, by less than the encoder margin
    one = J("one", 0.90, 0.80, 0.71, wins=0.99)  # better by the first encoder, not the second
    # Better by both encoders, clearly further by MFCC (in most resamplings).
    further = J("further", 0.90, 1.01, 0.80, wins=0.99, ahs_further=guard.AHS_VETO_SHARE)
    # Further by MFCC by its point estimate, by no more than noise: kept.
    level = J("level", 0.85, 1.01, 0.76, wins=guard.WIN_SHARE, ahs_further=0.6)
    sure = J("sure", 0.85, 0.90, 0.75, wins=guard.WIN_SHARE)
    surer = J("surer", 0.83, 0.85, 0.73, wins=0.95, ahs_further=0.3)
    assert guard.winners([stock, noisy, small, one, further]) == []  # the stock voice is kept
    assert guard.winners([stock, noisy, small, further, level]) == [4]
    assert guard.winners([stock, noisy, small, sure]) == [3]
    assert guard.winners([stock, noisy, sure, surer, level]) == [3, 4, 2]  # the most reliable first
    # On a tie, the closer by the two encoders together (1.61 against 1.60), though its MFCC
    # distance is higher (an envelope-mapped voice's is lowered by the map itself).
    assert guard.winners([stock, sure, level]) == [2, 1]


def test_mfcc_veto_tells_a_clearly_further_voice_from_one_further_by_chance():
    """`ahs_further_shares`: a render whose frames come from the stock voice's distribution
    again is further than it in about half of the resamplings; one whose frames spread
    unlike the speaker's in nearly all; one like the speaker's in nearly none."""
    rng = np.random.default_rng(1)
    direction = rng.normal(size=16)
    speaker = np.linspace(0.5, 2.0, 12)
    stock = speaker * np.linspace(0.8, 1.25, 12)  # near the speaker
    judged = _measured(rng, direction, speaker)
    renders = [_measured(rng, direction, s) for s in (stock, stock, speaker[::-1], speaker)]
    shares = guard.ahs_further_shares(renders, judged, draws=200)
    assert shares[0] == 0.0
    assert 0.2 < shares[1] < guard.AHS_VETO_SHARE
    assert shares[2] >= 0.95 and shares[3] <= 0.05
    point = [guard.sphericity(guard.covariance(r.feats), guard.covariance(judged.feats)) for r in renders]
    assert point[2] > point[0] > point[3]


def _reverb(x: np.ndarray, rate: int, rt60: float = 1.2) -> np.ndarray:
    rng = np.random.default_rng(1)
    t = np.arange(int(rt60 * rate)) / rate
    rir = rng.normal(size=len(t)) * np.exp(-6.9 * t / rt60)
    rir[0] = 3.0
    y = np.convolve(x, rir)[: len(x)]
    return (0.3 * y / np.max(np.abs(y))).astype(np.float32)


def _music(seconds: float = 12.0, rate: int = 16_000) -> np.ndarray:
    rng = np.random.default_rng(2)
    t = np.arange(int(0.4 * rate)) / rate
    notes = []
    for _ in range(int(seconds / 0.4)):
        f = 220 * 2 ** (int(rng.integers(0, 12)) / 12)
        env = np.minimum(1, t / 0.02) * np.exp(-2 * t)
        notes.append(0.2 * env * sum(np.sin(2 * np.pi * f * h * t) / h for h in range(1, 8)))
    return np.concatenate(notes).astype(np.float32)


def _bad(name: str, enroller: Enroller, heart: np.ndarray) -> tuple[np.ndarray, int, str | None]:
    r = enroller.renderer
    if name == "noise":
        return (0.1 * np.random.default_rng(0).normal(size=12 * 16_000)).astype(np.float32), 16_000, None
    if name == "whispering":  # noise shaped by speech's loudness: clear of noise, but no pitch
        envelope = np.sqrt(np.convolve(heart**2, np.ones(480) / 480, mode="same"))
        noise = np.random.default_rng(3).normal(size=len(heart)).astype(np.float32)
        return (noise * envelope).astype(np.float32), 24_000, None
    if name.startswith("speech under noise"):
        level = {"speech under noise at four times its level": 4, "speech under noise at twice its level": 2}
        noise = np.random.default_rng(1).normal(size=len(heart)).astype(np.float32)
        return heart + level[name] * np.sqrt(np.mean(heart**2)) * noise, 24_000, None
    if name == "music":
        return _music(), 16_000, None
    if name == "two speakers":
        other = r.render(model_files.stock_pack("am_adam"), 1.0, [TEXT_A])
        return np.concatenate([heart, other]), 24_000, None
    if name == "reverb":
        return _reverb(heart, 24_000), 24_000, TEXT_A
    if name == "clipping":
        return np.clip(heart * 40, -1, 1), 24_000, TEXT_A
    if name == "longer":
        return heart, 24_000, TEXT_B[:30]
    raise AssertionError(name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("noise", "is mostly noise"),
        ("whispering", "does not sound like speech"),
        ("speech under noise at four times its level", "is mostly noise"),
        # Some pitch still heard (about the voiced-share limit), but the noise would be copied.
        ("speech under noise at twice its level", "is mostly noise"),
        ("music", "music"),
        ("two speakers", "more than one person"),
        ("reverb", "echoes"),
        ("clipping", "clipped"),
        ("longer", "much longer than its text"),
    ],
)
def test_bad_recordings_are_refused_with_their_own_message_and_nothing_is_saved(
    enroller, heart, tmp_path, name, message
):
    samples, rate, text = _bad(name, enroller, heart)
    lib = VoiceLibrary(tmp_path)
    with pytest.raises(EnrollmentError, match=message):
        enroller.enroll(lib, "me", prepare(samples, rate), consent=True, text=text)
    assert [v.name for v in lib.list() if v.kind != "stock"] == []
    assert not (tmp_path / "voices").exists() or not any((tmp_path / "voices").iterdir())


def test_clean_speech_passes_the_checks(enroller, heart):
    from tray_reader.voices import checks

    rec = prepare(heart, 24_000)
    m = checks.check_sound(rec.speech16k, rec.speech_seconds, TEXT_A)
    assert m.voiced > checks.MIN_VOICED and m.steady < checks.MAX_STEADY
    assert checks.check_one_speaker(rec.speech16k, enroller.judge) < checks.TWO_SPEAKER_GAP_SHORT


def test_the_mfcc_distance_ignores_directions_the_clips_hardly_vary_along():
    """Through a telephone band the cepstra of what lies above it barely move (variances
    millions of times below the rest): a render varying a little more along them is not a
    further voice, while one whose real directions differ is."""
    rng = np.random.default_rng(5)

    def frames(real: np.ndarray, quiet: float) -> np.ndarray:
        return rng.normal(size=(3000, 38)) * np.r_[real, np.full(8, quiet)]

    same = np.ones(30)
    judged = frames(same, 3e-4)
    hiss = frames(same, 3e-3)  # 100 times the variance along the quiet directions
    other = frames(np.r_[np.full(6, 1.6), np.ones(24)], 3e-4)

    def distance(x: np.ndarray) -> float:
        return float(guard.sphericity(guard.covariance(x), guard.covariance(judged)))

    assert distance(hiss) < 0.02
    assert distance(other) > 4 * distance(hiss) and distance(other) > 0.05


@pytest.fixture(scope="module")
def three_closer_made_voices(enroller, two_closer_made_voices):
    """`two_closer_made_voices` and a third made voice near the speaker, in the same form."""
    labels, renders, judged, _order = two_closer_made_voices
    third = Candidate("made 3", {"af_heart": 0.85, "am_adam": 0.15}, {"af_heart": 1.0})
    labels = [*labels, third.label]
    renders = [*renders, enroller.renderer.render16k(build_pack(third), 1.0, [guard.JUDGE_TEXT])]
    verdict = guard.decide("am_adam", labels, lambda i: renders[i], judged, enroller.embedder)
    order = guard.winners(verdict.judgements)
    assert len(order) == 3  # all three are closer than am_adam
    return labels, renders, judged, order


@pytest.mark.parametrize("case", ["kin", "none"])
def test_after_a_voice_fails_its_kin_is_checked_last_and_the_next_check_is_begun_early(
    enroller, three_closer_made_voices, case
):
    """A voice whose kin failed (the same timbre, with or without its pitch or envelope map)
    is checked after the others. Once a voice failed, the guard tells which voice comes next
    before each check, so its check can begin while one is heard."""
    labels, renders, judged, (first, second, third) = three_closer_made_voices
    heard: list[int] = []
    told: list[tuple[int, int]] = []  # (checks made so far, the voice told)
    errors = {0: 0.10, first: 0.40, second: 0.10, third: 0.40}

    def word_errors(index: int, judge_audio: np.ndarray) -> float | None:
        assert judge_audio is renders[index]
        heard.append(index)
        return errors[index]

    def ahead(index: int, judge_audio: np.ndarray) -> None:
        assert judge_audio is renders[index]
        told.append((len(heard), index))

    kin = ["stock", "a", "b", "c"]
    kin[second] = kin[first]
    verdict = guard.decide(
        "am_adam",
        labels,
        lambda i: renders[i],
        judged,
        enroller.embedder,
        word_errors,
        ahead=ahead,
        kin=None if case == "none" else kin,
    )
    assert verdict.kept == second
    if case == "kin":
        assert heard == [0, first, third, second]
        assert told == [(2, second)]  # before third's check: second comes after it
        assert "passed over as harder to follow: made" in verdict.message
    else:
        assert heard == [0, first, second]
        assert told == [(2, third)]


def test_a_voice_is_kin_to_itself_at_another_pitch_speed_or_through_its_map_not_to_another_timbre():
    blend = Candidate("blend", {"af_heart": 0.6, "af_bella": 0.4}, {"af_heart": 1.0})
    matched = dataclasses.replace(
        blend, label="matched", speed=1.1, intonation=Prosody(pitch=1.1, spread=1.2)
    )
    mapped = dataclasses.replace(
        blend, label="mapped", envelope=EnvelopeMap(tuple(range(20)), np.zeros(20), 1.5 * np.eye(19))
    )
    other_prosody = dataclasses.replace(blend, label="prosody half", prosody={"am_adam": 1.0})
    pack = build_pack(blend).copy()
    pack[..., :128] += 0.01
    fitted = Candidate("fitted", blend.timbre, blend.prosody, pack=pack)
    fitted_matched = dataclasses.replace(fitted, label="fitted matched", speed=0.9)
    other = Candidate("other", {"af_heart": 0.5, "af_bella": 0.5}, {"af_heart": 1.0})
    assert timbre_of(blend) == timbre_of(matched) == timbre_of(mapped) == timbre_of(other_prosody)
    assert timbre_of(fitted) == timbre_of(fitted_matched)
    assert len({timbre_of(blend), timbre_of(fitted), timbre_of(other)}) == 3


def test_the_recogniser_in_its_own_process_hears_what_it_hears_here_and_is_stopped(closer_made_voice, caplog):
    from tray_reader.voices import intelligibility

    _labels, renders, _judged = closer_made_voice
    here = [intelligibility.recognise(r, 16_000) for r in renders]
    with intelligibility.RecogniserProcess() as listener:
        tickets = [listener.submit(r) for r in renders]
        process = listener._process
        assert process is not None and process.poll() is None
        # Asked for in another order than sent: each answer is its own audio's.
        assert [listener.heard(t) for t in reversed(tickets)] == here[::-1]
        # The process dies with audio sent: what it had not answered is heard here.
        ticket = listener.submit(renders[1])
        process.kill()
        process.wait()
        assert listener.heard(ticket) == here[1]
        assert "recogniser's own process stopped" in caplog.text
        assert listener.heard(listener.submit(renders[0])) == here[0]  # and from then on
    assert process.poll() is not None and listener._process is None
    assert all(w in here[1] for w in ("yellow", "birds"))


class _Listener:
    """The recogniser's process as `_Checks` uses it: what it was given, in order; it hears
    a voice's words as its `words` say (a check's as said, others' as nothing)."""

    def __init__(self, words: dict[int, str]) -> None:
        self.words, self.given, self.audio = words, [], {}

    def submit(self, audio: np.ndarray) -> int:
        self.given.append(int(audio[-1]))  # the fake renders end with their voice's number
        self.audio[len(self.given)] = audio
        return len(self.given)

    def heard(self, ticket: int) -> str:
        time.sleep(0.002 * self.audio[ticket].size / 16_000)
        return self.words.get(int(self.audio[ticket][-1]), "")

    def close(self) -> None:
        pass


def test_after_a_failure_the_next_check_is_said_ahead_but_heard_only_when_asked(monkeypatch):
    """After a failure the guard's checks render the next voice's check while one is heard,
    and give it to the recogniser only when the guard asks: a voice that passes has its
    second text heard at once. The next check's time counts its confirmation, before one was
    timed by the rates the checks were made at, then as timed."""
    from tray_reader.voices import enroll, intelligibility

    listener = _Listener({1: "", 2: enroll.CHECKED_TEXT, 3: enroll.CHECKED_TEXT})
    said: list[tuple[int, str]] = []

    def speak(_renderer, c: Candidate, texts: list[str]) -> np.ndarray:
        said.append((int(c.label), texts[0]))
        time.sleep(0.001 * len(texts[0].split()))
        return np.full(16_000 * len(texts[0].split()) // 3, float(c.label), np.float32)

    monkeypatch.setattr(intelligibility, "available", lambda: True)
    monkeypatch.setattr(intelligibility, "RecogniserProcess", lambda: listener)
    monkeypatch.setattr(enroll, "speak16k", speak)
    voices = [Candidate(str(i), {"af_heart": 1.0}, {"af_heart": 1.0}) for i in range(4)]
    judge = [np.full(16_000, float(i), np.float32) for i in range(4)]
    with enroll._Checks(None, voices, "af_heart", 0.1) as checks:  # type: ignore[arg-type]
        assert checks.next_takes() == 0.0
        assert checks(1, judge[1]) == 1.0  # fails; its second text was said meanwhile
        assert said == [(1, guard.CHECK_TEXT), (1, guard.CONFIRM_TEXT)] and listener.given == [1]
        # A confirmation, by the rates: rendered at the one given, heard at the one measured.
        assert checks.next_takes() == pytest.approx(
            checks.took + checks.confirm_seconds * (0.1 + checks.hear_rate)
        )
        assert checks.hear_rate > 0.0 and checks.confirm_seconds == pytest.approx(
            len(guard.CONFIRM_TEXT.split()) / 3
        )
        checks.ahead(3, judge[3])
        assert checks(2, judge[2]) == 0.0
        assert said[2:] == [(2, guard.CHECK_TEXT), (3, guard.CHECK_TEXT)]
        assert listener.given == [1, 2]  # voice 3's check waits to be asked for
        checks.confirm(2)
        assert said[4:] == [(2, guard.CONFIRM_TEXT)] and listener.given == [1, 2, 2]
        assert checks.next_takes() == checks.took + checks.confirm_took > checks.took
        # Said ahead: heard now, not said again; no voice told to come next, its second
        # text is said meanwhile.
        assert checks(3, judge[3]) == 0.0
        assert said[5:] == [(3, guard.CONFIRM_TEXT)] and listener.given == [1, 2, 2, 3]
