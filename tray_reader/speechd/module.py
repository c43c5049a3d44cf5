"""The output module's command loop: speech-dispatcher's commands on stdin, replies and
events on stdout (see `protocol` for the wire format).

The loop never dies of its input (speech-dispatcher would lose the desktop's voice): a
malformed line gets the protocol's error reply, binary junk is decoded with replacement
characters and its control characters dropped, a message over MAX_MESSAGE_CHARS is read to
its end and spoken up to that length, and the module exits when stdin closes or on QUIT.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import Prosody
from tray_reader.speechd import protocol, spoken, ssml
from tray_reader.speechd.protocol import Command, MessageType
from tray_reader.speechd.speaker import Speaker, Voice
from tray_reader.speechd.spoken import Capitals, Punctuation

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 200_000
"""Longest message spoken (about three hours of speech); the rest is read and dropped."""

MODULE_NAME = "tray-reader"

ReadLine = Callable[[], bytes]
"""Returns the next line from the server with its newline, b"" at the end of input."""


@dataclass(frozen=True)
class MessageSettings:
    """The settings speech-dispatcher sends before each message (SET)."""

    rate: int = 0
    """-100..100, 0 normal."""
    pitch: int = 0
    """-100..100, 0 the voice's own."""
    volume: int = 100
    """-100..100 (speech-dispatcher's default configuration sends 100)."""
    punctuation: Punctuation = Punctuation.NONE
    """Which symbols are named."""
    spelling: bool = False
    """Spell every message letter by letter."""
    capitals: Capitals = Capitals.NONE
    """How capital letters are marked in CHAR messages and spelling."""
    voice_type: str | None = None
    """MALE1 ... CHILD_FEMALE (`spd-say -t`)."""
    language: str | None = None
    """Language tag such as "en" or "en-GB" (`spd-say -l`)."""
    synthesis_voice: str | None = None
    """A voice by name from LIST VOICES (`spd-say -y`)."""


_ENUMS: dict[str, tuple[str, type]] = {
    "punctuation_mode": ("punctuation", Punctuation),
    "cap_let_recogn": ("capitals", Capitals),
}
_INTS = {"rate": "rate", "pitch": "pitch", "volume": "volume"}
_IGNORED = {"pitch_range"}
"""Accepted and not used: the voice's own pitch range is kept."""


def apply_settings(current: MessageSettings, values: dict[str, str]) -> tuple[MessageSettings, bool]:
    """``current`` with a SET block's values applied; False when some value was invalid
    (the valid ones still apply, as speech-dispatcher's modules do)."""
    ok = True
    changes: dict[str, object] = {}
    for name, value in values.items():
        if name in _INTS:
            number = protocol.parse_int(value)
            if number is None:
                ok = False
            else:
                changes[_INTS[name]] = number
        elif name in _ENUMS:
            field_name, kind = _ENUMS[name]
            try:
                changes[field_name] = kind(value.lower())
            except ValueError:
                ok = False
        elif name == "spelling_mode":
            if value.lower() not in ("on", "off"):
                ok = False
            else:
                changes["spelling"] = value.lower() == "on"
        elif name == "voice":
            changes["voice_type"] = None if value == "NULL" else value.upper()
        elif name in ("language", "synthesis_voice"):
            changes[name] = None if value == "NULL" else value
        elif name not in _IGNORED:
            ok = False
    return replace(current, **changes), ok  # type: ignore[arg-type]


class VoiceCatalog:
    """The voices the module offers: tray-reader's stock and enrolled/mixed voices."""

    def __init__(self, library: object | None = None) -> None:
        from tray_reader.voices.library import VoiceLibrary

        self.library = library if isinstance(library, VoiceLibrary) else VoiceLibrary()
        self._packs: dict[str, np.ndarray] = {}
        self._names: list[str] | None = None

    def names(self) -> list[str]:
        if self._names is None:
            self._names = [v.name for v in self.library.list()]
        return self._names

    def default(self) -> str:
        from tray_reader.speak import DEFAULT_VOICE

        return self.library.default_voice() or DEFAULT_VOICE

    def choose(self, settings: MessageSettings) -> str:
        """The voice a message is spoken in: the one named, else the voice type's, else the
        user's default (British English asks for a British voice)."""
        names = self.names()
        if settings.synthesis_voice and settings.synthesis_voice in names:
            return settings.synthesis_voice
        by_type = protocol.VOICE_TYPES.get(settings.voice_type or "")
        if by_type in names:
            return str(by_type)
        if (settings.language or "").lower() in ("en-gb", "en-uk") and "bf_emma" in names:
            return "bf_emma"
        return self.default()

    def pack(self, name: str) -> np.ndarray:
        if name not in self._packs:
            self._packs[name] = self.library.pack(name)
        return self._packs[name]

    def speed(self, name: str) -> float:
        """The speaking rate an enrolled voice was matched at."""
        return self.library.info(name).speed

    def prosody(self, name: str) -> Prosody:
        """The pitch level and range an enrolled voice was matched at."""
        return self.library.info(name).prosody

    def envelope(self, name: str) -> EnvelopeMap | None:
        """An enrolled voice's envelope map (None for none)."""
        return self.library.info(name).envelope


class OutputModule:
    """Reads commands, answers them, hands messages to the speaker."""

    def __init__(self, speaker: Speaker, voices: VoiceCatalog, write: Callable[[str], None]) -> None:
        self.speaker = speaker
        self.voices = voices
        self._write = write
        self.settings = MessageSettings()
        self._debug_handler: logging.Handler | None = None

    # -- the loop -------------------------------------------------------------------------------
    def run(self, read_line: ReadLine) -> int:
        """Serve until QUIT or the end of input; 0, or 3 when the server did not begin with
        INIT (as speech-dispatcher's own modules exit)."""
        try:
            first = read_line()
            if _text(first) != "INIT":
                print("ERROR: Server did not start with INIT", file=sys.stderr)
                return 3
            self._send(
                protocol.reply(299, "tray-reader: the model is loading and warming", last=protocol.LOADED[4:])
            )
            while True:
                line = read_line()
                if not line:
                    return 0
                if not self.handle(_text(line), read_line):
                    return 0
        finally:
            self.speaker.close()

    def handle(self, line: str, read_line: ReadLine) -> bool:
        """Answer one command line; False once the module should exit."""
        parsed = protocol.parse_command(line)
        command = parsed.command
        if command is Command.SPEAK:
            assert parsed.message_type is not None
            return self._speak(parsed.message_type, read_line)
        if command is Command.STOP:
            self.speaker.stop()
        elif command is Command.PAUSE:
            self.speaker.pause()
        elif command is Command.SET:
            return self._settings_block(read_line, protocol.RECEIVING_SETTINGS, self._apply_set)
        elif command is Command.AUDIO:
            return self._settings_block(read_line, protocol.RECEIVING_AUDIO, self._apply_audio)
        elif command is Command.LOGLEVEL:
            return self._settings_block(read_line, protocol.RECEIVING_LOGLEVEL, self._apply_loglevel)
        elif command is Command.LIST_VOICES:
            self._list_voices(parsed.args)
        elif command is Command.DEBUG:
            self._debug(parsed.args)
        elif command is Command.QUIT:
            self._send(protocol.QUIT + "\n")
            return False
        else:
            self._send(protocol.UNKNOWN_COMMAND + "\n")
        return True

    def _send(self, text: str) -> None:
        self._write(text)

    # -- blocks --------------------------------------------------------------------------------
    def _block(self, read_line: ReadLine, limit: int | None = None) -> tuple[list[str], int, bool]:
        """The lines up to ".": (lines kept, lines read, whether the block ended before
        the input did). Beyond ``limit`` characters lines are read and dropped."""
        lines: list[str] = []
        kept = count = 0
        while True:
            raw = read_line()
            if not raw:
                return lines, count, False
            line = _text(raw)
            if line == protocol.END_OF_BLOCK:
                return lines, count, True
            count += 1
            line = protocol.unescape_data_line(line)
            if limit is None or kept < limit:
                line = line if limit is None else line[: limit - kept]
                kept += len(line) + 1
                lines.append(line)
            elif count % 1000 == 1:
                log.warning("message longer than %d characters: the rest is not spoken", limit)

    def _settings_block(self, read_line: ReadLine, ack: str, apply: Callable[[dict[str, str]], str]) -> bool:
        self._send(ack + "\n")
        lines, _, ended = self._block(read_line, MAX_MESSAGE_CHARS)
        if not ended:
            return False
        values, ok = protocol.parse_settings(lines)
        answer = apply(values)
        self._send((answer if ok else protocol.BAD_SYNTAX) + "\n")
        return True

    def _apply_set(self, values: dict[str, str]) -> str:
        self.settings, ok = apply_settings(self.settings, values)
        return protocol.SETTINGS_RECEIVED if ok else protocol.BAD_PARAM

    def _apply_audio(self, values: dict[str, str]) -> str:
        if values.get("audio_output_method") == "server":
            # Declined: the server then sends its own audio settings and the module plays
            # the audio itself, straight to the device (see speaker.py for why).
            return protocol.reply(300, "tray-reader plays its audio itself", last="MODULE ERROR").rstrip("\n")
        return protocol.AUDIO_INITIALIZED

    def _apply_loglevel(self, values: dict[str, str]) -> str:
        level = protocol.parse_int(values.get("log_level", ""), 0, 5)
        if level is None:
            return protocol.BAD_PARAM
        logging.getLogger("tray_reader").setLevel(
            [logging.CRITICAL, logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG, logging.DEBUG][
                level
            ]
        )
        return protocol.LOGLEVEL_SET

    # -- messages ------------------------------------------------------------------------------
    def _speak(self, kind: MessageType, read_line: ReadLine) -> bool:
        self._send(protocol.RECEIVING_MESSAGE + "\n")
        lines, count, ended = self._block(read_line, MAX_MESSAGE_CHARS)
        if not ended:
            return False
        text = "\n".join(lines)
        if not text:
            self._send(protocol.CANT_SPEAK + "\n")
            return True
        if kind is not MessageType.TEXT and count > 1:
            self._send(protocol.MORE_THAN_ONE_LINE + "\n")
            return True
        try:
            segments, voice = self._message(kind, text)
        except Exception as e:  # noqa: BLE001 - a message we cannot prepare must not end the module
            log.warning("cannot speak that message: %s", e)
            self._send(protocol.CANT_SPEAK + "\n")
            return True
        self._send(protocol.SPEAKING + "\n")
        self.speaker.speak(segments, voice)
        return True

    def _message(self, kind: MessageType, text: str) -> tuple[list[ssml.Segment], Voice]:
        s = self.settings
        if kind is MessageType.TEXT:
            segments = ssml.segments(text)
            segments = [_shape(seg, s) for seg in segments]
        elif kind is MessageType.CHAR:
            segments = [ssml.Speech(spoken.char_text(ssml.clean_text(text), s.capitals))]
        elif kind is MessageType.KEY:
            segments = [ssml.Speech(spoken.key_text(ssml.clean_text(text), s.capitals))]
        else:
            segments = []  # a sound icon: tray-reader has no sounds; begin and end are reported
        name = self.voices.choose(s)
        pack = self.voices.pack(name)
        speed = protocol.rate_to_speed(s.rate) * self.voices.speed(name)
        speed = min(protocol.SPEED_MAX, max(protocol.SPEED_MIN, speed))
        own = self.voices.prosody(name)
        pitch = own.pitch * protocol.pitch_to_factor(s.pitch)
        voice = Voice(
            pack, speed, protocol.volume_to_gain(s.volume), pitch, own.spread, self.voices.envelope(name)
        )
        return segments, voice

    def _list_voices(self, args: tuple[str, ...]) -> None:
        language = args[0].lower() if args else None
        variant = args[1].lower() if len(args) > 1 else None
        lines = []
        for name in self.voices.names():
            tag = protocol.voice_language(name)
            if language and language not in (tag.lower(), tag.split("-")[0].lower()):
                continue
            if variant and variant != "none":
                continue
            lines.append(protocol.voice_line(name, tag))
        if lines:
            self._send(protocol.reply(200, *lines, last=protocol.VOICE_LIST_SENT[4:]))
        else:
            self._send(protocol.CANT_LIST_VOICES + "\n")

    def _debug(self, args: tuple[str, ...]) -> None:
        if args[:1] == ("ON",) and len(args) >= 2:
            try:
                handler = logging.FileHandler(args[1])
            except OSError:
                self._send("303 CANT OPEN CUSTOM DEBUG FILE\n")
                return
            self._drop_debug()
            self._debug_handler = handler
            logging.getLogger("tray_reader").addHandler(handler)
            self._send("200 OK DEBUGGING ON\n")
        elif args[:1] == ("OFF",):
            self._drop_debug()
            self._send("200 OK DEBUGGING OFF\n")
        else:
            self._send(protocol.BAD_SYNTAX + "\n")

    def _drop_debug(self) -> None:
        if self._debug_handler is not None:
            logging.getLogger("tray_reader").removeHandler(self._debug_handler)
            self._debug_handler.close()
            self._debug_handler = None


def _shape(segment: ssml.Segment, s: MessageSettings) -> ssml.Segment:
    if not isinstance(segment, ssml.Speech):
        return segment
    text = spoken.spell(segment.text, s.capitals) if s.spelling else segment.text
    return ssml.Speech(spoken.with_punctuation(text, s.punctuation))


def _text(line: bytes) -> str:
    """A line from the server as text, without its newline."""
    return line.decode("utf-8", errors="replace").rstrip("\r\n")


class LineWriter:
    """Writes protocol text to a binary stream whole, one writer at a time (replies from the
    loop, events from the speaker's threads)."""

    def __init__(self, stream: object) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.broken = False

    def __call__(self, text: str) -> None:
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(text.encode("utf-8"))  # type: ignore[attr-defined]
                self._stream.flush()  # type: ignore[attr-defined]
            except (BrokenPipeError, OSError, ValueError):
                self.broken = True  # the server went away; the loop ends at the end of input


def serve(threads: int | None = None) -> int:
    """`tray-reader speechd-module`: load and warm the model at once, then serve on
    stdin/stdout."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="tray-reader module: %(message)s")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Nothing but the protocol may reach stdout: stray prints go to stderr.
    sys.stdout = sys.stderr
    write = LineWriter(stdout)
    voices = VoiceCatalog()
    speaker = make_engine_speaker(write, voices, threads)
    return OutputModule(speaker, voices, write).run(stdin.readline)


def make_engine_speaker(write: Callable[[str], None], voices: VoiceCatalog, threads: int | None) -> Speaker:
    from tray_reader import config
    from tray_reader.audio.player import Player, PlayerConfig
    from tray_reader.speech.synthesis import Synthesizer, load_synthesizer
    from tray_reader.speechd.speaker import EngineSpeaker

    fast = config.load(create=False).settings.fast_model
    warm = voices.pack(voices.default())
    # A short device latency: a screen reader stops speech on every key press.
    # Kept open between bursts of speech: reopening costs a few ms each time.
    player = Player(config=PlayerConfig(latency_ms=20.0, end_pad_ms=60.0, idle_close_s=120.0))

    def unspliced() -> Synthesizer:
        # Not yet for speech-dispatcher: a full test run heard its spliced read of a mark
        # before every word garbled, which no run alone reproduced (docs/benchmarks.md).
        synthesizer = load_synthesizer(threads, fast, warm)
        synthesizer.splice = False
        return synthesizer

    return EngineSpeaker(write, unspliced, player)
