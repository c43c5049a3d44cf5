"""Command line: parses arguments and hands them to the parts. Nothing else lives here."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO, TextIO, cast

from tray_reader import __version__
from tray_reader.errors import AudioDeviceError, OutputError, TrayReaderError

SAMPLE_TEXT = (
    "Hello! This is tray-reader. Select any text, press Control Alt R, and I will read it to you, "
    "fully offline."
)


def _number_in(what: str, low: float, high: float, unit: str = "") -> Callable[[str], float]:
    """An argparse type: a number from `low` to `high`, with a message naming `what`."""
    allowed = f"from {low:g} to {high:g}{unit}"

    def parse(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a number {allowed}, got {value!r}") from None
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"{what} must be {allowed}, got {value}")
        return number

    return parse


def _threads(value: str) -> int:
    """An argparse type: inference threads, as settings.toml's `threads` allows (0: automatic)."""
    from tray_reader.config import MAX_THREADS

    try:
        number = int(value)
    except ValueError:
        number = -1
    if not 0 <= number <= MAX_THREADS:
        raise argparse.ArgumentTypeError(
            f"threads must be a whole number from 0 (automatic) to {MAX_THREADS}, got {value!r}"
        )
    return number


_speed = _number_in("speed", 0.5, 2.0)


def _read_text(args_text: Sequence[str]) -> str:
    if list(args_text) == ["-"]:
        from tray_reader.documents import decode_text

        return decode_text(sys.stdin.buffer.read())
    return " ".join(args_text)


def _document_parts(file: str, start: str | None) -> Iterator[str]:
    """The document's text from ``start`` on, in parts: the first read now (a DocumentError
    comes before the model loads), the rest as the reading goes (`speak.say`)."""
    from pathlib import Path

    from tray_reader.documents import document_parts

    parts = document_parts(Path(file), start)
    return itertools.chain([next(parts)], parts)


def _one_source(args: argparse.Namespace) -> None:
    """Text or a document (--file, and --from in it), not both."""
    if args.file and args.text:
        raise TrayReaderError("give either text or --file, not both")
    if not args.file and args.start is not None:
        raise TrayReaderError(f"--from {args.start} needs a document to start in: give it with --file FILE")


def cmd_say(args: argparse.Namespace) -> int:
    from tray_reader import speak

    if args.show_text and args.out is not None:
        raise TrayReaderError("--show-text prints the text and makes no audio: leave out --out")
    _one_source(args)
    text: str | Iterator[str]
    if args.file:
        text = _document_parts(args.file, args.start)
    else:
        text = _read_text(args.text) if args.text else SAMPLE_TEXT
    if args.show_text:
        for line in speak.show_text(text):
            print(line)
        return 0
    try:
        speak.say(text, voice=args.voice, speed=args.speed, out=args.out, threads=args.threads)
    except AudioDeviceError as e:
        raise AudioDeviceError(f"{e} Or write the speech to a file: --out speech.wav") from None
    return 0


def cmd_voices(args: argparse.Namespace) -> int:
    from tray_reader.voices import commands
    from tray_reader.voices.library import VoiceLibrary

    commands.list_voices(VoiceLibrary())
    return 0


def cmd_devices(args: argparse.Namespace) -> int:
    from tray_reader.audio.devices import describe_devices

    for line in describe_devices():
        print(line)
    return 0


def cmd_voice(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tray_reader.voices import commands
    from tray_reader.voices.library import VoiceLibrary

    lib = VoiceLibrary()
    what = args.voice_command
    if what in (None, "list"):
        commands.list_voices(lib)
    elif what == "add":
        text = args.text
        if args.text_file is not None:
            from tray_reader.documents import read_text_file

            text = read_text_file(Path(args.text_file))
            if not text.strip():
                raise TrayReaderError(
                    f"{args.text_file} is empty: put the words the recording says in it, "
                    "or leave out --text-file to have them recognised"
                )
        commands.add(lib, args.name, Path(args.file), text, args.yes, args.budget, args.threads)
    elif what == "record":
        commands.record_and_add(lib, args.name, args.yes, args.budget, args.seconds, threads=args.threads)
    elif what == "use":
        commands.use(lib, args.name)
    elif what == "rename":
        commands.rename(lib, args.old, args.new)
    elif what == "remove":
        commands.remove(lib, args.name)
    elif what == "export":
        commands.export(lib, args.name, Path(args.file))
    elif what == "import":
        commands.import_voice(lib, Path(args.file), args.name)
    elif what == "mix":
        commands.mix(lib, args.name, args.parts, args.speed or 1.0)
    return 0


_budget = _number_in("budget", 0, 3600, " seconds")
_seconds = _number_in("seconds", 5, 600, " seconds")
"""From the least speech enrolment takes (voices.preprocess.MIN_SPEECH_SECONDS) to the most of
a recording it reads (DECODE_MAX_SECONDS)."""


def _add_voice_commands(sub: argparse._SubParsersAction) -> None:
    voice = sub.add_parser("voice", help="your voices: list add record use rename remove export import mix")
    voice.set_defaults(func=cmd_voice, voice_command=None)
    vs = voice.add_subparsers(dest="voice_command")
    vs.add_parser("list", help="stock and your voices, with enrolment scores (* = default)")
    add = vs.add_parser(
        "add",
        help="make a voice that sounds like a recording (WAV, FLAC, OGG, MP3; M4A and others with ffmpeg)",
    )
    add.add_argument("name")
    add.add_argument("file")
    said = add.add_mutually_exclusive_group()
    said.add_argument(
        "--text",
        help="the words said in the recording, or a text it reads part of (renders and rate use them)",
    )
    said.add_argument(
        "--text-file", help="the same, from a text file (UTF-8, or UTF-16 with a byte order mark)"
    )
    rec = vs.add_parser("record", help="record yourself reading a passage, then make a voice from it")
    rec.add_argument("name")
    rec.add_argument(
        "--seconds", type=_seconds, default=None, help="longest recording, in seconds (default 60)"
    )
    for p in (add, rec):
        p.add_argument("--yes", action="store_true", help="confirm: your voice, or used with permission")
        p.add_argument(
            "--budget",
            type=_budget,
            default=None,
            help="time for the blend search and the style fit together, in seconds (default 70, less on a computer too slow to end enrolment in about two minutes)",
        )
        p.add_argument("--threads", type=_threads, default=None, help="inference threads (default: cores)")
    use = vs.add_parser("use", help="make NAME the default voice")
    use.add_argument("name")
    ren = vs.add_parser("rename", help="rename one of your voices")
    ren.add_argument("old")
    ren.add_argument("new")
    rm = vs.add_parser("remove", help="delete one of your voices")
    rm.add_argument("name")
    exp = vs.add_parser("export", help="write a voice to one file (.npz)")
    exp.add_argument("name")
    exp.add_argument("file")
    imp = vs.add_parser("import", help="add a voice from an exported file")
    imp.add_argument("file")
    imp.add_argument("--name", default=None, help="store it under another name")
    mix = vs.add_parser("mix", help="blend voices by hand: mix NAME af_sarah:0.6 bf_emma:0.4")
    mix.add_argument("name")
    mix.add_argument("parts", nargs="+", metavar="VOICE:WEIGHT")
    mix.add_argument("--speed", type=_speed, default=None, help="speaking speed of the mix, 0.5 to 2.0")


def cmd_autostart(args: argparse.Namespace) -> int:
    from tray_reader import autostart

    if args.action == "on":
        print(f"autostart on: {autostart.enable()}")
    elif args.action == "off":
        was_on = autostart.is_enabled()
        path = autostart.disable()
        print(f"autostart off: removed {path}" if was_on else f"autostart off: it was not on ({path})")
    else:
        state = "on" if autostart.is_enabled() else "off"
        print(f"autostart {state}: {autostart.current_entry().path}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tray_reader import daemon
    from tray_reader.files import output_place_problem

    settings = Path(args.settings) if args.settings else None
    # A settings file given by hand is read, or written with the defaults where it does not
    # exist yet: the same places a written file cannot go cannot hold it.
    if settings is not None and (problem := output_place_problem(settings, "settings.toml")):
        raise TrayReaderError(f"--settings: {problem}")
    return daemon.run_daemon(settings)


def cmd_ctl(args: argparse.Namespace) -> int:
    import json

    from tray_reader import control
    from tray_reader.commands import check

    cmd = args.ctl_command
    rest = list(args.args)
    if cmd == "document" and rest:
        rest[0] = os.path.abspath(rest[0])  # the daemon's working folder is not this one
    text: str | BinaryIO | None = None
    if cmd in ("read", "queue") and rest:
        # Streamed after the request, in pieces: a text of any length, stdin included.
        text = sys.stdin.buffer if rest == ["-"] else " ".join(rest)
        rest = []
    check(cmd, rest)  # a missing or extra argument is said here, whether the daemon runs or not
    reply = control.send(control.socket_path(), cmd, rest, text=text)
    if not reply.get("ok"):
        print(f"tray-reader: {reply.get('error', 'refused')}", file=sys.stderr)
        return 1
    if cmd == "status":
        reply.pop("ok", None)
        print(json.dumps(reply, indent=2))
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    _one_source(args)
    if args.file:
        if args.queue:
            raise TrayReaderError("a document is read now, not queued: leave out --queue")
        # The daemon reads the file (a book is larger than one request may be): say where.
        args.ctl_command, args.args = (
            "document",
            [os.path.abspath(args.file), *([args.start] if args.start else [])],
        )
        return cmd_ctl(args)
    if not args.text:
        raise TrayReaderError("give the text to read, '-' for stdin, or --file FILE")
    args.ctl_command = "queue" if args.queue else "read"
    args.args = list(args.text)
    return cmd_ctl(args)


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tray_reader import export

    export.export_document(
        Path(args.file),
        Path(args.out),
        voice=args.voice,
        speed=args.speed,
        per_chapter=args.per_chapter,
        subtitles=args.subtitles,
        start=args.start,
        threads=args.threads,
    )
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from tray_reader import doctor

    if args.build_fast_model:
        from tray_reader.model import build

        return build.build_command(None, args.threads or 2, check=False, force=False, out=print)
    lines, problems = doctor.report()
    print("\n".join(lines))
    return 1 if problems else 0


def cmd_speechd_module(args: argparse.Namespace) -> int:
    from tray_reader.speechd import module

    return module.serve(args.threads)


def cmd_speechd(args: argparse.Namespace) -> int:
    from tray_reader.speechd import install

    if args.action == "install":
        for line in install.install(
            install.UserDirs.from_environment(), install.module_command(args.module_command)
        ):
            print(line)
    elif args.action == "remove":
        for line in install.remove(install.UserDirs.from_environment()):
            print(line)
    else:
        print(install.status(install.UserDirs.from_environment()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tray-reader", description="Reads selected text aloud, offline.")
    p.add_argument("--version", action="version", version=f"tray-reader {__version__}")
    sub = p.add_subparsers(dest="command")

    say = sub.add_parser("say", help="speak text (or stdin with '-') now, or write an audio file")
    say.add_argument("text", nargs="*", help="text to speak; '-' reads stdin")
    say.add_argument(
        "--voice",
        default=None,
        help="voice name (default: settings.toml's, else the one `voice use` chose, else af_heart)",
    )
    say.add_argument("--speed", type=_speed, default=None, help="0.5 to 2.0 (default 1.0)")
    say.add_argument(
        "--out", metavar="FILE.wav", help="write an audio file (.wav .flac .ogg .mp3) instead of playing"
    )
    say.add_argument("--show-text", action="store_true", help="print the normalised chunks; no audio")
    say.add_argument("--threads", type=_threads, default=None, help="inference threads (default: cores)")
    say.add_argument("-f", "--file", help="read a document: .txt .md .html .pdf .epub")
    say.add_argument(
        "--from", dest="start", metavar="N", help="with --file: start at sentence N or chapter:N"
    )
    say.set_defaults(func=cmd_say)

    export = sub.add_parser("export", help="make an audiobook: a document to audio files and subtitles")
    export.add_argument("file", help="the document: .txt .md .html .pdf .epub")
    export.add_argument("--out", required=True, metavar="BOOK.ogg", help="output: .ogg .wav .flac .mp3")
    export.add_argument("--per-chapter", action="store_true", help="one audio file per chapter")
    export.add_argument(
        "--subtitles", choices=["srt", "vtt", "none"], default="srt", help="subtitles beside each file"
    )
    export.add_argument(
        "--voice",
        default=None,
        help="voice name (default: settings.toml's, else the one `voice use` chose, else af_heart)",
    )
    export.add_argument("--speed", type=_speed, default=None, help="0.5 to 2.0 (default 1.0)")
    export.add_argument("--from", dest="start", metavar="N", help="start at sentence N or chapter:N")
    export.add_argument("--threads", type=_threads, default=None, help="inference threads (default: cores)")
    export.set_defaults(func=cmd_export)

    voices = sub.add_parser("voices", help="list the voices (same as: voice list)")
    voices.set_defaults(func=cmd_voices)
    _add_voice_commands(sub)

    auto = sub.add_parser("autostart", help="start tray-reader at login: on, off, or show the status")
    auto.add_argument("action", choices=["on", "off", "status"], nargs="?", default="status")
    auto.set_defaults(func=cmd_autostart)

    run = sub.add_parser("run", help="start the tray daemon (the default with no command)")
    run.add_argument(
        "--settings", metavar="FILE.toml", help="settings file (default: the platform config dir)"
    )
    run.set_defaults(func=cmd_run)

    from tray_reader.commands import COMMANDS

    ctl = sub.add_parser(
        "ctl",
        help="control the running daemon: " + "|".join(COMMANDS),
        epilog="commands:\n" + "\n".join(f"  {name:<10} {c.help}" for name, c in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ctl.add_argument("ctl_command", choices=list(COMMANDS), metavar="COMMAND", help="|".join(COMMANDS))
    ctl.add_argument("args", nargs="*", help="voice NAME, speed X, read/queue [TEXT|-]")
    ctl.set_defaults(func=cmd_ctl)

    read = sub.add_parser("read", help="have the running daemon read TEXT ('-' reads stdin)")
    read.add_argument("text", nargs="*", help="text to read; '-' reads stdin")
    read.add_argument("--queue", action="store_true", help="add to the queue instead of interrupting")
    read.add_argument("-f", "--file", help="have the daemon read a document: .txt .md .html .pdf .epub")
    read.add_argument(
        "--from", dest="start", metavar="N", help="with --file: start at sentence N or chapter:N"
    )
    read.set_defaults(func=cmd_read)

    devices = sub.add_parser("devices", help="list the audio output devices (* marks the default)")
    devices.set_defaults(func=cmd_devices)

    module = sub.add_parser(
        "speechd-module", help="speech-dispatcher output module (speech-dispatcher starts it)"
    )
    module.add_argument("config", nargs="?", help="module configuration file (ignored; given by the server)")
    module.add_argument("--threads", type=_threads, default=None, help="inference threads (default: cores)")
    module.set_defaults(func=cmd_speechd_module)

    speechd = sub.add_parser(
        "speechd", help="make tray-reader a speech-dispatcher voice: install|remove|status"
    )
    speechd.add_argument("action", choices=["install", "remove", "status"], nargs="?", default="status")
    speechd.add_argument(
        "--command",
        dest="module_command",
        default=None,
        help="command that starts the module (default: this Python running tray_reader.cli speechd-module)",
    )
    speechd.set_defaults(func=cmd_speechd)

    doctor = sub.add_parser("doctor", help="print versions, devices, model checks and fixes for problems")
    doctor.add_argument(
        "--build-fast-model",
        action="store_true",
        help="build the faster derived decoder once (about a minute; used from the next start)",
    )
    doctor.add_argument("--threads", type=_threads, default=None, help="threads for --build-fast-model")
    doctor.set_defaults(func=cmd_doctor)
    return p


class _CheckedOutput:
    """The command's stdout: a write that fails (a full disk, a device that refuses it) is an
    OutputError saying so, one line instead of an OSError's traceback. A closed pipe stays a
    BrokenPipeError: the reader went away (`| head`), which `main` ends quietly."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(_output_failed(e)) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(_output_failed(e)) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _output_failed(e: OSError) -> str:
    return f"cannot write the output: {e.strerror or e}"


LONG_RUNNING = ("run", "speechd-module")
"""Commands that run until told to end: their stdout stays as it is (the daemon's exit guard
flushes it expecting an OSError at most)."""

INTERRUPTED_EXIT = 128 + 2
"""Ctrl+C's exit code, as a shell reports a command that SIGINT ended."""

BROKEN_PIPE_EXIT = 128 + 13
"""What a shell reports for coreutils killed by SIGPIPE: the output was not all written."""


def _interrupted(error: BaseException) -> bool:
    """Whether a KeyboardInterrupt led to ``error`` (a native module's initialisation
    reports one as "ImportError: initialization failed", raised from it)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _say_error(message: str) -> None:
    with contextlib.suppress(OSError):  # stderr may be unwritable too: the exit code still says it
        print(f"tray-reader: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    stdout = sys.stdout
    sys.stdout = cast(TextIO, _CheckedOutput(stdout))
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit:  # --help, --version: what they printed is checked too
            sys.stdout.flush()
            raise
        if args.command is None:
            args = parser.parse_args(["run"])
        if args.command in LONG_RUNNING:
            sys.stdout = stdout  # a log or a protocol, which their own code ends on a failure
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # what is still buffered fails here, not unseen at exit
        return code
    except TrayReaderError as e:
        _say_error(str(e))
        return 2
    except KeyboardInterrupt:
        return INTERRUPTED_EXIT
    except ImportError as e:
        if _interrupted(e):  # Ctrl+C while a native module loads: onnxruntime makes it this
            return INTERRUPTED_EXIT
        raise
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`): said nothing, as coreutils do;
        # what is still buffered goes nowhere instead of failing again at exit.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        return BROKEN_PIPE_EXIT
    except OSError as e:  # a file no part above turned into its own error: still one line
        _say_error(f"{e.strerror or e}" + (f": {e.filename}" if e.filename else ""))
        return 1
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
