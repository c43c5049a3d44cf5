"""The text front end end to end (normalise, split, G2P): chunking invariants and bad input."""

from __future__ import annotations

import random
import re
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tray_reader.text import letter_sounds, number_reading
from tray_reader.text.frontend import (
    FIRST_CHUNK_CHARS,
    MAX_CHUNK_IDS,
    PAUSES,
    TextFrontEnd,
    summarize_skipped,
)
from tray_reader.text.normalize import normalize
from tray_reader.text.sentences import Boundary
from tray_reader.text.types import MAX_PHONEME_IDS


@pytest.fixture(scope="module")
def frontend(phonemizer):
    return TextFrontEnd(phonemizer)


def letters(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def check_chunks(frontend: TextFrontEnd, chunks) -> None:
    for chunk in chunks:
        assert 0 < len(frontend.ids(chunk.phonemes)) <= frontend.max_chunk_ids, chunk
    sentences = [c.sentence for c in chunks]
    assert sentences == sorted(sentences)
    assert not sentences or sentences[0] == 0
    assert all(b - a <= 1 for a, b in zip(sentences, sentences[1:], strict=False))


def test_issue_example(frontend):
    chunks = list(frontend.chunks("Dr. Smith paid $3.50 on 3 May 2024 at 9:30 pm."))
    assert " ".join(c.text for c in chunks) == (
        "Doctor Smith paid three dollars and fifty cents on the third of May, twenty twenty-four, "
        "at nine thirty PM."
    )
    assert len(chunks[0].text) <= FIRST_CHUNK_CHARS
    assert chunks[-1].pause_after == PAUSES[Boundary.PARAGRAPH]
    check_chunks(frontend, chunks)


def test_pauses_grow_with_the_boundary(frontend):
    text = (
        "First, a clause. " + "This sentence goes on with many words, then a comma, " * 6 + "and ends.\n\n"
        "A second paragraph. Its end."
    )
    chunks = list(frontend.chunks(text))
    by_text = {c.text: c.pause_after for c in chunks}
    assert by_text["First, a clause."] == PAUSES[Boundary.SENTENCE]
    assert [c.pause_after for c in chunks if c.text.endswith(",")] != []
    assert all(p == PAUSES[Boundary.CLAUSE] for t, p in by_text.items() if t.endswith(","))
    assert by_text["A second paragraph."] == PAUSES[Boundary.SENTENCE]
    assert by_text["Its end."] == PAUSES[Boundary.PARAGRAPH]
    assert PAUSES[Boundary.CLAUSE] < PAUSES[Boundary.SENTENCE] < PAUSES[Boundary.PARAGRAPH]
    assert [c.sentence for c in chunks][-2:] == [2, 3]


def test_first_chunk_is_short_and_later_ones_grow(frontend):
    text = " ".join(["The quick brown fox jumps over the lazy dog"] * 30) + "."
    chunks = list(frontend.chunks(text))
    sizes = [len(c.text) for c in chunks]
    assert sizes[0] <= FIRST_CHUNK_CHARS
    assert sizes[1] > sizes[0] and max(sizes) > 2 * sizes[1] - 10
    assert all(len(frontend.ids(c.phonemes)) <= MAX_CHUNK_IDS for c in chunks)
    check_chunks(frontend, chunks)


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14)
PUNCT = st.sampled_from(["", "", "", "", ",", ".", ";", "!", "?", ":"])
TOKENS = st.lists(
    st.tuples(WORD, PUNCT, st.sampled_from([" ", " ", " ", "\n", "\n\n"])), min_size=1, max_size=80
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=TOKENS)
def test_chunking_invariants(frontend, tokens):
    text = "".join(w + p + s for w, p, s in tokens)
    # Only texts the normaliser leaves word for word ("vs. x", "etc", Roman numerals are
    # read out in full; that is tested in test_normalize).
    assume(letters(normalize(text)) == [w for w, _, _ in tokens])
    chunks = list(frontend.chunks(text))
    # nothing lost or reordered, never cut inside a word
    assert [w for c in chunks for w in letters(c.text)] == [w for w, _, _ in tokens]
    assert all(c.text == c.text.strip() and "  " not in c.text for c in chunks)
    check_chunks(frontend, chunks)
    if chunks and len(tokens[0][0]) < FIRST_CHUNK_CHARS:
        assert len(chunks[0].text) <= FIRST_CHUNK_CHARS


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=0, max_size=400))
def test_any_text_gives_valid_chunks(frontend, text):
    skipped: list[str] = []
    chunks = list(frontend.chunks(text, skipped))
    check_chunks(frontend, chunks)
    assert all(c.text.isascii() for c in chunks)


@pytest.mark.parametrize(
    "text",
    [
        " ".join(["ABCDEFG HIJKLMN OPQRSTU"] * 20),  # spelled letter by letter: ~3 ids per char
        "1234567890 " * 40,  # every digit becomes a word
        "+1 555 123 4567, " * 30,
        "x" * 50 + " " + "y" * 50,
    ],
)
def test_dense_text_stays_under_the_id_bounds(frontend, text):
    chunks = list(frontend.chunks(text))
    assert chunks
    check_chunks(frontend, chunks)
    wide = TextFrontEnd(frontend._phonemize, max_chunk_ids=10_000)
    assert wide.max_chunk_ids == MAX_PHONEME_IDS
    assert all(len(wide.ids(c.phonemes)) <= MAX_PHONEME_IDS for c in wide.chunks(text))


@pytest.mark.parametrize(
    "text", ["", " ", "\n\n\t  \n", "\x00\x01\x1b[0m", "\U0001f600\U0001f44d", "*** --- ..."]
)
def test_nothing_readable_gives_no_chunks(frontend, text):
    assert list(frontend.chunks(text)) == []


def test_non_latin_script_is_skipped_and_reported(frontend):
    skipped: list[str] = []
    chunks = list(frontend.chunks("Привет мир! Hello there. 你好世界。 Bye.", skipped))
    assert [c.text for c in chunks] == ["Hello there.", "Bye."]
    assert skipped == ["Привет мир", "你好世界"]
    assert frontend.last_skipped is skipped


def test_a_ten_thousand_character_word_is_dropped_with_a_note(frontend):
    skipped: list[str] = []
    chunks = list(frontend.chunks("Before " + "a" * 10_000 + " after.", skipped))
    assert letters(" ".join(c.text for c in chunks)) == ["before", "after"]
    assert skipped == ["a" * 20 + "… (10000-character word)"]


def test_binary_junk_never_raises(frontend):
    rng = random.Random(3)
    junk = bytes(rng.randrange(256) for _ in range(4_000)).decode("utf-8", errors="replace")
    chunks = list(frontend.chunks(junk + "\n\nThe end."))
    check_chunks(frontend, chunks)
    assert chunks[-1].text.endswith("The end.")


def test_first_chunk_of_a_megabyte_arrives_fast_and_lazily(frontend):
    text = ("Paragraph start, with some words. " * 40 + "\n\n") * 760
    assert len(text) > 1_000_000
    t0 = time.perf_counter()
    chunks = frontend.chunks(text)
    first = next(chunks)
    elapsed = time.perf_counter() - t0
    # Phonemising all of it takes minutes; the first chunk must not wait for that.
    assert elapsed < 1.0, elapsed
    assert first.text == "Paragraph start,"
    assert next(chunks).sentence == 0


@pytest.mark.parametrize("word", ["blorptangle", "Jerry", "kubernetes", "mp", "Xyzzq", "zorbalax"])
def test_unknown_words_are_still_spoken(phonemizer, word):
    phonemes = phonemizer(f"Say {word} now.")
    said = phonemes.split()
    assert len(said) == 3 and len(said[1]) >= 2, phonemes


@pytest.mark.parametrize(
    ("word", "phonemes"),
    [
        ("tape", "tˈAp"),
        ("blorptangle", "blˈɔɹptəŋəl"),
        ("shmoople", "ʃmˈupəl"),
        ("grok", "ɡɹˈɑk"),
        ("knish", "nˈɪʃ"),
        ("cathedral", "kˈæθədɹəl"),
        ("zorbalax", "zˈɔɹbələks"),
        ("cetera", "sˈɛtəɹə"),
        ("go", "ɡˈO"),
        ("'-", ""),
    ],
)
def test_letter_sound_rules(word, phonemes):
    assert letter_sounds.guess(word) == phonemes


def test_skipped_summary_is_one_short_line():
    assert summarize_skipped(["Привет мир", "中文"]) == "Привет мир; 中文"
    many = summarize_skipped(["ж" * 100] + ["x"] * 20, most=3, width=5)
    assert many == "жжжжж…; x; x … and 18 more"


def test_times_of_day_are_said_as_letters(frontend):
    # "a m" was read with the article's vowel ("uh em").
    phonemes = " ".join(c.phonemes for c in frontend.chunks("We open at 9 a.m. and close at 5pm"))
    assert phonemes.count("ˌAˈɛm") == 1 and "pˌiˈɛm" in phonemes
    assert "ɐ" not in phonemes


def test_words_in_capitals_are_read_as_words_not_spelled(phonemizer):
    # A line in capitals (a licence's disclaimer, a warning sign): the tagger takes every
    # word for a name and misaki spelled those it did not know ("M-E-R-C-H-A-N-T-...").
    shouted = "THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF MERCHANTABILITY. DO NOT TOUCH THE WIRES."
    assert phonemizer(shouted) == phonemizer(shouted.lower())
    assert phonemizer("CABLES") == phonemizer("cables")
    # In ordinary text, acronyms stay acronyms.
    assert phonemizer("The US and NASA use an API.").count("ˈɛs") >= 1
    assert "ˌApˌiˈI" in phonemizer("The US and NASA use an API.")


@pytest.mark.parametrize(
    "text",
    [
        "It is made of lead.",
        "Old lead pipes and traces of lead in the water.",
        "Lead poisoning from lead paint.",
        "A lead-based paint, lead-free petrol.",
    ],
)
def test_lead_the_metal_is_said_like_led(phonemizer, text):
    # misaki has one "lead", the verb's ("leed"): the words around tell the metal.
    unstressed = re.sub("[ˈˌ]", "", phonemizer(text))
    assert "lɛd" in unstressed and "lid" not in unstressed, unstressed


@pytest.mark.parametrize(
    "text", ["Lead the way.", "Take the lead.", "This leads to that.", "The role of lead singer."]
)
def test_lead_the_verb_is_said_like_leed(phonemizer, text):
    assert "ɛd" not in phonemizer(text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # The tagger's tag alone chose the other sense: the words around tell.
        ("Polish the Polish silver.", "pˈɑlɪʃ ðə pˈOlɪʃ"),
        ('"Polish your shoes," she said.', "pˈɑlɪʃ jʊɹ"),
        ("a minute detail", "mInˈut"),
        ("There are minute particles in it.", "mInˈut"),
        ("the minute hand", "mˈɪnət"),
        ("the bass player", "bˈAs"),
        ("bass guitar", "bˈAs"),
        ("the bass line", "bˈAs"),
        ("Turn up the bass.", "bˈAs"),
        ("a tear in the paper", "tˈɛɹ"),
        ("Normal wear and tear is covered.", "tˈɛɹ"),
        ("The does grazed with their fawns.", "dˈOz"),
        ("They had a row about money.", "ɹˈW"),
        ("Take a bow.", "bˈW"),
        ("the bow of the ship", "bˈW"),
        # What the lexicon already said right stays.
        ("Polish people are friendly.", "pˈOlɪʃ"),
        ("Please polish the shoes.", "pˈɑlɪʃ"),
        ("a minute later", "mˈɪnət"),
        ("wait a minute", "mˈɪnət"),
        ("every minute counts", "mˈɪnət"),
        ("a five minute walk", "mˈɪnət"),
        ("sea bass", "bˈæs"),
        ("We caught a bass.", "bˈæs"),
        ("striped bass", "bˈæs"),
        ("tear it up", "tˈɛɹ"),
        ("a tear rolled down", "tˈɪɹ"),
        ("a tear in her eye", "tˈɪɹ"),
        ("in tears", "tˈɪɹz"),
        ("Does it work?", "dˈʌz"),
        ("Three wins in a row.", "ɹˈO"),
        ("We had a row of trees.", "ɹˈO"),
        ("bow and arrow", "bˈO"),
        ("She tied a bow.", "bˈO"),
        ("They bow to the king.", "bˈW"),
        ("I read it yesterday.", "ɹˈɛd"),
        ("I will read it.", "ɹˈid"),
        # 'read' in the present where the words around say so (the lexicon's 'VBP' is the past).
        ("I read books every day.", "ɹˈid"),
        ("I always read before bed.", "ɹˈid"),
        ("We usually read the news.", "ɹˈid"),
        ("They read the paper often.", "ɹˈid"),
        ("You read novels.", "ɹˈid"),
        ("I like to read.", "ɹˈid"),
        ("I can read it.", "ɹˈid"),
        ("I don't read books.", "ɹˈid"),
        ("Did you read it?", "ɹˈid"),
        ("It's read-only.", "ɹˈid"),
        # And in the past where they say that.
        ("I had read the book.", "ɹˈɛd"),
        ("I have read the book.", "ɹˈɛd"),
        ("Have you read it?", "ɹˈɛd"),
        ("It was read aloud.", "ɹˈɛd"),
        ("I read it last week.", "ɹˈɛd"),
        ("Yesterday I read books.", "ɹˈɛd"),
        ("She read books every day.", "ɹˈɛd"),
        ("I read books every day when I was young.", "ɹˈɛd"),
        ("We love live music.", "lˈIv"),
        ("I live here.", "lˈɪv"),
        # 'live' after a verb of watching or showing; the verb where the words after make it so.
        ("We watched it live on TV.", "lˈIv"),
        ("I saw it live.", "lˈIv"),
        ("It airs live on Sunday.", "lˈIv"),
        ("I watched them live their lives.", "lˈɪv"),
        ("People who watch TV live longer.", "lˈɪv"),
        # 'lead' the metal before what is said of the metal; a team's lead stays.
        ("Lead is a heavy metal.", "lˈɛd ɪz"),
        ("Lead is toxic to children.", "lˈɛd ɪz"),
        ("Our team lead is toxic.", "lˈid ɪz"),
        ("Lead was used in paint.", "lˈɛd wʌz"),
        ("Lead was found in the water pipes.", "lˈɛd wʌz"),
        ("The lead was found in an old file.", "lˈid wʌz"),
        ("The wind is cold.", "wˈɪnd"),
        ("Wind the clock.", "wˈInd"),
        ("Close the door.", "klˈOz"),
        ("a close friend", "klˈOs"),
        ("the use of force", "jˈus"),
        ("I use it daily.", "jˈuz"),
        ("The wound healed.", "wˈund"),
        ("He wound the clock.", "wˈWnd"),
    ],
)
def test_heteronyms_are_told_by_the_words_around_them(phonemizer, text, said):
    assert said in phonemizer(text), phonemizer(text)


def test_names_with_numbers_and_numbered_items_end_to_end(frontend, phonemizer, monkeypatch):
    monkeypatch.setattr(number_reading, "month_first_dates", lambda: True)  # "3/4": as in en_US
    text = "California's SB 1047 passed. See you Tue. 3/4 at 14h30 on an Airbus A380.\n(iii) the agent."
    assert [c.text for c in frontend.chunks(text, first_chars=200)] == [
        "California's SB ten forty-seven passed.",
        "See you Tuesday March fourth at fourteen thirty on an Airbus A-three eighty.",
        "(three) the agent.",
    ]
    # The A of a model's name and of a cited part is the letter, not the article ("ɐ").
    assert "ˈAθɹ" in phonemizer(normalize("Airbus A380"))
    assert "(ˈA)" in phonemizer(normalize("Section 5(a)(iii) applies"))
