"""Letter-to-sound rules for English words no dictionary knows (names, coinages, typos).

A last resort after misaki's lexicon and the word-part split in g2p.py: a small set of
spelling rules (digraphs, magic e, soft c/g, r-coloured vowels), first-syllable stress and
reduced unstressed vowels. Plausible, not right; a user lexicon entry fixes a word for good.
Output uses misaki's American symbols (A=eɪ, I=aɪ, O=oʊ, W=aʊ, Y=ɔɪ).
"""

from __future__ import annotations

import re

PRIMARY = "\u02c8"

_VOWEL_LETTERS = "aeiouy"

# Multi-letter spellings, tried longest first at each position: (letters, phonemes, is_vowel).
_GRAPHEMES: list[tuple[str, str, bool]] = [
    ("tion", "ʃən", True),
    ("sion", "ʒən", True),
    ("ture", "ʧəɹ", True),
    ("ough", "O", True),
    ("augh", "ɔ", True),
    ("eigh", "A", True),
    ("igh", "I", True),
    ("tch", "ʧ", False),
    ("dge", "ʤ", False),
    ("sch", "sk", False),
    ("ch", "ʧ", False),
    ("sh", "ʃ", False),
    ("th", "θ", False),
    ("ph", "f", False),
    ("wh", "w", False),
    ("ck", "k", False),
    ("ng", "ŋ", False),
    ("qu", "kw", False),
    ("ee", "i", True),
    ("ea", "i", True),
    ("oo", "u", True),
    ("ai", "A", True),
    ("ay", "A", True),
    ("ei", "A", True),
    ("ey", "A", True),
    ("oa", "O", True),
    ("ou", "W", True),
    ("ow", "W", True),
    ("oi", "Y", True),
    ("oy", "Y", True),
    ("au", "ɔ", True),
    ("aw", "ɔ", True),
    ("ue", "u", True),
    ("ew", "u", True),
    ("ie", "i", True),
    ("ar", "ɑɹ", True),
    ("er", "ɜɹ", True),
    ("ir", "ɜɹ", True),
    ("ur", "ɜɹ", True),
    ("or", "ɔɹ", True),
]
_CONSONANTS = {
    "b": "b",
    "d": "d",
    "f": "f",
    "h": "h",
    "j": "ʤ",
    "k": "k",
    "l": "l",
    "m": "m",
    "n": "n",
    "p": "p",
    "q": "k",
    "r": "ɹ",
    "s": "s",
    "t": "t",
    "v": "v",
    "w": "w",
    "x": "ks",
    "z": "z",
}
_SHORT = {"a": "æ", "e": "ɛ", "i": "ɪ", "o": "ɑ", "u": "ʌ", "y": "ɪ"}
_LONG = {"a": "A", "e": "i", "i": "I", "o": "O", "u": "u", "y": "I"}
_REDUCED = {"æ": "ə", "ɑ": "ə", "ʌ": "ə", "ɛ": "ə", "ɜɹ": "əɹ"}
_SILENT_START = {"kn": "n", "wr": "ɹ", "ps": "s", "gn": "n", "pn": "n"}


def _single_vowel(word: str, i: int) -> str:
    letter = word[i]
    rest = word[i + 1 :]
    if letter == "y" and i == 0:
        return "j"
    if not rest:  # open final syllable: "go", "hi", "sky"; final -y after more is "-ee", -a is schwa
        if letter == "a" and i > 0:
            return "ə"
        return "i" if letter == "y" and i > 1 else _LONG[letter] if letter != "e" else "i"
    if re.fullmatch(r"[bcdfgklmnpstvz]e", rest):  # magic e: "tape", "kube"
        return _LONG[letter]
    return _SHORT[letter]


def _segments(word: str) -> list[tuple[str, bool]]:
    segs: list[tuple[str, bool]] = []
    i, n = 0, len(word)
    if word[:2] in _SILENT_START:
        segs.append((_SILENT_START[word[:2]], False))
        i = 2
    while i < n:
        if word[i] == "e" and i == n - 1 and n > 2 and segs and not segs[-1][1]:
            break  # silent final e
        if word[i:] == "le" and segs and not segs[-1][1]:
            segs.append(("əl", True))  # "tangle", "bubble"
            break
        if word[i] == "x" and i == 0:
            segs.append(("z", False))  # "xylo-"
            i += 1
            continue
        for letters, phonemes, is_vowel in _GRAPHEMES:
            if word.startswith(letters, i):
                segs.append((phonemes, is_vowel))
                i += len(letters)
                break
        else:
            c = word[i]
            nxt = word[i + 1 : i + 2]
            if c in _VOWEL_LETTERS and not (c == "y" and nxt and nxt in "aeiou"):
                segs.append((_single_vowel(word, i), True))
            elif c == "y":
                segs.append(("j", False))
            elif c == "c":
                segs.append(("s" if nxt and nxt in "eiy" else "k", False))
            elif c == "g":
                segs.append(("ʤ" if nxt and nxt in "eiy" else "ɡ", False))
            elif c == "s" and i == n - 1 and segs and (segs[-1][1] or segs[-1][0] in "bdɡlmnvŋ"):
                segs.append(("z", False))
            elif c in _CONSONANTS and not (i > 0 and word[i - 1] == c):  # doubled: one sound
                segs.append((_CONSONANTS[c], False))
            i += 1
    return segs


def guess(word: str) -> str:
    """Phonemes for an unknown English-looking word, e.g. 'blorptangle' -> 'blˈɔɹptæŋɡəl'."""
    word = re.sub(r"[^a-z]", "", word.lower())
    if not word:
        return ""
    out = []
    stressed = False
    for phonemes, is_vowel in _segments(word):
        if is_vowel and not stressed:
            out.append(PRIMARY + phonemes)
            stressed = True
        elif is_vowel:
            out.append(_REDUCED.get(phonemes, phonemes))
        else:
            out.append(phonemes)
    return "".join(out)
