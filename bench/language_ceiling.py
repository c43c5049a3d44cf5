"""How close can an English voice get to a speaker recorded in another language?

bench_enroll's ceiling is the speaker's own clip A, in the language of clip B. A voice that
speaks English is measured against clip B in French, Italian, Russian or Spanish: part of
what the two measures see is the language, which no English voice can close. Allison speaks
both (the asterisk prompts in US English and in Mexican Spanish), so her English prompts say
what the measures give a perfect copy of her voice speaking English, against her Spanish
clip B (and the other way round).

    nice -n 19 .venv/bin/python bench/language_ceiling.py

Prints, per clip B, the distance (1 - encoder cosine / AHS, both sides through clip B's band,
as bench_enroll measures) of: her clip A in the same language (bench_enroll's ceiling), her
clip A in the other language (her voice in the other language), and the nearest stock voice
reading guard.JUDGE_TEXT; then the gap closed by her own voice in the other language.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader import model_files  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import guard, stock_profiles  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402


def main() -> int:
    renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
    embedder = SpeakerEmbedder.load()
    profiles = stock_profiles.load()
    clips = {}
    for lang, ref in (("English", "allison"), ("Spanish", "allison_es")):
        (a, ra), (b, rb), _ = be.clips(ref, renderer)
        clips[lang] = prepare(a, ra).speech16k, prepare(b, rb).speech16k
    for lang, other in (("English", "Spanish"), ("Spanish", "English")):
        d = be.distance_to(clips[lang][1], embedder)

        nearest = profiles.nearest(clips[lang][0], embedder)
        same, cross = d(clips[lang][0]), d(clips[other][0])
        stock = d(renderer.render16k(model_files.stock_pack(nearest), 1.0, [guard.JUDGE_TEXT]))
        closed = [(stock[i] - cross[i]) / (stock[i] - same[i]) for i in range(2)]
        print(
            f"Allison's {lang} clip B: her {lang} clip A {same[0]:.3f}/{same[1]:.3f}; her {other} "
            f"clip A {cross[0]:.3f}/{cross[1]:.3f}; nearest stock voice {nearest} "
            f"{stock[0]:.3f}/{stock[1]:.3f}; her own voice in {other} closes "
            f"{closed[0]:+.0%}/{closed[1]:+.0%} of the gap"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
