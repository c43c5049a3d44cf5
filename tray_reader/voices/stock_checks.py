"""The stock voices' word errors in the guard's intelligibility check, measured once and shipped.

The guard keeps a made voice only if the recogniser follows it about as well as the nearest
stock voice (`guard.decide`, `enroll.check_word_errors`): each stock voice saying JUDGE_TEXT
and CHECK_TEXT at its own speed and pitch, then recognised (the table's "check" part), and
saying CONFIRM_TEXT (its "confirm" part, heard for a voice about to be kept). That depends only on the model,
its decoder, the texts and the recogniser (and on rounding, which moves it by a few words:
hence the mean of SAMPLES renders), yet on a two-core machine it is the longest single step of
an enrolment (about 50 s of speech rendered and heard), and the time plan had to keep room for
it before the search and the fit start. Made once with `python -m tray_reader.voices.stock_checks`
and shipped as models/stock_word_errors.json (checked by its manifest entry): enrolment uses
the table when its texts, recogniser and model are the ones the table was measured with and
the engine's decoder has a column, and measures otherwise. tests/test_stock_checks.py measures
voices again and compares.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tray_reader import model_files
from tray_reader.errors import ModelFileError
from tray_reader.speech.types import DecoderKind
from tray_reader.voices import guard, intelligibility

if TYPE_CHECKING:
    from tray_reader.voices.render import VoiceRenderer

log = logging.getLogger(__name__)

FILE = "stock_word_errors.json"


PARTS = ("check", "confirm")
"""The table's parts: word errors on JUDGE_TEXT and CHECK_TEXT, and on CONFIRM_TEXT."""


def conditions(part: str = "check") -> str:
    """What a part's word errors depend on: its texts, the recogniser and the model."""
    texts = f"{guard.JUDGE_TEXT}|{guard.CHECK_TEXT}" if part == "check" else guard.CONFIRM_TEXT
    h = hashlib.sha256(texts.encode())
    return (
        f"texts {h.hexdigest()[:16]}; {intelligibility.recogniser_version()}; "
        f"model {model_files.manifest()['kokoro_model']['sha256'][:16]}"
    )


SAMPLES = 3
"""Renders measured per voice and decoder: the first exactly as enrolment renders it, the
others with the pack changed by JITTER. The recogniser's word errors move by up to 0.1 with
a change far below anything audible (docs/benchmarks.md): the table keeps their mean, a
steadier baseline for the guard than any one render."""
JITTER = 1e-5
"""Relative change of each pack value in the renders after the first."""


@cache
def samples(part: str = "check") -> dict[str, dict[str, list[float]]]:
    """Decoder kind -> stock voice -> the word errors of each render on a part's texts, when
    the shipped table measured it under today's `conditions` (else empty: enrolment measures)."""
    try:
        table = json.loads(model_files.checked_data("stock_word_errors")).get(part, {})
    except (ModelFileError, ValueError, AttributeError) as e:
        log.warning("stock voices' word errors not shipped (%s); enrolment measures them", e)
        return {}
    if table.get("conditions") != conditions(part):
        log.info(
            "stock voices' word errors (%s) measured under other conditions; enrolment measures them", part
        )
        return {}
    return dict(table["samples"])


def shipped(kind: DecoderKind, voice: str, part: str = "check") -> float | None:
    """The shipped word errors (the mean of its renders) of stock ``voice`` read by a decoder
    of this ``kind`` on a part's texts, if any: the decoders differ by a few words in 82
    (docs/benchmarks.md), so each has its own. None without a recogniser (asked each time:
    the table read is kept, this is not)."""
    if not intelligibility.available():
        return None
    got = samples(part).get(kind.value, {}).get(voice)
    return float(np.mean(got)) if got else None


def jittered(pack: np.ndarray, sample: int) -> np.ndarray:
    """``pack`` itself for ``sample`` 0, else changed by JITTER, seeded by ``sample``."""
    if not sample:
        return pack
    noise = np.random.default_rng(sample).standard_normal(pack.shape)
    return (pack * (1.0 + JITTER * noise)).astype(np.float32)


def measure(renderer: VoiceRenderer, voice: str, sample: int = 0, part: str = "check") -> float | None:
    """One stock voice's word errors on a part's texts, measured as enrolment measures a voice
    (`enroll.check_word_errors`; None without a recogniser); ``sample`` > 0 changes the pack
    by JITTER, seeded by it."""
    from tray_reader.voices.enroll import Candidate, check_word_errors

    pack = jittered(model_files.stock_pack(voice), sample)
    # The second text's check hears CONFIRM_TEXT alone: no JUDGE_TEXT to render.
    judge = renderer.render16k(pack, 1.0, [guard.JUDGE_TEXT]) if part == "check" else np.zeros(0, np.float32)
    return check_word_errors(renderer, Candidate(voice, {}, {}, pack=pack), judge, part=part)


def main() -> int:
    """Measure the table; ``--extend`` keeps the samples a table measured under the same
    conditions has (to add samples or decoders without measuring everything again)."""
    import argparse

    from tray_reader.speech.engine import KokoroEngine
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer
    from tray_reader.voices.render import VoiceRenderer

    ap = argparse.ArgumentParser(prog="python -m tray_reader.voices.stock_checks")
    ap.add_argument("out", nargs="?", default=str(model_files.MODELS_DIR / FILE))
    ap.add_argument("--extend", default="", help="a table whose samples to keep")
    args = ap.parse_args()
    if not intelligibility.available():
        print("the offline recogniser (pocketsphinx) is not installed", file=sys.stderr)
        return 1
    old = json.loads(Path(args.extend).read_text()) if args.extend else {}
    found: dict[str, dict[str, dict[str, list[float]]]] = {part: {} for part in PARTS}
    for fast in (True, False):  # the best derived decoder built here, then the shipped one
        engine = KokoroEngine.load(fast=fast)
        renderer = VoiceRenderer(engine, TextFrontEnd(EnglishPhonemizer()))
        kind = engine.decoder_kind.value
        for part in PARTS:
            kept = old.get(part, {})
            kept = kept.get("samples", {}) if kept.get("conditions") == conditions(part) else {}
            for v in model_files.stock_voices():
                got = list(kept.get(kind, {}).get(v.name, []))[:SAMPLES]
                while len(got) < SAMPLES:
                    e = measure(renderer, v.name, len(got), part)
                    assert e is not None
                    got.append(round(e, 4))
                found[part].setdefault(kind, {})[v.name] = got
                print(f"{part} {kind} {v.name}: {' '.join(f'{e:.3f}' for e in got)}", flush=True)
        del engine, renderer
    table = {part: {"conditions": conditions(part), "samples": found[part]} for part in PARTS}
    data = (json.dumps(table, sort_keys=True) + "\n").encode()
    Path(args.out).write_bytes(data)
    print(f"{args.out}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
