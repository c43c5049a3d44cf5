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


@pytest.fixture(scope="session")
def users_engine():
    """The engine as users have it: the fast decoder when it is built (`./dev setup` builds
    it), else the shipped one. For enrolment, which renders hundreds of times and whose
    tests assert what holds with either decoder."""
    from tray_reader.speech.engine import KokoroEngine

    return KokoroEngine.load(2)
