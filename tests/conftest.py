"""Shared fixtures. Service fixtures (PulseAudio, X11 desktop) live in their own modules."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.fixtures_audio", "tests.fixtures_desktop"]


@pytest.fixture(scope="session")
def phonemizer():
    from tray_reader.text.g2p import EnglishPhonemizer

    return EnglishPhonemizer()


@pytest.fixture(scope="session")
def engine():
    from tray_reader.speech.engine import KokoroEngine

    # The shipped decoder, so results do not depend on whether the fast one is built;
    # test_engine_fast.py covers that one.
    return KokoroEngine.load(2, fast=False)
