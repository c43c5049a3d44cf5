"""The sentences and stock voices the fast decoder is calibrated on and judged by, as model inputs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

CALIBRATION_SENTENCES = (
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Would you like a cup of tea, or shall we go for a walk instead?",
    "In nineteen ninety two, the company sold its first computer for three thousand dollars.",
    "She sells sea shells by the sea shore, and the shells she sells are surely seashells!",
)
CALIBRATION_VOICES = ("af_heart", "am_michael", "bf_emma", "bm_george")

HELD_OUT_SENTENCES = (
    "The weather today is cold and windy with some rain in the afternoon.",
    "Please open the window and turn on the light in the kitchen.",
    "My brother bought three books and a new computer last week.",
    "Scientists measured the temperature of the ocean at several depths.",
)
HELD_OUT_VOICES = ("af_heart", "am_adam")


Feeds = dict[str, np.ndarray]


def model_feeds(ids: Sequence[int], pack: np.ndarray, speed: float = 1.0) -> Feeds:
    """The model's inputs for one chunk of phoneme ids (as the engine builds them)."""
    return {
        "tokens": np.array([[0, *ids, 0]], dtype=np.int64),
        "style": np.ascontiguousarray(pack[len(ids)], dtype=np.float32).reshape(1, 256),
        "speed": np.array([speed], dtype=np.float32),
    }


def sentence_feeds(renders: Iterable[tuple[str, str]]) -> list[Feeds]:
    """Model inputs for (sentence, stock voice) pairs, phonemised by the product's front end."""
    from tray_reader import model_files
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer

    phonemize = EnglishPhonemizer()
    frontend = TextFrontEnd(phonemize)
    return [model_feeds(frontend.ids(phonemize(s)), model_files.stock_pack(v)) for s, v in renders]


def calibration_renders() -> list[tuple[str, str]]:
    """Each calibration sentence in one stock voice (calibration runs the float model
    unoptimised, so a few inputs already take a while)."""
    return list(zip(CALIBRATION_SENTENCES, CALIBRATION_VOICES, strict=True))


def held_out_renders() -> list[tuple[str, str]]:
    """Each held-out sentence in one of the held-out voices, in turn."""
    return [(s, HELD_OUT_VOICES[i % len(HELD_OUT_VOICES)]) for i, s in enumerate(HELD_OUT_SENTENCES)]


class _Feeds:
    """The CalibrationDataReader protocol over a list of feeds."""

    def __init__(self, feeds: list[Feeds]) -> None:
        self._feeds = feeds
        self._it = iter(feeds)

    def get_next(self) -> Feeds | None:
        return next(self._it, None)

    def rewind(self) -> None:  # pragma: no cover - only some calibrators call it
        self._it = iter(self._feeds)
