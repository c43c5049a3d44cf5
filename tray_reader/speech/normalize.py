"""Text normalisation: raw text in, the English words the voice will say out.

Pure functions, one per rule family, applied in order by `normalize`. The order matters:
markup and unreadable script go first so later rules see clean Latin text; addresses go
before abbreviations and numbers (a URL's dots are not sentence ends, its digits are not
amounts); specific number shapes (money, phone, time, date) go before plain numbers.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from tray_reader.speech import numwords

MAX_WORD_CHARS = 50
"""Longer 'words' (hashes, base64, a key held down) are dropped and reported, not spelled.
Checked after addresses are read, since a URL is often longer and reads fine."""
MAX_TOKEN_CHARS = 1000
"""No readable token is this long without a space; such runs are dropped before any other
rule sees them, which also keeps every rule's work per token bounded."""

Replacement = Callable[[re.Match[str]], str]

# --- Unicode clean-up -------------------------------------------------------------------

_CHAR_MAP = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "\u2013",
        "\u2212": "-",
        "\u2015": "\u2014",
        "\u2026": "...",
        "\u2044": "/",
        "\u00a0": " ",
        "\u2028": "\n",
        "\u2029": "\n\n",
        "\r": "\n",
        "\t": " ",
        "\ufffd": " ",  # what undecodable bytes became
        "\u00b5": "u",  # micro sign; NFKC would make it Greek mu, which we cannot read
        "\u00df": "ss",
        "\u00e6": "ae",
        "\u00c6": "Ae",
        "\u0153": "oe",
        "\u0152": "Oe",
        "\u00f8": "o",
        "\u00d8": "O",
        "\u0142": "l",
        "\u0141": "L",
        "\u0111": "d",
        "\u0110": "D",
        "\u00fe": "th",
        "\u00de": "Th",
        "\u00f0": "d",
        "\u00d0": "D",
        "\u0131": "i",
        "\u2122": " ",
        "\u00ae": " ",
        "\u00a9": " ",
    }
)

_KEPT_SYMBOLS = frozenset("°€£¥¢×÷±§–—")
"""Non-ASCII symbols a later rule reads aloud."""


_ANSI_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])")
"""Terminal colour and cursor codes, common in text copied from a terminal."""


@lru_cache(maxsize=4096)
def _latin_base(ch: str) -> str | None:
    """'é' -> 'e'; None when `ch` is not a Latin letter with an ASCII base."""
    base = unicodedata.normalize("NFD", ch)[0]
    return base if base.isascii() and base.isalpha() else None


def clean_unicode(text: str) -> str:
    """Typographic quotes/dashes to ASCII, accents stripped, control and format chars gone."""
    text = _ANSI_ESCAPE.sub("", text.replace("\r\n", "\n")).translate(_CHAR_MAP)
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_CHAR_MAP)  # NFKC can produce some of these again
    # A word hyphenated across a line break (text copied from PDFs): join it again.
    text = re.sub(r"(?<=[a-z])-\n[ \t]*(?=[a-z])", "", text)
    if text.isascii():
        return re.sub(r"[\x00-\x09\x0b-\x1f\x7f]", " ", text)
    out = []
    for ch in text:
        if ch.isascii():
            out.append(" " if (ch < " " and ch != "\n") or ch == "\x7f" else ch)
            continue
        cat = unicodedata.category(ch)
        if cat == "Cf":  # zero-width joiners, BOM, soft hyphen, bidi marks: invisible
            continue
        if cat in ("Cc", "Zs", "Zl", "Zp"):
            out.append(" ")
            continue
        out.append(_latin_base(ch) or ch)
    return "".join(out)


# --- Markup -------------------------------------------------------------------------------

_HTML_DROP = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->", re.S | re.I)
_HTML_BLOCK = re.compile(r"</?(?:p|div|br|li|ul|ol|tr|h[1-6]|blockquote|section|article)\b[^<>]*>", re.I)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_MD_IMAGE = re.compile(r"!\[([^\]\n]{0,300})\]\([^)\s]*\)")
_MD_LINK = re.compile(r"\[([^\]\n]{1,300})\]\([^)\s]*\)")
_MD_STRONG = re.compile(r"(\*\*|__)(?=\S)([^\n]{1,300}?)(?<=\S)\1")
_MD_EM = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])([^*_\n]+?)(?<=\S)\1(?![\w*])")
_MD_CODE = re.compile(r"`+([^`\n]*)`+")
_MD_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+\u2022][ \t]+|\d{1,2}[.)][ \t]+)")
_MD_FENCE = re.compile(r"^[ \t]*(```|~~~).*$", re.M)


def _end_marked_lines(text: str) -> str:
    """Headings and list items become sentences of their own (they rarely end with a '.')."""
    lines = []
    for line in text.split("\n"):
        stripped, n = _MD_LINE_MARK.subn("", line)
        if n and stripped.strip() and not re.search(r"[.!?:;,]\s*$", stripped):
            stripped = stripped.rstrip() + "."
        lines.append(stripped)
    return "\n".join(lines)


def drop_markup(text: str) -> str:
    """HTML tags and entities, Markdown emphasis, links, code marks, headings and bullets."""
    if "<" in text:
        text = _HTML_DROP.sub(" ", text)
        text = _HTML_BLOCK.sub("\n", text)
        text = _HTML_TAG.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    text = _MD_FENCE.sub("", text)
    text = _MD_IMAGE.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_STRONG.sub(r"\2", text)
    text = _MD_EM.sub(r"\2", text)
    text = _MD_CODE.sub(r"\1", text)
    return _end_marked_lines(text)


# --- Script the English voice cannot read ---------------------------------------------------


@lru_cache(maxsize=4096)
def _char_kind(ch: str) -> str:
    """'ok' (keep), 'foreign' (a letter/digit of another script: skip and report), 'drop'."""
    if ch.isascii() or ch in _KEPT_SYMBOLS:
        return "ok"
    cat = unicodedata.category(ch)
    if cat[0] in "LNM":
        return "foreign"
    return "drop"  # emoji, pictographs, other symbols, private use


_FOREIGN_GLUE = re.compile(r"[\s,.;:!?'\"()-]*")


def drop_unreadable(text: str, skipped: list[str] | None = None) -> str:
    """Remove emoji and symbols; remove runs of non-Latin script, appending them to `skipped`."""
    if text.isascii():
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        kind = _char_kind(text[i])
        if kind == "ok":
            out.append(text[i])
            i += 1
        elif kind == "drop":
            out.append(" ")
            i += 1
        else:
            start = end = i
            while True:
                while end < n and _char_kind(text[end]) == "foreign":
                    end += 1
                glue = _FOREIGN_GLUE.match(text, end)
                after = glue.end() if glue else end
                if after < n and after > end and _char_kind(text[after]) == "foreign":
                    end = after
                    continue
                break
            if skipped is not None:
                skipped.append(text[start:end])
            out.append(" ")
            i = end
    return "".join(out)


def drop_overlong_words(text: str, skipped: list[str] | None = None, limit: int = MAX_WORD_CHARS) -> str:
    """Remove runs of more than `limit` non-space characters, noting each in `skipped`."""

    def drop(m: re.Match[str]) -> str:
        if skipped is not None:
            skipped.append(f"{m.group()[:20]}… ({len(m.group())}-character word)")
        return " "

    return re.sub(rf"\S{{{limit + 1},}}", drop, text)


# --- Addresses ------------------------------------------------------------------------------

_TLDS = "com|org|net|edu|gov|io|dev|app|ai|co|uk|de|fr|eu|info|me|ly|us|ca|au"
_EMAIL = re.compile(r"\b[A-Za-z0-9][\w.+-]{0,63}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}\b")
_URL = re.compile(
    r"\b(?:(?:https?|ftp)://|www\.)[^\s<>\"']+"
    rf"|\b[A-Za-z0-9-]{{1,63}}(?:\.[A-Za-z0-9-]{{1,63}}){{0,8}}\.(?:{_TLDS})\b(?:/[^\s<>\"']*)?"
)
_ADDRESS_SEPARATORS = {".": " dot ", "@": " at ", "/": " slash ", "_": " underscore ", "+": " plus "}


def _speak_parts(s: str, seps: str) -> str:
    parts = re.split(f"([{re.escape(seps)}])", s)
    words = []
    for p in parts:
        if p in _ADDRESS_SEPARATORS:
            words.append(_ADDRESS_SEPARATORS[p])
        elif p:
            words.append(p.replace("-", " ").replace("_", " "))
    return re.sub(r"\s+", " ", "".join(words)).strip()


def _email(m: re.Match[str]) -> str:
    return _speak_parts(m.group(), "._+@")


def _url(m: re.Match[str]) -> str:
    url = m.group()
    trail = re.search(r"[.,;:!?)\]]+$", url)
    tail = trail.group() if trail else ""
    url = url[: len(url) - len(tail)]
    url = re.sub(r"^(?:[a-z]+://)?(?:www\.)?", "", url, flags=re.I)
    url = re.split(r"[?#]", url, maxsplit=1)[0].rstrip("/")
    # Long opaque path segments (ids, hashes) are noise when spoken.
    segments = [s for s in url.split("/") if s and not re.search(r"\d.*\d.*\d|\w{25,}", s)]
    return _speak_parts("/".join(segments), "./_") + tail


def read_addresses(text: str) -> str:
    """jane.doe@example.org -> 'jane dot doe at example dot org'; URLs without scheme or query."""
    if "@" in text:
        text = _EMAIL.sub(_email, text)
    if "." in text:
        text = _URL.sub(_url, text)
    return text


# --- Abbreviations --------------------------------------------------------------------------

_FINAL = r"(?=\s*$|\s+[A-Z\"])"
"""Lookahead: the abbreviation's dot also ends the sentence, so keep one."""


def _abbrev(pattern: str, word: str, can_end: bool = False) -> tuple[re.Pattern[str], Replacement]:
    rx = re.compile(pattern)

    def sub(m: re.Match[str]) -> str:
        end_dot = can_end and m.group().endswith(".") and re.match(_FINAL, m.string[m.end() :]) is not None
        return word + ("." if end_dot else "")

    return rx, sub


_ABBREVIATIONS = [
    _abbrev(r"\bDr\.(?=\s+[A-Z])", "Doctor"),
    _abbrev(r"\bDr\.", "Drive", can_end=True),
    _abbrev(r"\bMr\.", "Mister"),
    _abbrev(r"\bMrs\.", "Missus"),
    _abbrev(r"\bMs\.(?=\s+[A-Z])", "Miz"),
    _abbrev(r"\bProf\.", "Professor"),
    _abbrev(r"\bMt\.", "Mount"),
    _abbrev(r"\bSt\.(?=\s+[A-Z])", "Saint"),
    _abbrev(r"\bSt\.", "Street", can_end=True),
    _abbrev(r"\bAve\.", "Avenue", can_end=True),
    _abbrev(r"\bRd\.", "Road", can_end=True),
    _abbrev(r"\bJr\.", "Junior", can_end=True),
    _abbrev(r"\bSr\.", "Senior", can_end=True),
    _abbrev(r"\bInc\.", "Incorporated", can_end=True),
    _abbrev(r"\bLtd\.", "Limited", can_end=True),
    _abbrev(r"\b[Ee]\.\s?g\.", "for example"),
    _abbrev(r"\b[Ii]\.\s?e\.", "that is"),
    _abbrev(r"\b[Ee]tc\.", "et cetera", can_end=True),
    _abbrev(r"\b[Vv]s\.?(?=\s)", "versus"),
    _abbrev(r"\b[Cc]f\.", "compare"),
    _abbrev(r"\b[Aa]pprox\.", "approximately"),
    _abbrev(r"\b[Ii]ncl\.", "including"),
    _abbrev(r"\b[Ff]ig\.(?=\s*\d)", "figure"),
    _abbrev(r"\bNo\.(?=\s*\d)", "number"),
    _abbrev(r"\bno\.(?=\s*\d)", "number"),
]


def expand_abbreviations(text: str) -> str:
    """Dr. Smith -> Doctor Smith, St. Mary's St. -> Saint Mary's Street, e.g. -> for example."""
    if "." not in text and "vs" not in text.lower():
        return text
    for rx, sub in _ABBREVIATIONS:
        text = rx.sub(sub, text)
    return text


# --- Numbers --------------------------------------------------------------------------------

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
"""A number as written: 1,234,567.89 or 3.14 or 42."""

_CURRENCIES = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "¥": ("yen", "yen", "sen", "sen"),
}
_SCALE_WORDS = {"k": "thousand", "m": "million", "bn": "billion", "b": "billion"}
_CURRENCY = re.compile(
    r"(?<![\w])(-?)([$€£¥])\s?(" + _NUM + r")(?:\s?(thousand|million|billion|trillion|k|m|bn|b)\b)?",
    re.I,
)


def _money(m: re.Match[str]) -> str:
    minus, symbol, amount, scale = m.groups()
    one, many, sub_one, sub_many = _CURRENCIES[symbol]
    prefix = "minus " if minus else ""
    amount = amount.replace(",", "")
    whole, _, frac = amount.partition(".")
    if scale:
        scale_word = _SCALE_WORDS.get(scale.lower(), scale.lower())
        return f"{prefix}{numwords.number(amount)} {scale_word} {many}"
    if len(frac) > 2:
        return f"{prefix}{numwords.number(amount)} {many}"
    units = int(whole or 0)
    cents = int(frac.ljust(2, "0")) if frac else 0
    parts = []
    if units or not cents:
        parts.append(f"{numwords.cardinal(units)} {one if units == 1 else many}")
    if cents:
        parts.append(f"{numwords.cardinal(cents)} {sub_one if cents == 1 else sub_many}")
    return prefix + " and ".join(parts)


_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}"
    r"|\(\d{3}\)\s?\d{3}[ .-]\d{4}"
    r"|\d{3}[.-]\d{3}[.-]\d{4}|\d{3} \d{3} \d{4}|\d{3}-\d{4})(?![\w])"
)


def _phone(m: re.Match[str]) -> str:
    text = m.group()
    groups = re.findall(r"\d+", text)
    spoken = ", ".join(numwords.digits(g) for g in groups)
    return ("plus " if text.startswith("+") else "") + spoken


_AMPM = r"(?:\s?([AaPp])\.?\s?[Mm]\b\.?)"
_TIME = re.compile(r"\b([01]?\d|2[0-4]):([0-5]\d)(?::([0-5]\d))?" + _AMPM + "?")
_HOUR_AMPM = re.compile(r"\b(1[0-2]|0?[1-9])" + _AMPM)


def _ampm(m: re.Match[str], letter: str | None) -> str:
    if not letter:
        return ""
    final = m.group().endswith(".") and re.match(_FINAL, m.string[m.end() :]) is not None
    return f" {letter.lower()} m" + ("." if final else "")


def _time(m: re.Match[str]) -> str:
    hour, minute, _seconds, letter = m.groups()
    h, mins = int(hour), int(minute)
    if mins == 0:
        spoken = numwords.cardinal(h) + ("" if letter else (" o'clock" if h <= 12 else " hundred"))
    elif mins < 10:
        spoken = f"{numwords.cardinal(h)} oh {numwords.cardinal(mins)}"
    else:
        spoken = f"{numwords.cardinal(h)} {numwords.cardinal(mins)}"
    return spoken + _ampm(m, letter)


def _hour(m: re.Match[str]) -> str:
    return numwords.cardinal(int(m.group(1))) + _ampm(m, m.group(2))


_MONTHS = {
    "jan": "January",
    "feb": "February",
    "mar": "March",
    "apr": "April",
    "may": "May",
    "jun": "June",
    "jul": "July",
    "aug": "August",
    "sep": "September",
    "sept": "September",
    "oct": "October",
    "nov": "November",
    "dec": "December",
}
_MONTH = (
    r"(January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_ORD_SUFFIX = r"(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"\b([0-3]?\d){_ORD_SUFFIX}\s+(?:of\s+)?{_MONTH}(?:,?\s+(\d{{4}}))?\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+([0-3]?\d){_ORD_SUFFIX}\b(?![:.,]\d)(?:,?\s+(\d{{4}})\b)?")
_ISO_DATE = re.compile(r"\b(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b")
_MONTH_NAMES = list(dict.fromkeys(_MONTHS.values()))


def _month(name: str) -> str:
    return _MONTHS.get(name.lower()[:4] if name.lower().startswith("sept") else name.lower()[:3], name)


def _year_tail(m: re.Match[str], year: str | None) -> str:
    if not year:
        return ""
    # "on 3 May 2024 at noon": a spoken date reads best with the year set off by commas.
    after = m.string[m.end() : m.end() + 2]
    return f", {numwords.year(int(year))}" + ("," if re.match(r" [a-z]", after) else "")


def _day_month_year(m: re.Match[str]) -> str:
    day, month, year = m.groups()
    if not 1 <= int(day) <= 31:
        return m.group()
    return f"the {numwords.ordinal(int(day))} of {_month(month)}" + _year_tail(m, year)


def _month_day_year(m: re.Match[str]) -> str:
    month, day, year = m.groups()
    if not 1 <= int(day) <= 31:
        return m.group()
    return f"{_month(month)} {numwords.ordinal(int(day))}" + _year_tail(m, year)


def _iso_date(m: re.Match[str]) -> str:
    year, month, day = m.groups()
    return f"the {numwords.ordinal(int(day))} of {_MONTH_NAMES[int(month) - 1]}" + _year_tail(m, year)


_DEGREES = re.compile(r"(?<![\w.])(-?)(" + _NUM + r")\s?°(?:\s?([CF])\b)?")
_PERCENT = re.compile(r"(?<![\w.])(-?)(" + _NUM + r")\s?%")
_TEMPERATURE_SCALES = {"C": "Celsius", "F": "Fahrenheit"}

_UNITS = {
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"),
    "km": ("kilometer", "kilometers"),
    "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"),
    "m": ("meter", "meters"),
    "mi": ("mile", "miles"),
    "ft": ("foot", "feet"),
    "kg": ("kilogram", "kilograms"),
    "g": ("gram", "grams"),
    "mg": ("milligram", "milligrams"),
    "lb": ("pound", "pounds"),
    "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"),
    "l": ("liter", "liters"),
    "L": ("liter", "liters"),
    "ml": ("milliliter", "milliliters"),
    "mL": ("milliliter", "milliliters"),
    "KB": ("kilobyte", "kilobytes"),
    "kB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "TB": ("terabyte", "terabytes"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "W": ("watt", "watts"),
    "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"),
    "V": ("volt", "volts"),
    "ms": ("millisecond", "milliseconds"),
    "sec": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "h": ("hour", "hours"),
    "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"),
}
_UNIT = re.compile(
    r"(?<![\w.])(-?)("
    + _NUM
    + r")\s?("
    + "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
    + r")(?![\w/])"
)


def _signed(minus: str, amount: str) -> str:
    return ("minus " if minus else "") + numwords.number(amount)


def _quantity(amount: str, one: str, many: str) -> str:
    return one if amount in ("1", "1.0") else many


def _degrees(m: re.Match[str]) -> str:
    minus, amount, scale = m.groups()
    words = f"{_signed(minus, amount)} {_quantity(amount, 'degree', 'degrees')}"
    return words + (f" {_TEMPERATURE_SCALES[scale]}" if scale else "")


def _percent(m: re.Match[str]) -> str:
    return f"{_signed(m.group(1), m.group(2))} percent"


def _unit(m: re.Match[str]) -> str:
    minus, amount, unit = m.groups()
    return f"{_signed(minus, amount)} {_quantity(amount, *_UNITS[unit])}"


_DECADE = re.compile(r"(?<![\w'])(1\d|20)?(\d0)'?s\b")
_SHORT_DECADE = re.compile(r"(?<!\w)'(\d0)s\b")
_YEAR = re.compile(r"(?<![\w.,$€£¥-])(1[1-9]\d\d|20\d\d)(?![\w%]|[.,]\d)")
_ORDINAL = re.compile(r"\b(\d{1,3}(?:,\d{3})+|\d+)(st|nd|rd|th)\b", re.I)
_FRACTION = re.compile(r"(?<![\w/.])(\d{1,3})/(\d{1,3})(?![\w/]|\.\d)")
_SLASHED_DATE = re.compile(r"\b(\d{1,4})/(\d{1,2})/(\d{2,4})\b")
_LEADING_POINT = re.compile(r"(?<![\w.])\.(\d+)\b")
_RANGE = re.compile(r"(?<=\d)(?:\s?\u2013\s?|-)(?=-?\d)")
_VERSION = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?![\w.]|\.\d)")
_PLAIN = re.compile(r"(?<![\w.])(-?)(" + _NUM + r")(?![\w]|\.\d)")
_DIGIT_LETTER = re.compile(r"(?<=[A-Za-z])-?(?=\d)|(?<=\d)(?=[A-Za-z])")
_DENOMINATORS = {2: ("half", "halves"), 4: ("quarter", "quarters")}


def _decade(m: re.Match[str]) -> str:
    century, tens = m.groups()
    if century:
        return numwords.plural(numwords.year(int(century + tens)))
    return numwords.plural(numwords.cardinal(int(tens)))


def _fraction(m: re.Match[str]) -> str:
    num, den = int(m.group(1)), int(m.group(2))
    if den in _DENOMINATORS:
        one, many = _DENOMINATORS[den]
        return f"{numwords.cardinal(num)} {one if num == 1 else many}"
    if 3 <= den <= 20 and num < den:
        name = numwords.ordinal(den)
        return f"{numwords.cardinal(num)} {name if num == 1 else numwords.plural(name)}"
    return f"{numwords.cardinal(num)} over {numwords.cardinal(den)}"


def _slashed(m: re.Match[str]) -> str:
    return " slash ".join(numwords.year(int(g)) if len(g) == 4 else numwords.number(g) for g in m.groups())


def _plain(m: re.Match[str]) -> str:
    return _signed(m.group(1), m.group(2))


def read_numbers(text: str) -> str:
    """Money, phone numbers, times, dates, units, percentages, years, ordinals, decimals."""
    if not re.search(r"\d", text):
        return text
    for rx, sub in (
        (_CURRENCY, _money),
        (_PHONE, _phone),
        (_TIME, _time),
        (_HOUR_AMPM, _hour),
        (_ISO_DATE, _iso_date),
        (_DAY_MONTH_YEAR, _day_month_year),
        (_MONTH_DAY_YEAR, _month_day_year),
    ):
        text = rx.sub(sub, text)
    text = _SLASHED_DATE.sub(_slashed, text)
    text = _RANGE.sub(" to ", text)
    text = _SHORT_DECADE.sub(lambda m: numwords.plural(numwords.cardinal(int(m.group(1)))), text)
    text = _DECADE.sub(_decade, text)
    text = _DEGREES.sub(_degrees, text)
    text = _PERCENT.sub(_percent, text)
    text = _UNIT.sub(_unit, text)
    text = _YEAR.sub(lambda m: numwords.year(int(m.group(1))), text)
    text = _ORDINAL.sub(lambda m: numwords.ordinal(int(m.group(1).replace(",", ""))), text)
    text = _DIGIT_LETTER.sub(" ", text)
    text = _FRACTION.sub(_fraction, text)
    text = _VERSION.sub(lambda m: " point ".join(numwords.number(p) for p in m.group().split(".")), text)
    text = _LEADING_POINT.sub(lambda m: f"point {numwords.digits(m.group(1))}", text)
    text = _PLAIN.sub(_plain, text)
    # Whatever digits are left (odd shapes like 1.2.3.4.5.6) are read one by one.
    return re.sub(r"\d+", lambda m: f" {numwords.digits(m.group())} ", text)


# --- Symbols and spacing ------------------------------------------------------------------

_SYMBOLS = [
    (re.compile(r"\s*&\s*"), " and "),
    (re.compile(r"\s*@\s*"), " at "),
    (re.compile(r"\s*%"), " percent "),
    (re.compile(r"\s*°"), " degrees "),
    (re.compile(r"\s*\+\s*"), " plus "),
    (re.compile(r"\s+=\s+|(?<=\w)=(?=\w)"), " equals "),
    (re.compile(r"\s*×\s*"), " times "),
    (re.compile(r"\s*÷\s*"), " divided by "),
    (re.compile(r"\s*±\s*"), " plus or minus "),
    (re.compile(r"§\s*"), " section "),
    (re.compile(r"#(?=\w)"), " number "),
    (re.compile(r"\band/or\b"), "and or"),
    (re.compile(r"(?<=[A-Za-z])/(?=[A-Za-z])"), " or "),
    (re.compile(r"\s*(?:\u2014|\u2013|--+|\s-\s)\s*"), ", "),
    (re.compile(r"[$€£¥¢]"), " "),
    (re.compile(r"\.{3,}"), "\u2026"),
    (re.compile(r"[*_~^|\\{}\[\]<>`#/=]"), " "),
    (re.compile(r"(?<=\w)-+(?=\s)|(?<=\s)['-]+(?=\s)|^['-]+|['-]+$"), " "),
    (re.compile(r"([!?,;:.])[!?,;:.]+"), r"\1"),
]


def read_symbols(text: str) -> str:
    """&, @, %, °, + … as words; other symbols dropped; dashes become commas."""
    for rx, word in _SYMBOLS:
        text = rx.sub(word, text)
    return text


def tidy_spacing(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\(\s*\)|\"\s*\"", " ", text)
    text = re.sub(r" +(?=[,.;:!?)\u2026])", "", text)
    text = re.sub(r"([,;:])(?=[.!?])", "", text)
    text = re.sub(r"(?<=\() +", "", text)
    text = re.sub(r"  +", " ", text)
    return text.strip().lstrip(",.;:!?) ").strip()


def normalize(text: str, skipped: list[str] | None = None) -> str:
    """Raw text to the words that will be spoken; unreadable runs are appended to `skipped`."""
    text = drop_overlong_words(text, skipped, MAX_TOKEN_CHARS)
    text = clean_unicode(text)
    text = drop_markup(text)
    text = drop_unreadable(text, skipped)
    text = read_addresses(text)
    text = drop_overlong_words(text, skipped)
    text = expand_abbreviations(text)
    text = read_numbers(text)
    text = read_symbols(text)
    return tidy_spacing(text)
