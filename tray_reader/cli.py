"""Command line: parses arguments and hands them to the parts. Nothing else lives here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tray_reader import __version__
from tray_reader.errors import TrayReaderError

SAMPLE_TEXT = (
    "Hello! This is tray-reader. Select any text, press Control Alt R, and I will read it to you, "
    "fully offline."
)


def _speed(value: str) -> float:
    try:
        speed = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"speed must be a number from 0.5 to 2.0, got {value!r}") from None
    if not 0.5 <= speed <= 2.0:
        raise argparse.ArgumentTypeError(f"speed must be from 0.5 to 2.0, got {value}")
    return speed


def _read_text(args_text: Sequence[str]) -> str:
    if list(args_text) == ["-"]:
        data = sys.stdin.buffer.read()
        return data.decode("utf-8", errors="replace")
    return " ".join(args_text)


def cmd_say(args: argparse.Namespace) -> int:
    from tray_reader import speak

    text = _read_text(args.text) if args.text else SAMPLE_TEXT
    if args.show_text:
        for line in speak.show_text(text):
            print(line)
        return 0
    speak.say(text, voice=args.voice, speed=args.speed, out=args.out, threads=args.threads)
    return 0


def cmd_voices(args: argparse.Namespace) -> int:
    from tray_reader import model_files

    for v in model_files.stock_voices():
        print(f"{v.name:<14} {v.language:<14} {v.gender}")
    return 0


def cmd_autostart(args: argparse.Namespace) -> int:
    from tray_reader import autostart

    if args.action == "on":
        print(f"autostart on: {autostart.enable()}")
    elif args.action == "off":
        print(f"autostart off: removed {autostart.disable()}")
    else:
        state = "on" if autostart.is_enabled() else "off"
        print(f"autostart {state}: {autostart.current_entry().path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tray-reader", description="Reads selected text aloud, offline.")
    p.add_argument("--version", action="version", version=f"tray-reader {__version__}")
    sub = p.add_subparsers(dest="command")

    say = sub.add_parser("say", help="speak text (or stdin with '-') now, or write a WAV")
    say.add_argument("text", nargs="*", help="text to speak; '-' reads stdin")
    say.add_argument("--voice", default=None, help="voice name (default: from settings, else af_heart)")
    say.add_argument("--speed", type=_speed, default=None, help="0.5 to 2.0 (default 1.0)")
    say.add_argument("--out", metavar="FILE.wav", help="write a WAV file instead of playing")
    say.add_argument("--show-text", action="store_true", help="print the normalised chunks; no audio")
    say.add_argument("--threads", type=int, default=None, help="inference threads (default: cores)")
    say.set_defaults(func=cmd_say)

    voices = sub.add_parser("voices", help="list the voices")
    voices.set_defaults(func=cmd_voices)

    auto = sub.add_parser("autostart", help="start tray-reader at login: on, off, or show the status")
    auto.add_argument("action", choices=["on", "off", "status"], nargs="?", default="status")
    auto.set_defaults(func=cmd_autostart)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["say", *(argv or [])])
    try:
        return int(args.func(args) or 0)
    except TrayReaderError as e:
        print(f"tray-reader: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
