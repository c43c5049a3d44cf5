"""Paragraph and sentence splitting, and cutting normalised text into pieces. No model needed."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tray_reader.text import sentences as split
from tray_reader.text.sentences import Boundary, RawSentence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        ("Dr. Smith met Mr. Jones.", ["Dr. Smith met Mr. Jones."]),
        ("Use e.g. this one. Next.", ["Use e.g. this one.", "Next."]),
        ("J. R. R. Tolkien wrote it. Yes.", ["J. R. R. Tolkien wrote it.", "Yes."]),
        ("It costs 3.50 now. Ok.", ["It costs 3.50 now.", "Ok."]),
        ("See example.com today. Ok.", ["See example.com today.", "Ok."]),
        ('He said "Stop." Then left.', ['He said "Stop."', "Then left."]),
        ("At 9 a.m. tomorrow we go.", ["At 9 a.m. tomorrow we go."]),
        # A time's zone after "a.m." or "p.m." (it was a sentence of its own, "EST.").
        (
            "It is at 3 p.m. EST. Be on time. At 9 A.M. PT we go.",
            ["It is at 3 p.m. EST.", "Be on time.", "At 9 A.M. PT we go."],
        ),
        (
            "It ends at 5 p.m.\nEST is the zone. At 5 p.m. The end.",
            ["It ends at 5 p.m.", "EST is the zone.", "At 5 p.m.", "The end."],
        ),
        ("Wait... What?", ["Wait...", "What?"]),
        ("It is on Elm St. **New** part.", ["It is on Elm St.", "**New** part."]),
        ("See No. 5 today.", ["See No. 5 today."]),
        (
            "It was built.[1][2] Then it rained.",
            ["It was built.[1][2]", "Then it rained."],
        ),  # reference marks
        ("It is old.[citation needed] Yes.", ["It is old.[citation needed]", "Yes."]),
        ("It was built.[3\u20135] Then.", ["It was built.[3\u20135]", "Then."]),  # a range of them
        ("It was built.[3, 4] Then.", ["It was built.[3, 4]", "Then."]),
        ("Smith et al. (2020) found it. Then.", ["Smith et al. (2020) found it.", "Then."]),
        ("It was clear.1 Then it rained.", ["It was clear.1", "Then it rained."]),  # a PDF's note
        ('He said "go."3 Then it rained.', ['He said "go."3', "Then it rained."]),
        ("Version 2.1 Then", ["Version 2.1 Then"]),
        ("We met on Nov. 12th. Then.", ["We met on Nov. 12th.", "Then."]),  # a month before a date
        ("It was in Nov. The next one.", ["It was in Nov.", "The next one."]),
        ("Call ext. 204 now. Built ca. 1850.", ["Call ext. 204 now.", "Built ca. 1850."]),
        (
            "He is 5 ft. 2 in. tall. It was 7 lb. 3 oz. He ran 5 km. 3 came.",
            ["He is 5 ft. 2 in. tall.", "It was 7 lb. 3 oz.", "He ran 5 km.", "3 came."],
        ),
        ("The U.S. GDP grew. Then it fell.", ["The U.S. GDP grew.", "Then it fell."]),
        ("He lives in the U.S. The rest is fine.", ["He lives in the U.S.", "The rest is fine."]),
        (
            "The U.K. Parliament voted. In the U.K. It rained.",
            ["The U.K. Parliament voted.", "In the U.K.", "It rained."],
        ),
        ("Under S.I. 2019/123 and Art. 5 it applies.", ["Under S.I. 2019/123 and Art. 5 it applies."]),
        ("See 42 U.S.C. \u00a7 1983 now.", ["See 42 U.S.C. \u00a7 1983 now."]),
        ("ok ok.\nlol thats fine", ["ok ok.", "lol thats fine"]),  # a new line after a full stop
        (
            '"Yes," said Sen. John Smith. Gov. Newsom left.',
            ['"Yes," said Sen. John Smith.', "Gov. Newsom left."],
        ),
        ("He was a rep. The end.", ["He was a rep.", "The end."]),
        (
            "XYZ Corp. (NYSE) fell. Apple Inc. The firm.",
            ["XYZ Corp. (NYSE) fell.", "Apple Inc.", "The firm."],
        ),
        # Lines without punctuation: a wrapped line runs on; a list item, a field or a short
        # line before a capital is a unit of its own.
        (
            "It runs on and on for a long while until the\nend of it.",
            ["It runs on and on for a long while until the\nend of it."],
        ),
        ("Items:\n- one\n- two\n2) three", ["Items:", "- one", "- two", "2) three"]),
        ("From: Jane\nTo: Team\nSubject: the plan", ["From: Jane", "To: Team", "Subject: the plan"]),
        (
            "Best,\nAlex\n--\nAlex Kim | Lead\n+1 (555) 123-4567",
            ["Best,\nAlex", "--", "Alex Kim | Lead", "+1 (555) 123-4567"],
        ),
        (
            "\u2705 Done: 3 tasks\n\u274c Failed: 1\n\u26a0\ufe0f Disk full",
            ["\u2705 Done: 3 tasks", "\u274c Failed: 1", "\u26a0\ufe0f Disk full"],
        ),
        (
            "see doi:10.1121/1.5091234\n## v1.4.0 (2024-05-01)\n- Fixed it",
            ["see doi:10.1121/1.5091234", "## v1.4.0 (2024-05-01)", "- Fixed it"],
        ),
        ("Roses are red\nViolets are blue", ["Roses are red", "Violets are blue"]),
        ("He met\njohn there. She met the\nTeam.", ["He met\njohn there.", "She met the\nTeam."]),
        # Items numbered in brackets, as a contract has them; not a line that runs on into one.
        (
            "The parties are:\n(i) the buyer;\n(ii) the seller; and\n(iii) the agent.",
            ["The parties are:", "(i) the buyer;", "(ii) the seller; and", "(iii) the agent."],
        ),
        ("the costs of\n(a) travel and (b) food", ["the costs of\n(a) travel and (b) food"]),
        ("See you Tue. 3/4 then. Ok.", ["See you Tue. 3/4 then.", "Ok."]),  # a weekday before a date
        ("I sat. 3 came.", ["I sat.", "3 came."]),
        # "e.g.", "i.e.", "cf." introduce what follows, whatever it begins with.
        (
            "Options start with a dash, e.g. ``-h``. Next.",
            ["Options start with a dash, e.g. ``-h``.", "Next."],
        ),
        ("your cmdline (e.g.\n/proc/self/cmdline), but", ["your cmdline (e.g.\n/proc/self/cmdline), but"]),
        ('Use it, i.e. "grep". Cf. #785075 too.', ['Use it, i.e. "grep".', "Cf. #785075 too."]),
        ("numbers, eg. 3 and 4. Then", ["numbers, eg. 3 and 4.", "Then"]),
        ("It hit 3 etc. Then we left.", ["It hit 3 etc.", "Then we left."]),
    ],
)
def test_sentences(text, expected):
    assert [s.text.strip() for s in split.sentences(text)] == expected


def test_paragraphs_mark_their_last_sentence():
    text = "One. Two.\n\n  \n Three.\nStill three.\n\n\n"
    assert [(s.text.strip(), s.ends_paragraph) for s in split.sentences(text)] == [
        ("One.", False),
        ("Two.", True),
        ("Three.", False),
        ("Still three.", True),
    ]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\n", "\t \n \n"])
def test_no_sentences_in_blank_text(text):
    assert list(split.sentences(text)) == []


def test_overlong_sentence_is_bounded_at_spaces():
    text = " ".join(["word"] * 2000)
    parts = [s.text for s in split.sentences(text)]
    assert all(len(p) <= split.MAX_SENTENCE_CHARS for p in parts)
    assert "".join(parts) == text


def test_splitting_a_megabyte_paragraph_all_the_way_takes_seconds_not_minutes():
    # Each sentence end looked for the word before it in all the text before it: a megabyte
    # without a blank line took more than ten minutes to split (35,000 sentences).
    text = "A short sentence here. " + "Lots of words, and more words. " * 35_000
    t0 = time.perf_counter()
    assert sum(1 for _ in split.sentences(text)) == 35_001
    assert time.perf_counter() - t0 < 10


def test_splitting_is_lazy_on_a_megabyte():
    text = "A short sentence here. " + "Lots of words, and more words. " * 35_000
    assert len(text) > 1_000_000
    t0 = time.perf_counter()
    first = list(itertools.islice(split.sentences(text), 2))
    assert time.perf_counter() - t0 < 0.05
    assert first == [
        RawSentence("A short sentence here. ", False),
        RawSentence("Lots of words, and more words. ", False),
    ]


@pytest.mark.parametrize(
    ("word", "next_word", "boundary"),
    [
        ("end.", "Next", Boundary.SENTENCE),
        ("this,", "that", Boundary.CLAUSE),
        ("this;", "that", Boundary.STRONG_CLAUSE),
        ("note:", "that", Boundary.STRONG_CLAUSE),
        ("cats", "and", Boundary.PHRASE),
        ("sat", "on", Boundary.PHRASE),
        ("big", "cats", Boundary.WORD),
        ("last", None, Boundary.SENTENCE),
    ],
)
def test_boundary_after(word, next_word, boundary):
    assert split.boundary_after(word, next_word) is boundary


def test_cut_prefers_clause_over_later_phrase():
    words = [
        "New",
        "paragraph",
        "here,",
        "with",
        "a",
        "clause",
        "and",
        "more",
        "text",
        "that",
        "keeps",
        "going",
    ]
    cut = split.cut_point(words, max_chars=40, min_chars=10)
    assert words[cut - 1] == "here,"


def test_cut_never_splits_a_word_even_if_too_long():
    assert split.cut_point(["x" * 100, "y"], max_chars=10, min_chars=0) == 1


words_st = st.lists(
    st.text(alphabet="abcdefghij,.;", min_size=1, max_size=25).filter(lambda w: any(c.isalpha() for c in w)),
    min_size=1,
    max_size=60,
)


@given(words=words_st, max_chars=st.integers(min_value=5, max_value=120))
def test_split_to_length_invariants(words, max_chars):
    pieces = split.split_to_length(" ".join(words), max_chars, max_chars // 4)
    # nothing lost, nothing reordered, never inside a word
    assert [w for p, _ in pieces for w in p.split()] == words
    # every piece fits, except a single word that is longer than the budget on its own
    assert all(len(p) <= max_chars or len(p.split()) == 1 for p, _ in pieces)
    assert pieces[-1][1] is Boundary.SENTENCE
