"""Errors tray-reader reports to the user.

Every error carries a message a user can act on. The tree::

    TrayReaderError
    ├── ModelFileError        a model file is missing or corrupt (names what to install)
    ├── ConfigError           the settings file is invalid (names file, key, what is allowed)
    ├── TextInputError        the text cannot be spoken (empty, nothing readable)
    │   └── DocumentError     a document cannot be read (names the file and what to do)
    ├── VoiceError            unknown voice, bad voice file
    │   ├── VoiceNameError    a name a new voice cannot take (invalid, a stock voice's, taken)
    │   └── EnrollmentError   a recording cannot be enrolled (too short, silent, not audio)
    ├── AudioDeviceError      no audio server / device, or the device vanished
    ├── ControlError          the control socket cannot be reached or refused a message
    ├── SelectionError        no selected text could be read
    ├── AutostartError        the login entry cannot be written or removed
    └── OutputError           a command's output cannot be written (a full disk, a closed terminal)
"""

from __future__ import annotations


class TrayReaderError(Exception):
    """Base of all errors that tray-reader reports to the user."""


class ModelFileError(TrayReaderError):
    """A model file is missing or does not match its checksum."""


class ConfigError(TrayReaderError):
    """The settings file cannot be read or holds an invalid value."""


class TextInputError(TrayReaderError):
    """The text given cannot be spoken."""


class DocumentError(TextInputError):
    """A document file cannot be read (unknown type, broken, encrypted, scanned, too large)."""


class VoiceError(TrayReaderError):
    """A voice is unknown, or a voice file is invalid."""


class VoiceNameError(VoiceError):
    """A new voice cannot take this name: not a valid one, a stock voice's, or already taken
    (another name would do, which `voice import --name` offers)."""


class EnrollmentError(VoiceError):
    """A recording cannot be turned into a voice."""


class AudioDeviceError(TrayReaderError):
    """No usable audio output or input device."""


class ControlError(TrayReaderError):
    """The control socket could not be reached, or refused a message."""


class SelectionError(TrayReaderError):
    """No selected text could be read."""


class AutostartError(TrayReaderError):
    """The per-user login entry (autostart) cannot be written or removed."""


class OutputError(TrayReaderError):
    """What a command prints cannot be written (stdout on a full disk, a closed terminal)."""
