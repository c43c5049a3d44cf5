"""The daemon's commands: one table, name → arguments and what runs, for every way in.

The control socket checks a request's arguments against it, `tray-reader ctl` offers its
names, and the app runs the entry's action on itself (hotkeys and the tray menu end here
too). Every action's reply is the daemon's status.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from tray_reader.errors import ControlError


class Controls(Protocol):
    """What the commands act on (the app)."""

    def read(self, text: str | None, pressed: float | None = None) -> None:
        """Read ``text`` (None: the selection) now, interrupting what is playing."""

    def queue(self, text: str | None, pressed: float | None = None) -> None:
        """Read ``text`` (None: the selection) after what is queued."""

    def read_document(self, path: str, start: str | None = None) -> None:
        """Read the document at ``path`` (absolute) now, from ``start`` (documents.chapters_from);
        returns once its first part is read in (what reading it raises is raised here), the
        rest read in while it is read."""

    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def toggle(self) -> None: ...
    def stop(self) -> None: ...
    def next(self) -> None: ...
    def previous(self) -> None: ...
    def set_voice(self, name: str) -> None: ...
    def set_speed(self, value: str) -> None: ...
    def quit(self) -> None: ...


@dataclass(frozen=True)
class Command:
    least: int
    """Fewest arguments."""
    most: int
    """Most arguments."""
    run: Callable[[Controls, list[str]], None]
    """Acts on the controls with the checked arguments; raises a TrayReaderError for the user."""
    help: str
    locked: bool = True
    """Runs holding the app's command lock, one such command at a time. A document is read
    in without it (other commands are served meanwhile) and takes it only to act."""


def _text(args: list[str]) -> str | None:
    return args[0] if args else None


def _document(c: Controls, args: list[str]) -> None:
    if not os.path.isabs(args[0]):
        raise ControlError(
            f"give the document's full path, not {args[0]!r}: the daemon's working folder is not yours"
        )
    c.read_document(args[0], args[1] if len(args) > 1 else None)


COMMANDS: dict[str, Command] = {
    "read": Command(
        0, 1, lambda c, a: c.read(_text(a)), "[TEXT|-]: read the selection, or TEXT ('-': stdin), now"
    ),
    "queue": Command(0, 1, lambda c, a: c.queue(_text(a)), "[TEXT|-]: read it after what is queued"),
    "document": Command(
        1, 2, _document, "FILE [N|chapter:N]: read a document now, from sentence or chapter N", locked=False
    ),
    "pause": Command(0, 0, lambda c, a: c.pause(), "pause"),
    "resume": Command(0, 0, lambda c, a: c.resume(), "resume where it paused"),
    "toggle": Command(0, 0, lambda c, a: c.toggle(), "pause or resume"),
    "stop": Command(0, 0, lambda c, a: c.stop(), "stop and clear the queue"),
    "next": Command(0, 0, lambda c, a: c.next(), "skip to the next sentence"),
    "prev": Command(0, 0, lambda c, a: c.previous(), "back to the previous sentence"),
    "voice": Command(1, 1, lambda c, a: c.set_voice(a[0]), "NAME: use this voice"),
    "speed": Command(1, 1, lambda c, a: c.set_speed(a[0]), "X: speak at this speed, 0.5 to 2.0"),
    "status": Command(0, 0, lambda c, a: None, "the daemon's state as JSON"),
    "quit": Command(0, 0, lambda c, a: c.quit(), "end the daemon"),
}


def check(cmd: object, args: object) -> tuple[str, list[str]]:
    """The command and its arguments if they fit the table; ControlError names what is wrong."""
    if not isinstance(cmd, str) or cmd not in COMMANDS:
        raise ControlError(f"unknown command {cmd!r}; commands: {', '.join(COMMANDS)}")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ControlError("args must be a list of strings")
    lo, hi = COMMANDS[cmd].least, COMMANDS[cmd].most
    if not lo <= len(args) <= hi:
        raise ControlError(f"{cmd} takes {lo if lo == hi else f'{lo} to {hi}'} argument(s), got {len(args)}")
    return cmd, args
