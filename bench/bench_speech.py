"""Speech engine figures (prints them; not a test).

    .venv/bin/python -m bench.bench_speech            # all figures (the RSS run takes a while)
    .venv/bin/python -m bench.bench_speech --rss-words 800 --runs 3

- first audio (warm), per paragraph, median of --runs interleaved runs: the streaming
  engine (front end's first chunk, decoder windows) against the naive approach
  (synthesise the whole first sentence, then play), as a ratio. "first speech" is when
  the first piece holding audible speech (above -40 dBFS RMS) is ready; the model starts
  every chunk with ~0.3 s of near-silence, so the first piece is usually that silence.
- real-time factor (compute seconds per audio second) over all paragraphs, streaming and
  whole-chunk, with 1 and 2 threads, interleaved.
- ready: load + warm-up in a fresh process (median of 3).
- peak RSS: a fresh process reads a ~5,000-word text through the Synthesizer (front end,
  next chunk made ahead unless --no-ahead, streaming engine); its peak resident set
  (VmHWM) at the end, and its RTF of speech.
- playback waits: each paragraph read from cold in real time (from its first piece): how
  often, and how long, playback would wait for the next piece; the product's settings
  against one chunk after another, and against windows that only grow, interleaved.
- seams: streamed vs whole-chunk audio per paragraph sentence (log-mel distance, SNR).
- joins: the longest silence inside each sentence a read cuts into chunks, against the same
  sentence rendered whole in one chunk; and the silences between sentences. Then the words
  at each cut: length and pitch as the read says them and as the chunk before the cut says
  them alone, against the sentence rendered whole.
Report the machine load (os.getloadavg) with the figures: timings on a shared box are noisy.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

from tray_reader.speech.engine import FIRST_WINDOW_MARGIN, START_SHARE

PARAGRAPHS = [
    "The old lighthouse stood at the edge of the cliff for more than a century. Every night its "
    "lamp turned slowly, sweeping the dark water with a pale beam. Sailors far from the harbour "
    "trusted it to guide them past the rocks. When the keeper finally retired, the village decided "
    "to keep the light burning, and volunteers took turns climbing the narrow stairs each evening.",
    "Learning a new language takes patience and a little courage. At first, even simple sentences "
    "feel strange in your mouth, and you worry about every mistake. Then, one morning, you notice "
    "that you understood a conversation without translating it in your head. That small moment is "
    "worth the months of practice, the forgotten words, and the awkward silences along the way.",
    "Our meeting on Thursday will start half an hour later than usual. Please bring the printed "
    "report, your notes from the last quarter, and any questions about the new schedule. We will "
    "review the budget first, then discuss the training plan for the spring. If you cannot attend, "
    "send a short summary of your progress to the team before noon.",
    "Rain had fallen all afternoon, and the streets shone under the lamps. A boy in a yellow coat "
    "ran past the bakery, holding a paper bag above his head. Inside, the baker was closing the "
    "shutters and counting the last loaves of bread. She smiled when she saw him, opened the door "
    "again, and handed him a warm roll for the walk home.",
]

LONG_SENTENCES = [
    "The river wound through the valley, past farms and quiet villages, toward the distant sea.",
    "She opened the letter carefully, read it twice, and then put it back in the drawer.",
    "In the spring, the fields turn green and the first flowers appear along the hedges.",
    "Nobody expected the small bookshop to survive, yet it is still open after forty years.",
    "He repaired the clock with a steady hand, although the parts were smaller than rice.",
    "When the train finally arrived, the platform was crowded with tired and hungry travellers.",
    "The committee agreed to publish the results, but only after a careful second review.",
    "Children played in the square while their parents talked about the harvest and the weather.",
    "A cold wind came down from the mountains, and the shepherds gathered the flock early.",
    "Reading aloud slowly, with clear pauses, helps listeners follow a long and detailed argument.",
    "Why would anyone leave such a beautiful house empty for so many winters?",
    "The library keeps its rarest maps in a dry room behind two heavy doors.",
]

SPEECH_RMS = 0.01


def long_text(words: int) -> str:
    """A deterministic text of about `words` words, in paragraphs of five sentences."""
    out, count, i = [], 0, 0
    while count < words:
        para = " ".join(LONG_SENTENCES[(i * 7 + k) % len(LONG_SENTENCES)] for k in range(5))
        out.append(para)
        count += len(para.split())
        i += 1
    return "\n\n".join(out)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def _frontend():
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer

    phonemizer = EnglishPhonemizer()
    frontend = TextFrontEnd(phonemizer)
    frontend.phonemize = phonemizer  # the naive approach phonemises whole sentences itself
    return frontend


def _pack():
    from tray_reader import model_files

    return model_files.stock_pack("af_heart")


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(t0: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clocks()
    return wall - t0[0], cpu - t0[1]


def first_audio_streaming(
    engine, frontend, pack, text: str
) -> tuple[tuple[float, float], tuple[float, float]]:
    """(wall, CPU) seconds until the first piece, and until the first piece with speech in it."""
    t0 = _clocks()
    first = None
    for chunk in frontend.chunks(text):
        ids = frontend.ids(chunk.phonemes)
        if not ids:
            continue
        for piece in engine.stream(ids, pack, 1.0):
            now = _since(t0)
            first = first or now
            if np.sqrt(np.mean(piece**2)) > SPEECH_RMS:
                return first, now
    raise RuntimeError("no speech in the paragraph")


def first_audio_naive(engine, frontend, pack, text: str) -> tuple[float, float]:
    """(wall, CPU) seconds until the whole first sentence is synthesised (then it would play)."""
    t0 = _clocks()
    sentence = _sentences(text)[0]
    ids = frontend.ids(frontend.phonemize(sentence))[:508]
    engine.synthesize(ids, pack, 1.0)
    return _since(t0)


def first_audio_prepared(synth, pack, text: str) -> tuple[float, float]:
    """(seconds spent preparing when the selection changed, seconds from the read to its
    first piece): the daemon's path when prepare_selection is on."""
    from tray_reader.speech.synthesis import fixed_voice

    voice = fixed_voice(pack)
    synth.prepared = None
    t0 = time.perf_counter()
    synth.prepare(text, voice)
    prepare = time.perf_counter() - t0
    t0 = time.perf_counter()
    stream = synth.stream(text, voice)
    next(stream)
    first = time.perf_counter() - t0
    stream.close()
    return prepare, first


def bench_first_audio(engine, frontend, pack, runs: int) -> None:
    """Wall-clock figures, and CPU seconds of the process (all threads): on a busy shared
    machine the wall clock mostly measures the neighbours, CPU time much less so."""
    rows = []
    for p, text in enumerate(PARAGRAPHS):
        samples: list[tuple[float, ...]] = []
        for r in range(runs):
            # Alternate the order so neither approach always runs on a cooler cache.
            naive = first_audio_naive(engine, frontend, pack, text) if r % 2 else None
            first, speech = first_audio_streaming(engine, frontend, pack, text)
            naive = naive or first_audio_naive(engine, frontend, pack, text)
            samples.append((*first, *speech, *naive))
        m = [statistics.median(c) for c in zip(*samples, strict=True)]
        rows.append(m)
        print(
            f"  paragraph {p}: wall first audio {m[0] * 1000:.0f} ms, first speech {m[2] * 1000:.0f} ms, "
            f"naive {m[4] * 1000:.0f} ms ({m[4] / m[0]:.1f}x); CPU first audio {m[1] * 1000:.0f} ms, "
            f"first speech {m[3] * 1000:.0f} ms, naive {m[5] * 1000:.0f} ms ({m[5] / m[1]:.1f}x)"
        )
    m = [statistics.median(c) for c in zip(*rows, strict=True)]
    print(
        f"first audio (median over paragraphs): wall: streaming {m[0] * 1000:.0f} ms (first speech "
        f"{m[2] * 1000:.0f} ms), naive {m[4] * 1000:.0f} ms, ratio {m[4] / m[0]:.1f}x "
        f"({m[4] / m[2]:.1f}x to first speech); CPU: streaming {m[1] * 1000:.0f} ms "
        f"(first speech {m[3] * 1000:.0f} ms), naive {m[5] * 1000:.0f} ms, ratio {m[5] / m[1]:.1f}x"
    )
    from tray_reader.speech.synthesis import Synthesizer

    synth = Synthesizer(frontend, engine)
    prepared = [first_audio_prepared(synth, pack, text) for text in PARAGRAPHS for _ in range(runs)]
    prep, first = (statistics.median(c) for c in zip(*prepared, strict=True))
    print(
        f"first audio of a prepared selection: {first * 1000:.1f} ms after the read "
        f"(preparing took {prep * 1000:.0f} ms when the selection changed)"
    )


def playback_waits(synth, pack, text: str) -> tuple[int, float, float, float, float, int]:
    """Read ``text`` from cold as the player would, in real time from the first piece:
    (times playback would have waited for the next piece, seconds waited in all, compute
    seconds, audio seconds, seconds to the first piece, waits in the first EARLY seconds)."""
    from tray_reader.speech.synthesis import fixed_voice

    t0 = time.perf_counter()
    started, played, waited, waits, early = None, 0.0, 0.0, 0, 0
    for chunk in synth.stream(text, fixed_voice(pack)):
        now = time.perf_counter()
        started = started or now
        late = now - (started + played + waited)
        if late > 0.005:
            waits += 1
            waited += late
            early += played < EARLY
        played += chunk.samples.size / 24_000
    return waits, waited, time.perf_counter() - t0, played, (started or t0) - t0, early


EARLY = 3.0
"""Seconds of a read's audio in which bench_gaps counts waits apart: a stop in the first
words is the one most heard."""

GAP_VARIANTS = {
    "timed windows, next chunk made ahead": (False, 1.0, True, True),
    "the same, the plan's first window always": (False, 1.0, True, False),
    "the same, first audio never held back": (False, 1.0, False, False),
    "timed windows, one chunk after another": (False, math.inf, True, True),
    "growing windows, next chunk made ahead": (True, 1.0, True, False),
}
"""(windows that grow instead of the product's timed ones, the synthesiser's AHEAD_LEAD,
whether a chunk heard at once holds its first audio back until playback need not wait,
whether its first window is sized to cover the next on a slow machine) of each variant
bench_gaps compares; the product's first."""


def _variant(engine, growing_windows: bool, ahead_lead: float, hold: bool, sized: bool):
    """The engine with the variant's window schedule, and the synthesiser's lead and the
    engine's start rules set."""
    from tests.schedules import growing
    from tray_reader.speech import engine as engine_module
    from tray_reader.speech import synthesis
    from tray_reader.speech.windows import by_time

    synthesis.AHEAD_LEAD = ahead_lead
    engine_module.START_SHARE = START_SHARE if hold else math.inf
    # A margin of 0: the next window counted as taking no time, so the plan's first window.
    engine_module.FIRST_WINDOW_MARGIN = FIRST_WINDOW_MARGIN if sized else 0.0
    return dataclasses.replace(engine, schedule=growing(engine.plan) if growing_windows else by_time)


def bench_gaps(engine, frontend, pack, runs: int) -> None:
    """Does playback wait in the middle of a cold read? Each paragraph, and each of SHORT
    (a message, a key's name), read as a new request through the Synthesizer, in each of
    GAP_VARIANTS (the product's first), interleaved in a rotating order, in the same run."""
    from tray_reader.speech.synthesis import Synthesizer

    synths = {name: Synthesizer(frontend, _variant(engine, *GAP_VARIANTS[name])) for name in GAP_VARIANTS}
    totals: dict[str, list] = {name: [0, 0, 0.0, 0.0, 0.0, [], 0] for name in GAP_VARIANTS}
    names = list(GAP_VARIANTS)
    for r in range(runs):
        for text in (*PARAGRAPHS, *SHORT):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                _variant(engine, *GAP_VARIANTS[name])
                synths[name].prepared = None  # a new text each time: nothing kept
                waits, waited, compute, audio, first, early = playback_waits(synths[name], pack, text)
                t = totals[name]
                t[0] += 1
                t[1] += waits > 0
                t[2] += waited
                t[3] += compute
                t[4] += audio
                t[5].append(first)
                t[6] += early > 0
    _variant(engine, False, 1.0, True, True)
    for name, (reads, waited_reads, waited, compute, audio, firsts, early) in totals.items():
        print(
            f"playback waits, cold reads ({name}): {waited_reads} of {reads} reads waited "
            f"({early} in their first {EARLY:.0f} s), {waited * 1000:.0f} ms in all; first audio "
            f"median {statistics.median(firsts) * 1000:.0f} ms; compute per second of audio "
            f"(pauses included) {compute / audio:.3f}"
        )


SHORT = ("Control alt delete.", "The last message is about green apples.", "Message number seven.")
"""Short reads for bench_gaps: one chunk each, all of it due at once."""


def _all_ids(frontend) -> list[list[int]]:
    return [ids for p in _paragraph_ids(frontend) for ids in p]


def _paragraph_ids(frontend) -> list[list[list[int]]]:
    return [[ids for c in frontend.chunks(t) if (ids := frontend.ids(c.phonemes))] for t in PARAGRAPHS]


def stream_paragraph(engine, chunks: list[list[int]], pack) -> int:
    """Samples of one paragraph streamed as the Synthesizer does: each chunk after the
    first is told its lead (audio made so far minus the time since the first piece; the
    punctuation pauses, which add to it in the product, are left out)."""
    started, samples = None, 0
    for ids in chunks:
        lead = 0.0 if started is None else samples / 24_000 - (time.perf_counter() - started)
        for piece in engine.stream(ids, pack, 1.0, lead):
            started = started or time.perf_counter()
            samples += piece.size
    return samples


def bench_rtf(frontend, pack, runs: int) -> None:
    """Each decoder (shipped and, when built, fast and fused) with 1 and 2 threads, interleaved."""

    paragraphs = _paragraph_ids(frontend)
    engines = {}
    for threads in (1, 2):
        for decoder in DECODERS:
            e = _load(threads, decoder)
            engines[(threads, e.decoder_kind.value)] = e
    for e in engines.values():
        e.warm_up(pack)
    times: dict[tuple[int, str, str], list[float]] = {}
    audio_seconds = 0.0
    for _ in range(runs):
        for (threads, kind), e in engines.items():
            for mode in ("stream", "whole"):
                t0 = time.perf_counter()
                n = 0
                for chunks in paragraphs:
                    if mode == "stream":
                        n += stream_paragraph(e, chunks, pack)
                    else:
                        n += sum(e.synthesize(ids, pack, 1.0).size for ids in chunks)
                times.setdefault((threads, kind, mode), []).append(time.perf_counter() - t0)
                audio_seconds = n / 24_000
    rtf = {k: statistics.median(ts) / audio_seconds for k, ts in times.items()}
    for (threads, kind, mode), r in sorted(rtf.items()):
        vs = rtf.get((threads, "shipped", mode))
        ratio = f", {vs / r:.2f}x the shipped decoder" if kind != "shipped" and vs else ""
        print(
            f"RTF {threads} thread{'s' if threads > 1 else ''}, {kind:7} decoder, {mode:6}: {r:.3f}"
            f"{ratio} (median of {len(times[(threads, kind, mode)])}, {audio_seconds:.0f} s audio)"
        )


def bench_seams(engine, frontend, pack) -> None:
    from tray_reader.model.quality import log_mel_distance

    lmd, snr = [], []
    for ids in _all_ids(frontend):
        whole = engine.synthesize(ids, pack, 1.0)
        streamed = np.concatenate(list(engine.stream(ids, pack, 1.0)))
        lmd.append(log_mel_distance(whole, streamed))
        snr.append(snr_db(whole, streamed))
    print(
        f"seams, streamed vs whole chunk over {len(lmd)} chunks: log-mel distance median "
        f"{statistics.median(lmd):.2f} dB (max {max(lmd):.2f}), SNR median {statistics.median(snr):.1f} dB"
    )


def quiet_blocks(audio: np.ndarray, level: float = 0.003) -> np.ndarray:
    """Whether each 10 ms block of ``audio`` is quiet (RMS under ``level``)."""
    n = audio.size // 240
    return np.sqrt(np.mean(audio[: n * 240].reshape(n, 240) ** 2, axis=1)) < level


def quiet_around(quiet: np.ndarray, block: int) -> float:
    """Seconds of the run of quiet blocks that holds ``block`` (0 if it is not quiet)."""
    if block >= quiet.size or not quiet[block]:
        return 0.0
    lo, hi = block, block
    while lo > 0 and quiet[lo - 1]:
        lo -= 1
    while hi + 1 < quiet.size and quiet[hi + 1]:
        hi += 1
    return (hi - lo + 1) * 0.01


def longest_pause(audio: np.ndarray) -> float:
    """Seconds of the longest run of quiet blocks between the first and the last sound."""
    quiet = quiet_blocks(audio)
    loud = np.flatnonzero(~quiet)
    inner = quiet[loud[0] : loud[-1]] if loud.size else quiet[:0]
    return max((quiet_around(inner, i) for i in np.flatnonzero(inner)), default=0.0)


def bench_joins(engine, frontend, pack) -> None:
    """The silence where a read joins two chunks of one sentence (the first chunk of every
    read is short), against the longest pause of the same sentence rendered whole in one
    chunk (the model's own pauses, at its commas); and the silences between sentences."""
    from tray_reader.speech.synthesis import Synthesizer, fixed_voice

    synth = Synthesizer(frontend, engine)
    joins, whole_pauses, between = [], [], []
    for text in PARAGRAPHS:
        pieces = list(synth.stream(text, fixed_voice(pack)))
        chunks = list(frontend.chunks(text))
        quiet = quiet_blocks(np.concatenate([p.samples for p in pieces]))
        at, ends = 0, []
        for i, piece in enumerate(pieces):
            at += piece.samples.size
            if i + 1 < len(pieces) and pieces[i + 1].words:  # the next chunk's first piece
                ends.append((piece.sentence, pieces[i + 1].sentence, at // 240 - 1))
        for before, after, block in ends:
            (joins if before == after else between).append(quiet_around(quiet, block))
        for sentence in {c.sentence for c in chunks}:
            parts = [c for c in chunks if c.sentence == sentence]
            if len(parts) > 1:
                ids = frontend.ids(" ".join(c.phonemes for c in parts))
                whole_pauses.append(longest_pause(engine.synthesize(ids, pack, 1.0)))
    print(
        f"silence where a sentence's chunks join ({len(joins)} joins): median {statistics.median(joins):.2f} s "
        f"(each: {', '.join(f'{j:.2f}' for j in sorted(joins))}); longest pause of the same sentences rendered whole: median "
        f"{statistics.median(whole_pauses):.2f} s (max {max(whole_pauses):.2f}); between sentences: "
        f"median {statistics.median(between):.2f} s"
    )


def _word_voice(audio: np.ndarray, timing) -> tuple[float, float]:
    """(seconds, median f0 in Hz by the project's pitch track) of one word's audio (24 kHz)."""
    import soxr

    from tray_reader.voices.measure import pitch_track

    seconds = (timing.end - timing.start) / 24_000
    track = pitch_track(soxr.resample(audio[timing.start : timing.end], 24_000, 16_000))
    voiced = track.f0[track.f0 > 0]
    return seconds, float(np.median(voiced)) if voiced.size else 0.0


def _rendered(synth, pack, text: str) -> tuple[np.ndarray, dict[tuple[int, int], object]]:
    """``text`` (one sentence) rendered as one chunk: its audio and each word's timing."""
    from tray_reader.speech.synthesis import chunk_timings

    frontend = synth.frontend
    chunk = next(frontend.chunks(text, first_chars=len(text)))
    ids = frontend.ids(chunk.phonemes)
    part_a = synth.engine.part_a(ids, pack, 1.0)
    audio = np.concatenate(list(synth.engine.stream(ids, pack, 1.0, part_a=part_a)))
    return audio, {w.span: w for w in chunk_timings(part_a, ids, chunk.words, frontend.vocab)}


def bench_cut_words(engine, frontend, pack) -> None:
    """The word after which a read cuts a sentence into chunks (each cold read's first chunk
    is short; long sentences are cut too): its length and pitch as the read says it, and as
    a chunk ending with it says it alone (what a read said before chunks ran on past the cut
    and handed the words after it over), each against the same word in the sentence
    rendered whole."""
    from tray_reader.speech.synthesis import Synthesizer, fixed_voice

    synth = Synthesizer(frontend, engine)
    alone_len, read_len, alone_st, read_st = [], [], [], []
    for text in PARAGRAPHS + LONG_SENTENCES:
        pieces = list(synth.stream(text, fixed_voice(pack)))
        audio = np.concatenate([p.samples for p in pieces])
        heard, at = {}, 0
        for piece in pieces:
            heard.update(
                {w.span: dataclasses.replace(w, start=at + w.start, end=at + w.end) for w in piece.words}
            )
            at += piece.samples.size
        chunks = list(frontend.chunks(text, splice=True))
        for i, chunk in enumerate(chunks[:-1]):
            if chunks[i + 1].sentence != chunk.sentence or not chunk.handover:
                continue
            start, end = chunk.sentence_span
            whole, whole_at = _rendered(synth, pack, text[start:end])
            base = chunk.words[chunk.context][0]
            last = chunk.words[-chunk.handover - 1]  # the last word the chunk says itself
            alone, alone_at = _rendered(synth, pack, text[base : last[1]])
            for span in [last]:
                w = whole_at.get((span[0] - start, span[1] - start))
                a = alone_at.get((span[0] - base, span[1] - base))
                r = heard.get(span)
                if w is None or a is None or r is None:
                    continue
                (wl, wf), (al, af), (rl, rf) = (
                    _word_voice(whole, w),
                    _word_voice(alone, a),
                    _word_voice(audio, r),
                )
                alone_len.append(al - wl)
                read_len.append(rl - wl)
                if wf and af and rf:
                    alone_st.append(abs(12 * math.log2(af / wf)))
                    read_st.append(abs(12 * math.log2(rf / wf)))

    def line(values: list[float], unit: str) -> str:
        return f"median {statistics.median(values):+.3f} {unit}, max {max(values, key=abs):+.3f}"

    print(
        f"the word before a cut inside a sentence ({len(alone_len)} cuts, {len(alone_st)} voiced), against the "
        f"sentence rendered whole: length, the chunk said alone {line(alone_len, 's')}; the read "
        f"{line(read_len, 's')}. Pitch off by (semitones): alone median {statistics.median(alone_st):.2f} "
        f"(max {max(alone_st):.2f}); the read median {statistics.median(read_st):.2f} (max {max(read_st):.2f})"
    )


def _child(args: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_speech", *args], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


DECODERS = ("shipped", "fast", "fused")
"""Part B variants: the shipped one, the derived fast one, the fast one with its compiled
operators (see tray_reader/model/custom_ops.py). One that is not built loads as the next
one it falls back to (the bench prints the kind it got)."""


def _load(threads: int, decoder: str, whole: bool = False):
    """The engine with this part B (or the next one it falls back to)."""
    from tray_reader.model import cache
    from tray_reader.speech.engine import KokoroEngine

    if whole:
        return KokoroEngine.load_whole(threads)
    fused = cache.cached_fused_decoder
    try:
        if decoder != "fused":
            cache.cached_fused_decoder = lambda cache_dir=None: None
        return KokoroEngine.load(threads, fast=decoder != "shipped")
    finally:
        cache.cached_fused_decoder = fused


def child_ready(threads: int, decoder: str) -> None:
    t0 = _clocks()

    engine = _load(threads, decoder)
    engine.warm_up(_pack())
    wall, cpu = _since(t0)
    print(
        json.dumps(
            {
                "ready": wall,
                "cpu": cpu,
                "load": engine.load_seconds,
                "warm": engine.warm_seconds,
                "streaming": engine.streaming,
                "decoder": engine.decoder_kind.value,
            }
        )
    )


def peak_rss_mb() -> float:
    """This process's peak resident set (MB). Not ru_maxrss: Linux carries the parent's peak
    over into a child's ru_maxrss at exec, so a child of a big bench process reported that
    (1399 MB) instead of its own (443 MB). VmHWM belongs to the process's own memory."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux


class _CountingEngine:
    """The engine, counting the speech it makes (the synthesiser's pauses are not counted)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.samples = 0
        self.longest = 0

    def stream(self, ids, pack, speed, lead=0.0, part_a=None, run_options=None, **where):
        self.longest = max(self.longest, len(ids))
        for piece in self.engine.stream(ids, pack, speed, lead, part_a, run_options, **where):
            self.samples += piece.size
            yield piece

    def part_a(self, ids, pack, speed, run_options=None):
        return self.engine.part_a(ids, pack, speed, run_options)

    def __getattr__(self, name):
        return getattr(self.engine, name)


def child_rss(words: int, threads: int, streaming: bool, decoder: str, ahead: bool) -> None:
    """Read a long text through the Synthesizer as the daemon does (its lead told as if it
    played in real time from the first piece); print the peak RSS and the RTF of speech."""
    from tray_reader.speech.synthesis import Synthesizer, fixed_voice

    frontend, pack = _frontend(), _pack()
    engine = _load(threads, decoder, whole=not streaming)
    engine.warm_up(pack)
    counting = _CountingEngine(engine)
    synth = Synthesizer(frontend, counting)
    _variant(engine, False, 1.0 if ahead else math.inf, True, True)
    t0 = time.perf_counter()
    for _ in synth.stream(long_text(words), fixed_voice(pack)):
        pass
    peak_mb = peak_rss_mb()
    print(
        json.dumps(
            {
                "peak_mb": peak_mb,
                "audio_s": counting.samples / 24_000,
                "compute_s": time.perf_counter() - t0,
                "longest_chunk_ids": counting.longest,
                "decoder": engine.decoder_kind.value,
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rss-words", type=int, default=5000)
    ap.add_argument(
        "--skip", nargs="*", default=[], choices=["first", "gaps", "rtf", "ready", "rss", "seams", "joins"]
    )
    ap.add_argument("--child", choices=["ready", "rss"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--busy", type=int, default=0, help="first audio, gaps, seams, joins: N busy processes beside it"
    )
    ap.add_argument("--whole", action="store_true", help="child rss: the unsplit model")
    ap.add_argument(
        "--no-ahead", action="store_true", help="RSS: one chunk after another (no part A made ahead)"
    )
    ap.add_argument(
        "--decoder",
        choices=DECODERS,
        default="fused",
        help="part B for ready, first audio, seams and RSS: the derived fast one with its "
        "compiled operator, or without it, when built (python -m tray_reader.model.build), "
        "or the shipped one; RTF measures each",
    )
    args = ap.parse_args()
    if args.child == "ready":
        return child_ready(args.threads, args.decoder)
    if args.child == "rss":
        return child_rss(args.rss_words, args.threads, not args.whole, args.decoder, not args.no_ahead)
    child_args = [
        "--threads",
        str(args.threads),
        "--decoder",
        args.decoder,
        *(["--no-ahead"] if args.no_ahead else []),
    ]

    print(f"load average at start: {os.getloadavg()}, cpus: {os.cpu_count()}")
    if "ready" not in args.skip:
        rs = [_child(["--child", "ready", *child_args]) for _ in range(3)]
        r = sorted(rs, key=lambda x: x["ready"])[1]
        print(
            f"ready (load + warm-up, fresh process, median of 3): {r['ready']:.2f} s, CPU {r['cpu']:.2f} s "
            f"(load {r['load']:.2f} s, warm-up {r['warm']:.2f} s, streaming={r['streaming']}, "
            f"{r['decoder']} decoder)"
        )
    frontend, pack = _frontend(), _pack()
    if args.busy:
        print(f"with {args.busy} busy processes beside it: first audio, gaps, seams and joins")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        in_process(args, frontend, pack)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    if "rtf" not in args.skip:
        bench_rtf(frontend, pack, max(1, args.runs // 2))
    if "rss" not in args.skip:
        r = _child(["--child", "rss", "--rss-words", str(args.rss_words), *child_args])
        print(
            f"peak RSS reading a {args.rss_words}-word text ({r['decoder']} decoder, "
            f"{'one chunk after another' if args.no_ahead else 'next chunk made ahead'}): {r['peak_mb']:.0f} MB "
            f"({r['audio_s']:.0f} s of speech in {r['compute_s']:.0f} s: RTF {r['compute_s'] / r['audio_s']:.3f}; "
            f"longest chunk {r['longest_chunk_ids']} ids)"
        )
    print(f"load average at end: {os.getloadavg()}")


def in_process(args, frontend, pack) -> None:
    """The figures measured in this process (first audio, gaps, seams, joins)."""
    if {"first", "gaps", "seams", "joins"} - set(args.skip):
        engine = _load(args.threads, args.decoder)
        engine.warm_up(pack)
        print(f"first audio and seams with the {engine.decoder_kind.value} decoder")
        if "first" not in args.skip:
            bench_first_audio(engine, frontend, pack, args.runs)
        if "gaps" not in args.skip:
            bench_gaps(engine, frontend, pack, args.runs)
        if "seams" not in args.skip:
            bench_seams(engine, frontend, pack)
        if "joins" not in args.skip:
            bench_joins(engine, frontend, pack)
            bench_cut_words(engine, frontend, pack)
        del engine


if __name__ == "__main__":
    main()


def snr_db(reference: np.ndarray, other: np.ndarray) -> float:
    """Signal-to-difference ratio in dB (the first min(len) samples)."""
    n = min(reference.size, other.size)
    noise = np.sum((reference[:n] - other[:n]) ** 2)
    return float(10 * np.log10(np.sum(reference[:n] ** 2) / max(noise, 1e-20)))
