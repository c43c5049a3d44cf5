"""First-sample latency of the player on a real device (a private PulseAudio null sink).

Prints medians over runs of:
- reported: the player's own figure (first chunk handed over -> first sample at the DAC,
  from PortAudio's outputBufferDacTime), as `player.stats.first_sample_latency`;
- captured: first chunk handed over -> first sample seen on the sink's monitor (parec block
  arrival time minus the samples after it), which includes PulseAudio's own buffering;
for a stream kept open (`Player.open()` at start-up) and for one opened by the request.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fixtures_audio import PulseServer, reinit_portaudio, warm_up_portaudio  # noqa: E402
from tests.fixtures_desktop import TimedRecorder  # noqa: E402
from tray_reader.audio.output import SoundDeviceOutput  # noqa: E402
from tray_reader.audio.player import Player, PlayerConfig  # noqa: E402
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk  # noqa: E402


def one_run(pulse: PulseServer, warm: bool, latency_ms: float) -> tuple[float, float, int]:
    t = np.arange(SAMPLE_RATE // 5) / SAMPLE_RATE
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    player = Player(SoundDeviceOutput(), PlayerConfig(latency_ms=latency_ms))
    rec = TimedRecorder(pulse).start()
    try:
        if warm:
            player.open()
            time.sleep(0.3)
        mark = rec.mark()
        handed = time.monotonic()
        player.play(AudioChunk(tone, 0, last=True))
        player.wait(5)
        time.sleep(0.15)
        heard = rec.first_sound_after(mark)
        stats = player.stats
    finally:
        rec.stop()
        player.close()
    captured = (heard - handed) if heard is not None else float("nan")
    return stats.first_sample_latency or float("nan"), captured, stats.underruns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--latency-ms", type=float, default=PlayerConfig().latency_ms)
    args, _ = parser.parse_known_args()
    pulse = PulseServer()
    try:
        pulse.start()
        os.environ.update(pulse.client_env)
        reinit_portaudio()
        warm_up_portaudio()
        for warm in (True, False):
            runs = [one_run(pulse, warm, args.latency_ms) for _ in range(args.runs)]
            reported = statistics.median(r[0] for r in runs) * 1000
            captured = statistics.median(r[1] for r in runs) * 1000
            underruns = sum(r[2] for r in runs)
            kind = "stream open " if warm else "opened cold "
            print(
                f"player {kind} latency_ms={args.latency_ms:g}: first sample reported {reported:5.1f} ms, "
                f"captured {captured:5.1f} ms (median of {args.runs}), underruns {underruns}"
            )
    finally:
        pulse.close()


if __name__ == "__main__":
    main()
