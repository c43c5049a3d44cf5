"""Heteronyms the tagger's tag does not tell apart, told by the words around them.

misaki's lexicon gives a heteronym one pronunciation per part of speech, so the tagger's tag
decides, and the tag is sometimes not enough: 'minute' before a noun is tagged a noun ('a
minute detail'), 'bass' is a noun both as the fish and as the instrument, a sentence's first
'Polish' is tagged the nationality however it goes on, and a noun 'tear' is always the
teardrop. For a few words the lexicon has one pronunciation only ('does', 'row'), and it says
'read' tagged 'VBP' as the past, a tag the present has too ('I read books every day'). Each rule
here looks at a word's neighbours (their text and tags) once the tagger has run and before
the lexicon is read, and gives the word's phonemes where the neighbours decide; elsewhere
the lexicon decides as before. Phonemes are misaki's American English symbols, as the
phonemizer's.

'lead' the metal is told from the verb earlier, in the text (`g2p.said_as_metal`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

POLISH_VERB = "pˈɑlɪʃ"
MINUTE_ADJECTIVE = "mInˈut"
"""'minute' meaning tiny, the lexicon's adjective."""
MINUTE_NOUN = "mˈɪnət"
BASS_VOICE = "bˈAs"
"""The low voice and the instrument (the lexicon's adjective: 'bass guitar')."""
TEAR_RIP = "tˈɛɹ"
DOES_DEER = "dˈOz"
"""The plural of 'doe' (misaki has only the verb 'does')."""
ROW_QUARREL = "ɹˈW"
"""'row' rhyming with 'cow' (misaki has only the line's and the oar's)."""
BOW_BENDING = "bˈW"
"""The bow of the head and of a ship (the lexicon's verb)."""
READ_PRESENT = "ɹˈid"
READ_PAST = "ɹˈɛd"
"""'read' as 'reed' and as 'red', the lexicon's."""

LIVE_ADJECTIVE = "lˈIv"
"""'live' rhyming with 'five', the lexicon's adjective ('live music')."""
SENTENCE_STARTS = frozenset({".", "!", "?", ":", ";", '"', "“", "(", "``"})
"""Tokens after which a word begins a sentence (or a quoted one)."""
OBJECT_TAGS = frozenset({"DT", "PRP", "PRP$"})
"""Tags of a word that begins a verb's object: 'the', 'it', 'your'."""
NOUN_TAGS = frozenset({"NN", "NNS"})
NOT_BEFORE_TINY = frozenset({"CD", "JJ", "JJR", "JJS"})
"""Tags of a word that makes the next 'minute' the time ('five minute walk', 'last minute
changes')."""
NOT_BEFORE_TINY_WORDS = frozenset({"every", "each", "per", "this", "that", "any"})
"""Words after which 'minute' is the time even before a word tagged a noun ('every minute
counts')."""
FISH_KINDS = frozenset({"sea", "striped", "largemouth", "smallmouth", "rock"})
CATCHING = frozenset({"catch", "catches", "caught", "catching", "hooked", "landed"})
FISH_AFTER = frozenset({"fishing", "fillet", "fillets", "lure", "lures"})
TEARDROP_PLACES = frozenset({"eye", "eyes", "voice", "corner"})
"""'a tear in her eye': the teardrop after all."""
HAVING = frozenset({"have", "has", "had", "having"})
TAKING = frozenset({"take", "takes", "took", "taking", "taken"})
VESSELS = frozenset({"ship", "boat", "vessel", "yacht"})
BASE_FORM_AFTER = frozenset(
    {
        *("to", "will", "would", "shall", "should", "can", "could", "may", "might", "must"),
        *("do", "does", "did", "don't", "doesn't", "didn't", "won't", "wouldn't", "can't", "cannot"),
        *("couldn't", "shouldn't", "mustn't", "let", "let's"),
    }
)
"""Words after which a verb is in its base form ('to read', 'can read', 'don't read')."""
PARTICIPLE_AFTER = frozenset(
    {"had", "has", "have", "having", "was", "were", "is", "are", "am", "be", "been", "being", "get", "got"}
)
"""Words after which a verb is its past participle ('had read', 'was read')."""
PRESENT_SUBJECTS = frozenset({"i", "you", "we", "they", "and", "or"})
"""Subjects a present 'read' has (not 'she read', the past); after 'and' or 'or' a verb shares
its subject with the verb before ('I sit and read')."""
CLAUSE_ENDS = frozenset({".", "!", "?", ";"})
PAST_TIMES = frozenset({"yesterday", "ago", "earlier", "previously", "formerly"})
HABITUAL = frozenset(
    {
        *("always", "usually", "often", "sometimes", "regularly", "rarely", "seldom", "frequently"),
        *("generally", "normally", "typically", "daily", "nightly", "weekly", "nowadays"),
    }
)
"""Adverbs that say a thing is done as a habit ('I always read'), the present's."""
TIMES = frozenset(
    {
        *("day", "days", "night", "nights", "morning", "mornings", "evening", "evenings", "afternoon"),
        *("week", "weeks", "weekend", "weekends", "month", "months", "year", "years", "time", "summer"),
        *("winter", "spring", "autumn", "monday", "tuesday", "wednesday", "thursday", "friday"),
        *("saturday", "sunday"),
    }
)
"""Words for a time: after 'last' a past ('last week'), after 'every' or 'each' a habit."""
SPAN_BEFORE = frozenset({"for", "in", "within", "after", "about", "over", "than", "half"})
"""Words before 'a week' that make it a span ('for a week'), not a rate ('fifty books a year')."""

SHOWING = frozenset(
    {
        *("broadcast", "broadcasts", "broadcasting", "air", "airs", "aired", "airing", "stream", "streams"),
        *("streamed", "streaming", "televised", "go", "goes", "went", "gone", "going"),
    }
)
"""Verbs after which 'live' is how a thing is shown ('airs live', 'went live'), never the verb."""
WATCHING = frozenset(
    {
        *("watch", "watches", "watched", "watching", "see", "sees", "saw", "seen", "seeing", "catch"),
        *("catches", "caught", "hear", "heard", "follow", "followed"),
    }
)
"""Verbs after which 'live' is how a thing was seen ('we watched it live.', 'saw them live in
concert'), where the words after it do not make it the verb ('watched them live their lives')."""
LIVE_OBJECTS = frozenset({"it", "them", "him", "her", "us", "me", "you", "this", "that", "everything"})
MEDIA = frozenset(
    {
        *("tv", "air", "television", "radio", "stage", "camera", "youtube", "twitch", "screen", "stream"),
        *("concert", "person"),
    }
)
"""What a thing is shown on or seen in: 'live on TV', 'live on air', 'saw them live in concert'."""
LIVE_TIMES = frozenset({"tonight", "today", "now", "online", "again", "yesterday", "from"})


def resolve(tokens: list[Any]) -> list[Any]:
    """misaki's tagged ``tokens``, each heteronym whose neighbours decide it with its
    phonemes set (the lexicon leaves a token's phonemes alone once set)."""
    for i, token in enumerate(tokens):
        rule = RULES.get(token.text.lower())
        if rule is not None and token.phonemes is None:
            token.phonemes = rule(tokens, i)
    return tokens


def _word(tokens: Sequence[Any], i: int) -> str:
    return str(tokens[i].text).lower() if 0 <= i < len(tokens) else ""


def _tag(tokens: Sequence[Any], i: int) -> str:
    return str(tokens[i].tag) if 0 <= i < len(tokens) else ""


def _polish(tokens: Sequence[Any], i: int) -> str | None:
    """A sentence's first 'Polish' before its object is the verb ('Polish the silver',
    'Polish it'); the nationality otherwise ('Polish people', 'the Polish silver')."""
    starts = i == 0 or tokens[i - 1].text in SENTENCE_STARTS
    if tokens[i].text == "Polish" and starts and _tag(tokens, i + 1) in OBJECT_TAGS:
        return POLISH_VERB
    return None


def _minute(tokens: Sequence[Any], i: int) -> str | None:
    """Tiny before a noun ('a minute detail', 'minute particles'), unless a number or a
    word like 'last' makes it the time; the clock's 'minute hand' is the time."""
    if _word(tokens, i + 1) in ("hand", "hands"):
        return MINUTE_NOUN
    if (
        tokens[i].tag == "NN"
        and _tag(tokens, i + 1) in NOUN_TAGS
        and _tag(tokens, i - 1) not in NOT_BEFORE_TINY
        and _word(tokens, i - 1) not in NOT_BEFORE_TINY_WORDS
    ):
        return MINUTE_ADJECTIVE
    return None


def _bass(tokens: Sequence[Any], i: int) -> str | None:
    """The voice and the instrument ('the bass player', 'turn up the bass'), unless the
    words around it are about fish ('sea bass', 'caught a bass', 'bass fishing').
    'Bass' with a capital may be a name ('Bass Strait'): the lexicon's."""
    if tokens[i].text != "bass":
        return None
    fish = (
        _word(tokens, i - 1) in FISH_KINDS
        or any(_word(tokens, j) in CATCHING for j in range(i - 3, i))
        or _word(tokens, i + 1) in FISH_AFTER
    )
    return None if fish else BASS_VOICE


def _tear(tokens: Sequence[Any], i: int) -> str | None:
    """A rip: 'a tear in the paper', 'a tear in its sleeve', 'wear and tear' (the lexicon's
    noun is the teardrop, its verb the rip)."""
    if _word(tokens, i - 2) == "wear" and _word(tokens, i - 1) == "and":
        return TEAR_RIP
    if (
        tokens[i].tag == "NN"
        and _word(tokens, i + 1) == "in"
        and _tag(tokens, i + 2) in ("DT", "PRP$")
        and _tag(tokens, i + 3) in NOUN_TAGS
        and _word(tokens, i + 3) not in TEARDROP_PLACES
    ):
        return TEAR_RIP
    return None


def _does(tokens: Sequence[Any], i: int) -> str | None:
    """'the does' are deer."""
    return DOES_DEER if _word(tokens, i - 1) in ("the", "these", "those") else None


def _row(tokens: Sequence[Any], i: int) -> str | None:
    """A quarrel: 'they had a row', 'a blazing row', 'a row over pay'; not a row of things,
    nor 'three in a row'."""
    if not _tag(tokens, i).startswith("NN") or _word(tokens, i + 1) == "of":
        return None
    article = next((j for j in (i - 1, i - 2) if _word(tokens, j) in ("a", "an")), None)
    if article is None or _word(tokens, article - 1) == "in":
        return None
    if _word(tokens, article - 1) in HAVING or _word(tokens, i + 1) in ("about", "over"):
        return ROW_QUARREL
    return None


def _bow(tokens: Sequence[Any], i: int) -> str | None:
    """Bending: 'take a bow', 'took a final bow'; and a ship's front ('the bow of the
    boat'). The lexicon says a noun 'bow' as the archer's and the ribbon's."""
    if not _tag(tokens, i).startswith("NN"):
        return None
    taken = any(_word(tokens, j) in TAKING for j in range(i - 3, i))
    if taken and _word(tokens, i + 2) not in ("arrow", "arrows"):
        return BOW_BENDING
    if _word(tokens, i + 1) == "of" and _word(tokens, i + 3) in VESSELS:
        return BOW_BENDING
    return None


def _read(tokens: Sequence[Any], i: int) -> str | None:
    """'read' as the present ('reed') after 'to', a modal or 'do' ('can read', 'don't read',
    'did you read'), in a compound ('read-only'), and after 'I', 'you', 'we', 'they' or a
    plural where its sentence says a habit ('every day', 'always', 'ten books a year') or
    its object is a plural ('I read books'), unless the sentence says the past ('yesterday',
    'last week', 'when I was'); the participle ('red') after 'had' or 'was' ('have you
    read'). Elsewhere the lexicon's: the past for the tagger's 'VBD' and 'VBP' ('she read',
    'I read it'), the present for its base form ('Read the manual')."""
    if _word(tokens, i + 1).startswith("-"):
        return READ_PRESENT  # 'read-only', 'read-write'
    j = i - 1
    while _tag(tokens, j).startswith("RB") and _word(tokens, j) not in BASE_FORM_AFTER:
        j -= 1  # 'I always read', 'we often read'
    before = _word(tokens, j)
    # After a question's or an order's subject, the word before it: 'did you read', 'let me
    # read', 'have you read', 'was it read'.
    asking = _word(tokens, j - 1) if _tag(tokens, j) in ("PRP", "NNP") else ""
    if before in BASE_FORM_AFTER or before.endswith("'ll") or asking in BASE_FORM_AFTER:
        return READ_PRESENT
    if before in PARTICIPLE_AFTER or before.endswith(("'ve", "'s", "'re")) or asking in PARTICIPLE_AFTER:
        return READ_PAST
    if not _tag(tokens, i).startswith("VB") or not (before in PRESENT_SUBJECTS or _tag(tokens, j) == "NNS"):
        return None
    start = next((k + 1 for k in range(i - 1, -1, -1) if tokens[k].text in CLAUSE_ENDS), 0)
    end = next((k for k in range(i + 1, len(tokens)) if tokens[k].text in CLAUSE_ENDS), len(tokens))
    words = [_word(tokens, k) for k in range(start, end)]
    triples = list(zip(["", *words], words, [*words[1:], ""], strict=False))
    past = (
        any(w in PAST_TIMES for w in words)
        or any(a == "last" and b in TIMES for _, a, b in triples)
        or any(_tag(tokens, k) == "VBD" and _word(tokens, k) != "read" for k in range(start, end))
    )
    if past:
        return READ_PAST
    habit = (
        any(w in HABITUAL for w in words)
        or any(a in ("every", "each", "per") and b in TIMES for _, a, b in triples)
        or any(a == "a" and b in TIMES and w not in SPAN_BEFORE for w, a, b in triples)
        or any(a == "these" and b == "days" for _, a, b in triples)
    )
    k = i + 1
    while k < i + 4 and (
        _tag(tokens, k) in ("JJ", "JJR", "JJS", "NN") or _word(tokens, k) in ("many", "some")
    ):
        k += 1  # 'good books', 'comic books', 'many books'
    return READ_PRESENT if habit or _tag(tokens, k) == "NNS" else None


def _live(tokens: Sequence[Any], i: int) -> str | None:
    """'live' rhyming with 'five' after a verb of showing ('airs live on Sunday'), and after a
    verb of watching, with its object ('we watched it live', 'saw them live in concert'),
    where the clause ends or a medium or a time follows ('live on TV', 'live tonight'); the
    verb stays ('I live here', 'watched them live their lives', 'to live on stage')."""
    j = i - 1
    if _word(tokens, j) in LIVE_OBJECTS:
        j -= 1
    elif _tag(tokens, j) in NOUN_TAGS | {"NNP", "NNPS"}:
        j -= 1  # 'the game', 'Radiohead'
        if _tag(tokens, j) in OBJECT_TAGS:
            j -= 1
    if _word(tokens, i - 1) in SHOWING:
        return LIVE_ADJECTIVE
    if _word(tokens, j) not in WATCHING or j == i - 1:
        return None
    after = _word(tokens, i + 1)
    if (
        i + 1 >= len(tokens)
        or tokens[i + 1].text in CLAUSE_ENDS | {","}
        or after in LIVE_TIMES
        or (after in ("on", "in", "at") and (_word(tokens, i + 2) in MEDIA or _tag(tokens, i + 2) == "NNP"))
    ):
        return LIVE_ADJECTIVE
    return None


RULES: dict[str, Callable[[Sequence[Any], int], str | None]] = {
    "polish": _polish,
    "minute": _minute,
    "bass": _bass,
    "tear": _tear,
    "does": _does,
    "row": _row,
    "bow": _bow,
    "read": _read,
    "live": _live,
}
"""A heteronym in lower case -> the rule giving its phonemes from its neighbours, or None
where they do not decide."""
