"""The SSML speech-dispatcher hands to modules, as what to say, where its marks are and
where to pause.

speech-dispatcher sends every message as SSML (a client's plain text is escaped and put in
<speak>); Orca and others add <mark/>s to follow progress. This reads it tolerantly (a
client's SSML can be malformed): tags are recognised by a pattern, never by an XML parser
that would give up on the whole message. Honoured: <mark name>, <break time|strength>,
<say-as interpret-as="characters|tts:char|spell">, <p>/<s> (a sentence break). Other tags
are dropped, their text kept.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from tray_reader.speechd.spoken import spell


@dataclass(frozen=True)
class Speech:
    """Text to say."""

    text: str


@dataclass(frozen=True)
class Mark:
    """An index mark: reported back when the speech before it has been heard."""

    name: str


@dataclass(frozen=True)
class Pause:
    """Silence, in seconds."""

    seconds: float


Segment = Speech | Mark | Pause

MAX_BREAK = 5.0
"""Longest <break> honoured, seconds (a typo such as time="5000s" must not mute the desktop)."""

_TAG = re.compile(
    r"<(/?)([A-Za-z][\w:.-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>|<!--.*?-->|<\?.*?\?>", re.S
)
_ATTR = re.compile(r"([\w:.-]+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'>/]+)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
_STRENGTH = {"none": 0.0, "x-weak": 0.1, "weak": 0.2, "medium": 0.4, "strong": 0.7, "x-strong": 1.0}
_SPELLED = {"characters", "tts:char", "spell", "letters"}


def _attributes(text: str) -> dict[str, str]:
    return {k.lower(): html.unescape(v.strip("\"'")) for k, v in _ATTR.findall(text)}


def break_seconds(attrs: dict[str, str]) -> float:
    """A <break>'s length: its time ("250ms", "1.5s"), else its strength (default medium)."""
    time = attrs.get("time", "").strip().lower()
    match = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)\s*(ms|s)?", time)
    if match:
        value = float(match.group(1))
        seconds = value / 1000.0 if match.group(2) in (None, "ms") else value
        return min(MAX_BREAK, seconds)
    return _STRENGTH.get(attrs.get("strength", "").strip().lower(), _STRENGTH["medium"])


def clean_text(text: str) -> str:
    """Text without control characters (binary junk) and with entities resolved."""
    return _CONTROL.sub(" ", html.unescape(text))


def segments(ssml: str) -> list[Segment]:
    """The message as speech, marks and pauses, in order; neighbouring speech joined."""
    out: list[Segment] = []
    spelled = 0  # depth of <say-as> that spell their content

    def say(text: str) -> None:
        if not text:
            return
        text = clean_text(text)
        if spelled:
            text = spell(text)
        if not text.strip():
            if out and isinstance(out[-1], Speech):
                out[-1] = Speech(out[-1].text + " ")
            return
        if out and isinstance(out[-1], Speech):
            out[-1] = Speech(out[-1].text + text)
        else:
            out.append(Speech(text))

    say_as_stack: list[bool] = []
    pos = 0
    for match in _TAG.finditer(ssml):
        say(ssml[pos : match.start()])
        pos = match.end()
        closing, name, rest, empty = (
            match.group(1),
            (match.group(2) or "").lower(),
            match.group(3),
            match.group(4),
        )
        if not name:
            continue  # a comment or processing instruction
        attrs = _attributes(rest or "")
        if name == "mark" and not closing and attrs.get("name"):
            out.append(Mark(attrs["name"]))
        elif name == "break" and not closing:
            out.append(Pause(break_seconds(attrs)))
        elif name == "say-as":
            if closing:
                if say_as_stack and say_as_stack.pop():
                    spelled -= 1
            elif not empty:
                spells = attrs.get("interpret-as", "").lower() in _SPELLED
                say_as_stack.append(spells)
                spelled += spells
        elif name in ("p", "s") and closing:
            last = out[-1] if out else None
            ended = isinstance(last, Speech) and last.text.rstrip()[-1:] in ".!?:;"
            say(" " if ended else ". ")
    say(ssml[pos:])
    return [s for s in out if not (isinstance(s, Speech) and not s.text.strip())]


def plain_text(ssml: str) -> str:
    """Only what is said, marks and pauses dropped."""
    return " ".join(s.text.strip() for s in segments(ssml) if isinstance(s, Speech))
