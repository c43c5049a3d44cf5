"""An offline recogniser understands what the engine says; no network is used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import soundfile

from tests.asr import recognise, word_recall
from tray_reader import model_files
from tray_reader.speech.synthesis import Synthesizer, fixed_voice
from tray_reader.text.frontend import TextFrontEnd

SENTENCES = [
    "The weather today is cold and windy with some rain in the afternoon.",
    "Please open the window and turn on the light in the kitchen.",
    "My brother bought three books and a new computer last week.",
    "We will meet at the station at nine tomorrow morning.",
    "Please remember to close the door when you leave the house.",
    "The train was late because of snow on the tracks near the city.",
    "Our teacher asked us to finish the homework before Friday.",
    "The children played in the garden until the sun went down.",
]
"""Sentences the recogniser hears whole in a single unwindowed render of the voice."""

MEAN_RECALL = 0.75
LEAST_RECALL = 0.4


def test_recogniser_understands_what_a_read_says(engine, phonemizer):
    # Each sentence is read as the product reads it: a short first chunk, then the rest,
    # in windows sized by the machine's timing. One sentence's recall moves with those
    # windows (the first words of "My brother bought…" are heard 0.45-0.91), so the bound
    # is on the mean over several sentences, with a floor for each.
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    voice = fixed_voice(model_files.stock_pack("af_heart"))
    recalls = []
    for sentence in SENTENCES:
        audio = np.concatenate([c.samples for c in synth.stream(sentence, voice)])
        heard = recognise(audio, 24_000)
        recalls.append(word_recall(sentence, heard))
        print(f"said: {sentence!r}\nheard: {heard!r}\nrecall {recalls[-1]:.2f}")
    assert np.mean(recalls) >= MEAN_RECALL, recalls
    assert min(recalls) >= LEAST_RECALL, recalls


def test_say_works_without_network(tmp_path):
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to prove no network is used")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.fail(f"cannot create a network namespace here: {probe.stderr.decode()}")
    out = tmp_path / "offline.wav"
    exe = os.path.join(os.path.dirname(sys.executable), "tray-reader")
    result = subprocess.run(
        ["unshare", "-n", exe, "say", "--out", str(out), "No network is needed to read this."],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "0"},
    )
    assert result.returncode == 0, result.stderr
    audio, rate = soundfile.read(out, dtype="float32")
    assert rate == 24_000 and audio.size / rate > 1.0
    assert np.sqrt(np.mean(audio**2)) > 0.01
