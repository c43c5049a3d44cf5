"""What the front end hands to the speech runtime, and the model's input limits it cuts text to."""

from __future__ import annotations

from dataclasses import dataclass

MAX_IDS = 510
"""Most token ids one model run takes, including the two padding zeros."""
MAX_PHONEME_IDS = MAX_IDS - 2
"""Most phoneme ids one chunk may have."""


@dataclass(frozen=True)
class TextChunk:
    """A piece of text small enough for one model run."""

    text: str
    """The normalised text that is spoken (what `say --show-text` prints)."""
    phonemes: str
    """Kokoro phoneme string for `text`."""
    sentence: int
    """Index of the sentence this chunk belongs to, counted over the whole request."""
    pause_after: float
    """Seconds of silence after this chunk (comma < sentence < paragraph)."""
    words: tuple[tuple[int, int], ...] = ()
    """For each word of `text`, its [start, end) characters in the text as given (see
    text.spans); empty when not known."""
    sentence_span: tuple[int, int] | None = None
    """[start, end) characters of this chunk's sentence in the text as given."""
    context: int = 0
    """Leading words of `text` that are the chunk before's last words, rendered so that a
    chunk continuing a sentence is read mid-sentence (not as an utterance's start). The
    chunk before handed over up to `handover` of them (it decides how many): they are
    heard from this chunk, and its audio begins where they do."""
    handover: int = 0
    """Most of its last words this chunk may leave to the next (which has them in its
    `context`): a chunk read alone ends as an utterance, its last words lengthened and
    falling, so a chunk cut inside a sentence runs on past its cut and hands the words after
    it over. Its audio then ends where they begin, laid under the next chunk's start."""
