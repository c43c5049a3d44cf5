"""Joining pieces into a click-free stream (pure) and the real pipeline end to end."""

from __future__ import annotations

import threading

import numpy as np

from tray_reader import model_files
from tray_reader.speech.frontend import TextFrontEnd
from tray_reader.speech.synthesis import EDGE_FADE, Synthesizer, faded_pieces, fixed_voice


def test_faded_pieces_keeps_every_sample_and_fades_both_edges():
    pieces = [np.ones(1000, np.float32), np.ones(7, np.float32), np.ones(500, np.float32)]
    out = np.concatenate(list(faded_pieces(iter(pieces))))
    assert out.size == 1507
    assert out[0] == 0.0 and out[-1] < 0.01
    # the middle is untouched: pieces join without a dip
    assert np.all(out[EDGE_FADE:-EDGE_FADE] == 1.0)
    assert np.max(np.abs(np.diff(out))) < 0.05


def test_faded_pieces_handles_tiny_and_empty_pieces():
    out = list(faded_pieces(iter([np.ones(3, np.float32), np.zeros(0, np.float32)])))
    assert sum(p.size for p in out) == 3
    assert list(faded_pieces(iter([]))) == []


def test_stream_yields_sentences_in_order_with_pauses(engine, phonemizer):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    chunks = list(synth.stream("One fish. Two fish.", fixed_voice(model_files.stock_pack("af_heart"))))
    sentences = [c.sentence for c in chunks]
    assert sentences == sorted(sentences) and sentences[-1] >= 1
    audio = np.concatenate([c.samples for c in chunks])
    assert 1.0 < audio.size / 24_000 < 6.0
    # every chunk boundary is smooth: no sample-to-sample jump larger than speech itself makes
    assert np.max(np.abs(np.diff(audio))) < 0.5


def test_cancel_stops_before_the_next_chunk(engine, phonemizer):
    synth = Synthesizer(TextFrontEnd(phonemizer), engine)
    cancel = threading.Event()
    stream = synth.stream(
        "First sentence here. Second one. Third one.", fixed_voice(model_files.stock_pack("af_heart")), cancel
    )
    first = next(stream)
    cancel.set()
    rest = list(stream)
    assert first.sentence == 0
    assert rest == []
