"""The Voice menu's groups and readable names (ids are unchanged)."""

from __future__ import annotations

from tray_reader import model_files
from tray_reader.states import AppState
from tray_reader.tray import PystrayTray, TrayModel
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


class _Item:
    """pystray.MenuItem's shape: text, action, checked callable, submenu."""

    def __init__(self, text, action=None, checked=None, radio=False, default=False, enabled=True):
        self.text, self.action, self.checked = text, action, checked
        self.submenu = action if isinstance(action, _Menu) else None


class _Menu:
    def __init__(self, *items):
        self._items = items

    def entries(self):
        return (
            list(self._items[0]())
            if len(self._items) == 1 and callable(self._items[0])
            else list(self._items)
        )


_Menu.SEPARATOR = _Item("----")  # type: ignore[attr-defined]


class _Pystray:
    MenuItem, Menu = _Item, _Menu


def _voice_menu(model: TrayModel) -> tuple[list[_Item], list[tuple[str, str]]]:
    tray = PystrayTray()
    tray._model = lambda: model
    chosen: list[tuple[str, str]] = []
    top = tray._menu(_Pystray, lambda action, arg: chosen.append((action, arg))).entries()
    voice = next(i for i in top if i.text == "Voice")
    return voice.submenu.entries(), chosen


def test_the_tray_voice_menu_puts_own_voices_first_and_groups_stock_voices():
    stock = tuple(v.name for v in model_files.stock_voices())
    model = TrayModel(AppState.IDLE, "af_heart", 1.0, ("me", *stock), stock_voices=stock)
    entries, chosen = _voice_menu(model)
    assert [e.text for e in entries[:2]] == ["me", "----"]
    assert [e.text for e in entries[2:]] == [
        "American female",
        "American male",
        "British female",
        "British male",
    ]
    american_f = entries[2].submenu.entries()
    heart = next(i for i in american_f if i.text == "Heart — American, female")
    assert heart.checked(heart) and not entries[0].checked(entries[0])
    heart.action(None, heart)  # a click chooses the voice by its id
    entries[0].action(None, entries[0])
    assert chosen == [("voice", "af_heart"), ("voice", "me")]
    all_stock = [i.text for e in entries[2:] for i in e.submenu.entries()]
    assert sorted(all_stock) == sorted(readable(n) for n in stock)


def test_the_tray_voice_menu_without_own_voices_starts_with_the_stock_groups():
    stock = ("af_heart", "bm_george")
    entries, _ = _voice_menu(TrayModel(AppState.IDLE, "bm_george", 1.0, stock, stock_voices=stock))
    assert [e.text for e in entries] == ["American female", "British male"]
