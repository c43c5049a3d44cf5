"""Numbers in text read as words: money, phone numbers, times, dates, temperatures,
percentages, units, decades and years, ordinals, fractions, ranges, decimals.

Specific shapes go first (a time's colon, a phone number's groups, a date's month name), so
the plain-number rule at the end only sees what nothing more specific claimed.
"""

from __future__ import annotations

import os
import re

from tray_reader.text import numwords

ENDS_SENTENCE = r"(?=\s*$|\s+[A-Z\"])"
"""Lookahead: an abbreviation's dot ('p.m.', 'etc.') also ends the sentence, so keep one."""

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
"""A number as written: 1,234,567.89 or 3.14 or 42."""

_CURRENCIES = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "¥": ("yen", "yen", "sen", "sen"),
    "A$": ("Australian dollar", "Australian dollars", "cent", "cents"),
    "C$": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
    "NZ$": ("New Zealand dollar", "New Zealand dollars", "cent", "cents"),
    "HK$": ("Hong Kong dollar", "Hong Kong dollars", "cent", "cents"),
    "S$": ("Singapore dollar", "Singapore dollars", "cent", "cents"),
}
_DOLLAR_PREFIXES = {
    "US": "$",
    "AU": "A$",
    "A": "A$",
    "CA": "C$",
    "C": "C$",
    "NZ": "NZ$",
    "HK": "HK$",
    "S": "S$",
}
"""Letters before a "$" that say whose dollar it is ("AU$5", "HK$100"); "US$5" is the plain
dollar. In capitals only: "a$5" is a typo, not an amount in Australian dollars."""
_CURRENCY_CODES = {
    "USD": "$",
    "EUR": "€",
    "GBP": "£",
    "JPY": "¥",
    "AUD": "A$",
    "CAD": "C$",
    "NZD": "NZ$",
    "HKD": "HK$",
    "SGD": "S$",
}
_CODES = "|".join(_CURRENCY_CODES)
_SCALE_WORDS = {"k": "thousand", "m": "million", "bn": "billion", "b": "billion", "tn": "trillion"}
_MONEY_NUM = r"\d{1,3}(?:\.\d{3})*,\d{2}(?![\d,])|" + _NUM
"""An amount as written, also with a decimal comma ("3,50 €", "€1.234,56"). Only two digits
after the comma: three are thousands ("3,500 €")."""
_CURRENCY = re.compile(
    r"(?<![\w])(?-i:("
    + "|".join(_DOLLAR_PREFIXES)
    + r")(?=\$))?(-?)([$€£¥])\s?("
    + _MONEY_NUM
    + r")(?:\s?(thousand|million|billion|trillion|k|m|bn|b|tn)\b)?"
    r"(?:\s(" + _CODES + r")\b)?",  # "$5 USD": the code says the symbol again
    re.I,
)
_CODE_FIRST = re.compile(
    r"\b(-?)(" + _CODES + r")\s?(" + _MONEY_NUM + r")(?:\s?(thousand|million|billion|trillion)\b)?"
)
"""An amount after its currency's code ("EUR 12")."""
_SYMBOL_AFTER = re.compile(
    r"(?<![\w.,])(-?)("
    + _MONEY_NUM
    + r")(?:\s?(thousand|million|billion|trillion)\b)?\s?([$€£¥]|(?:"
    + _CODES
    + r")\b)"
)
"""An amount before its currency's symbol or code ("5 €", "12.50 EUR")."""


_MONEY_RANGE = re.compile(
    r"(?<![\w.,])((?-i:" + "|".join(_DOLLAR_PREFIXES) + r")?[$€£¥])\s?(" + _MONEY_NUM + r")\s?[-\u2013]\s?"
    r"(?=(?:" + _MONEY_NUM + r")(\s?(?:thousand|million|billion|trillion|k|m|bn|b|tn)\b)?(?![\w%-]|[.,]\d))",
    re.I,
)
"""An amount's first number before a hyphen and the second number, which has no symbol of its
own ("$5-10", "£1-2bn"): the second is said with the currency ("five to ten dollars", "one to
two billion pounds"; it was "five dollars ten"). A first number with cents is money of its
own ("$5.50 to $7.50")."""


def _money_range(m: re.Match[str]) -> str:
    symbol, amount, scale = m.groups()
    if "." in _plain_amount(amount) and not scale:
        return f"{symbol}{amount} to {symbol}"
    return f"{numwords.number(_plain_amount(amount))} to {symbol}"


def _money_after(m: re.Match[str]) -> str:
    minus, amount, scale, symbol = m.groups()
    symbol = _CURRENCY_CODES.get(symbol, symbol)
    return _money_before_noun(m, symbol, amount, scale) or _spoken_money(minus, symbol, amount, scale)


def _money_before_noun(m: re.Match[str], symbol: str, amount: str, scale: str | None) -> str:
    """A whole amount that describes the one thing after it: one word, in the singular ("a $20
    bill": a twenty-dollar bill, "a £5m deal": a five million-pound deal; it was "a twenty
    dollars bill"); "" where it does not ("a $5 a month plan", "a $3.50 coffee", "a $5 or so")."""
    amount = _plain_amount(amount)
    after = re.match(r" ([A-Za-z]+)", m.string[m.end() :])
    if "." in amount or not _describes_one(m, "") or not after or after[1].lower() in _NOT_DESCRIBED:
        return ""
    one = _CURRENCIES[symbol][0]
    if scale:
        return f"{numwords.number(amount)} {_SCALE_WORDS.get(scale.lower(), scale.lower())}-{one.replace(' ', '-')}"
    return _measure_before_noun(amount, one)


def _money(m: re.Match[str]) -> str:
    minus, code, amount, scale = m.groups()
    return _spoken_money(minus, _CURRENCY_CODES[code], amount, scale)


def _symbol_money(m: re.Match[str]) -> str:
    prefix, minus, symbol, amount, scale, code = m.groups()
    if prefix:
        symbol = _DOLLAR_PREFIXES[prefix]
    elif code and symbol == "$":
        symbol = _CURRENCY_CODES[code.upper()]  # "$5 AUD": the code says whose dollar
    return (not minus and _money_before_noun(m, symbol, amount, scale)) or _spoken_money(
        minus, symbol, amount, scale
    )


def _plain_amount(amount: str) -> str:
    """'1,234.56' or, written with a decimal comma, '1.234,56' -> '1234.56'."""
    if re.search(r",\d{2}$", amount) and not re.search(r",\d{3}", amount):
        return amount.replace(".", "").replace(",", ".")
    return amount.replace(",", "")


def _spoken_money(minus: str, symbol: str, amount: str, scale: str | None) -> str:
    one, many, sub_one, sub_many = _CURRENCIES[symbol]
    prefix = "minus " if minus else ""
    amount = _plain_amount(amount)
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
    r"|(?:1[ .-])?\d{3}[.-]\d{3}[.-]\d{4}|\d{3} \d{3} \d{4}|\d{3}-\d{4}"
    r"|(?:0\d{1,4}|\(0\d{1,4}\))(?: \d{3,7}){1,2}(?![.,]\d))(?![\w])"
)
"""A phone number: international ("+44 20 7946 0958"), American ("(555) 123-4567",
"555-123-4567"), or national with its leading zero in groups of ten or eleven digits, as
Britain and Australia write them ("020 7946 0958", "0161 496 0000", "07700 900123", the area's
code in brackets "(020) 7946 0958", "(03) 9123 4567"; it was "zero two zero seven thousand nine
hundred forty-six ...")."""


def _phone(m: re.Match[str]) -> str:
    text = m.group()
    count = sum(c.isdigit() for c in text)
    if text.startswith(("0", "(0")) and not 10 <= count <= 11:
        return text
    if text.startswith("+") and (count < 7 or re.fullmatch(r"\+\d+\.\d+", text)):
        return text  # a sign and a decimal, "+12.3%" (it was "plus one two, three percent")
    groups = re.findall(r"\d+", text)
    spoken = ", ".join(numwords.digits(g) for g in groups)
    return ("plus " if text.startswith("+") else "") + spoken


_AMPM = r"(?:\s?([AaPp])\.?\s?[Mm]\b\.?)"
_ZONES = r"(?:GMT|BST|UTC|CET|CEST|EET|EEST|WET|IST|[ECMP][SD]T)"
"""Time zones' letters, as papers, mail and logs write them after a time."""
_TIME_WITH_SECONDS = re.compile(
    r"(?<![\w.:])(\d{1,3}):([0-5]\d):([0-5]\d)(?:[.,](\d{1,3}))?(?:" + _AMPM + r"|(Z))?(?![\w:]|[.,]\d)"
)
"""Hours, minutes and seconds, "2:45:30", "14:45:30", "1:05:09.5", "00:00:01,500", "10:00:00Z": a
time of day or a duration (`_is_time_of_day`), every part said (the seconds were dropped: "It
took two forty-five")."""
_ZONE_AFTER = re.compile(rf" ?{_ZONES}\b")
_YEAR_JUST_BEFORE = re.compile(r"\b(?:1[6-9]|20)\d\d,? $")
_TIME = re.compile(r"\b([01]?\d|2[0-4]):([0-5]\d)(?:" + _AMPM + r"|(Z)\b)?")
_HOUR_AMPM = re.compile(r"\b(1[0-2]|0?[1-9])" + _AMPM)
_HOUR_RANGE = re.compile(r"\b(1[0-2]|0?[1-9])\s?[-\u2013]\s?(?=(?:1[0-2]|0?[1-9])" + _AMPM + ")")
"""The first hour of a range whose second has am/pm, "2-3pm", "10–11 a.m.": to."""
_DOTTED_TIME = re.compile(r"\b(1[0-2]|0?[1-9])\.([0-5]\d)" + _AMPM)
"""British '9.30 pm' (only with am/pm: otherwise it is a decimal)."""
_DEPARTURE_TIME = re.compile(
    r"\b((?i:the)\s)([01]?\d|2[0-3])\.([0-5]\d)(?=\s(?:train|bus|coach|ferry|flight|boat|tram|service"
    r"|departure|sailing|show|showing|performance|kick-off|sitting)s?\b)"
)
"""A time written with a dot, as Britain writes it, before what leaves or starts then, "the 2.10
train", "the 19.45 showing": two ten (it was "two point one zero")."""
_TIME_RANGE = re.compile(
    r"(?<=\d:\d\d)\s?[-\u2013]\s?(?=\d{1,2}:\d\d)|(?<=[AaPp][Mm])\s?[-\u2013]\s?(?=\d)"
    r"|(?<=\dh[0-5]\d)\s?[-\u2013]\s?(?=\d{1,2}h[0-5]\d\b)"  # "9h30-17h00"
)
_BY = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)(\s?(?:mm|cm|m|km|ft|in|\"))?\s?[x\u00d7]\s?"
    r"(?=\d+(?:\.\d+)?[\s-]?(?:mm|cm|m|km|ft|in|inch(?:es)?|feet|foot|\")(?!\w))"
)
"""The first of two lengths with "x" between them, a size ("4m x 5m", "a 9 x 13 inch pan", "a
9x13-inch pan"): by (it was "four meters x five meters", "nine x thirteen-inch"). Not before a
weight or a count ("2 x 500mg": times)."""
_TERM = r"\d+(?:\.\d+)?"
_PRODUCT = re.compile(
    rf"(?<![\w.])({_TERM}) ?[x\u00d7] ?"
    rf"(?={_TERM}(?: ?(?:[x\u00d7*/+]|minus) ?{_TERM})* ?(?:=|equals\b))"
)
"""The "x" between numbers in a sum whose result follows "=" ("3 x 4 = 12", "2 x 3 x 4 = 24",
"3x4=12"): times (it was "three x four equals twelve"). A size has no "=" ("a 2x4 board", "2 x
3 m": by)."""
_DOSES = re.compile(
    r"(?<![\w.])(\d{1,2}) ?[x\u00d7] ?(?=\d+(?:\.\d+)? ?(?:mg|mcg|\u00b5g|g|kg|ml|mL|l|L|oz|lbs?|IU)\b)"
)
"""A count of doses or packs before what each holds, "2 x 500mg", "6 x 330ml cans", "4 × 1 kg":
times (it was "two x five hundred milligrams")."""
_SCREEN_SIZE = re.compile(r"(?<![\w.])(\d{3,4}) ?[x\u00d7] ?(\d{3,4})(?!\w|[.,]\d)")
"""A screen's or a picture's size in pixels, "1920x1080": "nineteen twenty by ten eighty"."""
_VIDEO_LINES = re.compile(r"(?<![\w.])(240|360|480|576|720|1080|1440|2160|4320)([pi])\b")
"""A video's lines, "1080p", "720p": "ten eighty p" (it was "one thousand eighty p")."""
_TIMES = re.compile(r"(?<![=+*/(-] )(?<![=+*/(-])\b(\d+(?:\.\d+)?)x\b(?!\s*(?:[-+=*/<>)]|minus\b))")
"""'2x faster': times; not a term of an equation ("solve 2x + 3 = 7", "y = 2x": two x)."""
_SIZE_BEFORE_NOUN = re.compile(
    r"(?<![\w.$\u20ac\u00a3\u00a5-])([1-9]\d{0,2})(?: [x\u00d7] |[x\u00d7])(?=[1-9]\d{0,2}"
    r" (?:(?!(?:is|are|was|were|equals|makes|gives|and|or|plus|minus|times|divided|of|to|per"
    r"|(?:pack|can|bottle|box|bag|tablet|pill|capsule|dose|serving|cup|glass)(?:s|es)?)\b)[a-z]{3,}"
    r"|(?:and|or) [1-9]\d{0,2} ?[x\u00d7] ?\d))"
)
"""The first of two numbers with "x" between them before a noun, a size ("a 2 x 2 matrix", "a
3x3 grid", "a 4x4 truck", "5x5 workouts", "16x16 and 32x32 icons"): by (it was "two x two"). A
sum is not ("3 x 4 = 12" is `_PRODUCT`'s, "2 x 3 is 6" stays), nor a weight or a count after
("2 x 500mg", "2 x 4 packs"), a hex number ("0x01") or a name ("3 x86 tests")."""


ZONE_AFTER_AMPM = re.compile(rf"\s+(?:{_ZONES}|[ECMP]T)\b")
"""A time zone after "a.m." or "p.m.", also as American news writes it ("10 a.m. ET", "9 p.m.
PT"): the dot is the abbreviation's, not a sentence's end (it was "ten AM. ET")."""


def _ampm(m: re.Match[str], letter: str | None) -> str:
    if not letter:
        return ""
    final = (
        m.group().endswith(".")
        and re.match(ENDS_SENTENCE, m.string[m.end() :]) is not None
        and not ZONE_AFTER_AMPM.match(m.string, m.end())
    )
    # "AM", not "a m": the phonemiser reads a lone "a" as the article.
    return f" {letter.upper()}M" + ("." if final else "")


def _clock(h: int, mins: int, letter: str | None = None) -> str:
    """A time of day: 'nine oh five', 'fourteen thirty', 'ten o'clock', 'fourteen hundred'."""
    if mins == 0:
        return numwords.cardinal(h) + ("" if letter else (" o'clock" if h <= 12 else " hundred"))
    if mins < 10:
        return f"{numwords.cardinal(h)} oh {numwords.cardinal(mins)}"
    return f"{numwords.cardinal(h)} {numwords.cardinal(mins)}"


def _time(m: re.Match[str]) -> str:
    """A time of day; "14:30Z", as logs and flight plans write the hour in UTC, with its zone
    (it was "fourteen thirtyZ")."""
    hour, minute, letter, *zulu = m.groups()
    return _clock(int(hour), int(minute), letter) + (" UTC" if any(zulu) else _ampm(m, letter))


def _is_time_of_day(m: re.Match[str], hours: int, letter: str | None) -> bool:
    """Whether hours, minutes and seconds are a time of day: with am/pm, after a word that
    brings one in ("at 14:45:30", "@ 9:05:00"), before a time zone ("10:00:00 UTC"), after a
    date's year ("5 Jan 2025 10:00:00") or in a log's brackets ("[10:15:30] started"), or an
    hour past noon no word makes a duration ("14:45:30"); otherwise a duration ("It took
    2:45:30", "a 1:05:09 race")."""
    if hours > 23:
        return False
    before = m.string[max(0, m.start() - 30) : m.start()]
    if (
        letter
        or before.endswith("[")
        or _CLOCK_WORD_BEFORE.search(before)
        or _YEAR_JUST_BEFORE.search(before)
    ):
        return True
    if _ZONE_AFTER.match(m.string, m.end()):
        return True
    return hours >= 13 and not _DURATION_WORD_BEFORE.search(before)


def _listed(parts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def _time_with_seconds(m: re.Match[str]) -> str:
    """A time of day with its seconds after the minutes ("fourteen forty-five and thirty
    seconds"), or a duration in hours, minutes and seconds ("two hours, forty-five minutes
    and thirty seconds"; "1:00:05": one hour and five seconds). A part that is zero is not
    said."""
    hours, minutes, seconds, fraction, letter, zulu = m.groups()
    fraction = (fraction or "").rstrip("0")  # "00:00:01,500": one point five seconds
    amount = str(int(seconds)) + (f".{fraction}" if fraction else "")
    said_seconds = f"{numwords.number(amount)} {_quantity(amount, 'second', 'seconds')}"
    if zulu or _is_time_of_day(m, int(hours), letter):
        clock = _clock(int(hours), int(minutes), letter)
        if float(amount):
            clock += f" and {said_seconds}"
        return clock + (" UTC" if zulu else _ampm(m, letter))
    parts = [
        f"{numwords.cardinal(count)} {unit if count == 1 else unit + 's'}"
        for count, unit in ((int(hours), "hour"), (int(minutes), "minute"))
        if count
    ]
    if float(amount) or not parts:
        parts.append(said_seconds)
    return _listed(parts)


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
MONTH = (  # a month's name or short name, the group its text ("Sept", "June")
    r"(January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_ORD_SUFFIX = r"(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"(?<![\w.])([0-3]?\d){_ORD_SUFFIX}\s+(?:of\s+)?{MONTH}(?:,?\s+(\d{{4}}))?\b")
"""A day before its month, "3 May 2024"; not the end of a decimal ("coreutils 9.1 September 2022")."""
_MONTH_DAY_YEAR = re.compile(
    rf"\b{MONTH}\s+([0-3]?\d){_ORD_SUFFIX}\b(?![:.,]\d|\s?[°%])(?:,?\s+(\d{{4}})\b)?"
)
_DAY_RANGE_MONTH = re.compile(
    rf"(?<![\w.])([0-3]?\d){_ORD_SUFFIX}\s?[-\u2013]\s?([0-3]?\d){_ORD_SUFFIX}\s+(?:of\s+)?{MONTH}"
    r"(?:,?\s+(\d{4}))?\b"
)
"""Days from one to another before their month, "3-5 March", "10–12 June 2025"."""
_MONTH_DAY_RANGE = re.compile(
    rf"\b{MONTH}\s+([0-3]?\d){_ORD_SUFFIX}\s?[-\u2013]\s?([0-3]?\d){_ORD_SUFFIX}\b"
    r"(?![:.,]\d|\s?[°%])(?:,?\s+(\d{4})\b)?"
)
"""Days from one to another after their month, "Jan 3-7", "June 10–12, 2025"."""
_MONTH_YEAR = re.compile(
    r"\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec|JAN|FEB|MAR|APR|JUN|JUL|AUG|SEPT?|OCT|NOV|DEC)\.?"
    r" ((?:1[6-9]|20)\d\d)(?![\w%]|[.,]\d)"
)
"""A month's short name before a year alone, "Dec 2024", "Sept 2023", "Jan. 2020": its whole name
and the year as a year ("Dec 2024 was cold": it was "Dec twenty twenty-four", "Dec two
thousand twenty-four")."""
_ISO_DATE = re.compile(r"\b(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b")
_ISO_DATE_TIME = re.compile(
    r"\b(\d{4}-\d{2}-\d{2})[T ]([01]\d|2[0-3]):([0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?(?![\w:])"
)
"""A timestamp, "2024-03-15T10:30:00Z": the date, then the time to the minute and its zone."""
_MONTH_NAMES = list(dict.fromkeys(_MONTHS.values()))
DAYS = {
    "mon": "Monday",
    "tue": "Tuesday",
    "tues": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "thur": "Thursday",
    "thurs": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}
DAY = r"(Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?"
"""A weekday's short name, its key in DAYS the group's text in lower case."""
_WEEKDAY_DATE = re.compile(
    rf"(?i:\b(?:{DAY}|((?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)))(,?\s+)(\d{{1,2}})/(\d{{1,2}})"
    r"(?:/(\d{4}))?(?![\w/]|[.,]\d)"
)
"""A weekday before a date written with slashes, "Tue 3/4", "Mon, 12/25/2024": the weekday
says it is a date (not three quarters); in the order of the user's locale (`month_first_dates`),
unless one of the numbers cannot be a month ("Mon 25/12", "Mon 12/25")."""


_DOTTED_ZONED_TIME = re.compile(rf"(?<![\w.])([01]?\d|2[0-3])\.([0-5]\d)(?= ?{_ZONES}\b)")
"""A time written with a dot before its zone, as British papers write it ("14.32 GMT",
"09.15 BST"): a time (it was "fourteen point three two")."""
_ZONE_OFFSET = re.compile(r"(?<=\d:\d\d)((?::\d\d)?)(?: ?(?:UTC|GMT)| )([+-])([01]\d):?([0-5]\d)\b")
"""A time zone's offset after a time, as mail headers and logs write it ("10:00:00 +0000",
"09:30 -05:00", with a blank or UTC before it; "9:00-17:00" is a range): from UTC."""


def _zone_offset(m: re.Match[str]) -> str:
    seconds, sign, hours, minutes = m.groups()
    if hours == "00" and minutes == "00":
        return f"{seconds} UTC"
    spoken = numwords.cardinal(int(hours)) + (
        f" {numwords.cardinal(int(minutes))}" if minutes != "00" else ""
    )
    return f"{seconds} UTC {'plus' if sign == '+' else 'minus'} {spoken}"


_WEEKDAY_BEFORE_DATE = re.compile(rf"\b{DAY}(?=,? (?:\d{{1,2}}{_ORD_SUFFIX} {MONTH}(?!\w)|{MONTH} \d))")
"""A weekday's short name before a date, as mail headers write them ("On Mon, Jan 5, 2024",
"Sun, 5 Jan 2025"), also a day and month alone ("Wed 5 Jun"): its whole name."""


def month_name(name: str) -> str:
    """'Sept' -> 'September', 'jun' -> 'June'."""
    return _MONTHS.get(name.lower()[:4] if name.lower().startswith("sept") else name.lower()[:3], name)


def _year_tail(m: re.Match[str], year: str | None) -> str:
    if not year:
        return ""
    # "on 3 May 2024 at noon": a spoken date reads best with the year set off by commas.
    after = m.string[m.end() : m.end() + 2]
    return f", {numwords.year(int(year))}" + ("," if re.match(r" [a-z]", after) else "")


CONTEXT = 400
"""Characters either side of a match that a rule reads for its context (the words around a
figure): a window, so that a long paragraph with many matches is not read again for each."""
_THE_BEFORE = re.compile(r"\bthe\s+$", re.I)


def _the(m: re.Match[str]) -> str:
    """ "the " before a spoken date, unless the text says it already ("on the 3rd of May")."""
    return "" if _THE_BEFORE.search(m.string, max(0, m.start() - 40), m.start()) else "the "


def _day_month_year(m: re.Match[str]) -> str:
    day, month, year = m.groups()
    if not 1 <= int(day) <= 31:
        return m.group()
    return f"{_the(m)}{numwords.ordinal(int(day))} of {month_name(month)}" + _year_tail(m, year)


def _month_day_year(m: re.Match[str]) -> str:
    month, day, year = m.groups()
    if not 1 <= int(day) <= 31:
        return m.group()
    return f"{month_name(month)} {numwords.ordinal(int(day))}" + _year_tail(m, year)


def _days(first: str, last: str) -> bool:
    """Whether two numbers are days of a month from one to another (not a score, "May 3-2")."""
    return 1 <= int(first) < int(last) <= 31


def _day_range_month(m: re.Match[str]) -> str:
    """'3-5 March': the third to the fifth of March (it was "three-the fifth of March")."""
    first, last, month, year = m.groups()
    if not _days(first, last):
        return m.group()
    spoken = f"{numwords.ordinal(int(first))} to the {numwords.ordinal(int(last))} of {month_name(month)}"
    return _the(m) + spoken + _year_tail(m, year)


def _month_day_range(m: re.Match[str]) -> str:
    """'Jan 3-7': January third to seventh (it was "January third seven")."""
    month, first, last, year = m.groups()
    if not _days(first, last):
        return m.group()
    spoken = f"{month_name(month)} {numwords.ordinal(int(first))} to {numwords.ordinal(int(last))}"
    return spoken + _year_tail(m, year)


_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH_FIRST_TERRITORIES = frozenset({"US", "PH", "AS", "GU", "MP", "PR", "UM", "VI", "FM", "MH", "PW"})
"""Where a date is written month first ("12/25/2024"): the United States and its territories,
the Philippines, and the Pacific states that keep the United States' ways (Micronesia, the
Marshall Islands, Palau)."""


def month_first_dates() -> bool:
    """Whether the user's locale writes a date's month first (en_US, en_PH: "3/4/2025" is March
    fourth); elsewhere, and with no locale set ("C"), the day comes first (the third of April).
    The locale for dates is the C library's: LC_ALL, else LC_TIME, else LANG. Looked up when a
    date needs it, not at import, so tests can replace it."""
    for name in ("LC_ALL", "LC_TIME", "LANG"):
        if value := os.environ.get(name):
            territory = re.match(r"[a-z]{2,3}_([A-Z]{2})\b", value)
            return territory is not None and territory[1] in _MONTH_FIRST_TERRITORIES
    return False


def _full_year(year: str) -> str:
    """A year of two digits with its century, as the C library reads one: '26' is 2026, '85'
    is 1985 (69 to 99 are the 1900s)."""
    if len(year) != 2:
        return year
    return str((1900 if int(year) >= 69 else 2000) + int(year))


def _numeric_date(m: re.Match[str], first: str, second: str, year: str, dotted: bool = False) -> str:
    """A date of numbers, day and month in either order, then a year of two or four digits
    ("25/12/2024", "12/25/24", "05.12.2026"), or "" when it is none. Where one of the first two
    numbers cannot be a month it is the day; where both can, the user's locale says which comes
    first (`month_first_dates`), but with dots the day does: only countries that write the day
    first write dates so ("05.12.2026" in Germany, Russia, Poland)."""
    if len(year) not in (2, 4):
        return ""
    if int(first) > 12 or int(second) > 12:
        month_first = int(second) > 12
    else:
        month_first = not dotted and month_first_dates()
    return _spoken_date(m, first, second, _full_year(year), month_first)


def _spoken_date(m: re.Match[str], first: str, second: str, year: str | None, month_first: bool) -> str:
    """A date written with numbers, "3/4" (month first) or "25/12" (day first), or "" when
    it is none ("13/13", "4/31")."""
    month, day = (int(first), int(second)) if month_first else (int(second), int(first))
    if not (1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1]):
        return ""
    if month_first:
        return f"{_MONTH_NAMES[month - 1]} {numwords.ordinal(day)}" + _year_tail(m, year)
    return f"{_the(m)}{numwords.ordinal(day)} of {_MONTH_NAMES[month - 1]}" + _year_tail(m, year)


def _day_and_month(m: re.Match[str], first: str, second: str, year: str | None) -> str:
    """Two numbers of a date, in the order of the user's locale unless one cannot be a month
    ("25/12", "12/25"), or "" when they are no date."""
    month_first = int(first) <= 12 and (int(second) > 12 or month_first_dates())
    return _spoken_date(m, first, second, year, month_first)


_DATED_PAIR = re.compile(
    r"\b((?i:due|expires?|expiry|expiring|exp\.|dated|deadline|valid (?:until|through|thru)|until|till"
    r"|since|on|from|by):?\s+)(\d{1,2})/(\d{1,2})(?![\w/]|[.,]\d)(?!\s*(?:of|odds|on|the)\b)"
)
"""A date without its year after a word that brings one in, "Due 12/05", "expires 12/25", "on
12/05": the date (it was "twelve over five"). After "on", "from" or "by", which also bring in a
share ("by 3/4"), only where a number is written with two digits ("on 10/10", "on 3/04")."""


_CARD_EXPIRY = re.compile(r"(?i)exp\.|expiry|valid (?:thru|through)")
"""Words a payment card's expiry follows, "valid thru 08/27", "Exp. 12/25": a month and a year."""


def _dated_pair(m: re.Match[str]) -> str:
    word, first, second = m.groups()
    kind = word.strip().lower().rstrip(":")
    if kind in ("on", "from", "by") and max(len(first), len(second)) < 2:
        return m.group()
    if _CARD_EXPIRY.fullmatch(kind) and len(first) == len(second) == 2 and 1 <= int(first) <= 12:
        return f"{word}{_MONTH_NAMES[int(first) - 1]} {numwords.year(2000 + int(second))}"
    spoken = _day_and_month(m, first, second, None)
    return word + spoken if spoken else m.group()


def _weekday_date(m: re.Match[str]) -> str:
    short, full, between, first, second, year = m.groups()
    if not (short or full)[0].isupper():
        return m.group()  # "sat 3/4 of the way": the verb
    spoken = _day_and_month(m, first, second, year)
    if not spoken:
        return m.group()
    return (DAYS[short.lower()] if short else full.capitalize()) + between + spoken


def _iso_date_time(m: re.Match[str]) -> str:
    date, hours, minutes, zone = m.groups()
    if zone in (None, "Z"):
        zone = " UTC" if zone else ""
    else:
        offset = int(zone[1:3]) + int(zone[-2:]) / 60
        zone = "" if offset == 0 else f" UTC {'plus' if zone[0] == '+' else 'minus'} {offset:g}"
    return f"{date} at {hours}:{minutes}{zone}"


def _iso_date(m: re.Match[str]) -> str:
    year, month, day = m.groups()
    return f"{_the(m)}{numwords.ordinal(int(day))} of {_MONTH_NAMES[int(month) - 1]}" + _year_tail(m, year)


_DEGREES = re.compile(r"(?<![\w.])(-?)(" + _NUM + r")\s?°(?:\s?([CF])\b)?")
_COORDINATE = re.compile(
    r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s?°\s?(?:(\d{1,2}(?:\.\d+)?)\s?'\s?(?:(\d{1,2}(?:\.\d+)?)\s?(?:\"|''))?\s?)?"
    r"([NSEW])\b"
)
"""A latitude or a longitude, "40.7128° N", "51°30'26\"N" (`clean_unicode` makes the prime
marks quotes): degrees, minutes and seconds, and the compass point (it was "degreesN",
"thirty'N")."""
_COMPASS = {"N": "north", "S": "south", "E": "east", "W": "west"}


def _coordinate(m: re.Match[str]) -> str:
    degrees, minutes, seconds, point = m.groups()
    said = [f"{numwords.number(degrees)} {_quantity(degrees, 'degree', 'degrees')}"]
    said += [
        f"{numwords.number(n)} {_quantity(n, one, one + 's')}"
        for n, one in ((minutes, "minute"), (seconds, "second"))
        if n
    ]
    return " ".join(said) + f" {_COMPASS[point]}"


_BARE_TEMPERATURE = re.compile(r"(?<![\w.])(-?)(\d{1,3})([CF])\b(?![\w'\u2019-]|/(?!-?\d{1,3}[CF]\b))(/?)")
"""A temperature without its degree sign, as British papers and recipes write it ("highs of
40C", "heat the oven to 180C/160C fan/gas 4"): read by `_bare_temperature` where the words
around make it one."""
_TEMPERATURE_BEFORE = re.compile(
    r"(?i)\b(?:to|at|of|reach(?:ed|es|ing)?|hit(?:s|ting)?|around|about|above|below|over|under|than"
    r"|between|exceed(?:ed|ing|s)?|topped|nearly|near|almost|oven|preheat(?:ed)?)\s+$"
)
_TEMPERATURE_AFTER = re.compile(r"(?:-?\d{1,3}[CF])? fan\b")
"""A fan oven's temperature after, alone or after a slash ("160C fan", "180C/160C fan")."""
_HAIR_TYPES = re.compile(r"(?i)\bhair\b")
_SECOND_TEMPERATURE = re.compile(
    r"\b((?:Celsius|Fahrenheit)(?:,? (?:and|to|or) |, ))(-?)(\d{1,3})([CF])\b(?![\w'\u2019/-])"
)
"""The second of two temperatures without their signs, "between 18C and 22C", "180C/350F"."""


def _temperature(minus: str, amount: str, scale: str) -> str:
    return f"{_signed(minus, amount)} {_quantity(amount, 'degree', 'degrees')} {_TEMPERATURE_SCALES[scale]}"


def _bare_temperature(m: re.Match[str]) -> str:
    """'180C' after a word that brings in a measure ("to 180C", "highs of 40C") or before the
    other scale's or a fan oven's ("180C/350F", "160C fan", "180C/160C fan"): degrees (it was
    "one hundred eighty C"); a slash between two is a pause. Elsewhere a number and a letter
    stay ("Room 12C", "seat 23F", "Flat 3C/4C"), and so where the text is about hair, whose
    types run to "4C" ("from 3C to 4C hair")."""
    minus, amount, scale, slash = m.groups()
    before = m.string[max(0, m.start() - 12) : m.start()]
    other_scale = slash and re.match(rf"-?\d{{1,3}}(?!{scale})[CF]", m.string[m.end() :])
    after = _TEMPERATURE_AFTER.match(m.string, m.end())
    if not (other_scale or after or _TEMPERATURE_BEFORE.search(before)):
        return m.group()
    if _HAIR_TYPES.search(m.string, max(0, m.start() - CONTEXT), m.end() + CONTEXT):
        return m.group()
    return _temperature(minus, amount, scale) + (", " if slash else "")


_PERCENT = re.compile(r"(?<![\w.])(-?)(" + _NUM + r")\s?%")
_TEMPERATURE_SCALES = {"C": "Celsius", "F": "Fahrenheit"}

_UNITS = {
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "m/s": ("meter per second", "meters per second"),
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
    "dL": ("deciliter", "deciliters"),
    "qt": ("quart", "quarts"),
    "fl oz": ("fluid ounce", "fluid ounces"),
    "kcal": ("kilocalorie", "kilocalories"),
    "nm": ("nanometer", "nanometers"),
    "mA": ("milliamp", "milliamps"),
    "mAh": ("milliamp hour", "milliamp hours"),
    "mol": ("mole", "moles"),
    "mmol": ("millimole", "millimoles"),
    "mM": ("millimolar", "millimolar"),
    "KB": ("kilobyte", "kilobytes"),
    "kB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "TB": ("terabyte", "terabytes"),
    "KiB": ("kibibyte", "kibibytes"),
    "MiB": ("mebibyte", "mebibytes"),
    "GiB": ("gibibyte", "gibibytes"),
    "TiB": ("tebibyte", "tebibytes"),
    "KB/s": ("kilobyte per second", "kilobytes per second"),
    "kB/s": ("kilobyte per second", "kilobytes per second"),
    "MB/s": ("megabyte per second", "megabytes per second"),
    "GB/s": ("gigabyte per second", "gigabytes per second"),
    "kbps": ("kilobit per second", "kilobits per second"),
    "Kbps": ("kilobit per second", "kilobits per second"),
    "Mbps": ("megabit per second", "megabits per second"),
    "Mbit/s": ("megabit per second", "megabits per second"),
    "Gbps": ("gigabit per second", "gigabits per second"),
    "Gbit/s": ("gigabit per second", "gigabits per second"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "W": ("watt", "watts"),
    "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"),
    "V": ("volt", "volts"),
    "ms": ("millisecond", "milliseconds"),
    "microm": ("micrometer", "micrometers"),
    "micros": ("microsecond", "microseconds"),
    "microg": ("microgram", "micrograms"),
    "microl": ("microliter", "microliters"),
    "microL": ("microliter", "microliters"),
    "microA": ("microamp", "microamps"),
    "microV": ("microvolt", "microvolts"),
    "microF": ("microfarad", "microfarads"),
    "microW": ("microwatt", "microwatts"),
    "mo": ("month", "months"),
    "mos": ("month", "months"),
    "yr": ("year", "years"),
    "yrs": ("year", "years"),
    "wk": ("week", "weeks"),
    "wks": ("week", "weeks"),
    "sq ft": ("square foot", "square feet"),
    "sq m": ("square meter", "square meters"),
    "sq mi": ("square mile", "square miles"),
    "sq km": ("square kilometer", "square kilometers"),
    "tsp": ("teaspoon", "teaspoons"),
    "tbsp": ("tablespoon", "tablespoons"),
    "Tbsp": ("tablespoon", "tablespoons"),
    "mins": ("minute", "minutes"),
    "pts": ("point", "points"),
    "secs": ("second", "seconds"),
    "px": ("pixel", "pixels"),
    "sec": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "h": ("hour", "hours"),
    "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"),
}
_UNIT_SYMBOLS = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_UNIT = re.compile(
    r"(?<![\w.])(-?)(" + _NUM + r")\s?(" + _UNIT_SYMBOLS + r")(?![\w/])(\.(?=\s+[a-z]|\s+\d+\s?oz\b))?"
)
"""A number and its unit's symbol; a dot after the symbol is its abbreviation's when the
sentence goes on ("1 tsp. salt", "7 lb. 3 oz.")."""
_PER_SYMBOLS = ("kg", "g", "L", "l", "mL", "ml", "dL", "m", "km", "h", "s", "min")
_UNIT_PER_UNIT = re.compile(
    r"(?<![\w.])(-?)("
    + _NUM
    + r")\s?("
    + _UNIT_SYMBOLS
    + r")((?:/(?:"
    + "|".join(_PER_SYMBOLS)
    + r"|day|d))+)(?![\w/])"
)
"""A measure of one unit per another, as a dose or a concentration is written ("10 mg/kg",
"5 mg/dL", "2 g/L", "1 mg/kg/day"): the units' names (it was "ten mg per kilogram"). One the
table has whole ("km/h", "MB/s") is `_UNIT`'s."""


def _unit_per_unit(m: re.Match[str]) -> str:
    minus, amount, unit, pers = m.groups()
    if unit + pers in _UNITS:
        return m.group()
    names = ("day" if per in ("day", "d") else _UNITS[per][0] for per in pers[1:].split("/"))
    return f"{_signed(minus, amount)} {_quantity(amount, *_UNITS[unit])}" + "".join(
        f" per {n}" for n in names
    )


_FRACTION_OF_UNIT = re.compile(
    r"(?<![\w/.])(?:(\d{1,3}) )?(\d{1,2})/(\d{1,2})\s?(" + _UNIT_SYMBOLS + r")(?![\w/])(?:\.(?=\s+[a-z]))?"
)
"""A fraction of a unit, "1/2 tsp", "2 1/2 kg": not the number before the slash and a
quantity after it ("one/two teaspoons")."""
_NOUN_AFTER = r" (?!(?:of|or|and|to|by|per|in|on|at|for|from|with|is|was)\b)[a-z]"
"""What follows a measure that describes a noun ("a 5 km trail"): a word, but none that makes the
measure a quantity ("a 5 km or so", "a 10 m\u00b2 of floor")."""
_UNIT_BEFORE_NOUN = re.compile(
    r"(?:\b([Aa]n? |[Tt]he )|(?<![\w.,$\u20ac\u00a3\u00a5-]))(\d+(?:\.\d+)?)(?:\s?|-)(" + _UNIT_SYMBOLS + r")"
    r"(?![\w/])(?= ([A-Za-z][\w'-]*))"
)
"""A measure before a word, which `_unit_before_noun` reads as describing it where it is a noun."""
_NOT_DESCRIBED = frozenset(
    {
        *("of", "or", "and", "to", "by", "per", "in", "on", "at", "for", "from", "with", "into", "than"),
        *("is", "are", "was", "were", "be", "been", "will", "would", "can", "could", "should", "may"),
        *("might", "must", "has", "have", "had", "do", "does", "did", "that", "which", "who", "we", "you"),
        *("they", "he", "she", "it", "i", "a", "an", "the", "my", "your", "our", "their", "his", "her"),
        *("its", "this", "these", "those", "every", "each", "last", "next", "as", "but", "if", "when"),
        *("long", "wide", "tall", "high", "deep", "thick", "away", "across", "apart", "ahead", "behind"),
        *("more", "less", "left", "remaining", "total", "later", "earlier", "ago", "too", "so", "then"),
        *("now", "today", "yesterday", "tomorrow", "tonight", "there", "here", "up", "down", "off", "out"),
        *("over", "under", "only", "just", "already", "still", "yet", "again", "before", "after", "around"),
        *("about", "faster", "slower", "further", "farther", "daily", "free", "uphill", "downhill"),
    }
)
"""Words after "the" and a measure, or after a measure alone, that make the measure a quantity
("the 5km we ran", "it is 100m long", "we ran 5km today", "the 2GB left")."""
_NOT_PLURAL_NOUNS = frozenset(
    {
        *("has", "was", "is", "as", "its", "yes", "this", "thus", "plus", "perhaps", "besides"),
        *("always", "sometimes", "towards", "afterwards", "whereas", "nowadays", "costs", "equals"),
        *("weighs", "needs", "uses", "requires", "lies", "takes", "makes", "means", "seems", "remains"),
        *("gets", "goes", "does", "runs", "lasts", "counts", "matters", "helps", "works", "feels"),
        *("looks", "sounds", "depends", "fits", "holds", "adds", "gives", "saves", "becomes", "comes"),
    }
)
"""Words ending in "s" that are no plural noun ("5km is", "2GB costs")."""
_COUNTED_BY_SCALE = frozenset(
    {
        *("users", "people", "customers", "clients", "subscribers", "viewers", "views", "visitors"),
        *("visits", "downloads", "installs", "followers", "fans", "likes", "shares", "comments"),
        *("retweets", "reposts", "replies", "reactions", "upvotes", "votes", "voters", "reviews"),
        *("ratings", "members", "readers", "listeners", "plays", "streams", "players", "jobs", "homes"),
        *("households", "residents", "citizens", "patients", "cases", "deaths", "students", "employees"),
        *("workers", "passengers", "tourists", "copies", "accounts", "devices", "signups", "tickets"),
        *("orders", "requests", "transactions", "records", "rows", "tokens", "parameters", "lines"),
        *("words", "pages", "posts", "tweets", "messages", "emails", "songs", "books", "cars"),
        *("vehicles", "units", "items", "products", "steps", "miles", "dollars", "euros"),
        *("barrels", "tonnes", "tons"),
    }
)
"""Plurals that are counted in thousands and millions: after a number, a "k" before them is
thousands and an "m" millions, not meters ("100k users", "5m downloads", `_SCALED`). Not what
"K" also is before (a screen's "4K displays", a race's "5k runs"), nor what a measure in meters
describes ("5m cables", "100m sprints")."""
_ARTICLE_BEFORE = re.compile(r"\b[Aa]n? $")
_NOUN_AFTER_MEASURE = re.compile(_NOUN_AFTER)


_READING_TIME = re.compile(
    r"(?<![\w.])(\d{1,3})[\s-]?(?:min|mins|minute|minutes)\.?(?= (?:read|watch|listen)\b)"
)
"""An article's reading time, "5 min read": a five-minute read (it was "five minutes read")."""
_AGO_UNITS = {
    "s": "second",
    "sec": "second",
    "m": "minute",
    "min": "minute",
    "h": "hour",
    "hr": "hour",
    "d": "day",
    "w": "week",
    "wk": "week",
    "mo": "month",
    "y": "year",
    "yr": "year",
}
_AGO = re.compile(r"(?<![\w.])(\d{1,3}) ?(" + "|".join(_AGO_UNITS) + r")s?(?= ago\b)")
"""A post's age, "3d ago", "5m ago", "1w ago": three days (it was "three d", "five meters")."""


def _ago(m: re.Match[str]) -> str:
    count, unit = m.groups()
    word = _AGO_UNITS[unit]
    return f"{numwords.cardinal(int(count))} {word if count == '1' else word + 's'}"


def _unit_before_noun(m: re.Match[str]) -> str:
    """A measure that describes the noun after it: one word, in the singular ("a 2h race": a
    two-hour race, "the 100m sprint": the one hundred-meter sprint, "a 512GB SSD"; it was "one
    hundred meters sprint"). After "a" or "an", which cannot count the plural, before any word
    that does not make the measure a quantity ("a 5 km or so"); after "the", before a word
    that is no quantity's ("the 5km we ran"); alone, before a plural noun or a name in
    capitals ("2cm cubes", "500mg tablets", "8GB RAM"), not where it is a quantity ("it is
    100m long", "we ran 5km today", "costs 2GB of data")."""
    article, amount, unit, word = m.groups()
    one = _UNITS[unit][0]
    if " per " in one or (unit == "m" and word in _COUNTED_BY_SCALE):
        return m.group()  # "a 5 m/s wind", "a 100 Mbps link"; "5m users"
    capitals = len(word) > 1 and word[:2].isupper()
    if article and article[0] in "Aa":
        describes = _NOUN_AFTER_MEASURE.match(m.string, m.end()) is not None or word[0].isupper()
    elif article:
        describes = word.lower() not in _NOT_DESCRIBED and word != "I"
    else:
        plural = re.fullmatch(r"[a-z]+s", word) is not None and not re.search(r"(?:ss|us|is|ous|ways)$", word)
        describes = capitals or (plural and word not in _NOT_PLURAL_NOUNS)
    return (article or "") + _measure_before_noun(amount, one) if describes else m.group()


def _measure_before_noun(amount: str, one: str) -> str:
    """'five-kilometer', 'ten-square-meter': a measure as one word, in the singular."""
    return f"{numwords.number(amount)}-{one.replace(' ', '-')}"


_AREA_OR_VOLUME = re.compile(r"(?<![\w.])(?:(-?)(" + _NUM + r")\s?)?(km|cm|mm|m|mi|ft)\^([23])(?![\w^])")
"""A square or cubic unit, "12 m^2", "5 cm^3" (`clean_unicode` writes "m²" so), or one
alone ("per m^2")."""
_E_NOTATION = re.compile(r"(?<![\w.#])(\d+(?:\.\d+)?)[eE]([-+]?\d{1,3})(?!\w|\.\w)")
"""A number in E notation, as code and data write powers of ten ("1e-6", "lr=3e-4", "6.02e23"):
a power of ten (it was "one e six", the minus dropped)."""
_TIMES_POWER_OF_TEN = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) ?[x\u00d7] ?(?=10\^-?\d)")
"""A number times a power of ten, as science writes large and small ones ("5 x 10^6", "2x10^3"):
times (it was "five x ten to the power of six", "two by ten cubed")."""
_FLATTENED_POWER = re.compile(r"(?<![\w.])(\d+\.\d+ ?[x\u00d7]|\d+ ?\u00d7) ?10-(\d{1,2})(?![\w-]|[.,]\d)")
"""A power of ten whose superscript was lost in a copy, "1.5 x 10-3", "2 \u00d7 10-5" (as pasted
from a paper, "10\u207b\u00b3"): to the minus three (it was "ten to three"). Only after a decimal
and "x", or after "\u00d7": "3 x 10-12 reps" is sets of ten to twelve."""
_POWER = re.compile(r"(?<=[\w)])\^(-?)(\d{1,3})(?!\d|\.\d)")
"""A power, "x^2", "10^-3", "(a+b)^2"."""


def _area_or_volume(m: re.Match[str]) -> str:
    minus, amount, unit, power = m.groups()
    shape = "square " if power == "2" else "cubic "
    one, many = (shape + name for name in _UNITS[unit])
    if amount is None:
        return one
    if _describes_one(m, minus):
        return _measure_before_noun(amount, one)  # "a 10 m\u00b2 flat", as "a 5 km trail"
    return f"{_signed(minus, amount)} {_quantity(amount, one, many)}"


def _describes_one(m: re.Match[str], minus: str) -> bool:
    """Whether a measure stands between "a" or "an" and a noun ("a 10 m\u00b2 flat", "a 45\u00b0
    angle"): it describes the one thing, and is said as one word in the singular."""
    return (
        not minus
        and _ARTICLE_BEFORE.search(m.string, max(0, m.start() - 3), m.start()) is not None
        and _NOUN_AFTER_MEASURE.match(m.string, m.end()) is not None
    )


def _power(m: re.Match[str]) -> str:
    minus, exponent = m.groups()
    if not minus and exponent in ("2", "3"):
        return " squared " if exponent == "2" else " cubed "
    return f" to the power of {'minus ' if minus else ''}{numwords.cardinal(int(exponent))} "


def unit_names(symbol: str) -> tuple[str, str]:
    """A unit symbol's name, one and many ("microm": micrometer, micrometers)."""
    return _UNITS[symbol]


def _signed(minus: str, amount: str) -> str:
    return ("minus " if minus else "") + numwords.number(amount)


def _quantity(amount: str, one: str, many: str) -> str:
    return one if amount in ("1", "1.0") else many


def _degrees(m: re.Match[str]) -> str:
    """An angle or a temperature; an angle that describes one thing after "a" or "an" as one
    word ("a 45\u00b0 angle": a forty-five-degree angle; it was "forty-five degrees angle")."""
    minus, amount, scale = m.groups()
    if not scale and _describes_one(m, minus):
        return _measure_before_noun(amount, "degree")
    words = f"{_signed(minus, amount)} {_quantity(amount, 'degree', 'degrees')}"
    glued = m.string[m.end() : m.end() + 1].isalnum()  # "90°East" (it was "degreesEast")
    return words + (f" {_TEMPERATURE_SCALES[scale]}" if scale else "") + (" " if glued else "")


def _percent(m: re.Match[str]) -> str:
    return f"{_signed(m.group(1), m.group(2))} percent"


_PENCE = re.compile(
    r"(?<![\w.,$\u20ac\u00a3\u00a5])(\d{1,3})p\b(?![\w'\u2019]|\.\d)"
    r"(?!\s?(?:orbitals?|electrons?|sub-?shells?|shells?|states?|levels?|modes?|co-?op|players?)\b)"
)
"""Pence after a number, "50p", "a 20p coin": fifty pence (it was "fifty p"); "1080p" is a video's
lines (`_VIDEO_LINES`, before), "2p orbital" an electron's and "4p mode" a game's players."""


def _pence(m: re.Match[str]) -> str:
    amount = m.group(1)
    return f"{amount} penny" if amount == "1" else f"{amount} pence"


_PERCENTAGE_POINTS = re.compile(r"(?<![\w.,])([+-]?)(\d+(?:\.\d+)?) ?pp\b(?!\.\s*\d)(\.(?=\s+[a-z]))?")
_CHANGE_BEFORE = re.compile(r"\b(?:up|down|by|rose|fell|gained|lost)\s$")


def _percentage_points(m: re.Match[str]) -> str:
    """Percentage points as finance and polls write them, with a sign or a decimal or after a
    word of change ("+3.5 pp", "-0.2pp", "up 2 pp"; it was "pp"); not a book's pages ("320 pp.")."""
    sign, amount, _dot = m.groups()
    if not (sign or "." in amount or _CHANGE_BEFORE.search(m.string, max(0, m.start() - 8), m.start())):
        return m.group()
    spoken = _quantity(amount, "percentage point", "percentage points")
    return f"{sign}{amount} {spoken}"


_BASIS_POINTS = re.compile(r"(?<![\w.,])([+-]?)(\d+(?:\.\d+)?) ?(bps|bp)\b(?![/.]\w)")
_POINTS_OR_PAIRS = (
    (
        ("bps", "bp"),
        re.compile(
            r"(?i:\b(?:rates?|yields?|spreads?|cuts?|hikes?|hiked|raised?|lowered|bonds?|treasur\w*|gilts?"
            r"|basis|interest|coupon|inflation|mortgages?|banks?|tighten\w*|widen\w*|narrow\w*|bund|fees?"
            r"|margins?|returns?|premium|discount|libor|sofr|euribor)\b)|\b(?:Fed|ECB|BoE|BoJ|RBA)\b|%"
        ),
        ("basis point", "basis points"),
    ),
    (
        ("bps",),
        re.compile(r"(?i)\b(?:modems?|baud|serial|bandwidth|links?|connections?|bitrate|ethernet|uart)\b"),
        ("bit per second", "bits per second"),
    ),
    (
        ("bp",),
        re.compile(
            r"(?i)\b(?:dna|rna|genomes?|genomic|fragments?|reads|primers?|amplicons?|pcr|sequenc\w*|exons?"
            r"|introns?|plasmids?|inserts?|kb|nucleotides?)\b"
        ),
        ("base pair", "base pairs"),
    ),
)
"""What "bps" and "bp" after a number are where the text has a word of a kind: rates, yields and
fees (basis points), a modem (bits per second), DNA (base pairs)."""


def _basis_points(m: re.Match[str]) -> str:
    """ "25 bps", "50bp": basis points, bits per second or base pairs by the words of the text
    (`_POINTS_OR_PAIRS`); with none of them, as written (each of the three is common)."""
    sign, amount, unit = m.groups()
    names = next(
        (
            names
            for units, words, names in _POINTS_OR_PAIRS
            if unit in units and words.search(m.string, max(0, m.start() - CONTEXT), m.end() + CONTEXT)
        ),
        None,
    )
    if names is None:
        return m.group()
    one, many = names
    if (
        not sign
        and " per " not in one
        and _ARTICLE_BEFORE.search(m.string, max(0, m.start() - 3), m.start())
        and _NOUN_AFTER_MEASURE.match(m.string, m.end())
    ):
        return _measure_before_noun(amount, one)  # "a 500 bp fragment": a five hundred-base-pair fragment
    return f"{sign}{amount} {_quantity(amount, one, many)}"


_DECIMAL_COMMA = re.compile(
    r"(?<![\w.,$€£¥])(?<![$€£¥] )(\d{1,3}),(\d{1,2}|\d{4,})(?=\s?(?:(?:"
    + _UNIT_SYMBOLS
    + r")(?![\w,]|[.,]\d)|%|\u00b0))"
)
"""A decimal comma, as most of Europe writes it, before a unit's symbol, a percent or a degree
sign ("2,5 kg", "0,75 l", "1,5%"): a point. Three digits after the comma are thousands ("2,500
kg"), and a number with no unit after it ("1,5") may be a list: both stay."""


def _unit(m: re.Match[str]) -> str:
    minus, amount, unit, _dot = m.groups()
    return f"{_signed(minus, amount)} {_quantity(amount, *_UNITS[unit])}"


_DECADE = re.compile(r"(?<![\w'])(1\d|20)?(\d0)'?s\b")
_SECONDS_NOT_DECADE = re.compile(
    r"\b(?:after|every|within|wait|waits|waited|timeout|took|takes?|lasts?|for"
    r"|(?:timeout|interval|delay) (?:is|of)|(?:timeout|interval|delay):)\s+$",
    re.I,
)
"""Before "30s", a word that makes it seconds ("retry after 30s", "the timeout is 30s"), not a
decade ("the 30s")."""
_GLUED_SECONDS = re.compile(r"(?<![\w.])(\d+\.\d+|\d+)s\b(?!['\u2019])")
"""A number of seconds with the symbol glued: a decimal ("ran the 100m in 9.58s"; no plural has
a point), or a whole number after a word that makes it seconds ("wait 45s"; "in 2s and 3s"
stays a plural). It was "nine point five eight s"."""


def _glued_seconds(m: re.Match[str]) -> str:
    amount = m[1]
    if "." not in amount and not _SECONDS_NOT_DECADE.search(m.string[max(0, m.start() - 12) : m.start()]):
        return m.group()
    return f"{numwords.number(amount)} {_quantity(amount, 'second', 'seconds')}"


_SPACED_RANGE = re.compile(
    r"(?<=\d) [\u2013\u2014] (?=\d)|(?<=\d)(?:-|\s?\u2013\s?)(?=[$€£¥]\d)|(?<=\d) - (?=\d[\d,]* of \d)"
)
"""A spaced dash between two numbers or dates, "14 March 1879 – 18 April 1955", or a dash
between two amounts, "$5-$10" (it was "five dollars-ten dollars"), or a hyphen between the
first and last of a page's results, "Results 1 - 10 of 200": to."""
_FISCAL_YEAR = re.compile(r"\bFY\s?(\d{4}|\d{2})\b")
"""A fiscal year, "FY2023", "FY23"."""
_SHORT_DECADE = re.compile(r"(?<!\w)'(\d0)s\b")
_YEAR = re.compile(r"(?<![\w.,$€£¥-])(1[1-9]\d\d|20\d\d)(?![\w%]|[.,]\d)")
_COUNTED_AFTER = re.compile(
    r"\s+(?:(?![a-z]*(?:ss|us|is|ous|ways)\b|(?:has|as|its|years|yes|perhaps|besides|towards|afterwards"
    r"|whereas|does|goes|says|gets|makes|marks|begins|ends|sees|seems|remains|becomes|comes|brings"
    r"|takes|saw|shows|means|looks)\b)[a-z]+s|people|children|men|women|staff)\b"
)
"""A plural noun, so the number before it counts ("1250 people", "1999 cars")."""
_YEAR_BEFORE = re.compile(
    r"(?i)\b(?:in|since|by|the|of|from|during|until|till|before|after|circa|c|ca|between|and|to|year|'s)\.?\s+$"
)
"""A word that brings in a year: "in 1999 prices rose", "the 1999 models"."""


def _year_or_count(m: re.Match[str]) -> str:
    """A year ("nineteen ninety-nine"), or a count where a plural follows and nothing before
    brings in a year ("we had 1250 people": one thousand two hundred fifty)."""
    number = int(m.group(1))
    if number % 100 and _COUNTED_AFTER.match(m.string, m.end()):
        before = m.string[max(0, m.start() - 12) : m.start()]
        if (
            before.strip()
            and not before.rstrip().endswith((".", "!", "?"))
            and not _YEAR_BEFORE.search(before)
        ):
            return numwords.cardinal(number)
    return numwords.year(number)


_EARLY_YEAR = re.compile(
    r"\b((?:[Yy]ear|[Ii]n|[Ss]ince)\s+)(10[1-9]\d)(?![\w%]|[.,]\d)"
    r"(?!\s+(?!(?:was|is|has|as|this|its)\b)[a-z]+s\b)"
)
"""A year before 1100 after a word that brings one in ("in 1066", "the year 1066", "since
1066"); elsewhere such a number is a count ("1066 people"), and after "in" too when a plural
follows ("in 1024 bytes")."""
_ORDINAL = re.compile(r"\b(\d{1,3}(?:,\d{3})+|\d+)(st|nd|rd|th)\b", re.I)
_FRACTION = re.compile(r"(?<![\w/.])(\d{1,3})/(\d{1,3})(?![\w/]|\.\d)")
_FRACTION_WITH_SUFFIX = re.compile(r"(?<![\w/.])(\d{1,2}/\d{1,2})(?:st|nd|rd|th)s?\b")
"""A fraction written with its denominator's ordinal ending, "2/3rds", "1/3rd", "1/4th": the
fraction (it was "two thirds rds", "one or third")."""
_MIXED_NUMBER = re.compile(r"(?<![\w/.])(\d{1,3}) (\d{1,2})/(\d{1,2})(?![\w/]|\.\d)")
"""A whole number and a fraction, "2 1/2 cups": two and a half."""
_NUMBERED = re.compile(r"(?<![\w/.])(\d+)/(\d+)(?![\w/]|\.\d)")
"""Two numbers joined by a slash that are no fraction, "S.I. 2019/123", "case 17/2023"."""
_SEASON = re.compile(r"(?<![\w/.])((?:1[6-9]|20)\d\d)/(\d\d(?:\d\d)?)(?![\w/]|\.\d)")
"""A season or a fiscal year across two years, "the 2020/21 season", "1999/2000": to, as
"2024-25" is (it was "twenty twenty slash twenty-one")."""


def _season(m: re.Match[str]) -> str:
    first, second = m.groups()
    if int(second) != (int(first) + 1) % 10 ** len(second):
        return m.group()
    return f"{first} to {int(first) + 1 if second == '00' else second}"  # "1999/00": to 2000


_SLASHED_DATE = re.compile(r"\b(\d{1,4})/(\d{1,2})/(\d{2,4})\b")
_DOTTED_DATE = re.compile(r"(?<![\w.,/-])(\d{1,2})([.-])(\d{1,2})\2((?:1[6-9]|20)\d\d)(?!\w|[.,/-]\d)")
"""A date written with dots or hyphens, day and month before a year of four digits
("05.12.2026", "5-12-2026"): read as one with slashes is (it was "zero five point twelve point
two thousand twenty-six"). Not with a year of two digits, which may be a version ("1.12.10")
or a code."""
_LEADING_POINT = re.compile(r"(?<![\w.])\.(\d+)\b")
_VERSION_MARK = re.compile(r"(?<![\w.])(?i:(version )?)v(?=\d+(?:\.\d+)+(?!\w)|\d{1,2}(?!\w|\.\d))")
"""The "v" of "v2.4.1", or of "v3" (lower case: "V8" is an engine): version; after the word
itself, nothing ("Version v3.2": it was "Version version")."""
_SECONDS = re.compile(r"(?<![\w.])(-?)(" + _NUM + r") s(?=[.,;:!?)]?(?:\s|$))")
"""A number of seconds with the unit's symbol after a space, "it takes 54 s." (not "5s",
which may be a plural: "in 2s and 3s")."""
_DIGIT_CODE = re.compile(
    r"(?i)\b((?:PIN|passcode|OTP|CVV|CVC|zip(?: code)?|postcode|postal code|verification code|security code)"
    r"(?:\s+(?:is|was))?[\s:#]+)(\d{3,10})\b(?![.,]\d)"
)
"""A code that is said digit by digit, "PIN 4821", "zip code 90210"."""
_SERVICE_NUMBER = re.compile(
    r"(?i)\b((?:call|dial|ring|phone|text)\s+)(911|999|112|000|111|988|[2-8]11)\b(?![.,]\d)"
)
"""Short service numbers after a verb that dials them: "call 911" is "nine one one"."""
_GROUPED_DIGITS = re.compile(r"(?<![\w.,])\d{4}(?: \d{4}){3}(?![\w.,]|\s\d)")
"""A card number in four groups of four: digit by digit, group by group (not a list of years)."""


def _grouped_digits(m: re.Match[str]) -> str:
    groups = m.group().split()
    if all(1000 <= int(g) <= 2100 for g in groups):
        return m.group()  # "2024 2025 2026 2027"
    return ", ".join(numwords.digits(g) for g in groups)


_LONG_ID = re.compile(r"(?<![\w.,$€£¥-])(?!\d{1,3}0+\b)\d{8,}(?![\w%]|[.,]\d)")
"""Eight digits or more, not a round number: an identifier, read digit by digit (an order
number was "one hundred twenty-three billion ...")."""
_MIXED_CODE = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{8,}\b")
"""Eight characters or more of letters and digits mixed: a code, read character by character;
or a name with a number in it (`_mixed_code`)."""
_WORD_IN_NAME = re.compile(r"(?=.*[AEIOUYaeiouy])(?:[a-z]{3,}|[A-Z][a-z]{3,}|[A-Z]{4,})")
"""Letters in a name with digits that can be said as a word ("command1", "bfloat16", "num2words"):
three or more with a vowel, in one case (not "acdfhklLnNrtvV"); a code's letters are fewer
("1Z99AB1234", "INV20240015")."""


def _mixed_code(m: re.Match[str]) -> str:
    """A code character by character; a name whose letters make words, as a program's or a
    placeholder's ("expression2", "libgcrypt20", "resize2fs"), with its words said and its
    small numbers as numbers (it was spelled out, "E X P R E S S I O N two")."""
    parts = re.findall(r"\d+|[A-Za-z]+", m.group())
    letters = [p for p in parts if not p.isdigit()]
    hexadecimal = re.fullmatch(r"[0-9a-fA-F]+", m.group())  # a hash, "19dcee17a4": a code
    if (
        hexadecimal
        or not any(_WORD_IN_NAME.fullmatch(p) for p in letters)
        or not all(len(p) <= 2 or _WORD_IN_NAME.fullmatch(p) for p in letters)
    ):
        return " ".join(numwords.digits(p) if p.isdigit() else " ".join(p.upper()) for p in parts)
    return " ".join(
        (numwords.cardinal(int(p)) if len(p) <= 2 and p[0] != "0" else numwords.digits(p))
        if p.isdigit()
        else (p if _WORD_IN_NAME.fullmatch(p) else " ".join(p.upper()))
        for p in parts
    )


_CODE = re.compile(r"(?<![\w.-])\d+(?:-\d+){2,}(?![\w.-]|\.\d)")
"""Three or more numbers joined by hyphens: a code read digit by digit ("ISBN 978-3-16-1"),
not a range."""
_NO_QUANTITY_AFTER = (
    r"(?![\w%°/]|[.,:]\d|\s?[%°]|\s?(?:" + _UNIT_SYMBOLS + r")(?![\w/])"
    r"|\s(?:thousand|million|billion|trillion)\b|\s?(?:[\u2013\u2192]|->)\s?\d)"
)
"""After a number that names something: no unit, sign or scale that would make it an amount,
nor a dash or arrow to another number ("peak RSS 372 \u2192 354 MB")."""
_NAMED_BY_NUMBER = re.compile(
    r"\b(Boeing|Airbus|Flight|Room|Route|Gate|Bus|Model|Suite|Highway|Interstate|Platform|Error|Xbox) "
    r"([1-9]\d{2,3})(?:-([1-9]\d{0,3}))?(s?)" + _NO_QUANTITY_AFTER
)
"""A number after a word for the kind of thing it names ("Boeing 747-400", "Flight 370", "Room
101"): said as a name, "seven forty-seven four hundred", not as a quantity or a range.
Capitalised only: "room 911" is still a number."""
_CAPITALS_NUMBER = re.compile(
    r"(?<![\w.&/'#-])([A-Z]{2,5}|(?:[A-Z]\.){2,3}) ([1-9]\d{2,3})(?:-([1-9]\d{0,3}))?(s?)"
    + _NO_QUANTITY_AFTER
)
"""A number after a code in capitals ("SB 1047", "HTTP 404", "H.R. 3684", "ISO 8859-1"): a
name too; but not a range ("HTTP 400-499")."""
_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY"
    "|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY"
)
_STATE_ZIP = re.compile(rf"(?<=\b(?:{_STATES}) )(\d{{5}})(?:-(\d{{4}}))?\b")
"""A US address's ZIP code after its state ("Springfield, IL 62704-1234"): digit by digit."""
_DOTTED_STANDARD = re.compile(r"(?<![\w.])([A-Z]{1,5})\.([1-9]\d{0,3})(?!\w|[.,]\w)")
"""A standard's name, letters and a number joined by a dot ("X.509", "ASN.1", "H.264"), also
at a sentence's end ("not POSIX.2."): said as a name ("X five oh nine"), not a sentence's end
before a decimal."""
_LETTERS_NUMBER = re.compile(
    r"(?<![\w.&/'#-])([A-Z]{1,5}|[a-uw-z](?!-))(-?)([1-9]\d{0,3})(?:-([1-9]\d{2}))?(s?)" + _NO_QUANTITY_AFTER
)
"""A model's letters and number ("A380", "F-150", "RTX4090", "A320-200"), and their plurals
("MP3s", "B-52s"); one letter in lower case before three digits or four too ("h264", "x265",
"i386": H two sixty-four, was h two hundred sixty-four), but not a version's "v"."""
_CAPITAL_WORDS = frozenset(
    [
        "THE",
        "AND",
        "FOR",
        "OF",
        "IN",
        "ON",
        "AT",
        "TO",
        "BY",
        "OR",
        "IS",
        "ARE",
        "WAS",
        "WERE",
        "BE",
        "ALL",
        "ONLY",
        "OVER",
        "UNDER",
        "FROM",
        "WITH",
        "ABOUT",
        "SAVE",
        "WIN",
        "WON",
        "GET",
        "GOT",
        "TOP",
        "UP",
        "NO",
        "NOT",
        "YES",
        "ITS",
        "OUR",
        "YOUR",
        "MY",
        "HIS",
        "HER",
        "NEW",
        "NOW",
        "JUST",
        "LAST",
        "NEXT",
        "FIRST",
        "BEST",
        "AGE",
        "SIZE",
        "YEAR",
        "YEARS",
        "DAY",
        "DAYS",
        "PAGE",
        "STEP",
        "PART",
        "TOTAL",
        "PRICE",
        "COST",
        "SUM",
        "QTY",
        "AMT",
        "BUY",
        "PAY",
        "OFF",
        "EARN",
        "JOIN",
        "PLUS",
        "ADD",
        "AS",
        "IF",
        "SO",
        "BUT",
        "THAN",
        "THAT",
        "THIS",
        "THESE",
        "OUT",
        "MORE",
        "LESS",
        "MOST",
        "AFTER",
        "SINCE",
        "UNTIL",
        "NEAR",
        "EVERY",
        "LEVEL",
        "TIER",
        "PLAN",
        "RANK",
        "ITEM",
        "FREE",
        "CALL",
        "TEXT",
        "ONE",
        "ALSO",
        "SOLD",
        # Places and unions: "the US 435 representatives" counts them.
        "US",
        "USA",
        "UK",
        "EU",
        "UN",
        "U.S.",
        "U.S.A.",
        "U.K.",
        "E.U.",
        "U.N.",
    ]
)
"""Words of a line in capitals, and codes of places, after which a number is a quantity
("ONLY 199 LEFT", "the UK 650 constituencies")."""
_NOT_CODES = (
    frozenset([*_CURRENCY_CODES, *_UNITS, "AM", "PM", "CHF", "SEK", "NOK", "DKK", "INR", "CNY", "RMB", "BTC"])
    | _CAPITAL_WORDS
)


def _named_number(words: str, number: str, suffix: str | None, plural: str) -> str:
    """``words`` (a name or code, as written) and the number it names, said as a name."""
    spoken = numwords.name_number(number) + (f" {numwords.name_number(suffix)}" if suffix else "")
    # A lone "A" before a word is read as the article: joined, it is the letter.
    return words + ("-" if words == "A" else " ") + (numwords.plural(spoken) if plural else spoken)


def _named_by_number(m: re.Match[str]) -> str:
    name, number, suffix, plural = m.groups()
    if suffix and name not in ("Boeing", "Airbus"):
        return m.group()  # "Room 101-105": a range
    return _named_number(name, number, suffix, plural)


def _capitals_number(m: re.Match[str]) -> str:
    code, number, suffix, plural = m.groups()
    if code in _NOT_CODES or (suffix and int(suffix) > int(number)):
        return m.group()
    return _named_number(code, number, suffix, plural)


def _letters_number(m: re.Match[str]) -> str:
    letters, hyphen, number, suffix, plural = m.groups()
    if letters.islower():
        if len(number) < 3 or suffix:
            return m.group()  # "x2", "m3s", "m100-200"
        letters = letters.upper()  # "h264": no unit's symbol before a number
    elif letters in _NOT_CODES or (suffix and hyphen) or (len(number) < 3 and not plural):
        return m.group()  # "COVID-19" reads as it did; "ABC-123-456" is a part number
    return _named_number(letters, number, suffix, plural)


_SOFTWARE = (
    "Python|Node|Deno|Ruby|Rust|Java|Perl|PHP|Swift|Kotlin|Scala|Julia|Lua|Dart|Elixir|Erlang|GHC|GCC"
    "|LLVM|Clang|CUDA|TypeScript|Django|Rails|React|Angular|Vue|Flutter|Electron|Debian|Fedora|macOS|iOS"
    "|iPadOS|Android|Windows|Linux|GNOME|KDE|Plasma|Qt|GTK|Firefox|Chrome|Kubernetes|Docker|Postgres"
    "|PostgreSQL|MySQL|Redis|Blender|Gradle|Emacs|Vim|Neovim|Bash|Zsh|Terraform|NumPy|PyTorch|TensorFlow"
)
_SOFTWARE_VERSION = re.compile(
    rf"\b((?:(?:{_SOFTWARE})(?: dot js)?|[Vv]ersion|[Rr]elease) )(\d{{1,3}})\.([1-9]\d{{1,2}})"
    r"(?!\w|\.\d)" + _NO_QUANTITY_AFTER
)
"""A release of a known program, or after "version", with two digits or more after its dot:
"Python 3.11" is three point eleven, not three point one one."""
_PACKAGE_VERSION = re.compile(r"(?<![\w.-])([A-Za-z][\w+]*[A-Za-z+])-(\d{1,3})\.([1-9]\d{1,2})(?!\w|\.\d)")
"""A package's name and release joined by a hyphen, as release notes write them ("bug introduced
in coreutils-8.32"): the release is read as a version, eight point thirty-two."""
_UBUNTU_VERSION = re.compile(r"\b([KXL]?[Uu]buntu )(\d{2})\.(\d{2})(?:\.(\d{1,2}))?(?!\w|\.\d)")
"""Ubuntu's releases are named by year and month: "22.04" is twenty-two oh four."""


def _software_version(m: re.Match[str], name: str | None = None) -> str:
    said, major, minor = m.groups()
    name = name or said
    return f"{name}{numwords.cardinal(int(major))} point {numwords.cardinal(int(minor))}"


def _ubuntu_version(m: re.Match[str]) -> str:
    name, year, month, point = m.groups()
    spoken = f"{name}{numwords.cardinal(int(year))} " + (
        f"oh {numwords.cardinal(int(month))}" if month.startswith("0") else numwords.cardinal(int(month))
    )
    return spoken + (f" point {numwords.cardinal(int(point))}" if point else "")


_SLASHED_VERSION = re.compile(r"\b(HTTPS?|SPDY|RTSP|SIP|OS|PS)/(?=\d)")
"""A protocol's or a system's version after a slash, "HTTP/1.1", "HTTP/2", "OS/2", "PS/2": the
name and the number (the slash between letters is "or", as in "and/or")."""
_NAME_SLASH_NUMBER = re.compile(r"(?<=[A-Za-z+])(?<!\b[Ww])(?<!\d[CF])/(?=\d)")
"""A slash between a name and a number, "PR target/106482", "bfd/29988": said (it was "or" once
the number was words, as between two words in "yes/no"). Not between two temperatures
("180C/160C", `_bare_temperature`)."""
_SCALED = re.compile(
    r"(?<![\w.,])(" + _NUM + r")(M|bn|tn)\b"
    r"|(?<![\w.,])(\d+\.\d(?=[Kk](?![\w ])|[Kk] [a-z]+s\b)"
    rf"|\d+(?:\.\d+)?(?=[Kkm] (?:{'|'.join(sorted(_COUNTED_BY_SCALE))})\b|[Kk]\+))"
    r"([Kkm])\b"
)
"""An amount with its scale's letter: "3.5M users", "2bn", "1.2K shares", "45K likes", "(2.3K)" (a
count of thousands: it was "one point two K"); "100k users", "5m users" before what is counted
so (`_COUNTED_BY_SCALE`; it was "one hundred k users", "five meters users"), and thousands
and more ("10K+ users", "50k+"; it was "ten K plus"); not "a 5K run", "clips (2K)", "a 2.8K
display", "5m away"."""
_RATIO = re.compile(r"(?<![\w:.,])(\d{1,3}(?:,\d{3})+|\d+):(\d)(?![\w:]|[.,]\d)")
"""A ratio, "1:1", "16:9", "100:1", "1,000:1": one digit after the colon (a time has two)."""
_TIME_SHAPED_RATIO = re.compile(r"(?<![\w:.])(\d{1,2}):(\d\d)(?![\w:]|\.\d)")
"""Two numbers with a time's shape ("16:10"): a ratio where the words around say so."""
_ONE_TO_MANY = re.compile(r"(?<![\w:.])1:(\d{1,3}(?:,\d{3})+|\d{3,})(?![\w:]|[.,]\d)")
"""A ratio of one to a hundred or more, as a dilution or a map's scale has it ("a 1:1000
dilution", "1:50,000 scale"): no time has three digits after its colon (it was "one ten zero
zero"). A verse after a chapter ("Psalm 119:105") is not one."""
_RATIO_WORD_BEFORE = re.compile(r"(?i)\b(?:ratio|aspect)(?:\s+(?:of|is|was))?\s*:?\s*$")
_RATIO_WORD_AFTER = re.compile(r"(?i)\s*(?:aspect|ratio|(?:wide)?screens?|displays?|monitors?|format)\b")
_TIME_WORD_BEFORE = re.compile(r"(?i)\b(?:at|by|until|till|from|before|after|around|about)\s*$")


def _ratio(m: re.Match[str]) -> str:
    return f"{numwords.number(m.group(1).replace(',', ''))} to {numwords.cardinal(int(m.group(2)))}"


def _ratio_in_context(m: re.Match[str]) -> str:
    """ "aspect ratio 16:10", "a 16:10 screen": a ratio; otherwise left for the time rule
    ("at 10:30", and "at 10:30 screens went dark")."""
    before = m.string[max(0, m.start() - 20) : m.start()]
    if _RATIO_WORD_BEFORE.search(before):
        return _ratio(m)
    if _RATIO_WORD_AFTER.match(m.string, m.end()) and not _TIME_WORD_BEFORE.search(before):
        return _ratio(m)
    return m.group()


_PANEL_RANGE = re.compile(
    r"\b((?i:figures?|panels?|tables?|plates?)\s)(\d{1,3})([a-z])\s?[\u2013-]\s?([a-z])(?![\w-])"
)
"""A figure's panels from one letter to another, "Fig. 3b\u2013d" (`expand_abbreviations` made it
"figure 3b\u2013d"): "figure three b to d" (it was "three b, d")."""
_ONE_OF_MANY = re.compile(
    r"\b((?i:step|part|page|question|slide|episode|disc|disk|day|week|lap|stage|phase|item|task"
    r"|problem|exercise|lesson|module|chapter|volume|vol\.|thread|tweet|photo|image|picture|video)"
    r"\s+)(\d{1,3})/(\d{1,3})(?![\w/]|\.\d)"
    r"(?![ -]?(?:" + _UNIT_SYMBOLS + r"|inch(?:es)?|in|cups?|miles?|hours?)\b)"
)
"""One of a series after the word that counts it, "Step 2/5", "Part 1/3", "Question 3/10", "Day
3/30": of (it was "two fifths", "one third", "three tenths"); not a fraction of a measure ("a step
1/2 inch high")."""


def _one_of_many(m: re.Match[str]) -> str:
    word, number, count = m.group(1), int(m.group(2)), int(m.group(3))
    if not 0 < number <= count:
        return m.group()
    return f"{word}{numwords.cardinal(number)} of {numwords.cardinal(count)}"


_VANITY_NUMBER = re.compile(
    r"(?<![\w-])(?:(1)[-. ])?(8(?:00|88|77|66|55|44|33))[-.]((?:(?:[A-Z]{2,}|\d)-)*[A-Z]{3,})\b(?!-)"
)
"""A toll-free number spelled as words, "1-800-FLOWERS", "888-GOT-JUNK", also with a digit
between them, "1-877-KARS-4-KIDS": as its adverts say it, "one eight hundred flowers", "one eight
seven seven kars four kids" (it was "one to eight hundred-FLOWERS")."""


def _vanity_number(m: re.Match[str]) -> str:
    one, prefix, words = m.groups()
    said = "eight hundred" if prefix == "800" else numwords.digits(prefix)
    spoken = (numwords.cardinal(int(w)) if w.isdigit() else w.lower() for w in words.split("-"))
    return ("one " if one else "") + said + " " + " ".join(spoken)


_OUT_OF = re.compile(r"(?<![\w./])(\d{1,3}(?:\.\d)?)/(5|10|100)(?![\w/]|\.\d)")
_DAY_BEFORE = re.compile(r"(?i)\b(?:on|by|since|until|till|from|before|after)\s+$")
_RATING_BEFORE = re.compile(r"(?i)\b(?:rated|rating|score|scored|grade|marks?)\s*:?\s*$")


def _out_of(m: re.Match[str]) -> str:
    """A rating ("4.5/5", "score 9/10", "4/5 stars") is "out of"; otherwise the fraction."""
    before = m.string[max(0, m.start() - 12) : m.start()]
    after = m.string[m.end() : m.end() + 7]
    # "10/10 would recommend" (not "ten ten"); "on 10/10" is a day.
    full = m.group(1) == m.group(2) and not _DAY_BEFORE.search(before)
    if "." in m.group(1) or full or _RATING_BEFORE.search(before) or re.match(r"\s*stars?\b", after):
        return f"{numwords.number(m.group(1))} out of {numwords.number(m.group(2))}"
    return m.group()


_FEET_INCHES = re.compile(
    r"(?<![\w.'°])(\d{1,2})\s?(?:'|ft\b\.?|feet\b|foot\b)\s?(1[01]|\d)(?:\s?(?:\"|''|in\b|inch(?:es)?\b))"
    r"(?!\s+(?:the|a|an)\b)(?:\.(?=\s+[a-z]))?"
)
"""A height, "5'11\"", "6' 2\"", "5 ft 11 in": feet, then up to eleven inches (which tells it
from a quote: "the '90s", "rock 'n' roll"; and from a circle's minutes and seconds, which
follow degrees)."""
_HOURS_MINUTES = re.compile(r"(?<![\w.])(\d{1,2})h\s?([0-5]\d)(?:\s?(min|m)\b)?(?!\w)")
"""A duration in hours and minutes, "1h30", "2h 15min"; or a time of day written the French
way, "14h30" (`_is_clock`)."""
_CLOCK_WORD_BEFORE = re.compile(r"(?i)(?:\b(?:at|from|until|till|til|by|before|since)\s+|@\s*)$")
_DURATION_WORD_BEFORE = re.compile(
    r"(?i)\b(?:for|took|take|takes|taking|lasted|lasts|last|lasting|in|within|under|over|than|of)\s+$"
)
_CLOCK_RANGE_BEFORE = re.compile(r"(?i)\b(?:at|from|until|till|by)\s+\d{1,2}h[0-5]\d\s?(?:to|and)\s+$")
_CLOCK_RANGE_AFTER = re.compile(r"\s?(?:to|and)\s+(?:1[3-9]|2[0-3])h[0-5]\d\b")
_WORD_BETWEEN_NUMBERS = re.compile(r"(?<=\d)-(to|in|on|for|by|of)-(?=\d)")
"""A word hyphenated between two numbers, "9-to-5", "3-in-1", "2-for-1": said as it is."""
_FACTOR_AUTHENTICATION = re.compile(r"(?<=\b\d)FA\b")
"""'2FA' (two-factor authentication): letters, spelled; misaki read "FA" as the note "fa". Not
every pair of capitals after a number: "7UP" is "seven up"."""


def _feet_inches(m: re.Match[str]) -> str:
    if re.search(r"°\s*$", m.string[max(0, m.start() - 3) : m.start()]):
        return m.group()  # 40° 26' 5": degrees, minutes and seconds
    feet, inches = m.groups()
    return (
        f"{numwords.number(feet)} {_quantity(feet, 'foot', 'feet')} {numwords.number(inches)} "
        + _quantity(inches, "inch", "inches")
    )


def _is_clock(m: re.Match[str]) -> bool:
    """Whether "NNhMM" is a time of day: after a word that brings one in ("at 9h05", "from
    9h30 to 17h00"), or with an hour past noon ("14h30") that no word makes a duration ("for
    14h30"); an hour and minutes otherwise ("1h30")."""
    hours, _minutes, unit = m.groups()
    before = m.string[max(0, m.start() - 30) : m.start()]
    if unit or _DURATION_WORD_BEFORE.search(before):
        return False
    if _CLOCK_WORD_BEFORE.search(before) or _CLOCK_RANGE_BEFORE.search(before):
        return True
    return 13 <= int(hours) <= 23 or _CLOCK_RANGE_AFTER.match(m.string, m.end()) is not None


def _hours_minutes(m: re.Match[str]) -> str:
    hours, minutes, unit = m.groups()
    if int(hours) <= 23 and _is_clock(m):
        return _clock(int(hours), int(minutes))
    spoken = f"{numwords.number(hours)} {_quantity(hours, 'hour', 'hours')}"
    if int(minutes) == 0 and not unit:
        return spoken  # "2h00"
    return f"{spoken} {numwords.cardinal(int(minutes))}" + (" minutes" if unit else "")


_TIE_BREAK = re.compile(r"(?<![\w.-])(7-6|6-7) ?\((\d{1,2})(?:[-\u2013](\d{1,2}))?\)(?![\w(])")
"""A tennis set won in a tie-break, with its points in brackets, "7-6(5)", "6-7 (3-7)"."""
_SET_SCORE = re.compile(r"(?<![\w.-])([0-7])[-\u2013]([0-7])(?![\w-]|[.,]\d)")
"""A set's games, "6-4", in a result that has a tie-break."""


def _tennis_result(text: str) -> str:
    """A tennis result, where a set went to a tie-break: each set's games as a score, "seven
    six", the tie-break's points after it ("7-6(5)": seven six, tie-break five; it was "seven to
    six (five)"), and the other sets of the result too ("6-4": six four, not six to four)."""

    def tie_break(m: re.Match[str]) -> str:
        games, first, second = m.groups()
        points = " ".join(numwords.cardinal(int(p)) for p in (first, second) if p)
        return f"{_score(games)}, tie-break {points},"

    text = _TIE_BREAK.sub(tie_break, text)
    return _SET_SCORE.sub(lambda m: _score(m.group()), text)


def _score(games: str) -> str:
    return " ".join(numwords.cardinal(int(g)) for g in re.split(r"[-\u2013]", games))


_REFERENCE_CHAIN = re.compile(r"(?<![\w.])(\d+[A-Za-z]?)((?:-?\((?:[A-Za-z]{1,5}|\d{1,3})\))+)(?![\w(])")
"""A provision cited with its parts in brackets, "5(a)(iii)", "Article 6(1)(f)", "2(b)(1)-(2)":
each part said on its own ("five(a)" ran together into one word)."""


def _reference_chain(m: re.Match[str]) -> str:
    return m[1] + " " + m[2].replace(")-(", ") to (").replace(")(", ") (")


_BIBLE_BOOKS = (
    "Genesis|Exodus|Leviticus|Numbers|Deuteronomy|Joshua|Judges|Ruth|Samuel|Kings|Chronicles|Ezra|"
    "Nehemiah|Esther|Job|Psalms?|Proverbs|Ecclesiastes|Song of Solomon|Song of Songs|Isaiah|"
    "Jeremiah|Lamentations|Ezekiel|Daniel|Hosea|Joel|Amos|Obadiah|Jonah|Micah|Nahum|Habakkuk|"
    "Zephaniah|Haggai|Zechariah|Malachi|Matthew|Mark|Luke|John|Acts|Romans|Corinthians|Galatians|"
    "Ephesians|Philippians|Colossians|Thessalonians|Timothy|Titus|Philemon|Hebrews|James|Peter|Jude|"
    "Revelation"
)
_BIBLE_SHORT = {
    "Gen": "Genesis",
    "Exod": "Exodus",
    "Lev": "Leviticus",
    "Deut": "Deuteronomy",
    "Ps": "Psalm",
    "Prov": "Proverbs",
    "Eccl": "Ecclesiastes",
    "Isa": "Isaiah",
    "Jer": "Jeremiah",
    "Ezek": "Ezekiel",
    "Matt": "Matthew",
    "Mk": "Mark",
    "Lk": "Luke",
    "Jn": "John",
    "Rom": "Romans",
    "Cor": "Corinthians",
    "Gal": "Galatians",
    "Eph": "Ephesians",
    "Phil": "Philippians",
    "Col": "Colossians",
    "Thess": "Thessalonians",
    "Tim": "Timothy",
    "Heb": "Hebrews",
    "Rev": "Revelation",
}
_SCRIPTURE = re.compile(
    rf"\b(?:([1-3]) )?({_BIBLE_BOOKS}|(?:{'|'.join(_BIBLE_SHORT)})\.?) (\d{{1,3}}):(\d{{1,3}})"
    r"(?:\s?[-\u2013](\d{1,3}))?(?![\w:]|\.\d|\s?[AaPp]\.?[Mm]\b)"
)
"""A verse of the Bible, "John 3:16", "Psalm 23:4", "Psalm 119:105", "Genesis 1:1-3", "1 Cor.
13:4-7": its book (a short form's whole name, "First Corinthians"), its chapter, then its verse
or verses (they were read as a time or a ratio, "twenty-three to four", "one hundred
nineteen:one hundred five", "one to one to three"); not a time after a name ("Mark 10:30 pm")."""
_BOOK_ORDINALS = {"1": "First", "2": "Second", "3": "Third"}


def _scripture(m: re.Match[str]) -> str:
    part, book, chapter, verse, last = m.groups()
    book = _BIBLE_SHORT.get(book.rstrip("."), book)
    said = f"{_BOOK_ORDINALS[part] + ' ' if part else ''}{book} {numwords.cardinal(int(chapter))}, "
    if last:
        return said + f"verses {numwords.cardinal(int(verse))} to {numwords.cardinal(int(last))}"
    return said + f"verse {numwords.cardinal(int(verse))}"


_RANGE = re.compile(
    r"(?<=\d)(?:\s?\u2013\s?|-)(?=-?\d)|(?<=\d(?:st|nd|rd|th|°C|°F))\s?\u2013\s?(?=\d)|(?<=\d°)\s?\u2013\s?(?=\d)"
    r"|(?<=\d0s)\s?\u2013\s?(?=\d)"  # decades: "1980s–1990s"
    r"|(?<=\d%)(?:-|\s?\u2013\s?)(?=\d)"  # percentages: "5.25%-5.5%" (was "percentminus")
)
_MODEL_NUMBER = re.compile(r"\b([A-Za-z]{1,2}\d)-(?=\d{3,5}[A-Za-z]{0,2}\b)")
"""A processor's or a part's model, a short name with a digit, then a number ("i7-12700K",
"i5-8250U", "E5-2690"): a blank, no range (it was "i seven to twelve thousand seven hundred
K")."""
_VERSION = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?!\w|\.\d)")
"""A version or an address of three numbers or more joined by dots, "2.4.1", "10.0.0.1", also at
a sentence's end ("Update to 2.4.1.": not "two. four. one.")."""
_PLAIN = re.compile(r"(?<![\w.])(-?)(" + _NUM + r")(?![\w]|\.\d)")
_DIGIT_LETTER = re.compile(r"(?<=[A-Za-z])-?(?=\d)|(?<=\d)(?=[A-Za-z])")
_DENOMINATORS = {2: ("half", "halves"), 4: ("quarter", "quarters")}


def _decade(m: re.Match[str]) -> str:
    century, tens = m.groups()
    if century:
        return numwords.plural(numwords.year(int(century + tens)))
    if _SECONDS_NOT_DECADE.search(m.string[max(0, m.start() - 12) : m.start()]):
        return f"{numwords.cardinal(int(tens))} seconds"
    return numwords.plural(numwords.cardinal(int(tens)))


def _part(num: int, den: int, article: str) -> str:
    """A proper fraction in words, "a half" / "one half", "three quarters"."""
    if den in _DENOMINATORS:
        one, many = _DENOMINATORS[den]
    else:
        one = numwords.ordinal(den)
        many = numwords.plural(one)
    return f"{article} {one}" if num == 1 else f"{numwords.cardinal(num)} {many}"


def _mixed_number(m: re.Match[str]) -> str:
    whole, num, den = m.group(1), int(m.group(2)), int(m.group(3))
    if not 0 < num < den or den > 16:
        return m.group()
    return f"{numwords.number(whole)} and {_part(num, den, 'a')}"


def _fraction_of_unit(m: re.Match[str]) -> str:
    whole, num, den, unit = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    if not 0 < num < den or den > 16:
        return m.group()
    if num >= 10:
        return m.group()  # ten or more before the slash: no fraction of a unit
    one, many = _UNITS[unit]
    if whole:
        return f"{numwords.number(whole)} and {_part(num, den, 'a')} {many}"
    article = "an" if one[0] in "aeiou" or one.startswith("hour") else "a"
    if (num, den) == (1, 2):
        return f"half {article} {one}"
    return f"{_part(num, den, 'one')} of {article} {one}"


_FRACTION_BEFORE_MEASURE = re.compile(
    r"(?<![\w/.])(?:(\d{1,2})[ -])?(\d{1,2})/(\d{1,2})-(?=(?:inch|foot|mile|yard|hour|minute|second|day|week"
    r"|month|year|cup|pound|ounce|gallon|pint|quart|liter|litre|meter|metre|acre|ton|carat|length|size"
    r"|teaspoon|tablespoon|turn|point|page|sheet|bath)\b)"
)
"""A fraction joined to the measure it makes a word with, "3/4-inch", "1/2-inch pipe", "a 1
1/2-hour drive": one word, "three-quarter-inch", "half-inch", "one and a half-hour" (it was
"three quarters-inch", "one half-inch")."""
_FRACTION_WORDS = {2: "half", 4: "quarter"}


def _fraction_before_measure(m: re.Match[str]) -> str:
    whole, num, den = m.group(1), int(m.group(2)), int(m.group(3))
    if not 0 < num < den or den > 16:
        return m.group()
    if den in _FRACTION_WORDS:
        part = _FRACTION_WORDS[den] if num == 1 else f"{numwords.cardinal(num)}-{_FRACTION_WORDS[den]}"
    else:
        name = numwords.ordinal(den)
        part = f"{numwords.cardinal(num)}-{name if num == 1 else numwords.plural(name)}"
    part = part.replace(" ", "-")
    if whole:
        article = "an" if part[0] in "aeiou" else "a"
        part = f"{numwords.number(whole)} and {article + ' ' if num == 1 else ''}{part}"
    return part + "-"


def _shares_of_hundred(*parts: int) -> bool:
    """Whether numbers joined by slashes share out a hundred ("80/20", "60/40", "50/25/25"), a
    split said as its numbers ("the 80/20 rule": eighty twenty), not a fraction."""
    return sum(parts) == 100 and all(p > 0 and p % 5 == 0 for p in parts)


def _fraction(m: re.Match[str]) -> str:
    num, den = int(m.group(1)), int(m.group(2))
    if num == den or _shares_of_hundred(num, den):
        return f"{numwords.cardinal(num)} {numwords.cardinal(den)}"  # "50/50": fifty fifty
    if 10 <= num < den:
        return f"{numwords.cardinal(num)} slash {numwords.cardinal(den)}"  # "Windows 10/11"
    if den in _DENOMINATORS:
        one, many = _DENOMINATORS[den]
        return f"{numwords.cardinal(num)} {one if num == 1 else many}"
    if 3 <= den <= 20 and num < den:
        name = numwords.ordinal(den)
        return f"{numwords.cardinal(num)} {name if num == 1 else numwords.plural(name)}"
    return f"{numwords.cardinal(num)} over {numwords.cardinal(den)}"


def _slashed(m: re.Match[str]) -> str:
    """Three numbers joined by slashes: a date, the year last ("12/25/2024", "25/12/24",
    "3/4/2025" in the order of the user's locale, `_numeric_date`) or first ("2024/12/25");
    a hundred shared out ("40/30/30": forty thirty thirty); else each number."""
    first, second, last = m.groups()
    spoken = ""
    if len(first) <= 2:
        spoken = _numeric_date(m, first, second, last)
    elif len(first) == 4 and len(second) == len(last) == 2:
        spoken = _spoken_date(m, last, second, first, month_first=False)
    if spoken:
        return spoken
    if _shares_of_hundred(*map(int, m.groups())):
        return " ".join(numwords.cardinal(int(g)) for g in m.groups())
    return " slash ".join(numwords.year(int(g)) if len(g) == 4 else numwords.number(g) for g in m.groups())


def _dotted_date(m: re.Match[str]) -> str:
    first, separator, second, year = m.groups()
    return _numeric_date(m, first, second, year, dotted=separator == ".") or m.group()


def _plain(m: re.Match[str]) -> str:
    return _signed(m.group(1), m.group(2))


_ACCOUNTING_AMOUNT = r"\(\s?([$€£¥]?)\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:\.\d+)?|\d+\.\d+)\s?\)"
"""An amount in brackets, "(1,234)", "($1,234.56)", "(567)": how accounts write a negative one.
Four digits or more without a comma are a year ("(1990)")."""
_ACCOUNTING_CELL = re.compile(_ACCOUNTING_AMOUNT)
_NUMBER_CELL = re.compile(r"[-+(]?\s?[$€£¥]?\s?\d[\d,.]*\)?\s?%?")
_ACCOUNTING_COLUMN = re.compile(
    r"(?:^|(?<=[ \t]{2})|(?<=\t))" + _ACCOUNTING_AMOUNT + r"(?=[ \t]{2,}|\t|[ \t]*$)", re.M
)
"""An amount in brackets in a column of figures, cells two blanks apart as a statement copied
from a PDF has them ("Net loss    (1,234)    (567)"): negative where the line holds another
figure."""
_ACCOUNTING_AFTER_LABEL = re.compile(
    r"\b((?i:net|loss|losses|income|profit|balance|total|deficit|earnings|revenue|EBITDA|change):?\s)"
    r"\(\s?([$€£¥]?)\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d\d)\s?\)"
)
"""An amount in brackets, with a thousands comma or cents, after a word that labels a figure
("Net loss ($1,234.56)", "Net income: (1,234)"): negative. A list's "(3)", a year "(1990)" and
an aside "a fee ($5)" stay as they are."""


def accounting_cells(cells: list[str]) -> list[str]:
    """A table row's cells with a bracketed amount said as a negative one ("(1,234)": minus one
    thousand ...), where another cell of the row is a number too."""
    numbers = [bool(_NUMBER_CELL.fullmatch(cell)) for cell in cells]
    if sum(numbers) < 2:
        return cells
    return [f"minus {m[1]}{m[2]}" if (m := _ACCOUNTING_CELL.fullmatch(cell)) else cell for cell in cells]


def _accounting_column(m: re.Match[str]) -> str:
    line_start = m.string.rfind("\n", max(0, m.start() - CONTEXT), m.start()) + 1
    line_end = m.string.find("\n", m.end(), m.end() + CONTEXT)
    line = m.string[max(line_start, m.start() - CONTEXT) : m.end() + CONTEXT if line_end < 0 else line_end]
    if len(re.findall(r"\d[\d,.]*", line)) < 2:
        return m.group()
    return f"minus {m[1]}{m[2]}"


_NUMBER_IN_BRACKETS = re.compile(r" ?\((\d{1,3}(?:,\d{3})*|\d{1,9})( ?%)?\)")
"""A number in brackets after the same number in words, as contracts write them: "thirty (30)
days", "fifty percent (50%)" is said once."""


def _said_before(m: re.Match[str]) -> str:
    spoken = numwords.cardinal(int(m.group(1).replace(",", ""))) + (" percent" if m.group(2) else "")
    before = m.string[max(0, m.start() - len(spoken) - 1) : m.start()].lower().replace(" ", "-")
    words = spoken.replace(" ", "-")
    if before.endswith(words) and (len(before) == len(words) or not before[-len(words) - 1].isalpha()):
        return ""
    return m.group()


def read_numbers(text: str) -> str:
    """Money, phone numbers, times, dates, units, percentages, years, ordinals, decimals."""
    if not re.search(r"\d", text):
        return text
    text = _WEEKDAY_BEFORE_DATE.sub(lambda m: DAYS[m.group(1).lower()], text)
    text = _DOTTED_ZONED_TIME.sub(r"\1:\2", text)
    text = re.sub(
        r"(?:(?<=\d)|(?<=\d[a-z])) - (?=\d+(?:\.\d+)? ?=)", " minus ", text
    )  # "5 - 3 = 2", "2x - 1 = 5"
    text = _ZONE_OFFSET.sub(_zone_offset, text)
    if "(" in text:
        text = _ACCOUNTING_COLUMN.sub(_accounting_column, text)
        text = _ACCOUNTING_AFTER_LABEL.sub(r"\1minus \2\3", text)
        text = _NUMBER_IN_BRACKETS.sub(_said_before, text)
    if "," in text:
        text = _DECIMAL_COMMA.sub(r"\1.\2", text)
    text = _FLATTENED_POWER.sub(r"\1 10^-\2", text)
    text = _E_NOTATION.sub(lambda m: f"{m[1]} times 10^{m[2].lstrip('+')}", text)
    if "^" in text:
        text = _TIMES_POWER_OF_TEN.sub(r"\1 times ", text)
        text = _AREA_OR_VOLUME.sub(_area_or_volume, text)
        text = _POWER.sub(_power, text)
    text = _DEPARTURE_TIME.sub(lambda m: m[1] + _clock(int(m[2]), int(m[3])), text)
    text = _TIME_RANGE.sub(" to ", text)
    if "x" in text or "\u00d7" in text:
        text = _PRODUCT.sub(lambda m: f"{numwords.number(m[1])} times ", text)
        text = _DOSES.sub(lambda m: f"{numwords.number(m[1])} times ", text)
        text = _SCREEN_SIZE.sub(
            lambda m: f"{numwords.name_number(m[1])} by {numwords.name_number(m[2])}", text
        )
        text = _BY.sub(lambda m: f"{m[1]}{m[2] or ''} by ", text)
        text = _SIZE_BEFORE_NOUN.sub(r"\1 by ", text)
    text = _VIDEO_LINES.sub(lambda m: f"{numwords.name_number(m[1])} {m[2]}", text)
    text = re.sub(r"(?<![\w/])24/7(?![\w/])", "twenty-four seven", text)
    text = re.sub(r"(?<![\w/])9/11(?![\w/])", "nine eleven", text)
    text = re.sub(
        r"(?<![\w/.-])(\d{1,3})-\1(?![\w/.-])",
        lambda m: f"{numwords.number(m[1])}-{numwords.number(m[1])}",
        text,
    )
    text = re.sub(r"#(?=\d)", "number ", text)
    text = re.sub(r"(?<![\w~/])~\s?(?=[\d$€£¥])", "about ", text)  # "~5 min"
    text = _VERSION_MARK.sub(lambda m: m[1] or "version ", text)
    text = _SLASHED_VERSION.sub(r"\1 ", text)
    text = _NAME_SLASH_NUMBER.sub(" slash ", text)
    text = _SERVICE_NUMBER.sub(lambda m: m.group(1) + numwords.digits(m.group(2)), text)
    text = _DIGIT_CODE.sub(lambda m: m.group(1) + numwords.digits(m.group(2)), text)
    if _TIE_BREAK.search(text):
        text = _tennis_result(text)
    text = _REFERENCE_CHAIN.sub(_reference_chain, text)
    text = _SCRIPTURE.sub(_scripture, text)
    text = _COORDINATE.sub(_coordinate, text)
    text = _FEET_INCHES.sub(_feet_inches, text)
    text = _HOURS_MINUTES.sub(_hours_minutes, text)
    text = _WORD_BETWEEN_NUMBERS.sub(r" \1 ", text)
    text = _TIME_SHAPED_RATIO.sub(_ratio_in_context, text)
    text = _VANITY_NUMBER.sub(_vanity_number, text)
    text = _ONE_TO_MANY.sub(lambda m: f"one to {numwords.number(m[1].replace(',', ''))}", text)
    text = _ISO_DATE_TIME.sub(_iso_date_time, text)
    if "/" in text:
        text = _FRACTION_BEFORE_MEASURE.sub(_fraction_before_measure, text)
    text = _HOUR_RANGE.sub(r"\1 to ", text)
    text = _SPACED_RANGE.sub(" to ", text)
    text = _FISCAL_YEAR.sub(lambda m: "F Y " + (numwords.year(int(m[1])) if len(m[1]) == 4 else m[1]), text)
    text = _MONEY_RANGE.sub(_money_range, text)
    for rx, sub in (
        (_CURRENCY, _symbol_money),
        (_CODE_FIRST, _money),
        (_SYMBOL_AFTER, _money_after),
        (_PHONE, _phone),
        (_TIME_WITH_SECONDS, _time_with_seconds),
        (_TIME, _time),
        (_DOTTED_TIME, _time),
        (_HOUR_AMPM, _hour),
        (_ISO_DATE, _iso_date),
        (_DAY_RANGE_MONTH, _day_range_month),
        (_MONTH_DAY_RANGE, _month_day_range),
        (_DAY_MONTH_YEAR, _day_month_year),
        (_MONTH_DAY_YEAR, _month_day_year),
    ):
        text = rx.sub(sub, text)
    text = _MONTH_YEAR.sub(lambda m: f"{month_name(m[1])} {numwords.year(int(m[2]))}", text)
    text = _WEEKDAY_DATE.sub(_weekday_date, text)
    text = _DATED_PAIR.sub(_dated_pair, text)
    text = _DOTTED_DATE.sub(_dotted_date, text)
    text = _SLASHED_DATE.sub(_slashed, text)
    text = _PANEL_RANGE.sub(r"\1\2\3 to \4", text)
    text = _ONE_OF_MANY.sub(_one_of_many, text)
    text = _FRACTION_WITH_SUFFIX.sub(r"\1", text)
    text = _SEASON.sub(_season, text)
    text = _NUMBERED.sub(
        lambda m: m.group() if max(map(len, m.groups())) <= 3 else f"{m[1]} slash {m[2]}", text
    )
    text = _GROUPED_DIGITS.sub(_grouped_digits, text)
    text = _LONG_ID.sub(lambda m: numwords.digits(m.group()), text)
    text = _MIXED_CODE.sub(_mixed_code, text)
    text = _CODE.sub(lambda m: ", ".join(numwords.digits(g) for g in m.group().split("-")), text)
    text = _NAMED_BY_NUMBER.sub(_named_by_number, text)
    text = _STATE_ZIP.sub(
        lambda m: numwords.digits(m.group(1)) + (f", {numwords.digits(m.group(2))}" if m.group(2) else ""),
        text,
    )
    text = _DOTTED_STANDARD.sub(lambda m: f"{m.group(1)} {numwords.name_number(m.group(2))}", text)
    text = _CAPITALS_NUMBER.sub(_capitals_number, text)
    text = _LETTERS_NUMBER.sub(_letters_number, text)
    text = _SOFTWARE_VERSION.sub(_software_version, text)
    text = _PACKAGE_VERSION.sub(lambda m: _software_version(m, m[1] + " "), text)
    text = _UBUNTU_VERSION.sub(_ubuntu_version, text)
    text = _MODEL_NUMBER.sub(r"\1 ", text)
    text = _RANGE.sub(" to ", text)
    text = _SCALED.sub(
        lambda m: f"{numwords.number(m[1] or m[3])} {_SCALE_WORDS[(m[2] or m[4]).lower()]}", text
    )
    text = _RATIO.sub(_ratio, text)
    text = _OUT_OF.sub(_out_of, text)
    text = _SHORT_DECADE.sub(lambda m: numwords.plural(numwords.cardinal(int(m.group(1)))), text)
    text = _DECADE.sub(_decade, text)
    text = _GLUED_SECONDS.sub(_glued_seconds, text)
    text = _DEGREES.sub(_degrees, text)
    text = _BARE_TEMPERATURE.sub(_bare_temperature, text)
    text = _SECOND_TEMPERATURE.sub(lambda m: m[1] + _temperature(m[2], m[3], m[4]), text)
    if "p" in text:
        text = _PENCE.sub(_pence, text)
    text = _PERCENT.sub(_percent, text)
    text = _PERCENTAGE_POINTS.sub(_percentage_points, text)
    if "bp" in text:
        text = _BASIS_POINTS.sub(_basis_points, text)
    text = _FRACTION_OF_UNIT.sub(_fraction_of_unit, text)
    text = _READING_TIME.sub(lambda m: f"{numwords.cardinal(int(m[1]))}-minute", text)
    text = _AGO.sub(_ago, text)
    text = _UNIT_PER_UNIT.sub(_unit_per_unit, text)
    text = _UNIT_BEFORE_NOUN.sub(_unit_before_noun, text)
    text = _UNIT.sub(_unit, text)
    text = _SECONDS.sub(
        lambda m: f"{_signed(m.group(1), m.group(2))} {_quantity(m.group(2), 'second', 'seconds')}", text
    )
    text = _EARLY_YEAR.sub(lambda m: m.group(1) + numwords.year(int(m.group(2))), text)
    text = _YEAR.sub(_year_or_count, text)
    text = _ORDINAL.sub(lambda m: numwords.ordinal(int(m.group(1).replace(",", ""))), text)
    text = _TIMES.sub(r"\1 times", text)
    text = _FACTOR_AUTHENTICATION.sub(" F A", text)
    text = _DIGIT_LETTER.sub(" ", text)
    text = _MIXED_NUMBER.sub(_mixed_number, text)
    text = _FRACTION.sub(_fraction, text)
    text = _VERSION.sub(lambda m: " point ".join(numwords.number(p) for p in m.group().split(".")), text)
    text = _LEADING_POINT.sub(lambda m: f"point {numwords.digits(m.group(1))}", text)
    text = _PLAIN.sub(_plain, text)
    # Whatever digits are left (odd shapes like 1.2.3.4.5.6) are read one by one.
    return re.sub(r"\d+", lambda m: f" {numwords.digits(m.group())} ", text)


_ROMAN_NUMERAL = r"(?=[IVX])(X{0,3}(?:IX|IV|V?I{0,3}))"
_COUNTED_ROMAN = re.compile(
    r"\b([Cc]hapter|[Pp]art|[Vv]olume|[Bb]ook|[Aa]ct|[Ss]cene|[Pp]hase|[Ss]tage|[Ll]evel|[Tt]ype|Class|War"
    r"|[Ee]pisode|[Ss]ection|[Aa]rticle|[Aa]ppendix|Grade|Category|Apollo|Bowl|Mark|Title"
    r"|CHAPTER|PART|VOLUME|BOOK|ACT|SCENE|EPISODE|SECTION|ARTICLE|APPENDIX)\s+"  # a heading in capitals
    r"(?=[IVXL])((?:XL|LX{0,3}|X{0,3})(?:IX|IV|V?I{0,3}))\b"
)
"""A numeral after a word that counts parts, kinds or games: a number ("Chapter IV", "Title
IX", "type II diabetes", "Super Bowl LVIII"; it was "Title the ninth", "type eye eye"), to
LXXXIX; "L" and "XL" are a letter and a size ("Type L", "Type XL") but after "Bowl"."""
_LONE_ROMAN = re.compile(r"\s*(X{0,3}(?:IX|IV|V?I{0,3}))([.:)]?)\s*")
"""A numeral in capitals that is all its line says, a part's heading ("II.", "IV"): its number.
Not "I", "V" or "X" alone, which may be a word or a letter ("Who? I."); of X's alone only with
its mark ("XXX" is kisses); not in lower case, where it is as often an item's letters ("ii."
after "hh.")."""


def _counted_roman(m: re.Match[str]) -> str:
    word, numeral = m.groups()
    if numeral == "I" and word[0].islower():
        return m.group()  # "in part I think": the pronoun
    if numeral in ("L", "XL") and word != "Bowl":
        return m.group()  # "Type L", "Type XL": a letter, a size
    return f"{word} {numwords.cardinal(_roman_value(numeral))}"


_REGNAL_ROMAN = re.compile(r"\b([A-Z][a-z]+)\s+" + _ROMAN_NUMERAL + r"\b(?!')")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50}


def _roman_value(numeral: str) -> int:
    total = largest = 0
    for c in reversed(numeral):
        value = _ROMAN_VALUES[c]
        total += value if value >= largest else -value
        largest = max(largest, value)
    return total


_NUMBERED_TITLES = frozenset(
    {"Rocky", "Rambo", "Superman", "Halloween", "Vatican", "Wars", "Trek", "Fantasy", "Fighter", "Auto"}
    | {"Civilization", "Diablo", "Quest", "Souls", "Kombat", "Hearts", "Gremlins", "Tron", "Blade"}
)
"""Words a numeral after which numbers a sequel, a game or a council, not a king ("Rocky II",
"Star Wars IV", "Final Fantasy VII", "Grand Theft Auto V", "Vatican II"): two, not the second."""


def _regnal(m: re.Match[str]) -> str:
    name, numeral = m.groups()
    if name in _NUMBERED_TITLES and numeral != "I":
        return f"{name} {numwords.cardinal(_roman_value(numeral))}"
    # A lone I, V or X after a name is more often a word or a letter ("Malcolm X").
    if len(numeral) < 2:
        return m.group()
    return f"{name} the {numwords.ordinal(_roman_value(numeral))}"


_ENUMERATION = re.compile(r"(?<!\w)\((xx|x|x?(?:ix|iv|v?i{1,3}|v))\)(?=[\s.,;:)(]|$)")
"""An item numbered in lower-case Roman numerals, "(iii)", up to "(xx)"; `_enumeration` tells
from the words around whether it is one."""
_NOT_ONLY_NUMERALS = frozenset(["i", "v", "x", "iv", "vi", "ix", "xi", "xv", "xx"])
"""Numerals that are also a letter, a word or a sign ("f(x)", "(vi)" the editor); others
("(iii)", "(vii)") are only numerals."""
_ENUMERATION_BEFORE = re.compile(
    r"(?:\)\s?|^[ \t]*|(?i:\b(?:clauses?|sections?|paragraphs?|subsections?|subparagraphs?|articles?"
    r"|items?|points?|sub-paragraphs?|para|and|or|to)\s+))$",
    re.M,
)
"""Before a numbered item: another part of a reference ("5(a)(iii)"), a line's start, a word
that refers to one ("paragraph (iv)", "(ii) and (iv)")."""


def _enumeration(m: re.Match[str]) -> str:
    numeral = m.group(1)
    value = _roman_value(numeral.upper())
    lo = max(0, m.start() - 20)
    listed = f"({_roman_numeral(value - 1)})" in m.string or f"({_roman_numeral(value + 1)})" in m.string
    if numeral in _NOT_ONLY_NUMERALS and not (_ENUMERATION_BEFORE.search(m.string, lo, m.start()) or listed):
        return m.group()
    return f"({numwords.cardinal(value)})"


def _roman_numeral(n: int) -> str:
    """1 to 20 in lower-case Roman numerals ("" for 0)."""
    tens, ones = divmod(n, 10)
    return "x" * tens + ["", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"][ones]


def read_roman_numerals(text: str) -> str:
    """'World War II' -> 'World War two', 'Henry VIII' -> 'Henry the eighth' (I to XXXIX);
    numbered items, '(iii)' -> '(three)'."""
    text = _COUNTED_ROMAN.sub(_counted_roman, text)
    lone = _LONE_ROMAN.fullmatch(text) if len(text) < 12 else None
    if lone and len(lone[1]) >= 2 and (lone[2] or lone[1].strip("X")):
        return numwords.cardinal(_roman_value(lone[1].upper())) + lone[2]
    if "(" in text:
        text = _ENUMERATION.sub(_enumeration, text)
    return _REGNAL_ROMAN.sub(_regnal, text)
