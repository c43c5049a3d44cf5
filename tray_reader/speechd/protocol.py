"""speech-dispatcher's output-module protocol (0.11): replies, settings blocks, mappings.

The server writes one command per line (SPEAK, CHAR, KEY, SOUND_ICON, STOP, PAUSE, SET,
AUDIO, LOGLEVEL, DEBUG, LIST VOICES, QUIT). SPEAK-like commands and the three settings
commands are followed by a block of lines ending with a line holding a single ".", a data
line starting with "." having had one more "." put in front. A reply is one or more lines
"NNN-text" ended by "NNN text"; lines whose code starts with 7 are events, sent at any
time (700 index mark, 701 begin, 702 end, 703 stop, 704 pause). As in speech-dispatcher's
src/modules/module_process.c.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

END_OF_BLOCK = "."

LOADED = "299 OK LOADED SUCCESSFULLY"
RECEIVING_MESSAGE = "202 OK RECEIVING MESSAGE"
SPEAKING = "200 OK SPEAKING"
CANT_SPEAK = "301 ERROR CANT SPEAK"
RECEIVING_SETTINGS = "203 OK RECEIVING SETTINGS"
SETTINGS_RECEIVED = "203 OK SETTINGS RECEIVED"
RECEIVING_AUDIO = "207 OK RECEIVING AUDIO SETTINGS"
AUDIO_INITIALIZED = "203 OK AUDIO INITIALIZED"
RECEIVING_LOGLEVEL = "207 OK RECEIVING LOGLEVEL SETTINGS"
LOGLEVEL_SET = "203 OK LOGLEVEL SET"
VOICE_LIST_SENT = "200 OK VOICE LIST SENT"
CANT_LIST_VOICES = "304 CANT LIST VOICES"
QUIT = "210 OK QUIT"
UNKNOWN_COMMAND = "300 ERR UNKNOWN COMMAND"
BAD_SYNTAX = "302 ERROR BAD SYNTAX"
BAD_PARAM = "303 ERROR INVALID PARAMETER OR VALUE"
MORE_THAN_ONE_LINE = "305 DATA MORE THAN ONE LINE"

EVENT_BEGIN = "701 BEGIN"
EVENT_END = "702 END"
EVENT_STOP = "703 STOP"
EVENT_PAUSE = "704 PAUSE"


class MessageType(enum.Enum):
    TEXT = "SPEAK"  # SSML text
    CHAR = "CHAR"  # one character ("space" for a blank)
    KEY = "KEY"  # a key name such as "control_a" or "kp-enter"
    SOUND_ICON = "SOUND_ICON"  # the name of a sound icon


class Command(enum.Enum):
    SPEAK = "speak"  # SPEAK, CHAR, KEY, SOUND_ICON: a message block follows
    STOP = "stop"  # stop speaking at once (no reply; a 703 event)
    PAUSE = "pause"  # stop at the next index mark (no reply; a 704 event)
    SET = "set"  # a block of message settings follows
    AUDIO = "audio"  # a block of audio settings follows
    LOGLEVEL = "loglevel"  # a block with log_level follows
    DEBUG = "debug"  # DEBUG ON FILE | DEBUG OFF
    LIST_VOICES = "list voices"  # LIST VOICES [language [variant]]
    QUIT = "quit"  # reply, then exit
    UNKNOWN = "unknown"  # anything else: 300


@dataclass(frozen=True)
class Parsed:
    """One command line, understood."""

    command: Command
    """What it asks."""
    message_type: MessageType | None = None
    """For SPEAK: which kind of message follows."""
    args: tuple[str, ...] = ()
    """Words after the command (LIST VOICES' language and variant, DEBUG's)."""


def parse_command(line: str) -> Parsed:
    """The command on a line (without its newline), as module_process.c matches them."""
    for kind in MessageType:
        if line == kind.value:
            return Parsed(Command.SPEAK, kind)
    simple = {
        "STOP": Command.STOP,
        "PAUSE": Command.PAUSE,
        "SET": Command.SET,
        "AUDIO": Command.AUDIO,
        "LOGLEVEL": Command.LOGLEVEL,
        "QUIT": Command.QUIT,
    }
    if line in simple:
        return Parsed(simple[line])
    if line.startswith("LIST VOICES"):
        return Parsed(Command.LIST_VOICES, args=tuple(line[len("LIST VOICES") :].split()))
    if line.startswith("DEBUG"):
        return Parsed(Command.DEBUG, args=tuple(line[len("DEBUG") :].split()))
    return Parsed(Command.UNKNOWN)


def unescape_data_line(line: str) -> str:
    """A message line as sent, with its leading dot-escape removed."""
    return line[1:] if line.startswith(".") else line


def parse_settings(lines: Iterable[str]) -> tuple[dict[str, str], bool]:
    """`name=value` lines of a SET/AUDIO/LOGLEVEL block: (settings, whether every line was
    well formed). A value of "NULL" (unset) is kept as it is."""
    settings: dict[str, str] = {}
    ok = True
    for line in lines:
        name, sep, value = line.partition("=")
        if not sep or not name or not value:
            ok = False
            continue
        settings[name] = value
    return settings, ok


def reply(code: int, *lines: str, last: str) -> str:
    """A multi-line reply: each of ``lines`` as "code-line", then "code last"."""
    return "".join(f"{code}-{line}\n" for line in lines) + f"{code} {last}\n"


def mark_event(name: str) -> str:
    return reply(700, name, last="INDEX MARK")


def voice_line(name: str, language: str, variant: str = "none") -> str:
    """One voice of a LIST VOICES reply (without its code)."""
    return f"{name}\t{language}\t{variant}"


SPEED_MIN, SPEED_MAX = 0.5, 2.0
"""Speeds that speech-dispatcher's rates -100 and 100 map to (the model's useful range)."""


def rate_to_speed(rate: int) -> float:
    """speech-dispatcher's rate (-100..100, 0 normal) as tray-reader's speed: a factor of
    two either way, even steps in log scale (as espeak's words per minute feel)."""
    rate = max(-100, min(100, rate))
    return float(2.0 ** (rate / 100.0))


def volume_to_gain(volume: int) -> float:
    """speech-dispatcher's volume (-100..100; its default configuration sends 100) as the
    player's gain, 0..1 linearly: the player cannot amplify without clipping."""
    volume = max(-100, min(100, volume))
    return (volume + 100) / 200.0


PITCH_OCTAVES = 0.5
"""How far speech-dispatcher's pitch -100 and 100 move the voice: half an octave down or up."""


def pitch_to_factor(pitch: int) -> float:
    """speech-dispatcher's pitch (-100..100, 0 normal) as a factor on the voice's f0."""
    pitch = max(-100, min(100, pitch))
    return float(2.0 ** (PITCH_OCTAVES * pitch / 100.0))


def parse_int(value: str, low: int = -100, high: int = 100) -> int | None:
    """An integer setting in [low, high], or None when it is not one."""
    try:
        number = int(value.strip())
    except ValueError:
        return None
    return number if low <= number <= high else None


VOICE_TYPES = {
    "MALE2": "am_michael",
    "MALE3": "bm_george",
    "FEMALE1": "af_heart",
    "FEMALE2": "bf_emma",
    "FEMALE3": "af_bella",
    "CHILD_MALE": "am_puck",
    "CHILD_FEMALE": "af_sky",
}
"""The stock voice each of speech-dispatcher's voice types (`spd-say -t`) picks. MALE1 is
missing on purpose: it is the type the server sends when nobody chose one, so it means
the user's default tray-reader voice."""


def voice_language(name: str) -> str:
    """The language of a stock voice from its name's first letter; en-US otherwise
    (enrolled and mixed voices speak through the American front end)."""
    return "en-GB" if name[:1] == "b" and name[2:3] == "_" else "en-US"
