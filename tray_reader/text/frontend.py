"""Text front end: raw text in, chunks of phonemes (with their sentence and pause) out.

raw text ─► sentences (lazy, split.py) ─► normalize (normalize.py) ─► pieces sized by a
ramp (short first, then longer) ─► user lexicon (lexicon.py) ─► G2P ─► TextChunk
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from tray_reader import model_files
from tray_reader.text.lexicon import Lexicon
from tray_reader.text.normalize import normalize
from tray_reader.text.sentences import Boundary, boundary_after, cut_point, sentences
from tray_reader.text.spans import spoken_spans
from tray_reader.text.types import MAX_PHONEME_IDS, TextChunk

Phonemizer = Callable[[str], str]

MAX_CHUNK_IDS = 250
"""Default bound on a chunk's phoneme ids, well under the model's MAX_PHONEME_IDS: the
session's memory grows with the longest input it has seen (peak RSS target 500 MB)."""

FIRST_CHUNK_CHARS = 32
"""The first chunk of a request is at most this long (about five words) so audio starts early."""

CHUNK_GROWTH = 2
"""Each following chunk may be this many times longer than the one before, up to
MAX_CHUNK_IDS: at a real-time factor under 1/2 the next chunk is ready before the
previous one has finished playing."""

IDS_PER_CHAR = 1.15
"""Phoneme ids per character of normalised English text (measured on misaki output:
1.05–1.2); used to size pieces before they are phonemised, then checked exactly."""

MIN_PIECE_FRACTION = 0.25
"""A piece cut for length is at least this fraction of its budget, unless no boundary fits."""

PAUSES = {
    Boundary.WORD: 0.0,
    Boundary.PHRASE: 0.03,
    Boundary.CLAUSE: 0.25,
    Boundary.STRONG_CLAUSE: 0.35,
    Boundary.SENTENCE: 0.55,
    Boundary.PARAGRAPH: 0.9,
}
"""Seconds of silence after a chunk's last sound, by what ends it. The engine keeps only
the decay of that sound (`windows.without_tail`): a chunk cut inside a sentence runs on
into the next as one phrase."""


CONTEXT_CHARS = 60
"""Most characters (whole words) of the chunk before that a chunk continuing a sentence is
rendered after (`TextChunk.context`): enough for its first words to be read mid-sentence."""


HANDED_WORDS = 2
"""Words a chunk cut inside a sentence runs on for past its cut, to hand them to the next:
the lengthening and fall of an utterance's end reach back about two words."""


SILENT_PHONEMES = frozenset(';:,.!?¡¿—…"«»“”()[]{}-–')
"""Phoneme characters that are punctuation: they shape pauses, not a word's sound."""


def word_groups(ids: Sequence[int], vocab: dict[str, int]) -> list[tuple[int, int]]:
    """[first, last] token indices (the leading padding id counted as 0) of each word's
    sounding tokens in a chunk's ``ids``: a chunk's ids are its phonemes with a space id
    between words; punctuation around a word is not part of its sound."""
    space = vocab.get(" ")
    silent = {vocab[c] for c in SILENT_PHONEMES if c in vocab}
    groups: list[tuple[int, int]] = []
    current: list[int] = []
    for i, token in enumerate(ids, start=1):
        if token == space:
            if current:
                groups.append((current[0], current[-1]))
            current = []
        elif token not in silent:
            current.append(i)
    if current:
        groups.append((current[0], current[-1]))
    return groups


def summarize_skipped(skipped: list[str], most: int = 8, width: int = 30) -> str:
    """One line for a user: the first few skipped snippets, shortened, and how many more."""
    shown = [f"{s[:width]}…" if len(s) > width else s for s in skipped[:most]]
    more = f" … and {len(skipped) - most} more" if len(skipped) > most else ""
    return "; ".join(shown) + more


class TextFrontEnd:
    """Normalises text, splits it into sentences and chunks, and phonemises each chunk."""

    def __init__(
        self, phonemize: Phonemizer, lexicon: Lexicon | None = None, max_chunk_ids: int = MAX_CHUNK_IDS
    ) -> None:
        self._phonemize = phonemize
        self._lexicon = lexicon or Lexicon.empty()
        self._vocab = model_files.vocab()
        self.vocab = self._vocab
        """Phoneme character -> model id."""
        self.max_chunk_ids = min(max_chunk_ids, MAX_PHONEME_IDS)
        self.last_skipped: list[str] = []
        """What the latest `chunks` call left out (not thread-safe: for one-shot callers)."""

    def ids(self, phonemes: str) -> list[int]:
        return [self._vocab[c] for c in phonemes if c in self._vocab]

    def chunks(
        self,
        text: str,
        skipped: list[str] | None = None,
        first_chars: int | None = None,
        splice: bool = False,
    ) -> Iterator[TextChunk]:
        """Chunks of `text` in reading order, produced lazily; the first at most
        ``first_chars`` characters (default FIRST_CHUNK_CHARS), then growing.

        ``splice``: a chunk cut inside a sentence runs on for HANDED_WORDS words past its
        cut and hands them over to the next, which is rendered after up to CONTEXT_CHARS of
        the words before it (`TextChunk.handover`, `context`), so no word inside a sentence
        is read as an utterance's end or start. Only for a synthesiser that joins them so.

        Runs the voice cannot read (other scripts, overlong 'words') are left out and
        appended to `skipped` as they are met (and to `last_skipped`, for callers that
        cannot pass a list through, such as the synthesizer)."""
        skipped = skipped if skipped is not None else []
        self.last_skipped = skipped
        max_chars = int(self.max_chunk_ids / IDS_PER_CHAR)
        budget = float(first_chars or FIRST_CHUNK_CHARS)
        sentence_index = 0
        cursor = 0
        for raw in sentences(text):
            # Sentences are slices of the text in order, with only blanks between them.
            start = text.find(raw.text, cursor)
            start = cursor if start < 0 else start
            cursor = start + len(raw.text)
            words = normalize(raw.text, skipped).split()
            if not any(any(c.isalnum() for c in w) for w in words):
                continue
            spans = spoken_spans(raw.text, words, start)
            where = (start, cursor)
            # The chunk before's last words: all rendered, the last `handed` also heard.
            context: list[str] = []
            context_spans: list[tuple[int, int]] = []
            handed = 0
            while words:
                overrun = HANDED_WORDS if splice else 0
                spliced = self._spliced(context, words, int(budget), skipped, overrun) if context else None
                if spliced is None and context:
                    # The words before cannot be context here: the handed ones are said first.
                    words, spans = context[-handed:] + words, context_spans[-handed:] + spans
                    context, context_spans = [], []
                if spliced is None:
                    fit = self._fit(words, int(budget), skipped, overrun=overrun)
                    assert fit is not None  # one word always fits (truncated if need be)
                    cut, phonemes, over = fit
                    n_context = 0
                else:
                    cut, phonemes, over = spliced
                    n_context = len(context)
                all_words, all_spans = context + words, context_spans + spans
                own = cut - len(context)
                handover = 0
                if own >= len(words):
                    boundary = Boundary.PARAGRAPH if raw.ends_paragraph else Boundary.SENTENCE
                else:
                    boundary = boundary_after(all_words[cut - 1], all_words[cut])
                    whole = len(word_groups(self.ids(phonemes), self._vocab)) == cut
                    heard = cut - n_context + (handed if n_context else 0)
                    handover = (over or min(HANDED_WORDS, heard - 1)) if splice and whole else 0
                yield TextChunk(
                    " ".join(all_words[:cut]),
                    phonemes,
                    sentence_index,
                    PAUSES[boundary],
                    tuple(all_spans[:cut]),
                    where,
                    context=n_context,
                    handover=handover,
                )
                keep = _tail_within(all_words[:cut], CONTEXT_CHARS, handover) if handover else 0
                context, context_spans = all_words[cut - keep : cut], all_spans[cut - keep : cut]
                handed = handover
                words, spans = words[own:], spans[own:]
                budget = min(budget * CHUNK_GROWTH, max_chars)
            sentence_index += 1

    def _spliced(
        self, context: list[str], words: list[str], budget: int, skipped: list[str], overrun: int
    ) -> tuple[int, str, int] | None:
        """The next chunk rendered after ``context`` (the chunk before's last words): how
        many of context + words it holds (at least one of ``words``), and its phonemes. None
        when that does not fit or its words cannot be told apart in its ids (then the
        handed words start a chunk of their own)."""
        extra = len(" ".join(context)) + 1
        max_chars = int(self.max_chunk_ids / IDS_PER_CHAR)
        fit = self._fit(context + words, min(max_chars, budget + extra), skipped, len(context) + 1, overrun)
        if fit is None or len(word_groups(self.ids(fit[1]), self._vocab)) != fit[0]:
            return None
        return fit

    def _fit(
        self, words: list[str], max_chars: int, skipped: list[str] | None, least: int = 1, overrun: int = 0
    ) -> tuple[int, str, int] | None:
        """How many of `words` (at least ``least``) make the next chunk, its phonemes (within
        the id bound), and how many of them lie past the cut chosen for length: a chunk cut
        inside a sentence takes up to ``overrun`` more words (all that are left, if that is
        no more), to hand them over to the next (`TextChunk.handover`). None when ``least``
        words exceed the bound (never for one word)."""
        while True:
            over = 0
            if len(" ".join(words)) <= max_chars:
                cut = len(words)
            else:
                cut = cut_point(words, max_chars, int(max_chars * MIN_PIECE_FRACTION), least)
                over = min(overrun, len(words) - cut)  # all that are left: the sentence is whole
            while True:
                piece = " ".join(words[: cut + over])
                phonemes = self._phonemize(self._lexicon.apply(piece))
                n = len(self.ids(phonemes))
                if n <= self.max_chunk_ids or not over:
                    break
                over = 0  # the words past the cut do not fit: the cut as it was
            if n <= self.max_chunk_ids:
                return cut + over, phonemes, over
            if cut <= least and least > 1:
                return None
            if cut == 1:
                return cut, self._truncate(phonemes, piece, skipped), 0
            # The estimate was off (many digits or spelled letters): shrink to what fits.
            max_chars = min(len(piece) - 1, int(len(piece) * self.max_chunk_ids / n * 0.9))

    def _truncate(self, phonemes: str, word: str, skipped: list[str] | None) -> str:
        """One word whose phonemes alone exceed the model's input (only a user lexicon
        entry can do this): keep what fits, and say so."""
        if len(self.ids(phonemes)) <= MAX_PHONEME_IDS:
            return phonemes
        kept, count = [], 0
        for c in phonemes:
            count += c in self._vocab
            if count > MAX_PHONEME_IDS:
                break
            kept.append(c)
        if skipped is not None:
            skipped.append(f"the end of {word[:20]!r} (too long to pronounce)")
        return "".join(kept)


def _tail_within(words: list[str], chars: int, least: int) -> int:
    """How many of the last ``words`` fit in ``chars`` characters (at least ``least``)."""
    n, length = 0, -1
    for word in reversed(words):
        if n >= least and length + len(word) + 1 > chars:
            break
        n, length = n + 1, length + len(word) + 1
    return n
