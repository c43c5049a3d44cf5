"""The stock voices' word errors in the guard's intelligibility check, measured once and shipped.

The guard keeps a made voice only if the recogniser follows it about as well as the nearest
stock voice (`guard.decide`, `enroll.check_word_errors`): each stock voice saying JUDGE_TEXT
and CHECK_TEXT at its own speed and pitch, then recognised. That is the same every time the
same model says the same words, yet on a two-core machine it is the longest single step of an
enrolment (about 50 s of speech rendered and heard), and the time plan must keep room for it
before the search and the fit start. Made once with `python -m tray_reader.voices.stock_checks`
and shipped as models/stock_word_errors.json (checked by its manifest entry): enrolment uses
the table when its texts, recogniser and model are the ones the table was measured with, and
measures otherwise. tests/test_stock_checks.py measures voices again and compares.
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


def conditions() -> str:
    """What the word errors depend on: the texts, the recogniser and the model."""
    h = hashlib.sha256(f"{guard.JUDGE_TEXT}|{guard.CHECK_TEXT}".encode())
    return (
        f"texts {h.hexdigest()[:16]}; {intelligibility.recogniser_version()}; "
        f"model {model_files.manifest()['kokoro_model']['sha256'][:16]}"
    )


@cache
def _table() -> dict[str, dict[str, float]]:
    """Decoder kind -> stock voice -> word errors, when the shipped table was measured under
    today's `conditions` (else empty: enrolment measures)."""
    if not intelligibility.available():
        return {}
    try:
        info = model_files.manifest().get("stock_word_errors")
        if not info:
            raise ModelFileError("the model manifest has no stock_word_errors entry")
        table = json.loads(model_files._checked_data_file(info["file"], info["sha256"]))
    except (ModelFileError, ValueError) as e:
        log.warning("stock voices' word errors not shipped (%s); enrolment measures them", e)
        return {}
    if table.get("conditions") != conditions():
        log.info("stock voices' word errors measured under other conditions; enrolment measures them")
        return {}
    return {
        str(kind): {str(v): float(e) for v, e in errors.items()} for kind, errors in table["errors"].items()
    }


def shipped(kind: DecoderKind, voice: str) -> float | None:
    """The shipped word errors of stock ``voice`` read by a decoder of this ``kind``, if any:
    the decoders differ by a few words in 80 (docs/benchmarks.md), so each has its own."""
    return _table().get(kind.value, {}).get(voice)


def measure(renderer: VoiceRenderer, voice: str) -> float | None:
    """One stock voice's word errors, as enrolment measures them (None without a recogniser)."""
    pack = model_files.stock_pack(voice)
    judge = renderer.render16k(pack, 1.0, [guard.JUDGE_TEXT])
    more = renderer.render16k(pack, 1.0, [guard.CHECK_TEXT])
    return intelligibility.word_errors(
        np.concatenate([judge, more]), f"{guard.JUDGE_TEXT} {guard.CHECK_TEXT}"
    )


def main() -> int:
    from tray_reader.speech.engine import KokoroEngine
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer
    from tray_reader.voices.render import VoiceRenderer

    if not intelligibility.available():
        print("the offline recogniser (pocketsphinx) is not installed", file=sys.stderr)
        return 1
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else model_files.MODELS_DIR / FILE
    errors: dict[str, dict[str, float]] = {}
    for fast in (True, False):  # the best derived decoder built here, then the shipped one
        engine = KokoroEngine.load(fast=fast)
        renderer = VoiceRenderer(engine, TextFrontEnd(EnglishPhonemizer()))
        kind = errors.setdefault(engine.decoder_kind.value, {})
        for v in model_files.stock_voices():
            e = measure(renderer, v.name)
            assert e is not None
            kind[v.name] = round(e, 4)
            print(f"{engine.decoder_kind.value} {v.name}: {e:.3f}", flush=True)
        del engine, renderer
    table = {"conditions": conditions(), "errors": errors}
    data = (json.dumps(table, indent=1, sort_keys=True) + "\n").encode()
    out.write_bytes(data)
    print(f"{out}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
