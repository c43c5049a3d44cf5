"""Numbers as English words: cardinals, ordinals, years, digit strings, decimals.

Our own small implementation rather than num2words (LGPL): the readings here are exactly
what `say --show-text` prints, and tests pin them.
"""

from __future__ import annotations

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_IRREGULAR_ORDINALS = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}
LARGEST_CARDINAL = 10**15 - 1
"""Larger numbers are read digit by digit: nobody says 'four quadrillion …' aloud usefully."""


def cardinal(n: int) -> str:
    if n < 0:
        return "minus " + cardinal(-n)
    if n > LARGEST_CARDINAL:
        return digits(str(n))
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {cardinal(rest)}" if rest else "")
    for value, name in _SCALES:
        if n >= value:
            high, rest = divmod(n, value)
            return f"{cardinal(high)} {name}" + (f" {cardinal(rest)}" if rest else "")
    raise AssertionError("unreachable")  # pragma: no cover


def _ordinal_word(word: str) -> str:
    if word in _IRREGULAR_ORDINALS:
        return _IRREGULAR_ORDINALS[word]
    if word.endswith("y"):
        return word[:-1] + "ieth"
    return word + "th"


def ordinal(n: int) -> str:
    words = cardinal(n)
    head, sep, last = words.rpartition(" ")
    if "-" in last:
        tens, _, ones = last.partition("-")
        last = f"{tens}-{_ordinal_word(ones)}"
    else:
        last = _ordinal_word(last)
    return head + sep + last


def year(n: int) -> str:
    """1984 'nineteen eighty-four', 2005 'two thousand five', 1905 'nineteen oh five'."""
    if not 1000 <= n <= 9999:
        return cardinal(n)
    high, low = divmod(n, 100)
    if n % 1000 < 10:  # 2000, 2005, 1000
        return cardinal(n)
    if low == 0:
        return f"{cardinal(high)} hundred"
    if low < 10:
        return f"{cardinal(high)} oh {_ONES[low]}"
    return f"{cardinal(high)} {cardinal(low)}"


def name_number(s: str) -> str:
    """A number that names something (a bill, an aircraft, a flight, a status code), said
    as such names are: '747' 'seven forty-seven', '404' 'four oh four', '400' 'four
    hundred', '777' 'seven seven seven', '1047' 'ten forty-seven' (as a year); shorter
    ones as a cardinal."""
    n = int(s)
    if len(s) == 4:
        return year(n)
    if len(s) != 3 or n % 100 == 0:
        return cardinal(n)
    if len(set(s)) == 1:
        return digits(s)  # "Boeing 777", "NHS 111"
    high, low = divmod(n, 100)
    return f"{_ONES[high]} " + (f"oh {_ONES[low]}" if low < 10 else cardinal(low))


def plural(words: str) -> str:
    """'nineteen ninety' -> 'nineteen nineties' (for decades such as 1990s)."""
    head, sep, last = words.rpartition(" ")
    if last.endswith("y"):
        last = last[:-1] + "ies"
    elif last.endswith(("x", "s")):
        last += "es"
    else:
        last += "s"
    return head + sep + last


def digits(s: str) -> str:
    """Each digit as a word: '4567' -> 'four five six seven'."""
    return " ".join(_ONES[int(c)] for c in s if c.isdigit())


def decimal(integer: str, fraction: str) -> str:
    """'3', '14' -> 'three point one four'."""
    whole = cardinal(int(integer)) if integer else "zero"
    return f"{whole} point {digits(fraction)}"


def number(text: str) -> str:
    """A plain number as written: '1,000' 'one thousand', '007' 'zero zero seven', '3.5'."""
    negative = text.startswith("-")
    text = text.lstrip("-").replace(",", "")
    integer, _, fraction = text.partition(".")
    if fraction:
        words = decimal(integer, fraction)
    elif len(integer) > 1 and integer.startswith("0"):
        words = digits(integer)
    else:
        words = cardinal(int(integer))
    return ("minus " if negative else "") + words
