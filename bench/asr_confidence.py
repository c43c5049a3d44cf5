"""How sure the recogniser is of what it hears in a recording given without its text
(tray_reader/voices/intelligibility.py: `transcribe`, `SURE`), per bench speaker: English
read wideband, English over a telephone or radio channel, and speakers of other languages,
whom the English model can only hear as English words.

Each speaker's clip A (bench_enroll's) is prepared and split as enrolment does it; the
recogniser hears the fit part's first HEAR_SECONDS. Printed: the words heard, their mean
posterior, whether enrolment would use them, the time taken, and where clip A's words are
known (austen, allison, allison_wb, stock voices), the word error rate of the whole clip A's
transcript.

    nice -n 19 .venv/bin/python bench/asr_confidence.py [--refs austen,allison,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_enroll import SPEAKERS, clip_a_text, clips  # noqa: E402

from tray_reader.voices import guard, intelligibility  # noqa: E402
from tray_reader.voices.enroll import HEAR_SECONDS  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402

REFS = (
    "austen,allison_wb,af_sarah,bm_george,allison,vk5qi,ve9qrp,"
    "june,carlo,ivrvoice,esco,armelle,menardi,june_wb,carlo_wb,ivrvoice_wb,allison_es_wb"
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default=REFS)
    ap.add_argument("--clip-seconds", type=float, default=28.0)
    args = ap.parse_args()
    renderer = None
    print("| speaker | words heard | sure | used | time | WER of clip A's transcript | heard (start) |")
    print("|---|---|---|---|---|---|---|")
    for ref in args.refs.split(","):
        if ref not in SPEAKERS and renderer is None:
            from tray_reader.speech.engine import KokoroEngine
            from tray_reader.text.frontend import TextFrontEnd
            from tray_reader.text.g2p import EnglishPhonemizer
            from tray_reader.voices.render import VoiceRenderer

            renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
        try:
            (a, rate), _b, _exclude = clips(ref, renderer, args.clip_seconds)  # type: ignore[arg-type]
        except SystemExit as e:
            print(f"| {ref} | not installed: {e} |")
            continue
        speech = prepare(a, rate).speech16k
        fit, _judged = guard.split(speech)
        t0 = time.monotonic()
        heard = intelligibility.transcribe(fit[: int(HEAR_SECONDS * 16_000)])
        took = time.monotonic() - t0
        known = clip_a_text(ref, args.clip_seconds)
        wer = f"{intelligibility.wer(known, intelligibility.recognise(speech, 16_000)):.2f}" if known else "-"
        print(
            f"| {ref} | {heard.words} | {heard.confidence:.2f} | {'yes' if heard.sure else 'no'} | "
            f"{took:.1f} s | {wer} | {heard.text[:60]} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
