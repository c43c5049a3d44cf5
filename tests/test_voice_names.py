"""The Voice menu's groups and readable names (ids are unchanged)."""

from __future__ import annotations

from tray_reader import model_files
from tray_reader.voices.names import OWN_VOICES, menu_groups, readable


def test_readable_names():
    assert readable("af_heart") == "Heart — American, female"
    assert readable("bm_george") == "George — British, male"
    assert readable("my-voice") == "my-voice"


def test_own_voices_first_then_stock_by_accent_and_gender():
    stock = [v.name for v in model_files.stock_voices()]
    groups = menu_groups([*stock, "me", "af_like"], stock)
    titles = [t for t, _ in groups]
    assert titles[0] == OWN_VOICES and groups[0][1] == [("me", "me"), ("af_like", "af_like")]
    assert titles[1:] == ["American female", "American male", "British female", "British male"]
    ids = [n for _, entries in groups[1:] for n, _ in entries]
    assert sorted(ids) == sorted(stock)  # every stock voice once
    american_f = dict(groups[1][1])
    assert american_f["af_heart"] == "Heart — American, female"
    assert menu_groups(stock, stock)[0][0] == "American female"  # no empty own group
