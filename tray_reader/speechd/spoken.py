"""What single characters, key names, spelling and punctuation modes say (pure).

A screen reader sends a CHAR when the caret moves over a letter and a KEY when a key is
pressed (speech-dispatcher's key names: "a", "shift_a", "control_alt_delete", "kp-enter",
"double-quote"), so both must come out as words the front end reads right: a letter alone
would be read as a word ("a" as the article), so letters are given as respellings of their
names.
"""

from __future__ import annotations

import enum
import re
import unicodedata

LETTER_NAMES = {
    "a": "ay", "b": "bee", "c": "see", "d": "dee", "e": "ee", "f": "eff", "g": "jee",
    "h": "aitch", "i": "eye", "j": "jay", "k": "kay", "l": "el", "m": "em", "n": "en",
    "o": "oh", "p": "pee", "q": "cue", "r": "ar", "s": "ess", "t": "tee", "u": "you",
    "v": "vee", "w": "double you", "x": "ex", "y": "why", "z": "zee",
}  # fmt: skip
"""Respellings of the English letter names the front end reads as intended."""

DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

SYMBOL_NAMES = {
    " ": "space", "\t": "tab", "\n": "new line", ".": "dot", ",": "comma", ";": "semicolon",
    ":": "colon", "!": "exclamation mark", "?": "question mark", "'": "apostrophe",
    '"': "quote", "(": "left paren", ")": "right paren", "[": "left bracket",
    "]": "right bracket", "{": "left brace", "}": "right brace", "<": "less than",
    ">": "greater than", "/": "slash", "\\": "backslash", "|": "bar", "-": "dash",
    "_": "underscore", "+": "plus", "=": "equals", "*": "star", "&": "and", "%": "percent",
    "$": "dollar", "#": "number sign", "@": "at", "^": "caret", "~": "tilde", "`": "grave",
}  # fmt: skip
"""How a symbol is named when spelled, typed or read with punctuation mode "all"."""

SOME_PUNCTUATION = set("#$%&*+/<=>@\\^_`|~")
"""Symbols named in punctuation mode "some" (sentence punctuation is heard as pauses)."""

MOST_PUNCTUATION = SOME_PUNCTUATION | set("\"'()[]{}-:;")
"""Symbols named in punctuation mode "most"."""

KEY_WORDS = {
    "control": "control", "ctrl": "control", "shift": "shift", "alt": "alt", "super": "super",
    "hyper": "hyper", "meta": "meta", "kp": "keypad", "backspace": "backspace",
    "return": "return", "enter": "enter", "escape": "escape", "esc": "escape",
    "tab": "tab", "space": "space", "delete": "delete", "del": "delete", "insert": "insert",
    "home": "home", "end": "end", "page": "page", "up": "up", "down": "down", "left": "left",
    "right": "right", "pageup": "page up", "pagedown": "page down", "capslock": "caps lock",
    "numlock": "num lock", "print": "print screen", "pause": "pause", "menu": "menu",
    "double": "double", "quote": "quote", "underscore": "underscore", "apostrophe": "apostrophe",
}  # fmt: skip
"""Words of speech-dispatcher's key names, as said."""


class Punctuation(enum.Enum):
    NONE = "none"  # punctuation only shapes the prosody
    SOME = "some"  # a few symbols are named
    MOST = "most"  # most symbols are named
    ALL = "all"  # every symbol is named


class Capitals(enum.Enum):
    NONE = "none"  # capitals are not marked
    SPELL = "spell"  # "capital" before a capital letter
    ICON = "icon"  # a sound icon in speech-dispatcher; here also "capital"


def char_name(ch: str, capitals: Capitals = Capitals.NONE) -> str:
    """How one character is said on its own."""
    lower = ch.lower()
    if lower in LETTER_NAMES:
        name = LETTER_NAMES[lower]
        return f"capital {name}" if ch.isupper() and capitals is not Capitals.NONE else name
    if ch.isdigit() and ch.isascii():
        return DIGIT_NAMES[int(ch)]
    if ch in SYMBOL_NAMES:
        return SYMBOL_NAMES[ch]
    return _unicode_name(ch, capitals)


_LATIN = re.compile(r"LATIN (SMALL|CAPITAL) LETTER (.+?)(?: WITH (.+))?")


def _unicode_name(ch: str, capitals: Capitals) -> str:
    """Any other character by its Unicode name ("euro sign", "ee acute", "capital you
    diaeresis"): the front end reads words, and drops what it cannot read (a typed "€"
    was silent)."""
    name = unicodedata.name(ch, "")
    if not name:
        return ch
    latin = _LATIN.fullmatch(name)
    if latin:
        case, letter, marks = latin.groups()
        spoken = " ".join(LETTER_NAMES.get(w, w) for w in letter.lower().split())  # "sharp ess"
        if marks:
            spoken += " " + marks.lower().replace(" and ", " ")
        return f"capital {spoken}" if case == "CAPITAL" and capitals is not Capitals.NONE else spoken
    return re.sub(r"-[0-9A-F]{4,6}$", "", name).lower()  # "CJK UNIFIED IDEOGRAPH-4E2D"


def spell(text: str, capitals: Capitals = Capitals.NONE) -> str:
    """Text letter by letter ("cat" -> "see, ay, tee"); blanks are skipped."""
    return ", ".join(char_name(ch, capitals) for ch in text if not ch.isspace())


def char_text(message: str, capitals: Capitals = Capitals.NONE) -> str:
    """What a CHAR message says: the character's name; a longer message (a symbol already
    named by the server's symbol tables, or "space") as it is."""
    if message == "space":
        return "space"
    if len(message) == 1:
        return char_name(message, capitals)
    return message


def key_text(name: str, capitals: Capitals = Capitals.NONE) -> str:
    """What a KEY message says: "control_alt_delete" -> "control alt delete",
    "shift_a" -> "shift ay", "kp-enter" -> "keypad enter", "f5" -> "F 5"."""
    if len(name) == 1:
        return char_name(name, capitals)
    side = re.fullmatch(r"(.+)_([LR])", name)  # X keysyms' sides: "Shift_L", "Super_R"
    if side and side.group(1).lower() in KEY_WORDS:
        where = "left" if side.group(2) == "L" else "right"
        return f"{where} {key_text(side.group(1), capitals)}"
    words: list[str] = []
    for part in name.replace("-", "_").split("_"):
        if not part:
            continue
        lowered = part.lower()
        if lowered in KEY_WORDS:
            words.append(KEY_WORDS[lowered])
        elif len(part) == 1:
            words.append(char_name(part, capitals))
        elif lowered[0] == "f" and lowered[1:].isdigit():
            words.append(f"F {lowered[1:]}")
        else:
            words.append(part)
    return " ".join(words)


def with_punctuation(text: str, mode: Punctuation) -> str:
    """Text with the symbols its punctuation mode names written out as words."""
    if mode is Punctuation.NONE:
        return text
    named = {Punctuation.SOME: SOME_PUNCTUATION, Punctuation.MOST: MOST_PUNCTUATION}.get(
        mode, set(SYMBOL_NAMES) - {" ", "\t", "\n"}
    )
    return "".join(f" {SYMBOL_NAMES[ch]} " if ch in named and ch in SYMBOL_NAMES else ch for ch in text)
