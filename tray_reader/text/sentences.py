"""Splitting: raw text into paragraphs and sentences (lazily), normalised text into pieces.

Sentences are found in the raw text, before normalisation, so a 1 MB selection is never
normalised as a whole: the first sentence is read out while the rest is still untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from tray_reader.text.number_reading import ZONE_AFTER_AMPM

MAX_SENTENCE_CHARS = 1000
"""A 'sentence' longer than this (no punctuation for pages) is cut at a space, so that
normalisation and phonemisation work on bounded pieces."""


class Boundary(Enum):
    """What ends a piece of text; decides the pause after it."""

    WORD = 0  # cut between two words only because the piece was too long
    PHRASE = 1  # before a conjunction or preposition, no punctuation
    CLAUSE = 2  # comma
    STRONG_CLAUSE = 3  # semicolon, colon, dash
    SENTENCE = 4  # . ! ?
    PARAGRAPH = 5  # blank line


@dataclass(frozen=True)
class RawSentence:
    text: str
    """The sentence as written (not yet normalised)."""
    ends_paragraph: bool
    """True for the last sentence of a paragraph."""


_PARAGRAPH_BREAK = re.compile(r"\n[ \t\f\v\r]*\n\s*")
_NOTE_NUMBER = r"[1-9]\d{0,3}(?:[\u2013-][1-9]\d{0,3})?"
"""A note's number, or numbers from one to another ("12", "3-5")."""
EDITORIAL_TAG = (
    r"\[(?:(?i:[a-z][a-z -]{0,40} needed|(?:dubious|disputed|discuss)[^\]\n]{0,30}|failed verification"
    r"|not in (?:citation|source) given|(?:permanent )?dead link|vague|clarify|specify|irrelevant citation)"
    r"|(?!(?:the|a|an|his|her|its|their|my|our|your) )[a-z][a-z-]*(?: [a-z-]+){0,2}\?|edit(?: source)?)\]"
)
"""An encyclopedia's tag on what it doubts ("[citation needed]", "[who?]", "[dubious – discuss]",
"[according to whom?]", "[original research?]") or a section's "[edit]" link: a question in one
to three words in lower case, not a guess of the editor's at a name ("[the king?]"); "[Edit]", a
button's name in a manual, is read."""
REFERENCE_MARK = (
    rf"(?:\[(?:{_NOTE_NUMBER}(?:, ?{_NOTE_NUMBER})*|(?i:[a-z]|(?:note|nb|n) \d{{1,4}}))\]|{EDITORIAL_TAG})"
)
"""A reference mark as copied from an encyclopedia page ("[1]", "[3-5]", "[3, 4]", "[a]",
"[citation needed]"); not a first index, which counts from zero ("sys.argv[0]")."""
PDF_NOTE = (
    r"(?:(?<=[a-z]{3}[.!?])|(?<=[a-z]{2}[.!?][\"')\u201d\u2019])|(?<=[a-z]{2}[\"')\u201d\u2019][.!?]))"
    r"\d{1,3}(?=\s+[A-Z\"\u201c]|\s*$)"
)
"""A note's number as a PDF's text has it, after a word's full stop, also after a closing quote
or bracket ("clear.1 Then", 'he said."3 Then', "(see above).4 Then"); not a standard's ("G.711", "H.264 Video") or an
abbreviation's ("Eq.2", "Fig.3")."""

_SENTENCE_END = re.compile(
    rf"[.!?\u2026\u3002\uff01\uff1f]+[\"')\]\u201d\u2019]*(?:{REFERENCE_MARK})*(?:{PDF_NOTE})?\s+"
)
"""Terminal punctuation, closing quotes, and the reference marks or note number after it."""
_NO_BREAK_AFTER = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "mt",
        "vs",
        "e.g",
        "i.e",
        "cf",
        "no",
        "fig",
        "approx",
        "incl",
        "sr",
        "jr",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "rev",
        "al",  # "et al."
        "pp",
        "ch",
        "vol",
        "eq",
        "sec",
    ]
)
"""Abbreviations whose dot rarely ends a sentence ('Dr. Smith', 'e.g. this')."""
_NEVER_ENDS = frozenset(["e.g", "i.e", "eg", "cf", "viz"])
"""Abbreviations that introduce what follows: their dot ends no sentence, whatever comes next
(an option, a path, a quote: "e.g. `-h`", "(e.g. /proc/self/cmdline)")."""
_NO_BREAK_BEFORE_NUMBER = frozenset(
    [
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "ext",
        "tel",
        "ca",
        "art",
        "ft",
        "lb",
        "lbs",
    ]
)
"""Abbreviations whose dot does not end a sentence when a number follows ('Nov. 12',
'ext. 204', 'ca. 1850', a height's or a weight's 'ft. 2 in.', 'lb. 3 oz.'); before a word it may
('in Nov. The next')."""
_WEEKDAYS = frozenset(["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"])
"""A weekday's short name, whose dot ends no sentence before a date when written with a
capital ("Tue. 3/4"); in lower case some are words that may end one ("I sat. 3 came")."""
_TITLES = frozenset(["sen", "rep", "gov", "pres", "maj", "adm", "fr", "hon", "atty", "det", "insp", "supt"])
"""Titles before a name whose dot ends no sentence when written with a capital before a
capital ("Sen. Warren"); in lower case they are words that may end one ("a sales rep.")."""
_COMPANY = frozenset(["corp", "inc", "ltd", "co", "llc", "plc", "bros"])
"""A company's suffix: its dot ends no sentence before a bracket or comma ("Corp. (NASDAQ")."""
_SENTENCE_STARTERS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "he",
        "she",
        "we",
        "they",
        "i",
        "you",
        "there",
        "here",
        "his",
        "her",
        "their",
        "our",
        "my",
        "but",
        "and",
        "so",
        "yet",
        "or",
        "then",
        "now",
        "in",
        "on",
        "at",
        "for",
        "if",
        "when",
        "while",
        "after",
        "before",
        "as",
        "since",
        "although",
        "however",
        "meanwhile",
        "still",
        "also",
    ]
)
"""Words that often begin a sentence: after "U.S." one of these starts a new sentence, any
other capitalised word ("U.S. Senate", "U.S. GDP") is the name the acronym qualifies."""
_DOTTED_ACRONYM = re.compile(r"(?:[A-Z]\.){2,}$")


def paragraphs(text: str) -> Iterator[str]:
    """Paragraphs separated by blank lines, found lazily; empty ones are skipped."""
    start = 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        if text[start : m.start()].strip():
            yield text[start : m.start()]
        start = m.end()
    if text[start:].strip():
        yield text[start:]


_WORD_BEFORE = re.compile(r"(\S+?)[.\u2026]*$")
WORD_REACH = 80
"""Characters before a sentence-end mark searched for the word it follows."""


def _is_sentence_end(text: str, m: re.Match[str]) -> bool:
    # The word before the dot, from the text just before it (not all the text before it:
    # a search to the end of a whole megabyte paragraph at every dot made splitting it
    # quadratic).
    word = _WORD_BEFORE.search(text, max(0, m.start() - WORD_REACH), m.start() + 1)
    before = word.group(1).lower().lstrip("(\"'") if word else ""
    following = text[m.end() : m.end() + 1]
    if before in _NEVER_ENDS:
        return False
    if before in _NO_BREAK_AFTER and (following.isalnum() or following == "("):
        return False  # "Dr. Smith", "No. 5", "et al. (2020)"; but "on Elm St. **Next**" ends there
    if (
        before in _TITLES
        and word is not None
        and word.group(1).lstrip("(\"'")[:1].isupper()
        and following.isupper()
    ):
        return False  # "Sen. Warren", "Gov. Newsom"
    if before in _COMPANY and following in "(,":
        return False  # "XYZ Corp. (NASDAQ: XYZ)"
    if before in _NO_BREAK_BEFORE_NUMBER and following.isdigit():
        return False  # "Nov. 12", "ext. 204"
    if before in _WEEKDAYS and word and word.group(1).lstrip("(\"'")[:1].isupper() and following.isdigit():
        return False  # "Tue. 3/4"
    if word and _DOTTED_ACRONYM.search(word.group(0)):
        # "the U.S. Senate", "U.S. GDP", "S.I. 2019/123", "42 U.S.C. § 1983"; but "in the
        # U.S. The next" ends there.
        next_word = re.match(r"[A-Za-z']+", text[m.end() : m.end() + 20])
        return (
            next_word is not None and next_word.group().lower() in _SENTENCE_STARTERS and following.isupper()
        )
    if "\n" in m.group() and before not in _NO_BREAK_AFTER and "." not in before:
        return True  # a line after a full stop begins anew, whatever its case ("ok.\nlol")
    if len(before) == 1 and before.isalpha() and m.group().startswith("."):
        return False  # an initial: "J. R. R. Tolkien"
    if before in ("a.m", "p.m") and "\n" not in m.group() and ZONE_AFTER_AMPM.match(text, m.end() - 1):
        return False  # "at 3 p.m. EST. Please": the zone is the time's
    # "a.m. tomorrow", "approx. ten": a lower-case word after the dot continues the sentence.
    return not following.islower()


def _bounded(sentence: str) -> Iterator[str]:
    while len(sentence) > MAX_SENTENCE_CHARS:
        window = sentence[:MAX_SENTENCE_CHARS]
        cut = max(window.rfind(", "), window.rfind("; "))
        if cut < MAX_SENTENCE_CHARS // 2:
            cut = window.rfind(" ")
        if cut <= 0:
            # One enormous 'word': keep it whole so normalisation drops it with one note.
            space = re.compile(r"\s").search(sentence, MAX_SENTENCE_CHARS)
            cut = space.start() if space else len(sentence) - 1
        yield sentence[: cut + 1]
        sentence = sentence[cut + 1 :]
    yield sentence


def _paragraph_sentences(paragraph: str) -> Iterator[str]:
    start = 0
    for m in _SENTENCE_END.finditer(paragraph):
        if _is_sentence_end(paragraph, m):
            yield from _bounded(paragraph[start : m.end()])
            start = m.end()
    yield from _bounded(paragraph[start:])


_LIST_ITEM = re.compile(
    r"[ \t]*(?:[-*+\u2022\u00b7\u2023\u2013]|\d{1,2}[.)]|[a-z][)]|#{1,6}"
    r"|[\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]\ufe0f?)[ \t]+\S"
)
"""A line that is a list item ("- item", "• item", "1. item", "a) item", "✅ Done"), or a
Markdown heading ("## Changes")."""
_BRACKETED_ITEM = re.compile(r"[ \t]*\((?:[A-Za-z]|[ivx]{2,5}|\d{1,2})\)[ \t]+\S")
"""A line that is an item numbered in brackets, as a contract or a statute has them ("(a) the
buyer", "(iii) the seller", "(2) …"), unless the line before runs on into it (`_RUNS_INTO_ITEM`)."""
_FIELD = re.compile(r"[ \t]*[A-Z][\w-]{0,20}:[ \t]")
"""A line that is a labelled field ("To: Team", "Subject: …", "M: +44 …")."""
SHORT_LINE = 40
"""A line this short, with no punctuation at its end, before a line that begins with a
capital, is a unit of its own (a heading, an address line, a signature, a verse)."""
_RUNS_ON = re.compile(
    r"(?:[,;:\-\u2013\u2014]|\b(?:a|an|the|of|to|in|on|at|for|and|or|but|with|by|from|as|that|my|your|our)\b)\s*$",
    re.I,
)
_RUNS_INTO_ITEM = re.compile(r"\b(?:a|an|the|of|to|in|on|at|for|with|by|from|as|that|my|your|our)\s*$", re.I)
"""A line ending so runs on even into a bracketed item ("the costs of\n(a) travel"); a list's
";", ":" or "; and" do not."""


_SIGNATURE_MARK = re.compile(r"[ \t]*--[ \t]*$")
"""The line that begins an email's signature ("-- "), a break on both sides."""
_PHONE_LINE = re.compile(r"[ \t]*(?:\+\d|\(\d{3}\) ?\d)")
"""A line that begins with a phone number ("+1 (555) 123-4567"), as a signature's may."""


def _starts_unit(line: str, following: str) -> bool:
    """Whether ``following`` (the next line of a paragraph) begins a sentence of its own
    although ``line`` has no punctuation at its end."""
    if _SIGNATURE_MARK.match(line) or _SIGNATURE_MARK.match(following):
        return True
    if _LIST_ITEM.match(following) or (_BRACKETED_ITEM.match(following) and not _RUNS_INTO_ITEM.search(line)):
        return True
    if _FIELD.match(following) and not _RUNS_ON.search(line):
        return True
    stripped = line.strip()
    return (
        0 < len(stripped) < SHORT_LINE
        and not re.search(r"[.!?\u2026]\W*$", stripped)
        and not _RUNS_ON.search(stripped)
        and (following.lstrip()[:1].isupper() or bool(_PHONE_LINE.match(following)))
    )


def _line_groups(paragraph: str) -> Iterator[str]:
    """``paragraph`` cut between lines where the next begins a unit of its own (list items,
    fields, short lines: `_starts_unit`); the pieces are slices of it in order."""
    start = 0
    line_start = 0
    for m in re.finditer(r"\n", paragraph):
        following_end = paragraph.find("\n", m.end())
        following = paragraph[m.end() : following_end if following_end >= 0 else len(paragraph)]
        if following.strip() and _starts_unit(paragraph[line_start : m.start()], following):
            yield paragraph[start : m.end()]
            start = m.end()
        line_start = m.end()
    yield paragraph[start:]


def sentences(text: str) -> Iterator[RawSentence]:
    """Raw sentences in order, each knowing whether it closes its paragraph."""
    for paragraph in paragraphs(text):
        pending: str | None = None
        for sentence in (s for group in _line_groups(paragraph) for s in _paragraph_sentences(group)):
            if not sentence.strip():
                continue
            if pending is not None:
                yield RawSentence(pending, False)
            pending = sentence
        if pending is not None:
            yield RawSentence(pending, True)


# --- Pieces of a normalised sentence -------------------------------------------------------

_PHRASE_STARTERS = frozenset(
    [
        "and",
        "but",
        "or",
        "nor",
        "so",
        "yet",
        "because",
        "although",
        "though",
        "while",
        "whereas",
        "which",
        "who",
        "whom",
        "whose",
        "that",
        "when",
        "where",
        "if",
        "unless",
        "until",
        "since",
        "after",
        "before",
        "as",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "of",
        "from",
        "by",
        "about",
        "into",
        "over",
        "under",
        "between",
        "through",
        "during",
        "without",
    ]
)


def boundary_after(word: str, next_word: str | None) -> Boundary:
    """How strong a cut after `word` (with its punctuation) would be."""
    if next_word is None:
        return Boundary.SENTENCE
    tail = word.rstrip("\"')\u201d")
    if tail.endswith((".", "!", "?", "\u2026")):
        return Boundary.SENTENCE
    if tail.endswith((";", ":", "\u2014")):
        return Boundary.STRONG_CLAUSE
    if tail.endswith(","):
        return Boundary.CLAUSE
    if next_word.lower().strip("\"'(") in _PHRASE_STARTERS:
        return Boundary.PHRASE
    return Boundary.WORD


def cut_point(words: list[str], max_chars: int, min_chars: int, least: int = 1) -> int:
    """Index after which to cut `words` so the first part is at most `max_chars` long.

    The strongest boundary wins; among equals, the latest. Parts shorter than `min_chars`
    are avoided unless nothing else fits. Returns at least ``least`` (>= 1: never cuts
    inside a word; more: the first words are context that must stay whole).
    """
    best = (Boundary.WORD.value - 1, 0)
    length = -1
    for i, word in enumerate(words[:-1]):
        length += len(word) + 1
        if length > max_chars:
            break
        if i + 1 < least:
            continue
        strength = boundary_after(word, words[i + 1]).value if length >= min_chars else -1
        best = max(best, (strength, i + 1))
    return max(least, best[1])


def split_to_length(text: str, max_chars: int, min_chars: int = 0) -> list[tuple[str, Boundary]]:
    """Cut normalised text into pieces of at most `max_chars` (a single longer word stays
    whole), each with the boundary that ends it (the last one gets SENTENCE)."""
    words = text.split()
    pieces: list[tuple[str, Boundary]] = []
    while words:
        cut = len(words) if len(" ".join(words)) <= max_chars else cut_point(words, max_chars, min_chars)
        last = cut == len(words)
        pieces.append(
            (" ".join(words[:cut]), Boundary.SENTENCE if last else boundary_after(*words[cut - 1 : cut + 1]))
        )
        words = words[cut:]
    return pieces
