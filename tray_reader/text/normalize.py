"""Text normalisation: raw text in, the English words the voice will say out.

Pure functions, one per rule family, applied in order by `normalize`. The order matters:
markup and unreadable script go first so later rules see clean Latin text; addresses go
before abbreviations and numbers (a URL's dots are not sentence ends, its digits are not
amounts); numbers are read by number_reading.py.
"""

from __future__ import annotations

import html
import itertools
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from tray_reader.text import numwords
from tray_reader.text.number_reading import (
    DAY,
    DAYS,
    ENDS_SENTENCE,
    MONTH,
    accounting_cells,
    month_name,
    read_numbers,
    read_roman_numerals,
    unit_names,
)
from tray_reader.text.sentences import EDITORIAL_TAG, PDF_NOTE, REFERENCE_MARK

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
    }
)

_IPA = re.compile(r"[/\[][^/\[\]\n]{0,80}?[\u0250-\u02ff][^/\[\]\n]{0,80}?[/\]]")
"""A pronunciation in phonetic letters, "/ˈaɪnstaɪn/", "[ˈalbɛɐt]": not read."""

_KEPT_SYMBOLS = frozenset("°€£¥¢×÷±§–—≥≤≠≈→←↑↓")
"""Non-ASCII symbols a later rule reads aloud."""


_ANSI_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])")
"""Terminal colour and cursor codes, common in text copied from a terminal."""


_MARK_WORDS = {"\u00a9": "copyright", "\u00ae": "registered", "\u2122": "trademark"}
_LEGAL_MARK = re.compile(r"(\b[Cc]opyright\s*)?([\u00a9\u00ae\u2122])")
_STAR_RATING = re.compile(r"\u2605+\u2606*|\u2606+")
"""Filled stars, then empty ones: a rating ("\u2605\u2605\u2605\u2605\u2606")."""


_TYPED_COPYRIGHT = re.compile(r"(?i:(\bcopyright)\s*)\([Cc]\)|(?<![\w)])\([Cc]\)(?=\s*\d{4}\b)")
"""The copyright sign as typed, "(C)" or "(c)": after the word it is not said again ("Copyright
(C) 2007 Free Software Foundation"); alone it is said before a year ("(c) 2013, Bastian"), and
elsewhere it is an item's letter ("(c) You must retain")."""


def _typed_copyright(m: re.Match[str]) -> str:
    return m.group(1) or "copyright"


def _legal_mark(m: re.Match[str]) -> str:
    """'© 2024 Acme' -> 'copyright 2024 Acme'; a mark at the end of a name ("Acme®",
    "Foo™") is not said, and "Copyright ©" says the word once."""
    said, mark = m.groups()
    if said:
        return said.rstrip() + (" " if mark == "\u00a9" else f" {_MARK_WORDS[mark]} ")
    if m.start() > 0 and m.string[m.start() - 1].isalnum():
        return " "
    return f" {_MARK_WORDS[mark]} "


def _stars(m: re.Match[str]) -> str:
    stars = m.group()
    filled, total = stars.count("\u2605"), len(stars)
    if total == 1:
        return " star "
    if filled == total:
        return f" {numwords.cardinal(total)} stars "
    return f" {numwords.cardinal(filled)} out of {numwords.cardinal(total)} stars "


def read_marks(text: str) -> str:
    """The copyright, registered and trademark signs (also "(C)" typed) and star ratings as
    words; read before NFKC, which makes "™" the letters "TM"."""
    if "\u00a9" in text or "\u00ae" in text or "\u2122" in text:
        text = _LEGAL_MARK.sub(_legal_mark, text)
    if "(c)" in text or "(C)" in text:
        text = _TYPED_COPYRIGHT.sub(_typed_copyright, text)
    if "\u2605" in text or "\u2606" in text:
        text = _STAR_RATING.sub(_stars, text)
    return text


@lru_cache(maxsize=4096)
def _latin_base(ch: str) -> str | None:
    """'é' -> 'e'; None when `ch` is not a Latin letter with an ASCII base."""
    base = unicodedata.normalize("NFD", ch)[0]
    return base if base.isascii() and base.isalpha() else None


_WHOLE_AND_FRACTION = re.compile(r"(?<=\d)(?=[\u00bc-\u00be\u2150-\u215e])")
"""Between a whole number and a fraction sign ("2½"), which NFKC would join into "21/2"."""

_SUPERSCRIPT_DIGITS = str.maketrans(
    "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a", "0123456789-+"
)
_SUPERSCRIPT = re.compile(r"(?<=\S)[\u207b\u207a]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+")
_NOTE_BEFORE = re.compile(r"(?:(?!(?:sin|cos|tan|cot|sec|csc|log|exp)$)[A-Za-z]{3}|[.,;:!?\"'\u201d\u2019])$")
"""What a footnote's number follows ("results\u00b9", "clear.\u00b2"); a power follows a
number, a symbol of one or two letters, a function ("sin\u00b2") or a bracket ("10\u00b3", "x\u00b2", "km\u00b2", ")\u00b2")."""


_GREEK_NAMES = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "final-sigma",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
]
_GREEK_LETTER = re.compile(
    r"(?<![\u0370-\u03ff\u1f00-\u1fff])[\u0391-\u03a9\u03b1-\u03c9](?![\u0370-\u03ff\u1f00-\u1fff])"
)
"""A Greek letter on its own, as science writes them ("\u03c0r\u00b2", "\u0394T", "the \u03b1
particles"): its name. Greek words are left to `drop_unreadable`."""
_MICRO_UNIT = re.compile(r"[\u00b5\u03bc]([mgsLlAVFW])\b")
"""The micro prefix before a unit ("5 \u00b5m", "10 \u03bcs"): "micro", read with the unit."""


def _micro_unit(m: re.Match[str]) -> str:
    """After a number, "micro" joined to the unit's symbol (`read_numbers` says it with the
    number, "one micrometer"); alone, the unit's name ("in \u00b5m": in micrometers)."""
    if re.search(r"\d\s?$", m.string[max(0, m.start() - 2) : m.start()]):
        return "micro" + m.group(1)
    return unit_names("micro" + m.group(1))[1]


def _greek_letter(m: re.Match[str]) -> str:
    code = ord(m.group())
    index = code - (0x03B1 if code >= 0x03B1 else 0x0391)
    name = _GREEK_NAMES[index]
    return f" {'sigma' if name == 'final-sigma' else name} "


def _superscript(m: re.Match[str]) -> str:
    """A superscript number as a power ("^2", read by `read_numbers`), or nothing where it
    marks a footnote. NFKC would make "2\u00b3" twenty-three and "m\u00b2" "m2"."""
    if _NOTE_BEFORE.search(m.string, max(0, m.start() - 3), m.start()):
        return ""
    return "^" + m.group().translate(_SUPERSCRIPT_DIGITS).lstrip("+")


_SEPARATOR = re.compile(r"(?<=\S)[ \t]+[\u00b7\u2022\u203a\u00bb][ \t]+(?=\S)")
"""A dot, bullet or angle mark set between the parts of a line, as web pages have them in
breadcrumbs, footers and bylines ("Home › Blog › Post", "Terms · Privacy", "5 min
read · Mar 5"): a pause, as "|" is (the words ran together, or "»" was a quote)."""
_LINK_ARROW = re.compile(
    r"^[ \t]*[\u2039\u00ab\u2190][ \t]+(?=\w)"
    r"|(?<=\w)(?<!\bor)(?<!\band)(?<![Pp]ress)(?<![Hh]it)(?<!\bkey)[ \t]+[\u203a\u00bb\u2192][ \t]*$",
    re.M,
)
"""An arrow or angle mark that decorates a link at a line's start or end ("Read more →",
"Next »", "← Back"): not said (it was "Read more to"); a key's arrow ("press →") is."""


_KEY_SIGNS = {
    "\u2318": "Command",
    "\u2325": "Option",
    "\u21e7": "Shift",
    "\u2303": "Control",
    "\u21ea": "Caps Lock",
    "\u21e5": "Tab",
    "\u232b": "Delete",
    "\u2326": "Forward Delete",
    "\u238b": "Escape",
}
_KEY_SIGN = re.compile(
    "([" + "".join(_KEY_SIGNS) + "])(?: ?(" + "|".join(dict.fromkeys(_KEY_SIGNS.values())) + r")\b)?"
)
"""A modifier key's sign as Macs' menus and manuals print it ("\u2318C", "\u21e7\u2318N", "\u2325 Option"):
its name (it was dropped, "\u2318+C" read "plus C"), once where the name follows it."""


_NUMERO = re.compile(r"\u2116\s?|\bN[\u00ba\u00b0]\s?(?=\d)")
"""The numero sign, "\u2116 5", and "N\u00ba 5", "N\u00b0 5" as French and Spanish write it: number (NFKC made
them "No", read as the word "no")."""


def _web_marks(text: str) -> str:
    """A line's separators as "|", its links' arrows dropped; where "«" opens a quote, "«" and
    "»" are left for quotes ("« Bonjour » dit-il")."""
    quotes = "\u00ab\u00bb" if "\u00ab" in text else ""

    def mark(said: str) -> Replacement:
        return lambda m: m.group() if quotes and any(q in m.group() for q in quotes) else said

    return _SEPARATOR.sub(mark(" | "), _LINK_ARROW.sub(mark(""), text))


def clean_unicode(text: str) -> str:
    """Typographic quotes/dashes to ASCII, accents stripped, control and format chars gone
    (but tabs); ©, ®, ™ and star ratings as words (`read_marks`); a web page's
    separators as pauses, its links' arrows dropped."""
    text = read_marks(_ANSI_ESCAPE.sub("", text.replace("\r\n", "\n")))
    if "\u00b5" in text or "\u03bc" in text:
        text = _MICRO_UNIT.sub(_micro_unit, text)  # before the micro sign becomes "u"
    if not text.isascii():
        text = _KEY_SIGN.sub(lambda m: _KEY_SIGNS[m[1]] + " ", _web_marks(text))
        text = _NUMERO.sub("number ", text)
    text = text.translate(_CHAR_MAP)
    text = _WHOLE_AND_FRACTION.sub(" ", text)  # "2½": 2 1/2, not 21/2
    text = _SUPERSCRIPT.sub(_superscript, text)
    if not text.isascii():
        text = _GREEK_LETTER.sub(_greek_letter, text)
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_CHAR_MAP)  # NFKC can produce some of these again
    # A word hyphenated across a line break (text copied from PDFs): join it again.
    text = re.sub(r"(?<=[a-z])-\n[ \t]*(?=[a-z])", "", text)
    # Tabs stay (a table row's cells, `drop_markup`); other control characters are blanks.
    if text.isascii():
        return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", " ", text)
    out = []
    for ch in text:
        if ch.isascii():
            out.append(" " if (ch < " " and ch not in "\n\t") or ch == "\x7f" else ch)
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
_EMOTICON = re.compile(r"(?:(?<=\s)|^)(?:[:;=][-']?[()\[\]DPpO/|\\]|\^_?\^)(?=\s|$|[.,!?])")
"""A face typed in characters, ":)", ";-)", ":D": not read (standing apart from words, so
"C:/" and "8)" are left)."""
_HEART = re.compile(
    r"(?:(?<=\s)|^)<3(?=\s|$|[.,!?])"
    r"|(?:(?<=\bI )|(?<=\b[Ww]e )|(?<=\b[Yy]ou )|(?<=\b[Tt]hey ))[\u2661\u2665\u2764]\ufe0f?(?= \w)"
)
""""I <3 it", and a heart between a pronoun and a word ("I \u2665 NY", "We \u2764\ufe0f Python"): love.
Elsewhere a heart is an emoji, not read ("Happy birthday \u2764\ufe0f have fun")."""
_MD_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+\u2022][ \t]+|\d{1,2}[.)][ \t]+)")
_MD_FENCE = re.compile(r"^[ \t]*(```|~~~).*$", re.M)
_MD_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_MD_TABLE_RULE = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+(?:[ \t]*:?-{3,}:?[ \t]*)?$")
_MD_TASK = re.compile(r"^([ \t]*[-*+][ \t]+)\[[ xX]\][ \t]+", re.M)
_MD_FOOTNOTE = re.compile(r"^\[\^(\w{1,20})\]:|\[\^\w{1,20}\]", re.M)


def _end_marked_lines(text: str) -> str:
    """Headings, list items and table rows (cells between tabs in two lines or more, or three
    cells or more in one line, as copied from a spreadsheet, or between pipes) become sentences
    of their own (they rarely end with a '.'); a row's cells are said as a list."""
    lines = []
    rows = text.split("\n")
    # One tab in one line is a blank; a row alone has three cells or more.
    table = sum("\t" in row.strip() for row in rows) >= 2 or any(
        sum(bool(cell.strip()) for cell in row.split("\t")) >= 3 for row in rows
    )
    piped = sum(bool(_MD_TABLE_ROW.match(row)) for row in rows) >= 2  # a Markdown table
    item_open = False  # a list item wrapped onto the lines after it, not yet ended
    for i, line in enumerate(rows):
        if piped and _MD_TABLE_RULE.match(line):
            continue  # |---|---|
        if piped and _MD_TABLE_ROW.match(line):
            line = "\t".join(line.strip().strip("|").split("|"))
        mark = _MD_LINE_MARK.match(line)
        stripped, n = (line[mark.end() :], 1) if mark else (line, 0)
        if (table or piped) and "\t" in stripped.strip():
            cells = [cell.strip() for cell in stripped.split("\t") if cell.strip()]
            stripped = ", ".join(accounting_cells(cells))
            n += 1
        wraps = i + 1 < len(rows) and _wrapped_on(rows[i + 1]) and not (table or piped)
        if n == 1 and mark and mark.group().strip()[0] not in "#>" and wraps:
            item_open = True  # "* robust on Python\n    3.8)": the item ends further down
        elif (n or item_open) and not (item_open and wraps):
            item_open = False
            if stripped.strip() and not re.search(r"[.!?:;,]\s*$", stripped):
                stripped = stripped.rstrip() + "."
        lines.append(stripped)
    return "\n".join(lines)


def _wrapped_on(line: str) -> bool:
    """Whether ``line`` goes on with the list item above it: indented, and no item itself."""
    return line[:1] in (" ", "\t") and bool(line.strip()) and not _MD_LINE_MARK.match(line)


_CITATION = re.compile(
    rf"(?:(?<=[\w.,;:!?)\]\"'])|(?:^|[ \t]+)(?={EDITORIAL_TAG})){REFERENCE_MARK}(?=[\s\[.,;:!?)\"']|$)", re.M
)
"""A reference mark glued to what it marks ("results[12] show", "tall.[citation needed]",
"word,[3][4]"); an editorial tag also after a blank ("so [citation needed] and", "History
[edit]"), with the blank, where a number may be a value ("see [12]", `_SPACED_CITATION`)."""
_CITED_NUMBER = r"[1-9]\d{0,2}(?:[\u2013-][1-9]\d{0,2})?"
"""A reference's number, or numbers from one to another ("12", "3-5")."""
_SPACED_CITATION = re.compile(
    r"(?:(?<=[a-z])|(?<=\bal\.))(?<!\bin)(?<!\bsee)(?<!\bof)(?<!\bby)(?<!\bfrom)(?<!\band)(?<!\bto)(?<!\bor)"
    r"(?<!\bis)(?<!\bwas)(?<!\bbe)(?<!\bgives)(?<!\breturns)(?<!\byields)(?<!\bprints)"
    rf" \[{_CITED_NUMBER}\](?=[.,;:]|$)"
)
"""A reference's number after a blank, as papers cite ("widely reported [12].", "Smith et al.
[3]."): not read (it was "reported twelve."); where it is a noun ("see [12].") or a value
("returns [1].") it stays."""
_CITING_VERB = (
    r"(?:(?:show|report|present|discuss|suggest|develop|claim|review|explain|publish|consider|extend)(?:s|ed|n)?"
    r"|(?:propos|describ|introduc|demonstrat|observ|not|argu|deriv|investigat|examin|analy[sz]|conclud"
    r"|defin|outlin|prov)(?:e|es|ed|en)|stud(?:y|ies|ied)|appl(?:y|ies|ied)|finds?|found|giv(?:e|es|en)|gave)\b"
)
"""A verb that a paper cites a work with ("shown", "proposed", "found")."""
_CITED = rf"\[{_CITED_NUMBER}(?:, ?{_CITED_NUMBER})*\]"
_CITED_WORK = re.compile(
    rf"(\b[A-Z][a-z]+|\bet al\.) {_CITED}(?= {_CITING_VERB})|\b({_CITING_VERB}) in {_CITED}(?:,? and {_CITED})*"
)
"""A reference's numbers between a name and its verb ("Smith [3] found", "Lee et al. [4]
showed"), or with "in" after a verb that cites ("as shown in [12, 14]", "proposed in [5]"):
not read, the sentence says without them that a work is cited (it was "Smith three found",
"as shown in twelve, fourteen")."""
_PDF_NOTE = re.compile(PDF_NOTE)

# A bracket glued to a word is a reference mark on an encyclopedia's page ("as results[3]
# show") and an index in code ("Set arr[3] to 5"). Reading a reference's number is a slip;
# dropping an index changes what the code says, so a bracket is an index where anything
# around it is code's:
# - it holds no reference: an identifier or an expression ("row[key]", "x[i+1]", "m[1][0]"),
#   or one of the letters code counts with, "i", "j", "k", "n" (a reference letter is "[a]" to
#   "[h]" mostly, and an editor's "student[s]" stays unread);
# - "=" comes after it ("x[2] = 5", "if a[1] == b"), or "." and a name ("items[2].value"),
#   or ")" where the word is in a call ("print(arr[3])"; "(born in York[3])" is a reference);
# - the word is code's: with an underscore or a digit ("row_3[2]", "a1[2]"), in camel case
#   ("myList[3]"), a member ("sys.argv[1]", not "Node.js[3]"), a single letter other than
#   "a" ("x[3]"), or a name code gives an array ("arr", "buf", "nums", "argv");
# - another bracket in the same text is an index by the rules above ("Set total[3] to 5
#   and x[i] to 2").
# An index is read as written, after its word ("arr three", "x i"); a number glued to an
# English word with nothing of code's around it stays a reference ("as results[3] show",
# "results[3-5]", "word[3][4]").
_INDEXED = re.compile(r"(?<![\w.'\u2019])((?:[a-z_]\w*\.)*)(\w+)((?:\[[^\[\]\n]{1,40}\])+)")
"""A word, the members before it, and the brackets glued to it (not a word's end after an
apostrophe, "it's[3]")."""
_INDEX_LETTERS = frozenset({"i", "j", "k", "n"})
_ARRAY_NAMES = frozenset(
    {"arr", "arrs", "buf", "lst", "vec", "nums", "vals", "xs", "ys", "argv", "args", "ptr", "elems", "dp"}
)
"""Names code gives an array and no English word has."""
_SUFFIXES = frozenset({"s", "es", "ed", "d", "ing", "ly", "ren", "er", "est", "en", "ies"})
"""Endings an editor adds to a quoted word in brackets ("work[ed]", "child[ren]")."""
_REFERENCE = re.compile(REFERENCE_MARK)
_CODE_INDEX = re.compile(r"[\w.'\"]+(?: ?[-+*/%:,] ?[\w.'\"]+)*")


def _holds_index(inside: str) -> bool:
    """Whether what a bracket glued to a word holds is code's, not a reference or an editor's."""
    if inside in _INDEX_LETTERS:
        return True
    if _REFERENCE.fullmatch(f"[{inside}]") or inside.lower() in _SUFFIXES or inside == "sic":
        return False
    return re.search(r"\w", inside) is not None and _CODE_INDEX.fullmatch(inside) is not None


def _is_index(m: re.Match[str]) -> bool:
    """Whether the brackets after a word are an index by their own look (see above)."""
    members, word, brackets = m.groups()
    text, end = m.string, m.end()
    if any(_holds_index(inside) for inside in re.findall(r"\[([^\]]*)\]", brackets)):
        return True
    if re.match(r"\s*[-+*/%<>!=]?=|\.[A-Za-z_]", text[end:]):
        return True
    if text.startswith(")", end):
        before = text[: m.start()]
        opening = before.rfind("(")
        if (
            opening > 0
            and ")" not in before[opening:]
            and (before[opening - 1].isalnum() or before[opening - 1] == "_")
        ):
            return True
    if members:
        return re.fullmatch(rf"{_FILE_TYPES}|{_TLDS}", word) is None
    return (
        re.fullmatch(r"[a-z_]\w*", word) is not None
        and re.search(r"[_\d]", word) is not None
        or re.fullmatch(r"[a-z]{2,}(?:[A-Z][a-z\d]+)+", word) is not None
        or (len(word) == 1 and word.islower() and word != "a")
        or word in _ARRAY_NAMES
    )


def _indexes(text: str) -> set[int]:
    """Where the brackets that are code's indexes begin (see above)."""
    chains = list(_INDEXED.finditer(text))
    by_look = [_is_index(m) for m in chains]
    in_code = any(by_look)
    return {
        m.start(3) + inner.start()
        for m, index in zip(chains, by_look, strict=True)
        if index or (in_code and m[2][0].islower())
        for inner in re.finditer(r"\[", m[3])
    }


def _drop_references(text: str) -> str:
    """Reference marks glued to what they mark, not code's indexes."""
    kept = _indexes(text) if re.search(r"\w\[", text) else set()
    return _CITATION.sub(lambda m: m.group() if m.start() in kept else "", text)


def drop_markup(text: str) -> str:
    """HTML tags and entities, Markdown emphasis, links, code marks, headings, bullets and
    reference marks."""
    if "<" in text:
        text = _HTML_DROP.sub(" ", text)
        text = _HTML_BLOCK.sub("\n", text)
        text = _HTML_TAG.sub("", text)
    if "&" in text:
        text = read_marks(html.unescape(text))  # "&copy;"
    text = _MD_FENCE.sub("", text)
    text = _MD_TASK.sub(r"\1", text)  # "- [x] done": the box is not read
    text = _MD_FOOTNOTE.sub(lambda m: f"Footnote {m.group(1)}:" if m.group(1) else "", text)
    text = _MD_IMAGE.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_STRONG.sub(r"\2", text)
    text = _MD_EM.sub(r"\2", text)
    text = _MD_CODE.sub(r"\1", text)
    text = _PDF_NOTE.sub("", text)
    text = _EMOTICON.sub(" ", text)
    if "/" in text or "[" in text:
        text = _IPA.sub(" ", text)
    text = _HEART.sub("love", text)
    if "[" in text:
        text = _SPACED_CITATION.sub("", _CITED_WORK.sub(lambda m: m[1] or m[2], _drop_references(text)))
    return _end_marked_lines(text)


# --- Script the English voice cannot read ---------------------------------------------------


@lru_cache(maxsize=4096)
def _char_kind(ch: str) -> str:
    """'ok' (keep), 'foreign' (a letter/digit of another script: skip and report), 'drop'."""
    if ch.isascii() or ch in _KEPT_SYMBOLS:
        return "ok"
    if ch == "\u20e3" or unicodedata.name(ch, "").startswith("VARIATION SELECTOR"):
        return "drop"  # marks that style an emoji or a keycap ("❤️", "1️⃣"), not letters
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
    r"|\blocalhost:\d{2,5}\b(?:/[^\s<>\"']*)?"
)
_PORT = re.compile(r":(\d{2,5})$")
"""A host's port, "localhost:3000", "127.0.0.1:8000": said after the host, "colon three
thousand", as a number that names something ("eighty eighty"; the whole host was dropped with
the digits that make an id)."""
_ADDRESS_SEPARATORS = {
    ".": " dot ",
    "@": " at ",
    "/": " slash ",
    "\\": " backslash ",
    "_": " underscore ",
    "+": " plus ",
}


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
    # Digits in an address are said one by one, as when it is spelled out ("tal197": one
    # nine seven, not one hundred ninety-seven).
    spoken = _speak_parts(m.group(), "._+@")
    return re.sub(r"\d+", lambda d: f" {numwords.digits(d.group())} ", spoken)


def _url(m: re.Match[str]) -> str:
    url = m.group()
    trail = re.search(r"[.,;:!?)\]]+$", url)
    tail = trail.group() if trail else ""
    url = url[: len(url) - len(tail)]
    url = re.sub(r"^(?:[a-z]+://)?(?:www\.)?", "", url, flags=re.I)
    url = re.split(r"[?#]", url, maxsplit=1)[0].rstrip("/")
    host, _, path = url.partition("/")
    port = _PORT.search(host)
    if port:
        host = host[: port.start()]
    # Long opaque path segments (ids, hashes) are noise when spoken; the host is always said.
    segments = [s for s in path.split("/") if s and not re.search(r"\d.*\d.*\d|\w{25,}", s)]
    said = _speak_parts(host, "./_") + (f" colon {numwords.name_number(port[1])}" if port else "")
    return " slash ".join([said, *(_speak_parts(s, "./_") for s in segments)]) + tail


_FILE_TYPES = (
    "txt|md|rst|html?|pdf|epub|rs|py|js|mjs|ts|tsx|jsx|toml|json|ya?ml|csv|tsv|png|jpe?g|gif|svg|webp"
    "|docx?|odt|xlsx?|ods|pptx?|zip|tar|gz|tgz|xz|sh|bash|c|h|cc|cpp|hpp|java|kt|go|rb|php|css|scss"
    "|xml|ini|cfg|conf|log|lock|mp3|wav|ogg|flac|mp4|mkv|webm|exe|msi|deb|rpm|desktop|service|dll"
)
_FILE_NAME = re.compile(rf"(?<![\w./\\-])[\w-]+(?:\.[\w-]+)*\.(?:{_FILE_TYPES})(?![\w/-]|\.\w)")
"""A file name with a known ending, "index.html", "settings.toml": its dots are said."""
_EXTENSION = re.compile(rf"(?<![\w./\\-])\.({_FILE_TYPES})(?![\w/-]|\.\w)")
"""A file ending alone, "the .deb package", "(`.ogg`, `.flac`)": dot deb (its dot was run into the
punctuation before it)."""
_TOP_FOLDERS = frozenset(
    {"bin", "boot", "dev", "etc", "home", "lib", "media", "mnt", "opt", "proc", "sbin", "srv", "sys", "tmp"}
    | {"usr", "var"}
)
"""The root's folders, said with their slash alone too ("/etc", "/usr", not "et cetera")."""
_TOP_FOLDER = rf"(?:{'|'.join(sorted(_TOP_FOLDERS))})"
_PATH = re.compile(
    r"(?<![\w./~$-])(?:(?:~|\.\.?)?/?(?:(?:\$(?=[A-Za-z_]))?[\w.-]+/)+(?:\$(?=[A-Za-z_]))?[\w.-]*\w|~/[\w.-]*\w"
    rf"|(?<!:)/{_TOP_FOLDER}(?![\w/-]|\.\w))"
)
"""A run of names joined by slashes, checked by `_is_path`: "src/lib.rs", "~/.config/app", a
name in the home folder ("~/.bashrc"), also with a variable in it ("/proc/$pid/cmdline",
"$HOME/.config": not "pid or cmdline"; a price is no variable, "$5/user/month" is a rate); a
folder of the root alone ("/etc"), not a drive's ("C:/tmp")."""
_PATH_ROOTS = frozenset(
    {"usr", "bin", "sbin", "etc", "src", "lib", "tmp", "opt", "proc", "mnt", "srv", "debian"}
)
"""Folders a path begins with that are no word a choice is made of ("usr/bin", "src/main",
"debian/control"): a path without its root."""
_PATH_WORDS = _PATH_ROOTS | _TOP_FOLDERS | {"share", "local", "log", "include", "cache", "null"}
"""Folders' names, some also words a choice is made of ("home/office", "dev/prod", "var/let"):
a path where two of them meet ("var/log", "dev/null", "usr/share")."""
_FOLDER_NAMES = frozenset(
    {"user", "users", "username", "me", "docs", "documents", "downloads", "desktop", "pictures", "music"}
    | {"videos", "projects", "www", "html", "config"}
)
"""More folders' names, that a choice between words would not have after a folder of the root
("home/user/docs", "var/www/html"; "home/office/school" is a choice)."""


def _is_path(run: str) -> bool:
    """Whether a run of names joined by slashes is a file's path (not "and/or", "he/she/they",
    "km/h" or a date): it starts at the root, home or here, or in a hidden folder, ends in a
    file name, has three slashes or more, or two with a part only a path would have, or it
    begins in a folder only a path has ("debian/control"), or two folders' names meet, or it
    has two slashes or more from a folder of the root and a part that is a folder's name or no
    word (no vowel: "home/user/docs", "var/www/html", "home/jdk/bin"; "home/office/school" and
    "dev/test/prod" are choices)."""
    if not re.search(r"[A-Za-z]", run):
        return False
    if run.startswith(("/", "~/", "./", "../")) or _FILE_NAME.fullmatch(run.rsplit("/", 1)[-1]):
        return True
    slashes = run.count("/")
    if slashes >= 3 or (slashes == 2 and re.search(r"[._\d-]", run) is not None):
        return True
    parts = run.split("/")
    if slashes >= 2 and parts[0] in _TOP_FOLDERS:
        rest = parts[1:]
        if any(p.lower() in _FOLDER_NAMES or not re.search(r"[aeiouy]", p, re.I) for p in rest):
            return True
    return (
        parts[0] in _PATH_ROOTS
        or re.match(r"\.\w", parts[0]) is not None
        or sum(part in _PATH_WORDS for part in parts) >= 2
    )


def _path(m: re.Match[str]) -> str:
    run = m.group()
    if not _is_path(run):
        return run
    run = run.replace("~/", "home/", 1) if run.startswith("~/") else run
    # "etc" alone is "et cetera" to the lexicon; a folder's name is said by its letters.
    run = re.sub(r"(?<![\w.-])etc(?![\w.-])", "E T C", run)
    return _speak_parts(run, "./_")


_WINDOWS_PATH = re.compile(
    r"(?<![\w\\])(?:([A-Za-z]):\\|\\\\(?=\w))((?:[\w.$-]+(?: [\w.$()-]+)*\\)*(?:[\w.$-]*\w)?)"
)
"""A Windows path, from its drive, "C:\\Users\\Ann\\report.docx", or a share on a server,
"\\\\server\\share" (a folder's name may have blanks, "Program Files", but not its last)."""


def _windows_path(m: re.Match[str]) -> str:
    """The drive by its letter ("C drive, Users ..."), a share's two backslashes once ("double backslash
    server"), then each name, backslash between them as "slash" is in a Unix path (they were
    dropped, "C: Users Ann Documents report.docx")."""
    drive, rest = m.groups()
    start = (f"{drive.upper()} drive" + (", " if rest else "")) if drive else "double backslash "
    return start + _speak_parts(rest, "\\._") + " "


_DOI = re.compile(r"\b[Dd][Oo][Ii]:\s?(10\.\d{4,9}/[^\s,;]+?)(?=[.,;)\]]*(?:\s|$))")
"""A document's identifier in a reference, "doi:10.1121/1.5091234"."""


_DOI_PARTS = {**_ADDRESS_SEPARATORS, "-": " dash "}


def _doi(m: re.Match[str]) -> str:
    parts = re.findall(r"\d+|[./_-]|[^\d./_-]+", m.group(1))
    return "D O I " + "".join(
        f" {numwords.digits(p)} " if p.isdigit() else _DOI_PARTS.get(p, f" {p} ") for p in parts
    )


_HASHTAG = re.compile(r"(?<![\w&#/])#(?![0-9A-Fa-f]{3}\b|[0-9A-Fa-f]{6}\b)(?=\d*[A-Za-z])(\w+)")
"""A hashtag ("#ThrowbackThursday", "#100DaysOfCode"); not a colour ("#FF0000") nor a number
("#1")."""
_WORD_IN_TAG = re.compile(
    r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])|_"
)


def read_hashtags(text: str) -> str:
    """'#ThrowbackThursday' -> 'Throwback Thursday', '#100DaysOfCode' -> '100 Days Of Code':
    a tag's words, where its capitals and digits begin them (it was read as one word, or
    spelled: "number one zero zero D A Y S O F C O D E")."""
    if "#" not in text:
        return text
    return _HASHTAG.sub(lambda m: _WORD_IN_TAG.sub(" ", m.group(1)), text)


_PER_CENT = re.compile(r"(?<=\d) ?p\.c\.(?=(\s*$|\s+[A-Z\"]))?")
"""Per cent as British papers write it after a number, "2 p.c.": percent (it was "p dot c", a C
file's name), with the sentence's dot where it ends one."""


def read_addresses(text: str) -> str:
    """jane.doe@example.org -> 'jane dot doe at example dot org'; URLs without scheme or
    query; file paths and names ("src/lib.rs": src slash lib dot rs); DOIs, digit by digit."""
    if ":" in text:
        text = _DOI.sub(_doi, text)
    if "@" in text:
        text = _EMAIL.sub(_email, text)
    if "\\" in text:
        text = _WINDOWS_PATH.sub(_windows_path, text)
    if "p.c." in text:
        text = _PER_CENT.sub(lambda m: " percent" + ("." if m[1] is not None else ""), text)
    if "." in text or "localhost:" in text:
        text = _URL.sub(_url, text)
    if "/" in text:
        text = _PATH.sub(_path, text)
    if "." in text:
        text = _FILE_NAME.sub(lambda m: _speak_parts(m.group(), "._"), text)
        text = _EXTENSION.sub(r" dot \1", text)
    return text


# --- Abbreviations --------------------------------------------------------------------------


def _abbrev(pattern: str, word: str, can_end: bool = False) -> tuple[re.Pattern[str], Replacement]:
    rx = re.compile(pattern)

    def sub(m: re.Match[str]) -> str:
        end_dot = (
            can_end and m.group().endswith(".") and re.match(ENDS_SENTENCE, m.string[m.end() :]) is not None
        )
        return word + ("." if end_dot else "")

    return rx, sub


_STATES = {
    **{"Ala": "Alabama", "Ariz": "Arizona", "Ark": "Arkansas", "Calif": "California", "Colo": "Colorado"},
    **{"Conn": "Connecticut", "Fla": "Florida", "Ga": "Georgia", "Ill": "Illinois", "Ind": "Indiana"},
    **{"Kan": "Kansas", "Ky": "Kentucky", "Md": "Maryland", "Mich": "Michigan", "Minn": "Minnesota"},
    **{"Mont": "Montana", "Neb": "Nebraska", "Nev": "Nevada", "Okla": "Oklahoma", "Tenn": "Tennessee"},
    **{"Va": "Virginia", "Vt": "Vermont", "Wash": "Washington", "Wis": "Wisconsin", "Wyo": "Wyoming"},
}
"""The states' short names in American news that no word or title has, after a town ("Sacramento,
Calif.") or a party's letter ("D-Calif.")."""
_PARTY_STATES = {"Del": "Delaware", "La": "Louisiana", "Mass": "Massachusetts", "Miss": "Mississippi"}
_PARTY_STATES |= {"Mo": "Missouri", "Ore": "Oregon", "Pa": "Pennsylvania"}
"""Short names that are also a word or a title ("Yes, Miss.", "Thanks, Pa."): a state only after a
party's letter ("Sen. Warren (D-Mass.)")."""


def _state(m: re.Match[str]) -> str:
    """A state's short name as American news writes it: its name (it was "Calif." and a pause)."""
    name = _STATES.get(m[1]) or _PARTY_STATES[m[1]]
    return name + ("." if re.match(ENDS_SENTENCE, m.string[m.end() :]) else "")


_ABBREVIATIONS = [
    (re.compile(rf"(?<=[A-Za-z], )({'|'.join(_STATES)})\.(?!\w)"), _state),
    (re.compile(rf"(?<=\b[DRI]-)({'|'.join(_STATES | _PARTY_STATES)})\.(?!\w)"), _state),
    _abbrev(r"\bDr\.(?=\s+[A-Z])", "Doctor"),
    _abbrev(r"\bDr\.", "Drive", can_end=True),
    _abbrev(r"\bMr\.", "Mister"),
    _abbrev(r"\bMrs\.", "Missus"),
    _abbrev(r"\bMs\.(?=\s+[A-Z])", "Miz"),
    _abbrev(r"\bProf\.", "Professor"),
    *(
        _abbrev(rf"\b{short}\.(?=\s+[A-Z])", title)
        for short, title in (
            ("Sen", "Senator"),
            ("Rep", "Representative"),
            ("Gov", "Governor"),
            ("Pres", "President"),
            ("Gen", "General"),
            ("Col", "Colonel"),
            ("Capt", "Captain"),
            ("Lt", "Lieutenant"),
            ("Sgt", "Sergeant"),
            ("Maj", "Major"),
            ("Adm", "Admiral"),
            ("Rev", "Reverend"),
            ("Fr", "Father"),
            ("Hon", "Honorable"),
            ("Atty", "Attorney"),
            ("Det", "Detective"),
            ("Insp", "Inspector"),
            ("Supt", "Superintendent"),
        )
    ),
    _abbrev(r"\bMt\.", "Mount"),
    _abbrev(r"\bFt\.(?=\s+[A-Z])", "Fort"),
    _abbrev(r"\bSt\.(?=\s+[A-Z])", "Saint"),
    _abbrev(r"\bSt\.", "Street", can_end=True),
    _abbrev(r"\bAve\.", "Avenue", can_end=True),
    _abbrev(r"\bRd\.", "Road", can_end=True),
    # A rank before a title, "a Sr. Software Engineer", "our Jr. Developer": no sentence ends
    # there (it was "a Senior. Software Engineer"); after a name it may ("John Smith Sr. He").
    *(
        _abbrev(
            rf"(?:^|(?<=\n)|(?<=\b[Aa] )|(?<=\b[Oo]ur )|(?<=\b[Tt]he )|(?<=\b[Aa]s )){short}\.(?= [A-Z])",
            rank,
        )
        for short, rank in (("Jr", "Junior"), ("Sr", "Senior"))
    ),
    _abbrev(r"\bJr\.", "Junior", can_end=True),
    _abbrev(r"\bSr\.", "Senior", can_end=True),
    _abbrev(r"\bInc\.", "Incorporated", can_end=True),
    _abbrev(r"\bLtd\.", "Limited", can_end=True),
    _abbrev(r"\b[Ee]\.\s?g\.|\beg\.(?=\s)", "for example"),
    _abbrev(r"\b[Ii]\.\s?e\.", "that is"),
    _abbrev(r"\b[Ee]tc\.", "et cetera", can_end=True),
    _abbrev(r"\b[Vv]s\.?(?=\s)", "versus"),
    _abbrev(r"(?<=[a-z] )v\.(?= [A-Z])", "versus"),  # a case's parties, "Roe v. Wade"
    _abbrev(r"\b[Cc]f\.", "compare"),
    _abbrev(r"\b[Aa]pprox\.", "approximately"),
    _abbrev(r"\b[Ii]ncl\.", "including"),
    _abbrev(r"\b[Ff]ig\.(?=\s*\(?\d)", "figure"),
    _abbrev(r"\b[Ff]igs\.(?=\s*\(?\d)", "figures"),  # not the fruit, nor a sentence's end
    _abbrev(r"\b[Ee]qs\.(?=\s*\(?\d)", "equations"),
    _abbrev(r"\bTabs\.(?=\s*\d)", "Tables"),  # a paper's tables, "Tab. 2" (it was "tab two")
    _abbrev(r"\bTab\.(?=\s*\d)", "Table"),
    _abbrev(r"\b[Pp]ara\.(?=\s*\(?\d)", "paragraph"),
    _abbrev(r"\b[Pp]aras\.(?=\s*\(?\d)", "paragraphs"),
    _abbrev(r"\bpp\.(?=\s*\(?\d)", "pages"),
    _abbrev(r"\b[Ee]xt\.(?=\s*\d)", "extension"),
    _abbrev(r"\bp\.(?=\s*\(?\d)", "page"),
    _abbrev(r"\b[Cc]h\.(?=\s*\(?\d)", "chapter"),
    _abbrev(r"\b[Vv]ol\.(?=\s*\(?\d)", "volume"),
    _abbrev(r"\b[Ee]q\.(?=\s*\(?\d)", "equation"),
    _abbrev(r"\b[Ss]ec\.(?=\s*\(?\d)", "section"),
    _abbrev(r"\bArt\.(?=\s*\d)", "Article"),
    _abbrev(r"\b[Cc]a?\.(?=\s*\d)", "circa"),
    _abbrev(r"\b[Ee]st\.(?=\))", "estimate"),
    # A founding year on a sign or a label, "Est. 1892", "EST. 1970" (it was "est"); before a
    # count it is estimated ("Est. 1500 deaths" stays).
    _abbrev(r"\b(?:Est|EST)\.(?=\s*(?:1[5-9]|20)\d\d\b(?![.,]\d)(?!\s+[a-z]+s\b))", "Established"),
    # A weekday's short name that is no word with its dot ("on Tues. the 14th", "Thurs. at 9"):
    # the day (it was "tooz"); between two days, a range, it is `read_symbols`' ("Tue.-Thu.").
    *(
        _abbrev(rf"(?<![-\u2013])(?<![-\u2013] )\b{short}\.(?!\s?[-\u2013])", day)
        for short, day in (("Tues?", "Tuesday"), ("Weds", "Wednesday"), ("Thu(?:rs?)?", "Thursday"))
    ),
    _abbrev(r"\ba\.s\.l\.", "above sea level", can_end=True),
    _abbrev(r"\bNo\.(?=\s*\d)", "number"),
    _abbrev(r"\bno\.(?=\s*\d)", "number"),
]


_CHAT_WORDS = {
    # Said letter by letter, as the same forms in capitals are: "lol" too, which some say as
    # a word, but every listener knows the letters, and "lol" and "LOL" then sound alike.
    **{
        short: short.upper()
        for short in ("omg", "idk", "btw", "imo", "imho", "tbh", "fyi", "brb", "afaik", "smh", "irl", "lol")
    },
    "thx": "thanks",
    "pls": "please",
    "plz": "please",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "np": "no problem",
    "ur": "your",  # "ur welcome", "is that ur car" (it was "er"); "you're" sounds the same
}
_LOWER_CASE_ONLY = frozenset({"ur"})
"""Short forms that capitalised are a name ("Ur was a city of Sumer")."""
_CHAT_WORD = re.compile(
    r"(?<![\w.'/@#$-])(?:(" + "|".join(_CHAT_WORDS) + r")"
    r"|(?:(?<=^)|(?<=\n)|(?<=[.!?] ))("
    + "|".join(short.capitalize() for short in _CHAT_WORDS if short not in _LOWER_CASE_ONLY)
    + r")(?! [A-Z]))"
    r"(?![\w'/@-]|\.\w)"
)
"""A chat's short forms in lower case ("omg thx, idk"): the letters, or the word they stand for.
Capitalised only where a sentence begins and no name follows ("Imo it's fine", but "Imo State"
is a place); in capitals they are spelled already."""
_MODULE_ALIAS = re.compile(r"\bas $")
"""Before the name code gives a module, "import numpy as np": that "np" is no "no problem"."""


def _chat_word(m: re.Match[str]) -> str:
    short, capitalised = m.groups()
    if short == "np" and _MODULE_ALIAS.search(m.string, max(0, m.start() - 3), m.start()):
        return short
    said = _CHAT_WORDS[(short or capitalised).lower()]
    return said.capitalize() if capitalised and said.islower() else said


_COMPASS_AFTER = r"(?= (?:N|S|E|W|NE|NW|SE|SW)\b)"
"""A compass point after a street, as American addresses have it ("Pennsylvania Ave NW")."""
_KEY_AFTER = r"(?:[A-Z0-9]|F\d{1,2}|[A-Z][a-z]{1,5})\b"
"""A key after "+": a letter, a digit, a function key or a key's short name ("Win+R", "Win+Tab")."""
_DOTLESS_ABBREVIATIONS = [
    # An address's street after its name, written without a dot ("221B Baker St, London",
    # "12 Oak Ave", "1600 Pennsylvania Ave NW"): the word, not the letters; and a flat's or a
    # suite's number.
    _abbrev(rf"(?<=[a-z] )(?:St|Str)(?=,|\s*$|\s*\n|{_COMPASS_AFTER})", "Street"),
    _abbrev(rf"(?<=[a-z] )Ave?(?=[,.]|\s*$|\s*\n|{_COMPASS_AFTER})", "Avenue"),
    _abbrev(rf"(?<=[a-z] )Rd(?=[,.]|\s*$|\s*\n|{_COMPASS_AFTER})", "Road"),
    # A mail's subject forwarded, "Fwd: Invoice", "FW: Re: notes" (it was "F W D"): at a line's
    # start or after "Re:" or "Subject:", where no other "FW" is.
    _abbrev(r"(?:^|(?<=\n)|(?<=Re: )|(?<=RE: )|(?<=Subject: ))(?:Fwd|FWD|Fw|FW)(?=:)", "Forward"),
    _abbrev(r"(?<=[a-z] )Blvd\.?(?=[,.]|\s*$|\s*\n)", "Boulevard", can_end=True),
    _abbrev(r"(?<=[a-z] )Ln\.?(?=[,.]|\s*$|\s*\n)", "Lane", can_end=True),
    _abbrev(r"\bApt\.?(?=\s*#?\d)", "Apartment"),
    # Keys as keyboards and manuals write them ("Ctrl+C", "Cmd+Shift+P", "press Esc").
    _abbrev(r"\bCtrl\b", "Control"),
    _abbrev(r"\bCmd\b", "Command"),
    _abbrev(r"\bEsc\b", "Escape"),
    _abbrev(r"\bPgUp\b", "Page Up"),
    _abbrev(r"\bPgDn\b", "Page Down"),
    # Keys whose short names are words or syllables, where "+" joins them to another key
    # ("Ctrl+Alt+Del", "Win+R", "Shift+Ins": it was "del", "win").
    *(
        _abbrev(rf"(?:(?<=\w\+)|(?<=\w \+ ))(?:{short})\b|\b(?:{short})(?= ?\+ ?{_KEY_AFTER})", name)
        for short, name in (
            ("Del", "Delete"),
            ("Ins", "Insert"),
            ("Win", "Windows"),
            ("PrtSc|PrtScn|PrtScr", "Print Screen"),
            ("Bksp", "Backspace"),
        )
    ),
    _abbrev(r"(?<![\w.])\.NET\b", "dot net"),
    _abbrev(r"\bSte\.?(?=\s*#?\d)", "Suite"),
    (_CHAT_WORD, _chat_word),
]
"""Abbreviations written without a dot, looked for in every text."""


def expand_abbreviations(text: str) -> str:
    """Dr. Smith -> Doctor Smith, St. Mary's St. -> Saint Mary's Street, e.g. -> for example."""
    for rx, sub in _DOTLESS_ABBREVIATIONS:
        text = rx.sub(sub, text)
    if "." not in text and "vs" not in text.lower():
        return text
    for rx, sub in _ABBREVIATIONS:
        text = rx.sub(sub, text)
    return text


# --- Symbols and spacing ------------------------------------------------------------------

_PER_UNITS = {
    "mo": "month",
    "yr": "year",
    "wk": "week",
    "h": "hour",
    "hr": "hour",
    "min": "minute",
    "sec": "second",
    "s": "second",
    "kg": "kilogram",
    "g": "gram",
    "lb": "pound",
    "km": "kilometer",
    "mi": "mile",
    "m": "meter",
    "l": "liter",
    "gal": "gallon",
}
_RATE_UNIT = (
    r"(?:month|year|week|day|night|hour|minute|second|person|head|user|seat|share|unit|"
    r"item|piece|copy|ticket|licen[cs]e|device|serving|session|lesson|ride|trip|visit|"
    r"page|mile|" + "|".join(_PER_UNITS) + r")"
)
_PER = re.compile(rf"(?<=[A-Za-z])/(?={_RATE_UNIT}\b)")
"""A slash before a unit of a rate ("cents/month", "requests/s", "km/h"): "per"."""
_PER_UNIT = re.compile(r"(?<=\bper )(" + "|".join(_PER_UNITS) + r")\b")

_MONEY_WORDS = r"(?:dollars?|cents?|pounds?|pence|penny|euros?|yen)"
_PRICE_PER = re.compile(rf"\b({_MONEY_WORDS})/(?!{_MONEY_WORDS}\b)(?=[a-z]{{2,}}\b)")
"""A slash after a price, once `read_numbers` has said it, before what the price is for
("$3/dozen", "£2/bag", "€5/kilo"): per (it was "three dollars or dozen"). Between two
currencies it is a choice ("in dollars/euros")."""

_MENU_ITEM = r"[A-Z][\w-]*(?: (?:and |or |of |to )?[A-Z][\w-]*){0,2}"
_MENU_PATH = re.compile(
    rf"\b(?:{_MENU_ITEM}(?: > {_MENU_ITEM}){{2,}}"
    r"|(?:Settings|Preferences|Options|Tools|File|Edit|View|Menu|System|Control Panel|Start|Window|Help)"
    rf"(?: > {_MENU_ITEM})+)\b"
)
"""Menu items joined by ">", three or more, or after a menu's usual first item."""

_WEEKDAY = r"(?:((?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)|" + DAY + ")"
_DAY_RANGE = re.compile(rf"(?i:\b{_WEEKDAY}\s?[\u2013-]\s?{_WEEKDAY})(?!\w)")
"""Days from one to another, "Mon–Fri", "Sat - Sun", "Monday–Friday" (it was "Monday, Friday")."""
_MONTH_RANGE = re.compile(rf"\b{MONTH}\s?[\u2013-]\s?{MONTH}(?!\w)")
"""Months from one to another, "Apr-Oct", "January–March": to (it was "apract", "January,
March")."""


def _named_range(name: Callable[[str], str]) -> Replacement:
    """Two days' or months' names, from one to the other, with the second's dot where it ends
    the sentence ("Open Mon-Fri. Closed weekends": the dot was dropped with the short name's)."""

    def said(m: re.Match[str]) -> str:
        final = m.group().endswith(".") and re.match(ENDS_SENTENCE, m.string[m.end() :])
        first, second = [g for g in m.groups() if g]
        return f"{name(first)} to {name(second)}" + ("." if final else "")

    return said


_KEY_NAMES = {
    "/": "slash",
    "?": "question mark",
    "\\": "backslash",
    "|": "vertical bar",
    "=": "equals",
    "+": "plus",
    "*": "star",
    "~": "tilde",
    "^": "caret",
    "#": "hash",
    "-": "minus",
    ".": "period",
    ",": "comma",
}
_KEY = re.compile(r"\b((?:[Pp]ress|[Hh]it|[Tt]ype|[Kk]ey|or) )([/?\\|=+*~^#.,-])(?= )")
"""A key standing alone after "press", "type" or "or" ("press / to search"): its name."""

_OPTION_END = r"(?=[\s=.,;:)\[\]/'\"]|$)"
"""What may follow an option's name: a blank, its value ("--file=F", "--color[=WHEN]"), a
closing bracket or quote ("[-r]", "'ls -v'"), another spelling ("-W/--dwarf"), punctuation."""
_LONG_OPTION = re.compile(r"(?<![\w-])--(?=[a-z][a-z0-9-]*" + _OPTION_END + ")")
_SHORT_OPTION = re.compile(
    r"(?<![\w-])-(?=[a-zA-Z]{1,3}" + _OPTION_END + ")"
    r"|(?:(?<=[\s(\['\"])|^)-(?=[a-z][a-z0-9]{3,}(?:-[a-z0-9]+)*" + _OPTION_END + ")"
)
"""A short flag ("-v", "-la") or, in lower case after a blank or a bracket, a long one with one
dash, as find and compilers have them ("-print", "-maxdepth", "-march")."""
_OPTION_OR_OPTION = re.compile(r"(?<=\w)/(?=--?[a-zA-Z])")
"""A slash between two spellings of an option, "-W/--dwarf": or."""

_CHANGE_OVER = {"y": "year over year", "q": "quarter over quarter", "m": "month over month"}
_CHANGE_OVER_PERIOD = re.compile(r"\b(?:([Yy])/[Yy]|([Qq])/[Qq]|(m)/m)\b")
"""A change against the period before, as financial news writes it ("3.1% y/y", "0.3% m/m"):
"m/m" was "m per meter"."""
_FORUM = re.compile(r"(?<![\w/.])([ru])/(?!(?:min|s|sec|h|hr)\b)(?=\w{2,})")
"""A forum's or a user's name on Reddit, "r/AskReddit", "u/dev_guy": r slash (it was "r or")."""

_CODE_SLASHES = re.compile(r"(?<![\w/.-])[\w.-]*\w(?:/[\w.-]*\w)+(?![\w/])")
"""A run of names joined by slashes, checked by `_code_slashes`."""


_PAIRED_VERBS = frozenset(
    {"get", "set", "add", "remove", "push", "pop", "show", "hide", "begin", "end", "start", "stop"}
    | {"open", "close", "read", "write", "load", "save", "alloc", "free", "new", "delete", "insert"}
)
"""Verbs a function's name has in pairs, two names written as one with a slash between them
("gtk_notebook_set/get_group", "list_push/pop")."""


def _code_slashes(m: re.Match[str]) -> str:
    """Names joined by slashes where one is a code's identifier, with an underscore
    ("node_modules/lodash", "site_packages/foo"): a path, slash (it was "node modules or foo").
    A rate keeps its "per" ("bytes_sent/s"), and two functions' names written as one keep
    their "or" ("g_object_ref/unref", "gtk_notebook_set/get_group")."""
    run = m.group()
    parts = run.split("/")
    if not any("_" in p and re.search(r"[A-Za-z]", p) for p in parts):
        return run
    if len(parts) == 2 and re.fullmatch(_RATE_UNIT, parts[1]):
        return run
    said = parts[0]
    for left, right in itertools.pairwise(parts):
        end, start = left.rsplit("_", 1)[-1].lower(), right.split("_", 1)[0].lower()
        opposite = start in ("un" + end, "de" + end) or end in ("un" + start, "de" + start)
        paired = opposite or {end, start} <= _PAIRED_VERBS
        said += ("/" if paired and "_" in left + right else " slash ") + right
    return said


_CREDIT = re.compile(
    r"\b(?i:photo(?:graph)?|image|picture|illustration|credit)s?(?: credit)?(?::\s*|\s+by\s+)[^\n()/]{1,60}/[^\n()]{1,60}"
)
"""A picture's credit, "(Photo by John Smith/Getty Images)", "Photograph: Jane Doe/AP": the
slash parts a name from an agency (it was "John Smith or Getty Images")."""

_SLASHED_CODES = re.compile(r"(?<![\w/-])([A-Z]{1,5})/([A-Z]{1,5})(?![\w/+#-])")
"""Two codes in capitals with a slash between them."""
_MEMBER_AFTER_INDEX = re.compile(r"(?<=\])\.(?=[A-Za-z_])")
"""The dot before a member's name after an index in code, "obj[0].name", "items[2].value": said
(the index's number and the name ran together, "zero.name"; a reference's brackets are gone by
now, `_drop_references`)."""
_ONE_NAME = frozenset(["TCP/IP", "UDP/IP", "ISO/IEC", "AC/DC", "CI/CD", "UI/UX", "S/MIME"])
"""Codes with a slash that make one name ("TCP/IP", "ISO/IEC"); between others the slash is a
choice ("SSL/TLS", "PGP/GPG keys", "HEVC/H.265": or)."""


def _slashed_codes(m: re.Match[str]) -> str:
    """A name of two codes ("TCP/IP": it was "TCP or IP") or of two letters ("I/O", "A/B
    testing"): one after the other."""
    if m.group() in _ONE_NAME or len(m.group()) == 3:
        return f"{m[1]} {m[2]}"
    return m.group()


_GRADE_MINUS = re.compile(
    r"(\b(?i:grades?|graded|got|gets?|earned|received|scored|an?):? )([A-F])-(?![\w-])"
    r"(?!\n[ \t]*[a-z]| (?:and|or|to) [A-F]-\w)"
)
"""A grade with its minus, after a word that brings one in ("Grade: A-", "an A- student", "got a
C-"): said (the sign was dropped; "B+" is "B plus" already). Not a word hyphenated across a line
("an A-\nlist actor") nor the first of two ("a B- and C-grade")."""

_SYMBOLS: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (_CREDIT, lambda m: re.sub(r"(?<=\w)/(?=[A-Z])", ", ", m.group())),
    (_CHANGE_OVER_PERIOD, lambda m: _CHANGE_OVER[(m[1] or m[2] or m[3]).lower()]),
    (_FORUM, r"\1 slash "),
    (_CODE_SLASHES, _code_slashes),
    (_MEMBER_AFTER_INDEX, " dot "),
    (_PER, " per "),
    (_PRICE_PER, r"\1 per "),
    # A menu path, "Settings > Privacy > Location", "File > Save As": each item, not
    # "greater than" (a comparison of two names, "Count > Limit", stays one).
    (_MENU_PATH, lambda m: re.sub(r" ?> ?", ", ", m.group())),
    (re.compile(r"\bYoY\b"), "year over year"),
    (re.compile(r"\bQoQ\b"), "quarter over quarter"),
    (re.compile(r"\bMoM\b"), "month over month"),
    (_PER_UNIT, lambda m: _PER_UNITS[m.group(1)]),
    (re.compile(r"\b([A-G])#(?!\w)"), r"\1 sharp"),  # C#, F# minor
    (_GRADE_MINUS, r"\1\2 minus"),
    (_MONTH_RANGE, _named_range(month_name)),
    # "Mon–Fri"; before options, which took "Mon.-Fri." for a flag ("Mon. dash Fri.").
    (_DAY_RANGE, _named_range(lambda day: DAYS.get(day.lower(), day.capitalize()))),
    (_OPTION_OR_OPTION, " or "),
    (_LONG_OPTION, " dash dash "),  # "--verbose"
    (_SHORT_OPTION, " dash "),  # "-v", "-la", "-print"
    (_KEY, lambda m: m.group(1) + _KEY_NAMES[m.group(2)]),  # "press / to search"
    (re.compile(r"(?<=[\w.)]) \| (?=\w)"), ", "),  # "Jane Doe | Senior PM": parts of a line
    (re.compile(r"\b[Ww]/[Oo]\b"), "without"),
    (re.compile(r"(?<![\w/])([bB])/c(?![\w/])"), lambda m: "because" if m[1] == "b" else "Because"),  # "b/c"
    (_SLASHED_CODES, _slashed_codes),
    (re.compile(r"\b[Ww]/(?=\s)|\bw/(?=[a-z]{2,}\b)"), "with "),  # "w/ milk", "w/cmake"
    (re.compile(r"\s*&&?\s*"), " and "),  # "npm install && npm run build" (it was "and and")
    (re.compile(r"\s*@\s*"), " at "),
    (re.compile(r"\s*%"), " percent "),
    (re.compile(r"\s*°"), " degrees "),
    (re.compile(r"\s*\+\s*"), " plus "),
    (re.compile(r"\s+=\s+|(?<=[\w\]])=(?=\w)"), " equals "),  # "x[2]=5"
    (re.compile(r"\s*×\s*"), " times "),
    (re.compile(r"\s*÷\s*"), " divided by "),
    (re.compile(r"\s*±\s*"), " plus or minus "),
    # Written with or without spaces ("numpy >=1.26", "x>=3"): no markup has these.
    (re.compile(r"\s*≥\s*|(?<![<>=!])\s*>=\s*(?=[\w(-])"), " greater than or equal to "),
    (re.compile(r"\s*≤\s*|(?<![<>=!])\s*<=\s*(?=[\w(-])"), " less than or equal to "),
    (re.compile(r"\s*≠\s*|(?<![<>=!])\s*!=\s*(?=[\w(-])"), " not equal to "),
    (re.compile(r"(?<![<>=!])\s*==\s*(?=[\w(-])"), " equals "),
    (re.compile(r"(?<=\s)[-=]>(?=\s)"), " to "),  # "A -> B", "x => y"
    (re.compile(r"(?<=[\w)]) < (?=[\w(-])"), " less than "),  # spaced: not a tag
    (re.compile(r"(?<=[\w)]) > (?=[\w(-])"), " greater than "),
    (re.compile(r"\s*≈\s*"), " approximately "),
    # Arrow keys ("press ← or →"); an arrow between two things is "to".
    (re.compile(r"\s*←\s*"), " left arrow "),
    (re.compile(r"\s*↑\s*"), " up arrow "),
    (re.compile(r"\s*↓\s*"), " down arrow "),
    (re.compile(r"\b((?:or|and|[Pp]ress)) →"), r"\1 right arrow "),
    (re.compile(r"→(?= (?:or|and|keys?)\b)"), " right arrow "),
    (re.compile(r"\s*→\s*"), " to "),
    (re.compile(r"§§\s*"), " sections "),  # "§§ 101-105" (it was "section section")
    (re.compile(r"§\s*"), " section "),
    (re.compile(r"\b(and|either)/or\b"), r"\1 or"),
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
    text = re.sub(r"[,;:](?=\s*[,;:])", "", text)  # what was between them was not read
    text = re.sub(r"\(\s*[,;:]\s*", "(", text)
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
    text = read_hashtags(text)
    text = drop_overlong_words(text, skipped)
    text = expand_abbreviations(text)
    text = read_numbers(text)
    text = read_roman_numerals(text)
    text = read_symbols(text)
    return tidy_spacing(text)
