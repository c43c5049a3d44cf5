"""Listing output devices for `tray-reader devices` and `doctor`."""

from __future__ import annotations

from tray_reader.audio.output import AudioOutput, SoundDeviceOutput


def describe_devices(output: AudioOutput | None = None) -> list[str]:
    """One line per output device, default first and marked; AudioDeviceError if none."""
    return [
        f"{'*' if d.is_default else ' '} {d.name}  ({d.rate} Hz)"
        for d in (output or SoundDeviceOutput()).devices()
    ]
