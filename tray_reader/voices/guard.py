"""The guard: a made voice is kept only if it is closer to a part of the recording it never saw.

The recording is split once, at a pause: the first part (about two thirds) is all the search
and the fit may use; the rest is judged on only. Each finished candidate speaks JUDGE_TEXT
and is scored against the judged part by three measures:

* `enc`: the speaker encoder's cosine (higher is closer). The blend search climbs this
  encoder, on the fit part's audio only; on the judged part it is a check of generalisation,
  but a voice can also come out closer by it for the encoder's own quirks.
* `judge`: a second speaker encoder's cosine (ge2e.py, higher is closer), which the search and
  the fit never use: a voice closer by both encoders is more likely closer to the speaker,
  not to what one encoder hears. (Replayed on the bench's saved runs, it turned away one
  speaker's fitted voice that the first encoder and the MFCC measure passed and that this
  encoder found further from the speaker's other recording than the stock voice.)
* `ahs`: the MFCC-covariance (arithmetic-harmonic sphericity) distance after cepstral mean
  removal (lower is closer). The search and the style fit never use it; an envelope-mapped
  voice (speech/envelope.py) is made to have the recording's envelope covariance, nearly what
  it measures, so for those voices it is not an independent judge: the two encoders are.

Both sides go through one band: the judged part's (`band_gain`): a telephone recording is
compared with renders through the same band, and the recording's own weak sound beyond the
band's edge is cut as the renders' is (cutting only the renders made the MFCC covariances
differ by the band edge, not by the voice).

A candidate is kept only if it beats the nearest stock voice by both encoders, each by more
than ENC_MARGIN, does so in at least WIN_SHARE of the resamplings of the judged part and of
the renders (`win_shares`: a few seconds of speech make the measures noisy, and how noisy
depends on the recording), and is not clearly further from the judged part by `ahs`: further
in fewer than AHS_VETO_SHARE of block resamplings of both sides (`ahs_further_shares`); among
those, the one that beat the stock voice in the most resamplings wins (on a tie, the one
closer by the two encoders together: not the lower `ahs`, which an envelope map works on). Otherwise the nearest stock voice is kept and the user is told. `ahs` is a veto, not a
third race to win by a margin: on a few seconds of speech it hardly tells voices apart, and
asking it for a margin in most resamplings turned away voices that the speaker's second
recording found closer by every measure; a veto on its point estimates did the same when they
differed by a few thousandths, as noise does (docs/benchmarks.md). The measures are
text-independent, so the judged part's words need not be known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tray_reader.voices import intelligibility
from tray_reader.voices.embedder import cosine, pooled
from tray_reader.voices.ge2e import JudgeEncoder
from tray_reader.voices.measure import covariance, features, regularised, sphericity

RATE = 16_000
JUDGE_FRACTION = 0.35
"""Share of the recording's speech held back for judging."""
MIN_JUDGE_SECONDS = 3.0
"""At least this much speech is judged on (the measures need a few hundred frames)."""
JUDGE_TEXT = (
    "Seven bright yellow birds were singing happily in the garden. "
    "Please remember to lock the back door before you go to sleep tonight."
)
"""What each candidate says to be judged (words the fit renders never say)."""
ENC_MARGIN = 0.02
"""A kept voice's cosine by each encoder must exceed the stock voice's by this much (set on
the bench's dev speakers); its MFCC distance must not exceed the stock voice's."""
DRAWS = 200
"""Resamplings of the judged part (and of each render) that estimate the measures' noise."""
CHECK_TEXT = (
    "A large brown dog barked at the postman who came to the gate every afternoon, "
    "and nobody could ever say why. "
    "Our neighbours painted their kitchen green and planted tomatoes by the fence. "
    "The last bus leaves the station at half past eleven on weekdays. "
    "Could you send me the report by Thursday, along with the figures for March?"
)
"""What each voice the intelligibility check hears says after JUDGE_TEXT (82 words in all,
questions and numbers among them): with a sentence or two, one unlucky word moves the word
error rate by more than the allowed rise."""
CONFIRM_TEXT = (
    "My sister found an old map in the attic, folded inside a leather book. "
    "It showed a small island with four hills and a white lighthouse. "
    "Does the ferry still run if the wind picks up tomorrow? "
    "The doctor told him to walk for twenty minutes every day and to rest a little more. "
    "Fresh paint, new curtains and a wooden table made the room feel warm."
)
"""What a voice that passed the check says before it is kept (67 words none of the other
texts say): its word errors on both texts together must be as near the stock voice's as on the
first (`decide`'s ``confirm``). Some voices read the check's 82 words well and other words
badly; the bench's replay found one kept voice 0.12 worse than its stock voice on new text
that this turned away, and no other (docs/benchmarks.md)."""
MAX_WER_RISE = 0.02
"""A kept voice may have at most this many more word errors (a share of the words heard)
than the nearest stock voice, by the recogniser (`intelligibility`). The user is promised 0.05
on any text; one render of these 82 words is noisy and the words a voice finds hard change
from text to text, so the check asks for less (docs/benchmarks.md)."""
AHS_VETO_SHARE = 0.8
"""A made voice further from the judged part than the nearest stock voice by the MFCC distance
in this share of the block resamplings (`ahs_further_shares`) is turned away, however close
the encoders find it."""
AHS_BLOCK_FRAMES = 25
"""Feature frames (one per `measure.HOP` samples) per block the MFCC distance's resamplings
draw: neighbouring frames are alike, so single frames drawn would understate the noise."""
WIN_SHARE = 0.8
"""A kept voice must beat the nearest stock voice by both encoders in this share of the
resamplings (its point estimates must also beat it by the margin); set on the bench's dev
speakers, where 0.7 to 0.85 kept the same voices."""


class WindowEncoder(Protocol):
    """A speaker encoder as the guard uses it (embedder.SpeakerEmbedder, ge2e.JudgeEncoder)."""

    def window_embeddings(self, wav16k: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class Judgement:
    """One candidate's scores on the judged part."""

    label: str
    """The candidate's recipe."""
    enc: float
    """Speaker-encoder cosine to the judged part (higher is closer)."""
    ahs: float
    """MFCC-covariance distance to the judged part (lower is closer)."""
    judge: float
    """The second encoder's cosine to the judged part (higher is closer)."""
    wins: float = 0.0
    """Share of resamplings of the judged part in which it beats the nearest stock voice by
    both encoders (`win_shares`; 0 for the stock voice itself)."""
    ahs_further: float = 0.0
    """Share of block resamplings in which it is further from the judged part than the nearest
    stock voice by the MFCC distance (`ahs_further_shares`; 0 for the stock voice itself)."""

    def beats(self, stock: Judgement) -> bool:
        """Closer than the nearest stock voice by both encoders, each by more than ENC_MARGIN,
        and not clearly further by the MFCC distance (`ahs_further`, measured against it)."""
        return (
            self.enc > stock.enc + ENC_MARGIN
            and self.judge > stock.judge + ENC_MARGIN
            and self.ahs_further < AHS_VETO_SHARE
        )


@dataclass(frozen=True)
class Verdict:
    """What the guard kept and why."""

    kept: int
    """Index of the kept candidate in the judged list (0 is the nearest stock voice)."""
    judgements: tuple[Judgement, ...]
    """Every candidate judged, the nearest stock voice first."""
    message: str
    """What to tell the user."""
    passed_over: int = 0
    """Made voices closer to the recording that a recogniser followed less well (not kept)."""
    unchecked: int = 0
    """Made voices closer to the recording left unchecked: enrolment's time was up."""

    @property
    def chosen(self) -> Judgement:
        return self.judgements[self.kept]

    @property
    def stock(self) -> Judgement:
        return self.judgements[0]


def split(x16k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fit part, judged part) of the speech, cut at the quietest 50 ms near the split point."""
    n = len(x16k)
    judge = max(int(MIN_JUDGE_SECONDS * RATE), int(JUDGE_FRACTION * n))
    judge = min(judge, n // 2)
    target = n - judge
    win = RATE // 20
    lo, hi = max(win, target - RATE), min(n - win, target + RATE)
    if hi <= lo:
        return x16k[:target], x16k[target:]
    starts = np.arange(lo, hi, RATE // 100)
    energy = [float(np.mean(x16k[s - win // 2 : s + win // 2] ** 2)) for s in starts]
    cut = int(starts[int(np.argmin(energy))])
    return x16k[:cut], x16k[cut:]


BAND_FLOOR_DB = 35.0
"""Frequencies where the recording's long-term spectrum is this far below its peak are outside its band."""


def band_gain(x16k: np.ndarray, n_fft: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies Hz, 0/1 gain) of the band the recording carries (long-term spectrum)."""
    frames = np.lib.stride_tricks.sliding_window_view(np.asarray(x16k, np.float64), n_fft)[:: n_fft // 2]
    power = (np.abs(np.fft.rfft(frames * np.hanning(n_fft), axis=-1)) ** 2).mean(axis=0)
    db = 10 * np.log10(power + 1e-20)
    smooth = np.convolve(db, np.ones(9) / 9, mode="same")
    inside = smooth > smooth.max() - BAND_FLOOR_DB
    idx = np.flatnonzero(inside)
    gain = np.zeros_like(db)
    gain[idx[0] : idx[-1] + 1] = 1.0
    return np.fft.rfftfreq(n_fft, 1 / RATE), gain


def band_top(band: tuple[np.ndarray, np.ndarray]) -> float:
    """The highest frequency (Hz) inside a band of `band_gain`."""
    freqs, gain = band
    inside = np.flatnonzero(gain)
    return float(freqs[inside[-1]]) if len(inside) else float(freqs[-1])


def limit_band(audio16k: np.ndarray, band: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """`audio16k` through the band of `band_gain`."""
    freqs, gain = band
    spec = np.fft.rfft(np.asarray(audio16k, np.float64))
    f = np.fft.rfftfreq(len(audio16k), 1 / RATE)
    spec *= np.interp(f, freqs, gain)
    return np.fft.irfft(spec, len(audio16k)).astype(np.float32)


@dataclass(frozen=True)
class _Measured:
    """What one clip's measures need: each encoder's window embeddings and its feature frames."""

    windows: np.ndarray
    """Unit embeddings of the first encoder's windows [windows, 256]."""
    feats: np.ndarray
    """MFCC (+ delta) frames [frames, d] (`measure.features`)."""
    judge_windows: np.ndarray
    """Unit embeddings of the second encoder's windows (partials) [partials, 256]."""

    @classmethod
    def of(cls, audio16k: np.ndarray, embedder: WindowEncoder, judge: WindowEncoder) -> _Measured:
        return cls(
            embedder.window_embeddings(audio16k), features(audio16k), judge.window_embeddings(audio16k)
        )

    def resampled(self, window_at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(embeddings [draws, 256], the second encoder's [draws, 256]) of resamplings: row k
        draws each encoder's windows at positions ``window_at[k]`` (in [0, 1) along the clip,
        with replacement)."""
        emb, judge = (_counts(window_at, len(w)) @ w for w in (self.windows, self.judge_windows))
        emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-12
        judge /= np.linalg.norm(judge, axis=1, keepdims=True) + 1e-12
        return emb, judge


def _counts(at: np.ndarray, n: int) -> np.ndarray:
    """[draws, n]: how often each of n items is drawn in each row of positions ``at``."""
    counts = np.zeros((len(at), n))
    rows = np.repeat(np.arange(len(at)), at.shape[1])
    np.add.at(counts, (rows, np.minimum((at * n).astype(int), n - 1).ravel()), 1)
    return counts


def win_shares(
    renders: Sequence[_Measured], judged: _Measured, draws: int = DRAWS, seed: int = 0
) -> np.ndarray:
    """For each render, the share of resamplings in which it is closer to the judged part
    than render 0 by both encoders (render 0: 0; the MFCC distance is a veto on the point
    estimates only, see the module docstring). The judged part is resampled on its own;
    the renders, which all say JUDGE_TEXT, at the same positions along the text, so the
    noise of what is said is common to them and only the voices differ."""
    rng = np.random.default_rng(seed)
    target, target_judge = judged.resampled(rng.random((draws, len(judged.windows))))
    window_at = rng.random((draws, len(renders[0].windows)))
    enc, judge = [], []
    for r in renders:
        e, j = r.resampled(window_at)
        enc.append(np.sum(e * target, axis=1))
        judge.append(np.sum(j * target_judge, axis=1))
    wins = [(e > enc[0]) & (j > judge[0]) for e, j in zip(enc, judge, strict=True)]
    return np.array([0.0] + [float(w.mean()) for w in wins[1:]])


def ahs_further_shares(
    renders: Sequence[_Measured], judged: _Measured, draws: int = DRAWS, seed: int = 0
) -> np.ndarray:
    """For each render, the share of resamplings in which its MFCC distance to the judged part
    is larger than render 0's (render 0: 0). Each resampling draws blocks of AHS_BLOCK_FRAMES
    frames with replacement: the judged part's on their own, the renders' at the same
    positions along the text, as `win_shares` draws windows."""
    rng = np.random.default_rng(seed)
    target = _block_covariances(judged.feats, rng.random((draws, _blocks(judged.feats))))
    at = rng.random((draws, _blocks(renders[0].feats)))
    dist = [sphericity(_block_covariances(r.feats, at), target) for r in renders]
    return np.array([0.0] + [float(np.mean(d > dist[0])) for d in dist[1:]])


def _blocks(feats: np.ndarray) -> int:
    return max(1, len(feats) // AHS_BLOCK_FRAMES)


def _block_covariances(feats: np.ndarray, at: np.ndarray) -> np.ndarray:
    """[draws, d, d]: the covariance of the frames of the blocks drawn at positions ``at``
    [draws, k] (in [0, 1) along the clip), each frame weighted by how often its block was."""
    n, d = feats.shape
    weights = np.zeros((len(at), n))  # a last partial block's frames: never drawn
    drawn = np.repeat(_counts(at, _blocks(feats)), AHS_BLOCK_FRAMES, axis=1)
    weights[:, : drawn.shape[1]] = drawn
    weights /= weights.sum(axis=1, keepdims=True)
    mean = weights @ feats
    second = (weights @ (feats[:, :, None] * feats[:, None, :]).reshape(n, d * d)).reshape(-1, d, d)
    return regularised(second - mean[:, :, None] * mean[:, None, :])


def winners(judgements: Sequence[Judgement]) -> list[int]:
    """Indices of the voices that beat the nearest stock voice (index 0) (`Judgement.beats`)
    and in WIN_SHARE of the resamplings, the most reliable first (the highest `wins`, then
    the highest sum of the two encoders' cosines)."""
    stock = judgements[0]
    found = [i for i, j in enumerate(judgements) if i > 0 and j.beats(stock) and j.wins >= WIN_SHARE]
    return sorted(found, key=lambda i: (-judgements[i].wins, -(judgements[i].enc + judgements[i].judge)))


WordErrors = Callable[[int, np.ndarray], "float | None"]
"""Candidate i's word error rate by the recogniser, given its render of JUDGE_TEXT (None: no
recogniser to tell)."""


def judge_text_errors(_i: int, judge_audio: np.ndarray) -> float | None:
    """`WordErrors` on the render of the judging text alone."""
    return intelligibility.word_errors(judge_audio, JUDGE_TEXT)


def decide(
    stock_name: str,
    labels: Sequence[str],
    speak: Callable[[int], np.ndarray],
    judged16k: np.ndarray,
    embedder: WindowEncoder,
    word_errors: WordErrors = judge_text_errors,
    judge: WindowEncoder | None = None,
    another_check: Callable[[], bool] | None = None,
    ahead: Callable[[int, np.ndarray], None] | None = None,
    kin: Sequence[str] | None = None,
    confirm: Callable[[int], float | None] | None = None,
) -> Verdict:
    """Judge candidates (index 0 must be the nearest stock voice; `speak(i)` renders one).

    Of the voices closer by both encoders and no further by the MFCC distance (`winners`;
    `judge` is the second encoder, by default the shipped one), the first that a recogniser
    understands about as well as the stock voice (word errors at most MAX_WER_RISE more;
    ``word_errors(i, its render of the judging text)``, by default `judge_text_errors`;
    enrolment adds CHECK_TEXT) is kept: a voice nearer the speaker but harder to follow is passed
    over, and the user told. Without a recogniser that is not checked, and the message says so.
    ``another_check()`` is asked before each check after a voice failed one (enrolment's clock:
    each takes seconds); when it says no, the voices not checked are not kept, and the user
    told. After a failure, ``ahead(j, its render)`` is told, before each check, which voice
    would be checked after it, so its check can be begun while the recogniser hears the one
    before. Voices of the failed one's ``kin`` (the same `kin[i]`: the same timbre, the
    decoder's half of the style, whatever its pitch, speed or envelope map) are checked after the
    others: what made it unclear, they have too (docs/benchmarks.md: a fitted style that fails
    fails with and without its map and its pitch, while other voices through their maps pass).
    With ``confirm``, a voice that passed is kept only if ``confirm(i)``, its word errors on the
    check's texts and CONFIRM_TEXT together, is also within MAX_WER_RISE of the stock voice's
    (``confirm(0)``, asked once); else it is passed over as one that failed.

    Renders and the judged part go through the same band (`band_gain` of the judged part):
    a render cut to exact silence outside a band the recording only rolls off in would make
    the MFCC covariances differ by the band edge rather than by the voice."""
    judge = judge or JudgeEncoder.load()
    band = band_gain(judged16k)
    judged = _Measured.of(limit_band(judged16k, band), embedder, judge)
    audio = [speak(i) for i in range(len(labels))]
    renders = [_Measured.of(limit_band(a, band), embedder, judge) for a in audio]
    target, target_judge, cj = pooled(judged.windows), pooled(judged.judge_windows), covariance(judged.feats)
    wins = win_shares(renders, judged)
    further = ahs_further_shares(renders, judged)
    judgements = tuple(
        Judgement(
            lab,
            cosine(pooled(r.windows), target),
            float(sphericity(covariance(r.feats), cj)),
            cosine(pooled(r.judge_windows), target_judge),
            float(w),
            float(f),
        )
        for lab, r, w, f in zip(labels, renders, wins, further, strict=True)
    )
    stock = judgements[0]
    kept, understood, unchecked = 0, "", 0
    passed: list[str] = []
    stock_errors: float | None = None
    stock_both: float | None = None
    waiting = winners(judgements)
    first = True
    while waiting:
        if passed and another_check is not None and not another_check():
            unchecked = len(waiting)
            break
        i = waiting.pop(0)
        later = [j for j in waiting if kin is not None and kin[j] == kin[i]]
        waiting = [j for j in waiting if j not in later] + later
        if ahead is not None and passed and waiting:
            # After a failure, the check that would come next is begun while this one is heard
            # (not before the first: most voices pass it, and the two would share the processor).
            ahead(waiting[0], audio[waiting[0]])
        if first:
            stock_errors = word_errors(0, audio[0])
            first = False
        if stock_errors is None:
            kept = i
            understood = "; how well it is understood was not checked (no offline recogniser installed)"
            break
        errors = word_errors(i, audio[i])
        said = f"word errors {errors or 0.0:.2f}, {stock_name} {stock_errors:.2f}"
        clear = errors is not None and errors <= stock_errors + MAX_WER_RISE
        if clear and confirm is not None:
            if stock_both is None:
                stock_both = confirm(0)
            both = confirm(i)
            if both is not None and stock_both is not None:
                said += f"; on that and a second text {both:.2f}, {stock_name} {stock_both:.2f}"
                clear = both <= stock_both + MAX_WER_RISE
        if clear:
            kept = i
            understood = f"; a recogniser understands it as well ({said})"
            break
        passed.append(f"{judgements[i].label} ({said})")
    seconds = len(judged16k) / RATE
    if kept:
        j = judgements[kept]
        message = (
            f"kept {j.label}: on {seconds:.0f} s of your recording held back from the fit it is clearly "
            f"closer than the nearest stock voice {stock_name} by two speaker encoders ({j.enc:.2f} and "
            f"{j.judge:.2f} vs {stock.enc:.2f} and {stock.judge:.2f}, higher is closer; closer by both in "
            f"{j.wins:.0%} of resamplings of that part) and not clearly further by MFCC distance "
            f"({j.ahs:.3f} vs {stock.ahs:.3f}, lower is closer; further in {j.ahs_further:.0%} of "
            f"resamplings){understood}"
        )
    elif passed:
        message = (
            f"kept the nearest stock voice {stock_name}: the made voices closer to your recording were "
            f"harder for a recogniser to follow: {'; '.join(passed)}"
        )
    else:
        message = (
            f"kept the nearest stock voice {stock_name}: no made voice was clearly closer to the "
            f"{seconds:.0f} s of your recording held back from the fit by both speaker encoders "
            f"without being clearly further by MFCC distance"
        )
    if kept and passed:
        message += f"; passed over as harder to follow: {'; '.join(passed)}"
    if unchecked:
        message += (
            f"; {unchecked} more made {'voice was' if unchecked == 1 else 'voices were'} not "
            f"checked: enrolment's time was up"
        )
    return Verdict(kept, judgements, message, len(passed), unchecked)
