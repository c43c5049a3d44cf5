"""Enrolment: find the voice pack, inside Kokoro's style space, that sounds most like a recording.

The recording is first checked (checks.py: noise, music, reverberation, two speakers, length)
and split (guard.py): a fit part, which every step below may use, and a judged part, which
only the guard at the end hears.

Steps (each candidate is rendered and scored by the speaker encoder against the fit part):
1. the nearest stock voice by the shipped stock profiles, as heard through the recording's
   band (stock_profiles.for_band; every render below is embedded through that band too);
2. a top-k softmax blend of the nearest stock packs (the initial blend), and a convex blend
   fitted so that the blend of the stock embeddings approaches the recording's embedding;
   the timbre halves of Kokoro's voices for other languages nearest the recording by their
   shipped profiles (`other_timbres`), each with the nearest stock voice's prosody half, and
   those voices' timbres also in the fitted and random blends (their packs only lend timbre:
   the nearest stock voice stays an English one, the guard's and the user's reference);
3. the same timbre half (style dims 0-127, the decoder's) with the prosody half (dims
   128-255, the prosody predictor's) blended from the stock voices nearest in median pitch;
4. speaking-rate matching (the `speed` setting) when the words of the recording are known;
5. refits of the fitted blend (the goal embedding moved by what the last fitted blend's
   speech missed), then random blends around the best one (Dirichlet weights over the top
   voices);
6. the style fit (style_fit.py): dims 0-127 of the search's best moved, without gradients,
   so the decoder's speech matches the fit part's frames (channel-robust, text-free loss);
   steps 5 and 6 run fixed counts (`random_blends`, `fit_steps`), so the same recording gives
   the same voice; their time caps only stop them on a busy machine, and the result says so;
7. prosody (`match_prosody`): the nearest stock voice, the blend and the fitted style, each
   also read at the speaker's pitch level, pitch range and rate (measured on the fit part and
   on the voice's own render by the same checked pitch track; the rate, when the words are
   known, by how long each takes to say them), stored with the voice and applied at every
   read;
8. envelope maps (speech/envelope.py): the nearest stock voice, the search's best and the
   fitted style (the first and the last also at the speaker's pitch; with `half_way`, also
   a style between the last two), through a filter after the model
   that gives their spectral envelope the speaker's way of moving (the covariance of its
   in-band cepstra and its sound classes' means, fitted on the fit part and the voice's
   render of MAP_TEXT; the long-term spectrum, the microphone's as much as the voice's, is
   left alone), stored with the voice and applied at every read;
9. the guard: the nearest stock voice, the blends, the search's best, the fitted style, the
   prosody-matched and the envelope-mapped voices are judged on the judged part by three measures (guard.py: the
   search's encoder, a second encoder nothing else uses, MFCC statistics); a made voice is
   kept only if it beats the nearest stock voice by both encoders and is not clearly further
   by the MFCC statistics, else that stock voice is kept and the user is told.
bench/bench_enroll.py shows what each step does to an
independent measure (the halves' roles are from Kokoro's model code: `ref_s[:, :128]` feeds
the decoder, `ref_s[:, 128:]` the duration/F0 predictor).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tray_reader import model_files, paths
from tray_reader.errors import EnrollmentError
from tray_reader.files import write_atomic
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import NEUTRAL, DecoderKind, Prosody
from tray_reader.voices import align, checks, guard, intelligibility, stock_checks
from tray_reader.voices.embedder import SpeakerEmbedder, cosine
from tray_reader.voices.ge2e import JudgeEncoder
from tray_reader.voices.library import VoiceInfo, VoiceLibrary
from tray_reader.voices.measure import pitch_stats, pitch_track
from tray_reader.voices.preprocess import FRAME_SECONDS, Recording, load_audio, prepare, speech_mask
from tray_reader.voices.render import PROFILE_SENTENCES, VoiceRenderer
from tray_reader.voices.stock_profiles import StockProfiles
from tray_reader.voices.style_fit import FitSettings, StyleFit

if TYPE_CHECKING:
    from tray_reader.speech.engine import KokoroEngine

SEARCH_SECONDS = 9.0
"""The search renders as many of the words said as the nearest stock voice says in this
time (about 30 words of a passage; the sentences said without a text take as long): every
candidate is rendered, so a whole long passage, or many short sentences with their pauses,
would leave the search and the fit too little time for their counts."""
JUDGE_SECONDS = 30.0
"""About what the prosody step's and the guard's renders take, for the progress fraction
until the first renders have timed the machine."""
LAST_PHASE_SPEECH = 450.0
"""What the prosody step and the guard render, as seconds of speech (about; the recogniser's
time counted as rendering its audio): the prosody-matched voices' renders (about four times
the words searched), three voices' renders of MAP_TEXT (about 14 s each) for their envelope
maps, every candidate saying JUDGE_TEXT (about 10 s each), and the recogniser's checks
(CHECK_TEXT, 21 s, said by the stock voice and a made one, then heard with JUDGE_TEXT; the
made one's CONFIRM_TEXT, 22 s, said while its check is heard, and the stock voice's; and a
second made voice's check with its CONFIRM_TEXT, for when the first fails: after a failure
each check is said while the one before is heard, so it takes less, but a voice's
CONFIRM_TEXT is said and heard after its check). Times this machine's seconds per second of
speech (the search's renders'), the time they will take. A voice through an envelope map
says what its unmapped self said (the renderer keeps the model's output,
`render.KEPT_SECONDS`), so its render costs next to nothing; the time counted for it goes to
a third made voice's check."""
STOCK_CHECK_SPEECH = 72.0
"""Of that, the stock voice's part of the check, which is shipped for the decoders measured
(`stock_checks`) and kept on disk by a former enrolment near the same stock voice
(`check_word_errors`)."""
MIN_SEARCH_SECONDS = 8.0
MIN_FIT_SECONDS = 15.0
"""The least the search and the fit are given however slow the machine: on one too slow
for `total_seconds`, enrolment takes longer rather than making no voice of its own."""
FIT_SHARE = 0.65
"""Of the time left for the search and the fit on a slow machine, the fit's share: its
fitted style comes closer to real speakers than the blends (docs/benchmarks.md)."""
MAP_TEXT = (
    "Mary's uncle mended the broken window with a thin sheet of glass. Outside, the children "
    "were shouting and chasing a red kite across the wet grass, while two old men watched "
    "quietly from the bench by the church, sharing a flask of hot coffee."
)
"""What a voice says for its envelope map's statistics (`EnvelopeMap.fit`; words neither
JUDGE_TEXT nor CHECK_TEXT say): a covariance of 19 cepstra and 32 sound classes want more
frames than the searched words' few seconds give (docs/benchmarks.md)."""
HALF_WAY = ", half way"
"""Ends the label of the style `EnrollSettings.half_way` of the way to the fitted style."""
MAPPED = ", envelope mapped"
"""Ends the label of a voice judged through its envelope map."""
CHECK_GRACE = 10.0
"""Past `EnrollSettings.total_seconds`, how long the guard may still check another made voice
after one failed the recogniser's check: the time plan counts one failure, and a check is
begun only if it ends, with its second text, by then (`_Checks.next_takes`), so the whole
enrolment stays within two minutes."""
HEAR_SECONDS = 12.0
"""Without a text, the recogniser listens to this much of the fit part's start (more than the
search renders, and a few seconds' work for it)."""

Progress = Callable[[float, str], None]
"""Called with (fraction done 0..1, what is happening)."""


@dataclass(frozen=True)
class EnrollSettings:
    """How hard enrolment works."""

    total_seconds: float = 110.0
    """About the longest an enrolment should take. On a machine too slow for the caps below
    to leave the prosody step and the guard their time (`LAST_PHASE_SPEECH`, timed by the
    first renders), the search's and the fit's caps shrink to fit it."""
    budget_seconds: float = 35.0
    """Longest wall-clock time for the blend search: a cap on a busy machine (the best
    candidate so far is kept when it ends); on an idle one `random_blends` ends it first."""
    fit_seconds: float = 40.0
    """Longest wall-clock time for the style fit after the search (0: no fit), a cap as
    above; the prosody step and the guard then take a few renders, so enrolment takes at
    most about budget + fit + 30 s. (50 s let the fit make about a fifth more steps, which
    added nothing beyond noise, while a speaker whose first made voices failed the
    recogniser's check ran out of time for the next: docs/benchmarks.md.)"""
    random_blends: int = 20
    """Random blends the search tries after its fixed steps. A count, not a time, so the same
    recording gives the same voice (unless the cap above cuts it; the voice's info says so)."""
    fit_steps: int = 120
    """SPSA steps of the style fit (a count, for the same reason)."""
    fit: FitSettings = field(default_factory=FitSettings)
    """How the style fit searches (its seed and step count are the two above's)."""
    top_k: int = 5
    """How many nearest stock voices the initial blend mixes (3..8)."""
    temperature: float = 0.02
    """Softmax temperature over encoder similarities for the blend weights."""
    search_k: int = 8
    """How many nearest stock voices the random search draws from."""
    fit_blend: bool = True
    """Try convex blend weights fitted so the blend's embedding approaches the recording's."""
    refit_rounds: int = 3
    """Budget step: refit the blend to the goal moved by what the last fitted blend missed."""
    other_timbres: int = 3
    """How many of Kokoro's voices for other languages have their timbre half (dims 0-127,
    beside the nearest stock voice's prosody half) tried, the nearest to the recording by
    their shipped profiles (`stock_profiles.load_other`); all of them also join the fitted
    and the random blends' timbres. Their accents are in the timbre: a Spanish, Italian or
    Hindi speaker's voice can come nearer them than any English pack, and the guard's
    recogniser check turns away those English is not understood in (docs/benchmarks.md).
    0: the stock voices' only."""
    match_pitch: bool = True
    """Try the prosody half blended from voices of similar pitch."""
    match_rate: bool = True
    """Match the speaking rate (needs the words of the recording)."""
    transcribe: bool = True
    """Without a text, use the words the recogniser hears, when it is sure of them
    (`intelligibility.transcribe`)."""
    match_prosody: bool = True
    """Judge, beside each of the nearest stock voice, the blend and the fitted style, the
    same voice read at the speaker's pitch level, range and rate (`match_prosody`)."""
    random_search: bool = True
    """Spend the rest of the budget on random blends around the best one."""
    envelope_maps: bool = True
    """Judge, beside the nearest stock voice, the search's best and the fitted style (each
    also at the speaker's pitch, where it was tried so), the same voice through an envelope
    map fitted to the recording (`envelope`)."""
    half_way: float = 0.0
    """With `envelope_maps`, also judge, through its own map, the style this share of the way
    from the fit's start (the search's best) to the fitted style (0: not). As a voice it is
    good: at 0.5 about as clear as the start and nearly as close as the fitted style. But the
    guard, which keeps the winner of most resamplings, not the closest, took it over closer
    voices, and its checks cost time another voice then lacked: off (docs/benchmarks.md)."""
    exclude: tuple[str, ...] = ()
    """Voices (stock or other languages') left out of the search space (for tests and the
    bench)."""
    seed: int = 0
    """Seed of the random search, so a run can be repeated."""


@dataclass(frozen=True)
class Candidate:
    """A voice pack tried during enrolment."""

    label: str
    """How it was made."""
    timbre: dict[str, float]
    """Stock voice -> weight of the first half (decoder style)."""
    prosody: dict[str, float]
    """Stock voice -> weight of the second half (prosody predictor style)."""
    speed: float = 1.0
    """Kokoro speed to speak it at."""
    pack: np.ndarray | None = field(default=None, compare=False, repr=False)
    """A pack made directly (a fitted style), used instead of the blends when set."""
    intonation: Prosody = NEUTRAL
    """The pitch level and range it is read with (stored with the voice, see `match_prosody`)."""
    envelope: EnvelopeMap | None = field(default=None, compare=False, repr=False)
    """The filter its audio goes through (stored with the voice, see `with_envelope`)."""


@dataclass(frozen=True)
class EnrollResult:
    """The voice found and how close it got."""

    pack: np.ndarray
    """The voice pack, float32 [510, 1, 256]: the guard's choice."""
    best: Candidate
    """The recipe of `pack` (the guard's choice)."""
    initial: Candidate
    """The recipe of the initial top-k blend."""
    before_search: Candidate
    """The best recipe before the random search (after the blend, pitch and rate steps)."""
    similarity: float
    """Encoder cosine similarity of the voice's speech to the recording."""
    initial_similarity: float
    """The same for the initial top-k blend."""
    nearest_stock: str
    """The stock voice the encoder finds nearest."""
    nearest_similarity: float
    """Its similarity, measured the same way."""
    renders: int
    """Model runs used."""
    seconds: float
    """Time taken."""
    stopped_early: bool = False
    """The search was cancelled before its budget ended."""
    tried: tuple[tuple[str, float], ...] = field(default=())
    """(label, similarity) of every candidate, in order."""
    searched: Candidate | None = None
    """The search's best candidate by the encoder on the fit part (before the guard)."""
    fitted: Candidate | None = None
    """The style fit's result (before the guard), if the fit ran."""
    verdict: guard.Verdict | None = None
    """The guard's judgements on the judged part and what it kept."""
    fit_seconds: float = 0.0
    """Speech the search and fit used."""
    judged_seconds: float = 0.0
    """Speech held back for the guard."""
    judged: tuple[Candidate, ...] = ()
    """Every candidate the guard judged, in the order of `verdict.judgements`."""
    random_blends: int = 0
    """Random blends tried (`EnrollSettings.random_blends` unless time or a cancel cut it)."""
    fit_steps: int = 0
    """SPSA steps of the style fit (`EnrollSettings.fit_steps` unless time or a cancel cut it)."""
    cut_by_time: bool = False
    """The search or the fit stopped at its time cap before its count: a busy or slow machine; the
    same recording enrolled on an idle one may give another voice."""
    said: align.ReadPart | None = None
    """Which words of the text given the recording was found to say (None without a text)."""
    text: str | None = None
    """The words the search rendered as the recording's own (None: they were not known)."""
    heard: intelligibility.Heard | None = None
    """Without a text: what the recogniser heard (None when it did not listen)."""
    given: bool = False
    """A text was given with the recording."""
    shortened: bool = False
    """The machine was too slow for the search's and the fit's full caps within
    `EnrollSettings.total_seconds`, so they were shortened."""
    phase_seconds: tuple[float, ...] = ()
    """Seconds the search (with the first renders), the fit, and the prosody step with the
    guard took, then the last one's estimate when the time was planned (for the bench)."""
    decoder: DecoderKind | None = None
    """The decoder the renders ran on (the shipped one is the slower: a cut search then says
    how to build the faster)."""

    def words_note(self) -> str:
        """Where the words the search matched came from ("" when they were the whole text given)."""
        if self.given:
            if self.said is not None:
                return "" if self.said.whole else self.said.describe()
            if self.text is None:
                return (
                    "The text given has nothing the voices can say, so voices were compared "
                    "saying other sentences"
                )
            return ""
        if self.heard is not None and self.heard.sure and self.text is not None:
            return (
                f"No text was given: the words were recognised in your recording "
                f"(sure {self.heard.confidence:.2f}) and your voice was matched saying them"
            )
        if self.heard is None:
            why = (
                "no recogniser is installed"
                if not intelligibility.available()
                else "the recogniser was not asked"
            )
        elif not self.heard.sure:
            why = f"the recogniser was not sure of your recording's words ({self.heard.confidence:.2f}; it knows English only)"
        else:
            why = "the words recognised did not line up with your recording"
        return (
            f"No text was given and {why}, so voices were compared saying other sentences: "
            f"giving the text your recording reads lets enrolment match your own words"
        )

    @property
    def fell_back(self) -> bool:
        """The guard kept the nearest stock voice."""
        return self.verdict is not None and self.verdict.kept == 0

    def summary(self) -> str:
        if self.verdict is None:
            return f"nearest stock voice {self.nearest_stock}"
        v = self.verdict
        text = (
            f"{v.message}. Score on the held-back part, by the speaker encoder the search never "
            f"uses: {v.chosen.judge:.2f} (nearest stock voice {self.nearest_stock}: {v.stock.judge:.2f}; "
            f"higher is closer)"
        )
        if self.cut_by_time and self.decoder in (DecoderKind.SHIPPED, DecoderKind.WHOLE):
            text += (
                ". This installation runs the model's shipped decoder, not the faster one "
                "tray-reader builds from it, so the search and the fit stopped at their time limits "
                "before their last steps: build it (`tray-reader doctor --build-fast-model`, once) "
                "and enrol again for the full search"
            )
        elif self.cut_by_time and self.shortened:
            text += (
                ". This computer renders speech too slowly for the whole search within about two "
                "minutes, so the search and the fit were shortened (`tray-reader voice add` with "
                "`--budget 150` gives them their full time)"
            )
        elif self.cut_by_time:
            text += (
                ". The computer was busy or slow, so the search stopped at its time limit "
                "before its last steps: enrolling again when it is idle may find a closer voice"
            )
        note = self.words_note()
        if note:
            text += f". {note}"
        return text


def blend(weights: dict[str, float]) -> np.ndarray:
    pack = np.zeros(model_files.PACK_SHAPE, np.float32)
    for name, w in weights.items():
        pack += np.float32(w) * model_files.pack(name)
    return pack


def build_pack(c: Candidate) -> np.ndarray:
    if c.pack is not None:
        return c.pack
    pack = blend(c.timbre)
    pack[..., 128:] = blend(c.prosody)[..., 128:]
    return pack


def timbre_of(c: Candidate) -> str:
    """What names ``c``'s timbre, the decoder's half of its style: the same for the same voice
    at another pitch, speed or through its envelope map (its kin in `guard.decide`)."""
    return hashlib.blake2b(
        np.ascontiguousarray(build_pack(c)[..., :128]).tobytes(), digest_size=16
    ).hexdigest()


def speak16k(renderer: VoiceRenderer, c: Candidate, texts: Sequence[str]) -> np.ndarray:
    """16 kHz audio of ``c`` saying ``texts`` as a read would say them: at its speed, pitch and
    range, through its envelope map."""
    return renderer.render16k(build_pack(c), c.speed, texts, c.intonation, c.envelope)


def softmax_weights(names: Sequence[str], sims: np.ndarray, temperature: float) -> dict[str, float]:
    z = np.exp((sims - sims.max()) / temperature)
    z /= z.sum()
    return {n: float(w) for n, w in zip(names, z, strict=True)}


def fit_simplex(embeddings: np.ndarray, target: np.ndarray, iterations: int = 500) -> np.ndarray:
    """Convex weights w minimising |w @ embeddings - target| (projected gradient descent)."""
    n = len(embeddings)
    w = np.full(n, 1.0 / n)
    gram = embeddings @ embeddings.T
    step = 1.0 / max(float(np.linalg.norm(gram, 2)), 1e-9)
    for _ in range(iterations):
        w = w - step * (gram @ w - embeddings @ target)
        u = np.sort(w)[::-1]
        css = np.cumsum(u)
        rho = np.nonzero(u * np.arange(1, n + 1) > css - 1)[0][-1]
        w = np.maximum(w - (css[rho] - 1) / (rho + 1), 0)
    return w


def speech_seconds(x16k: np.ndarray) -> float:
    return float(speech_mask(x16k, 16_000)[0].sum() * FRAME_SECONDS)


@dataclass
class _Search:
    renderer: VoiceRenderer
    embedder: SpeakerEmbedder
    target: np.ndarray
    texts: Sequence[str]
    band: tuple[np.ndarray, np.ndarray]
    """The recording's band (guard.band_gain): renders are embedded through it."""
    tried: list[tuple[str, float]] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)
    """Seconds each score took per second of its audio: this machine's speed, for the time plan."""

    last_embedding: np.ndarray | None = None

    def score(self, c: Candidate) -> tuple[float, np.ndarray]:
        """(encoder similarity to the recording, the render as made)."""
        t0 = time.monotonic()
        audio = self.renderer.render16k(build_pack(c), c.speed, self.texts)
        self.last_embedding = self.embedder.embed(guard.limit_band(audio, self.band))
        s = cosine(self.last_embedding, self.target)
        self.tried.append((c.label, s))
        self.rates.append((time.monotonic() - t0) / max(audio.size / 16_000, 1e-3))
        return s, audio

    def speed(self) -> float:
        """Seconds per second of audio a score takes on this machine (the median so far)."""
        return float(np.median(self.rates))


def match(
    recording: Recording,
    renderer: VoiceRenderer,
    embedder: SpeakerEmbedder,
    profiles: StockProfiles,
    text: str | None = None,
    settings: EnrollSettings | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    judge: JudgeEncoder | None = None,
    others: StockProfiles | None = None,
) -> EnrollResult:
    """Find the pack that sounds most like `recording` (see the module docstring); ``judge``
    is the guard's second encoder (loaded here when not given); ``others`` the profiles of
    Kokoro's voices for other languages, whose timbres are tried (`other_timbres`)."""
    settings = settings or EnrollSettings()
    progress = progress or (lambda _f, _m: None)
    cancel = cancel or threading.Event()
    t0 = time.monotonic()
    renders0 = renderer.renders
    profiles = profiles.without(set(settings.exclude))
    if len(profiles.names) == 0:
        raise EnrollmentError("No stock voices are left to enrol from.")
    fit16k, judged16k = guard.split(recording.speech16k)
    target = embedder.embed(fit16k)
    # The stock voices and every render are heard through the recording's band, as the guard
    # hears them: above a telephone band, what the renders have and the recording lacks
    # would outweigh the voice.
    band = guard.band_gain(fit16k)
    profiles = profiles.for_band(guard.band_top(band))
    sims = profiles.embeddings.astype(np.float64) @ target.astype(np.float64)
    order = np.argsort(-sims)
    names = [profiles.names[i] for i in order]
    nearest = names[0]
    # The timbres blends are made of: the stock voices', and the other languages' voices'.
    if others is not None and settings.other_timbres > 0:
        others = others.without(set(settings.exclude)).for_band(guard.band_top(band))
    else:
        others = None
    timbres = profiles if others is None else profiles.joined(others)
    timbre_sims = timbres.embeddings.astype(np.float64) @ target.astype(np.float64)
    timbre_names = [timbres.names[i] for i in np.argsort(-timbre_sims)]

    def step(fraction: float, message: str) -> None:
        progress(min(1.0, fraction), message)

    said: align.ReadPart | None = None
    said16k = spoken = recording.speech16k
    given = bool(text and text.strip())
    heard: intelligibility.Heard | None = None
    if not (text and text.strip()) and settings.transcribe and intelligibility.available():
        # No text: what the recogniser hears in the fit part's start, if it is sure of it.
        step(0.0, "listening for the words of your recording")
        spoken = fit16k[: int(HEAR_SECONDS * 16_000)]
        heard = intelligibility.transcribe(spoken)
        if heard.sure:
            text = heard.text
    if text and text.strip():
        # The recording may say only part of its text (a passage read until the recorder's
        # limit or stopped early; the clearest 30 s of a long recording): match those words.
        step(
            0.0,
            "finding the words heard in your recording"
            if heard
            else "finding the words of the text in your recording",
        )
        said = align.words_said(spoken, text, renderer, model_files.stock_pack(nearest))
        if said is None and not renderer.ids(text):
            text = None  # nothing in it the voices can say (another script, only punctuation)
        if said is not None:
            text = None
            if said.usable:
                # Their first SEARCH_SECONDS, and the speech that says them (for the rate).
                text, seconds = said.head(SEARCH_SECONDS)
                said16k = spoken[: int(seconds * 16_000)]
    texts = [text] if text and text.strip() else list(PROFILE_SENTENCES[:2])
    # The recording's speech time saying `texts` (0: its words are not known).
    said_seconds = speech_seconds(said16k) if text and text.strip() else 0.0
    search = _Search(renderer, embedder, target, texts, band)

    pace = _Pace(settings)
    # Renders the search plans: stock, blend, fitted blend, pitch, rate, refits, random blends.
    planned = (
        5
        + settings.refit_rounds
        + (settings.random_blends if settings.random_search else 0)
        + (settings.other_timbres if others is not None else 0)
    )

    def elapsed_fraction() -> float:
        return pace(len(search.tried) / planned)

    step(0.0, f"nearest stock voice: {nearest}")
    single = Candidate(f"stock {nearest}", {nearest: 1.0}, {nearest: 1.0})
    began = time.monotonic()
    nearest_sim, nearest_audio = search.score(single)
    best, best_sim, best_audio = single, nearest_sim, nearest_audio
    if cancel.is_set():
        raise EnrollmentError("Enrolment was cancelled.")

    k = max(1, min(settings.top_k, len(names)))
    top = names[:k]
    w = softmax_weights(top, sims[order[:k]], settings.temperature)
    initial = Candidate(f"top-{k} blend", w, w)
    step(elapsed_fraction(), "trying a blend of the nearest stock voices")
    initial_sim, initial_audio = search.score(initial)
    if initial_sim > best_sim:
        best, best_sim, best_audio = initial, initial_sim, initial_audio
    # What the prosody step need not render again (both at speed 1 and their own pitch).
    rendered = {single.label: nearest_audio, initial.label: initial_audio}
    # This machine's speed, from these two renders: what the prosody step and the guard will
    # take, and so what is left of `total_seconds` for the search and the fit (planned again
    # when the fit begins, by all the search's renders).
    last_speech = LAST_PHASE_SPEECH - (
        STOCK_CHECK_SPEECH if stock_check_kept(nearest, renderer.engine.decoder_kind) else 0.0
    )
    last_phase = search.speed() * last_speech

    def room() -> float:
        return settings.total_seconds - (time.monotonic() - t0) - last_phase

    fit_cap = min(settings.fit_seconds, max(MIN_FIT_SECONDS, FIT_SHARE * room()))
    search_cap = min(settings.budget_seconds, max(MIN_SEARCH_SECONDS, room() - fit_cap))
    deadline = began + search_cap
    pace.plan(search_cap, fit_cap, last_phase)

    embeddings = timbres.embeddings.astype(np.float64)

    def fitted_blend(goal: np.ndarray) -> dict[str, float]:
        fw = fit_simplex(embeddings, goal)
        fitted = {timbres.names[i]: float(x) for i, x in enumerate(fw) if x > 1e-3}
        total = sum(fitted.values())
        return {n: x / total for n, x in fitted.items()}

    fitted_embedding = None
    fitted_candidate: Candidate | None = None
    if settings.fit_blend:
        fitted = fitted_blend(target.astype(np.float64))
        c = fitted_candidate = Candidate("encoder-fitted blend", fitted, fitted)
        step(elapsed_fraction(), "trying a blend fitted in the encoder's space")
        s, audio = search.score(c)
        fitted_embedding = search.last_embedding
        if s > best_sim:
            best, best_sim, best_audio = c, s, audio

    stopped = False

    def out_of_time() -> bool:
        nonlocal stopped
        if cancel.is_set():
            stopped = True
            return True
        return time.monotonic() >= deadline

    if others is not None:
        near = np.argsort(-(others.embeddings.astype(np.float64) @ target.astype(np.float64)))
        for j in near[: settings.other_timbres]:
            if out_of_time():
                break
            other = others.names[j]
            language = model_files.language(other)
            c = Candidate(
                f"timbre of {other} ({language} voice) with {nearest}'s prosody half",
                {other: 1.0},
                {nearest: 1.0},
            )
            step(elapsed_fraction(), f"trying the timbre of {other} ({language} voice)")
            s, audio = search.score(c)
            if s > best_sim:
                best, best_sim, best_audio = c, s, audio

    if settings.match_pitch and not out_of_time():
        f0, _spread = pitch_stats(fit16k)
        if f0 > 0:
            dist = np.abs(np.log2(np.maximum(profiles.f0, 1.0) / f0))
            near = np.argsort(dist)[:3]
            pw = np.exp(-((dist[near] / 0.1) ** 2) / 2) + 1e-9
            prosody = {profiles.names[i]: float(x) for i, x in zip(near, pw / pw.sum(), strict=True)}
            c = Candidate(f"{best.label}, prosody half from pitch-matched voices", best.timbre, prosody)
            step(elapsed_fraction(), f"matching pitch ({f0:.0f} Hz)")
            s, audio = search.score(c)
            if s > best_sim:
                best, best_sim, best_audio = c, s, audio

    if settings.match_rate and text and not out_of_time():
        ren_speech = speech_seconds(best_audio) * best.speed
        if said_seconds > 0 and ren_speech > 0:
            speed = float(np.clip(ren_speech / said_seconds, 0.75, 1.35))
            if abs(speed - 1.0) >= 0.03:
                c = Candidate(f"{best.label}, speed {speed:.2f}", best.timbre, best.prosody, speed)
                step(elapsed_fraction(), f"matching speaking rate (speed {speed:.2f})")
                s, audio = search.score(c)
                # The rate is measured, not guessed: keep it unless the encoder clearly objects.
                if s > best_sim - 0.01:
                    best, best_sim, best_audio = c, s, audio

    before_search = best
    if fitted_embedding is not None:
        # Refit: move the goal by what the last fitted blend's speech missed, then fit again.
        goal = target.astype(np.float64)
        got = fitted_embedding
        for r in range(settings.refit_rounds):
            if out_of_time():
                break
            goal = goal + (target - got)
            refit = fitted_blend(goal)
            c = Candidate(f"encoder-fitted blend, refit {r + 1}", refit, refit, best.speed)
            step(elapsed_fraction(), f"refining the fitted blend ({r + 1}), best similarity {best_sim:.2f}")
            s, audio = search.score(c)
            got = search.last_embedding if search.last_embedding is not None else got
            if s > best_sim:
                best, best_sim, best_audio = c, s, audio
    i = 0
    if settings.random_search:
        rng = np.random.default_rng(settings.seed)
        pool = timbre_names[: max(1, min(settings.search_k, len(timbre_names)))]
        while i < settings.random_blends and not out_of_time():
            i += 1
            centre = np.array([best.timbre.get(n, 0.0) for n in pool]) + 0.02
            tw = rng.dirichlet(centre / centre.sum() * 30)
            timbre = {n: float(x) for n, x in zip(pool, tw, strict=True) if x > 1e-3}
            tsum = sum(timbre.values())
            timbre = {n: x / tsum for n, x in timbre.items()}
            c = Candidate(f"random blend {i}", timbre, best.prosody, best.speed)
            step(elapsed_fraction(), f"searching blends ({i}), best similarity {best_sim:.2f}")
            s, audio = search.score(c)
            if s > best_sim:
                best, best_sim, best_audio = c, s, audio
    else:
        stopped = cancel.is_set()

    searched = best
    fitted_style = None
    fit_steps = 0
    fitting = settings.fit_seconds > 0 and not cancel.is_set() and renderer.engine.decoder is not None
    if fitting:
        pace.enter(1)
        last_phase = search.speed() * last_speech
        fit_cap = min(settings.fit_seconds, max(MIN_FIT_SECONDS, room()))
        pace.plan(search_cap, fit_cap, last_phase)
        fitted_style, fit_steps = _fit_style(
            renderer,
            best,
            texts,
            fit16k,
            dataclasses.replace(settings, fit_seconds=fit_cap),
            cancel,
            step,
            pace,
        )
    pace.enter(2)
    judged: list[Candidate] = [single]
    for option in (initial, fitted_candidate, before_search, best, fitted_style):
        if option is not None and all(option.label != p.label for p in judged):
            judged.append(option)
    matched_of: dict[str, Candidate] = {}
    if settings.match_prosody and not cancel.is_set():
        step(pace(), "matching your pitch and speaking rate")
        speaker = SpeakerProsody.of(fit16k)
        for base in (single, initial, fitted_style):
            if base is not None and speaker is not None and not cancel.is_set():
                step(pace(), f"matching your pitch and speaking rate ({base.label})")
                matched = match_prosody(
                    base, speaker, renderer, texts, band, said_seconds, rendered.get(base.label)
                )
                if matched is not None:
                    judged.append(matched)
                    matched_of[base.label] = matched
    if settings.envelope_maps:
        half = None
        if fitted_style is not None and fitted_style.pack is not None and fit_steps and settings.half_way > 0:
            start = build_pack(searched)
            half = dataclasses.replace(
                fitted_style,
                label=f"{fitted_style.label}{HALF_WAY}",
                pack=(start + settings.half_way * (fitted_style.pack - start)).astype(np.float32),
            )
        bases = [single, searched, fitted_style, half]
        for k, mapped in enumerate(bases):
            if (
                mapped is None
                or cancel.is_set()
                or any(b is not None and b.label == mapped.label for b in bases[:k])
            ):
                continue
            step(pace(), f"matching how your voice's sound moves ({mapped.label})")
            source = renderer.render16k(build_pack(mapped), mapped.speed, [MAP_TEXT])
            envelope = EnvelopeMap.fit(source, fit16k, band)
            for variant in (mapped, matched_of.get(mapped.label)):
                if envelope is not None and variant is not None:
                    judged.append(
                        dataclasses.replace(variant, label=f"{variant.label}{MAPPED}", envelope=envelope)
                    )
    step(pace(), f"judging {len(judged)} voices on the part of your recording held back")

    def another_check() -> bool:
        """After a made voice failed the recogniser's check: whether the next one's check and
        its confirmation (`_Checks.next_takes`) end within `total_seconds` and CHECK_GRACE."""
        return time.monotonic() - t0 + word_checks.next_takes() <= settings.total_seconds + CHECK_GRACE

    with _Checks(renderer, judged, nearest, search.speed()) as word_checks:
        verdict = guard.decide(
            nearest,
            [c.label for c in judged],
            lambda i: speak16k(renderer, judged[i], [guard.JUDGE_TEXT]),
            judged16k,
            embedder,
            word_checks,
            judge,
            another_check,
            word_checks.ahead,
            [timbre_of(c) for c in judged],
            word_checks.confirm,
        )
    best = judged[verdict.kept]
    step(1.0, f"done: {verdict.message}")
    return EnrollResult(
        pack=build_pack(best),
        best=best,
        initial=initial,
        before_search=before_search,
        similarity=best_sim,
        initial_similarity=initial_sim,
        nearest_stock=nearest,
        nearest_similarity=nearest_sim,
        renders=renderer.renders - renders0,
        seconds=time.monotonic() - t0,
        stopped_early=stopped,
        tried=tuple(search.tried),
        searched=searched,
        fitted=fitted_style,
        verdict=verdict,
        fit_seconds=len(fit16k) / 16_000,
        judged_seconds=len(judged16k) / 16_000,
        judged=tuple(judged),
        random_blends=i,
        fit_steps=fit_steps,
        cut_by_time=not cancel.is_set()
        and (
            (settings.random_search and i < settings.random_blends)
            or (fitting and fit_steps < settings.fit_steps)
        ),
        said=said,
        text=text if text and text.strip() else None,
        heard=heard,
        given=given,
        shortened=search_cap < settings.budget_seconds or fit_cap < settings.fit_seconds,
        phase_seconds=(*pace.finish(), last_phase),
        decoder=renderer.engine.decoder_kind,
    )


CHECKS_KEPT = 200
"""Stock voices' word errors kept on disk (`check_word_errors`), the newest first."""


def check_word_errors(
    renderer: VoiceRenderer, c: Candidate, judge_audio: np.ndarray, stock_voice: str = "", part: str = "check"
) -> float | None:
    """The recogniser's word errors on ``c`` saying JUDGE_TEXT (``judge_audio``, the guard's
    render) and then CHECK_TEXT; with ``part`` "confirm", on ``c`` saying CONFIRM_TEXT (None
    without a recogniser).

    A stock voice's (``stock_voice``: ``c`` is that voice at its own speed and pitch) are
    shipped, the mean of a few renders for each decoder (`stock_checks`: steadier than one
    render, and no time spent). Where the table does not apply (another decoder, recogniser or
    text), what this machine measured is kept on disk (`paths.cache_dir`), keyed by what the
    model rendered of JUDGE_TEXT, the part and the recogniser, for the next enrolment near that
    voice."""
    if not intelligibility.available():
        return None
    kept: dict[str, dict] = {}
    key = ""
    if stock_voice:
        shipped = stock_checks.shipped(renderer.engine.decoder_kind, stock_voice, part)
        if shipped is not None:
            return shipped
        key = _check_key(judge_audio, part)
        kept = _kept_checks()
        found = kept.get(key, {}).get("errors")
        if isinstance(found, (int, float)):
            return float(found)
    if part == "check":
        errors = intelligibility.word_errors(check_audio(renderer, c, judge_audio), CHECKED_TEXT)
    else:
        errors = intelligibility.word_errors(speak16k(renderer, c, [guard.CONFIRM_TEXT]), guard.CONFIRM_TEXT)
    if key and errors is not None:
        newest = {key: {"errors": errors, "voice": stock_voice}} | {k: v for k, v in kept.items() if k != key}
        with contextlib.suppress(OSError):  # a cache: the next enrolment measures it again
            write_atomic(_checks_path(), json.dumps(dict(list(newest.items())[:CHECKS_KEPT])))
    return errors


CHECKED_TEXT = f"{guard.JUDGE_TEXT} {guard.CHECK_TEXT}"
"""What a voice says in the recogniser's check (`check_audio`)."""


def both_texts(checked: float, confirmed: float) -> float:
    """The word error rate on CHECKED_TEXT and CONFIRM_TEXT together, from each one's."""
    n1, n2 = (len(intelligibility.words(t)) for t in (CHECKED_TEXT, guard.CONFIRM_TEXT))
    return (checked * n1 + confirmed * n2) / (n1 + n2)


def check_audio(renderer: VoiceRenderer, c: Candidate, judge_audio: np.ndarray) -> np.ndarray:
    """What the recogniser hears of ``c`` in its check: its render of JUDGE_TEXT (``judge_audio``,
    the guard's), then of CHECK_TEXT: CHECKED_TEXT."""
    return np.concatenate([judge_audio, speak16k(renderer, c, [guard.CHECK_TEXT])])


class _Checks:
    """The recogniser's checks of the judged voices, as `guard.decide` asks for them (called
    with a voice, told by `ahead` which voice it may ask for next, and asked to `confirm` one
    that passed). A made voice's check is heard in a process of its own
    (`intelligibility.RecogniserProcess`) while this one renders the voice's CONFIRM_TEXT,
    heard as soon as it passes (not sooner: a voice that fails would hold up the next voice's
    check); after a failure, the next voice's CHECK_TEXT instead, heard only when the guard
    asks for it (the recogniser is then free for this voice's CONFIRM_TEXT, said when it
    passes: the time left after a failure goes to the checks). The stock voice's go through
    `check_word_errors` (usually shipped). Hearings are timed, for `next_takes`."""

    def __init__(
        self, renderer: VoiceRenderer, judged: Sequence[Candidate], nearest: str, render_rate: float
    ) -> None:
        self.renderer, self.judged, self.nearest = renderer, judged, nearest
        self.render_rate = render_rate
        """Seconds per second of audio this machine renders at, nothing else running (the
        search's renders, their embedding included)."""
        self.listener = intelligibility.RecogniserProcess()
        self.said: dict[int, np.ndarray] = {}  # voice -> its check's audio, rendered ahead
        self.confirming: dict[int, np.ndarray] = {}  # voice -> its render of CONFIRM_TEXT
        self.upcoming: tuple[int, np.ndarray] | None = None
        self.checked: dict[int, tuple[float, np.ndarray]] = {}  # voice -> (word errors, JUDGE_TEXT render)
        self.took = 0.0
        """The longest a made voice's check took, from the guard's asking to its answer."""
        self.confirm_took = 0.0
        """The longest a made voice's confirmation took, said and heard when asked."""
        self.hear_rate = 0.0
        """Seconds per second of audio the recogniser took to hear, the slowest so far."""
        self.confirm_seconds = 0.0
        """The longest CONFIRM_TEXT rendered, in seconds of audio."""

    def ahead(self, i: int, judge_audio: np.ndarray) -> None:
        """The guard may ask for voice ``i`` (its JUDGE_TEXT render ``judge_audio``) next."""
        self.upcoming = (i, judge_audio)

    def next_takes(self) -> float:
        """About how long a made voice's check will take, with its confirmation if it passes
        (by the slowest so far; a confirmation not yet timed, by the rates it is said and
        heard at)."""
        confirm = self.confirm_took or self.confirm_seconds * (self.render_rate + self.hear_rate)
        return self.took + confirm

    def __call__(self, i: int, judge_audio: np.ndarray) -> float | None:
        if i == 0 or not intelligibility.available():
            errors = check_word_errors(
                self.renderer, self.judged[i], judge_audio, self.nearest if i == 0 else ""
            )
        else:
            began = time.monotonic()
            audio = self.said.pop(i, None)
            if audio is None:
                audio = check_audio(self.renderer, self.judged[i], judge_audio)
            ticket, sent = self.listener.submit(audio), time.monotonic()
            # Said here while the listener hears voice i:
            if self.upcoming is not None:
                j, upcoming_judge = self.upcoming
                self.upcoming = None  # (the guard tells the next before each check)
                self.said[j] = check_audio(self.renderer, self.judged[j], upcoming_judge)
            else:
                self.confirming[i] = self._confirm_audio(i)
            errors = intelligibility.wer(CHECKED_TEXT, self._heard(ticket, sent, audio))
            self.took = max(self.took, time.monotonic() - began)
        if errors is not None:
            self.checked[i] = (errors, judge_audio)
        return errors

    def confirm(self, i: int) -> float | None:
        """Voice ``i``'s word errors on CHECKED_TEXT and CONFIRM_TEXT together (after its check)."""
        if i not in self.checked:
            return None
        checked, judge_audio = self.checked[i]
        if i == 0 or not intelligibility.available():
            confirmed = check_word_errors(
                self.renderer, self.judged[i], judge_audio, self.nearest if i == 0 else "", "confirm"
            )
        else:
            began = time.monotonic()
            audio = self.confirming.pop(i, None)
            said_here = audio is None
            if audio is None:
                audio = self._confirm_audio(i)
            heard = self._heard(self.listener.submit(audio), time.monotonic(), audio)
            confirmed = intelligibility.wer(guard.CONFIRM_TEXT, heard)
            if said_here:
                self.confirm_took = max(self.confirm_took, time.monotonic() - began)
        return None if confirmed is None else both_texts(checked, confirmed)

    def _confirm_audio(self, i: int) -> np.ndarray:
        audio = speak16k(self.renderer, self.judged[i], [guard.CONFIRM_TEXT])
        self.confirm_seconds = max(self.confirm_seconds, audio.size / 16_000)
        return audio

    def _heard(self, ticket: int, sent: float, audio: np.ndarray) -> str:
        heard = self.listener.heard(ticket)
        self.hear_rate = max(self.hear_rate, (time.monotonic() - sent) / max(audio.size / 16_000, 1.0))
        return heard

    def __enter__(self) -> _Checks:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.listener.close()


def _check_key(judge_audio: np.ndarray, part: str = "check") -> str:
    h = hashlib.sha256(np.ascontiguousarray(judge_audio, np.float32).tobytes())
    text = guard.CHECK_TEXT if part == "check" else guard.CONFIRM_TEXT
    h.update(f"{text}|{intelligibility.recogniser_version()}".encode())
    return h.hexdigest()


def stock_check_kept(voice: str, kind: DecoderKind) -> bool:
    """Whether a stock voice's check, read by a decoder of this kind, is shipped or likely kept
    on disk (`check_word_errors`)."""
    return stock_checks.shipped(kind, voice) is not None or any(
        v.get("voice") == voice for v in _kept_checks().values()
    )


def _checks_path() -> Path:
    return paths.cache_dir() / "enrol-stock-checks.json"


def _kept_checks() -> dict[str, dict]:
    try:
        kept = json.loads(_checks_path().read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(kept, dict):
        return {}
    return {k: v for k, v in kept.items() if isinstance(v, dict)}


class _Pace:
    """The fraction done, for the progress report (and so the time left): the search, the
    fit and the last part (prosody and judging) weighted by their times: a phase ended by the
    time it took, the current one by its plan or, past it, the time it has taken, the rest by
    their plan; within the current one, the larger of the share of its work done and the
    share of its time used. So the fraction keeps pace with the clock where a phase runs over
    its plan (a slow machine's search: the time left told from it stays true)."""

    def __init__(self, settings: EnrollSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.weights = (settings.budget_seconds, settings.fit_seconds, JUDGE_SECONDS)
        self.phase = 0
        self.clock = clock
        self.started = clock()
        self.reported = 0.0
        self.spent = [0.0, 0.0, 0.0]
        """Seconds each phase took (the current one's once it ends: `enter`, `finish`)."""

    def plan(self, search: float, fit: float, last: float) -> None:
        """The phases' times as planned on this machine (`match`)."""
        self.weights = (search, fit, last)

    def enter(self, phase: int) -> None:
        self._close()
        self.phase = phase

    def finish(self) -> tuple[float, ...]:
        """Each phase's seconds, the current one's ended now."""
        self._close()
        return tuple(self.spent)

    def _close(self) -> None:
        now = self.clock()
        self.spent[self.phase] += now - self.started
        self.started = now

    def __call__(self, done: float = 0.0) -> float:
        p = self.phase
        taken = self.clock() - self.started
        past = sum(self.spent[:p])
        current = max(self.weights[p], taken, 1e-6)
        total = past + current + sum(self.weights[p + 1 :])
        now = min(0.99, (past + current * min(1.0, max(done, taken / current))) / total)
        # Never back: a phase that ended before its plan makes the rest a larger share.
        self.reported = max(self.reported, now)
        return self.reported


def _fit_style(
    renderer: VoiceRenderer,
    start: Candidate,
    texts: Sequence[str],
    fit16k: np.ndarray,
    settings: EnrollSettings,
    cancel: threading.Event,
    step: Progress,
    pace: _Pace,
) -> tuple[Candidate | None, int]:
    """The fitted style as a candidate (None when no step it made came closer on its held-out
    part: its pack would be the start's, judged and checked twice), and the SPSA steps run."""

    ids = [i for chunk in renderer.ids(" ".join(texts)) for i in chunk]
    fit = StyleFit(
        renderer.engine,
        ids,
        build_pack(start),
        fit16k,
        dataclasses.replace(settings.fit, seed=settings.seed, max_steps=settings.fit_steps),
    )
    deadline = time.monotonic() + settings.fit_seconds

    def report(n: int, loss: float) -> None:
        step(
            pace(n / max(1, settings.fit_steps)),
            f"fitting the voice to your recording (step {n} of {settings.fit_steps})",
        )

    step(pace(), "fitting the voice to your recording")
    result = fit.run(deadline, cancel, report)
    if not result.loss < result.start_loss:
        return None, result.steps  # no step came closer on the held-out part: the start's own pack
    fitted = Candidate(
        f"fitted style from {start.label}", start.timbre, start.prosody, start.speed, pack=result.pack
    )
    return fitted, result.steps


SPREAD_LIMITS = (0.6, 1.6)
"""A matched pitch range factor is kept within these."""
PITCH_LIMITS = (0.6, 1.7)
"""... a matched pitch level factor within these (Kokoro's voices span about 100-260 Hz)."""
SPEED_LIMITS = (0.8, 1.25)
"""... and a speed matched from the voiced-stretch rate within these."""


@dataclass(frozen=True)
class SpeakerProsody:
    """The speaker's pitch and rate, measured on the fit part."""

    median_hz: float
    """Median F0 of the checked pitch track's voiced frames."""
    spread: float
    """Standard deviation of their log2 F0."""
    rate: float
    """Voiced stretches per second of speech (`PitchTrack.voiced_rate`)."""

    @classmethod
    def of(cls, x16k: np.ndarray) -> SpeakerProsody | None:
        track = pitch_track(x16k)
        median_hz, spread = track.stats()
        if median_hz <= 0 or spread <= 0:
            return None
        return cls(median_hz, spread, track.voiced_rate())


def match_prosody(
    base: Candidate,
    speaker: SpeakerProsody,
    renderer: VoiceRenderer,
    texts: Sequence[str],
    band: tuple[np.ndarray, np.ndarray],
    said_seconds: float = 0.0,
    rendered: np.ndarray | None = None,
) -> Candidate | None:
    """``base`` read at the speaker's pitch level, range and rate (None if its renders have
    no measurable pitch). Each render is limited to the recording's band and measured as
    the recording was (`measure.pitch_track`), so a telephone channel biases both alike.

    Two renders: the range from the voice's own spread, then the level and speed from a
    render at that range (widening the range moves the measured median, too).

    The rate: when the recording's words are known (``texts`` are what it says, in
    ``said_seconds`` of its speech), the render's speech time for the same words against
    the recording's; otherwise the voiced stretches per second, a rougher guide (a reader
    whose voicing runs on through his words counts fewer stretches: docs/benchmarks.md).

    ``rendered``: the voice's 16 kHz render of ``texts`` at its own pitch, if already made."""
    pack = build_pack(base)

    def measured(prosody: Prosody, speed: float) -> tuple[SpeakerProsody | None, np.ndarray]:
        made = rendered if prosody == NEUTRAL and rendered is not None else None
        audio = guard.limit_band(
            made if made is not None else renderer.render16k(pack, speed, texts, prosody), band
        )
        return SpeakerProsody.of(audio), audio

    own, audio = measured(NEUTRAL, base.speed)
    if own is None:
        return None
    spread = float(np.clip(speaker.spread / own.spread, *SPREAD_LIMITS))
    shaped, audio = measured(Prosody(1.0, spread), base.speed) if abs(spread - 1.0) > 0.02 else (own, audio)
    if shaped is None:
        return None
    pitch = float(np.clip(speaker.median_hz / shaped.median_hz, *PITCH_LIMITS))
    speed = base.speed
    if said_seconds > 0:
        speed = float(np.clip(base.speed * speech_seconds(audio) / said_seconds, *SPEED_LIMITS))
    elif speaker.rate > 0 and shaped.rate > 0:
        speed = float(np.clip(base.speed * speaker.rate / shaped.rate, *SPEED_LIMITS))
    label = f"{base.label}, your pitch x{pitch:.2f} range x{spread:.2f} speed {speed:.2f}"
    return Candidate(label, base.timbre, base.prosody, speed, base.pack, Prosody(pitch, spread))


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Enroller:
    """Holds what enrolment needs loaded (engine, encoder, stock profiles); reusable."""

    def __init__(
        self,
        renderer: VoiceRenderer,
        embedder: SpeakerEmbedder,
        profiles: StockProfiles,
        others: StockProfiles | None = None,
    ) -> None:
        self.renderer = renderer
        self.embedder = embedder
        self.profiles = profiles
        self.others = others
        """Profiles of Kokoro's voices for other languages (`EnrollSettings.other_timbres`)."""
        self._judge: JudgeEncoder | None = None

    @property
    def judge(self) -> JudgeEncoder:
        """The second speaker encoder (ge2e.py), loaded when first needed."""
        if self._judge is None:
            self._judge = JudgeEncoder.load()
        return self._judge

    @classmethod
    def load(cls, engine: KokoroEngine | None = None, threads: int | None = None) -> Enroller:
        """Load the models; pass the daemon's engine to share its session."""
        from tray_reader.speech.engine import KokoroEngine
        from tray_reader.text.frontend import TextFrontEnd
        from tray_reader.text.g2p import EnglishPhonemizer
        from tray_reader.voices import stock_profiles

        engine = engine or KokoroEngine.load(threads)
        renderer = VoiceRenderer(engine, TextFrontEnd(EnglishPhonemizer()))
        return cls(renderer, SpeakerEmbedder.load(), stock_profiles.load(), stock_profiles.load_other())

    def comparison(self, result: EnrollResult, text: str = guard.JUDGE_TEXT) -> np.ndarray:
        """24 kHz audio of ``text`` said by the nearest stock voice, a pause, then by the
        voice made (at its speed, pitch and range), to hear the two side by side."""
        stock = model_files.stock_pack(result.nearest_stock)
        before = self.renderer.render(stock, 1.0, [text])
        after = self.renderer.render(
            result.pack, result.best.speed, [text], result.best.intonation, result.best.envelope
        )
        return np.concatenate([before, np.zeros(int(0.6 * 24_000), np.float32), after])

    def enroll(
        self,
        library: VoiceLibrary,
        name: str,
        recording: Recording,
        *,
        consent: bool,
        source_sha256: str = "",
        text: str | None = None,
        settings: EnrollSettings | None = None,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[VoiceInfo, EnrollResult]:
        """Match `recording` and store the voice as `name` in `library`."""
        if not consent:
            raise EnrollmentError(
                "Enrolment needs your confirmation that the voice is your own or used with permission."
            )
        library.check_new_name(name)
        checks.check_sound(recording.speech16k, recording.speech_seconds, text, recording.snr_db)
        checks.check_one_speaker(recording.speech16k, self.judge)
        settings = settings or EnrollSettings()
        result = match(
            recording,
            self.renderer,
            self.embedder,
            self.profiles,
            text,
            settings,
            progress,
            cancel,
            self.judge,
            self.others,
        )
        verdict = result.verdict
        judged: dict = {}
        if verdict is not None:
            judged = {
                "kept": verdict.chosen.label,
                "fell_back": result.fell_back,
                "passed_over": verdict.passed_over,
                "unchecked": verdict.unchecked,
                "guard": verdict.message,
                "judged_seconds": round(result.judged_seconds, 2),
                "fit_seconds": round(result.fit_seconds, 2),
                "ahs": round(verdict.chosen.ahs, 4),
                "enc": round(verdict.chosen.enc, 4),
                "stock_ahs": round(verdict.stock.ahs, 4),
                "stock_enc": round(verdict.stock.enc, 4),
                "judge": round(verdict.chosen.judge, 4),
                "stock_judge": round(verdict.stock.judge, 4),
                "candidates": [
                    [
                        j.label,
                        round(j.enc, 4),
                        round(j.ahs, 4),
                        round(j.judge, 4),
                        round(j.wins, 3),
                        round(j.ahs_further, 3),
                    ]
                    for j in verdict.judgements
                ],
            }
        info = VoiceInfo(
            name=name,
            kind="enrolled",
            method=result.best.label,
            source_sha256=source_sha256,
            source_seconds=round(recording.source_seconds, 2),
            checks=recording.warnings,
            scores={
                "similarity": round(result.similarity, 4),
                "initial_similarity": round(result.initial_similarity, 4),
                "nearest_stock": result.nearest_stock,
                "nearest_similarity": round(result.nearest_similarity, 4),
                "speech_seconds": round(recording.speech_seconds, 2),
                "snr_db": round(min(recording.snr_db, 99.0), 1),
                "judged": judged,
                "text": None
                if result.said is None or result.heard is not None
                else {
                    "first": result.said.first,
                    "end": result.said.end,
                    "words": result.said.total,
                    "cost": round(result.said.alignment.cost, 3),
                    "used": result.text is not None,
                },
                "heard": None
                if result.heard is None
                else {
                    "words": result.heard.words,
                    "sure": round(result.heard.confidence, 3),
                    "used": result.heard.sure and result.text is not None,
                },
                "search": {
                    "random_blends": result.random_blends,
                    "fit_steps": result.fit_steps,
                    "cut_by_time": result.cut_by_time,
                },
            },
            settings={
                "speed": round(result.best.speed, 3),
                "pitch": round(result.best.intonation.pitch, 4),
                "pitch_range": round(result.best.intonation.spread, 4),
                **({} if result.best.envelope is None else {"envelope": result.best.envelope.to_json()}),
                "timbre": {k: round(v, 4) for k, v in result.best.timbre.items()},
                "prosody": {k: round(v, 4) for k, v in result.best.prosody.items()},
                "budget_seconds": settings.budget_seconds,
                "random_blends": settings.random_blends,
                "fit_steps": settings.fit_steps,
                "top_k": settings.top_k,
                "text": text or "",
                "text_used": result.text or "",
            },
            consent=True,
        )
        return library.save(info, result.pack), result

    def enroll_file(
        self,
        library: VoiceLibrary,
        name: str,
        path: Path,
        *,
        consent: bool,
        text: str | None = None,
        settings: EnrollSettings | None = None,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[VoiceInfo, EnrollResult]:
        """`enroll` from an audio file (what `preprocess.load_audio` reads)."""
        library.check_new_name(name)
        samples, rate = load_audio(path)
        recording = prepare(samples, rate, from_start=bool(text and text.strip()))
        return self.enroll(
            library,
            name,
            recording,
            consent=consent,
            source_sha256=file_sha256(Path(path)),
            text=text,
            settings=settings,
            progress=progress,
            cancel=cancel,
        )
