"""The tray daemon end to end: `tray-reader run` as a subprocess under Xvfb with trayer,
D-Bus, dunst and a PulseAudio null sink; keys pressed with XTEST (xdotool), audio captured
from the sink's monitor and checked with an offline recogniser."""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.asr import recognise, word_recall
from tests.fixtures_desktop import Daemon, Desktop, TimedRecorder, wait_for

pytestmark = pytest.mark.desktop

SENTENCE = "The quick brown fox jumps over the lazy dog."
SHORT = "Hello there, this is a test."


def _speech_span(audio: np.ndarray, rate: int, threshold: float = 0.01) -> float:
    """Seconds from the first to the last loud sample (gaps from a slow CPU included)."""
    loud = np.flatnonzero(np.abs(audio) > threshold)
    return 0.0 if loud.size == 0 else (loud[-1] - loud[0]) / rate


def _voiced_seconds(audio: np.ndarray, rate: int, threshold: float = 0.01) -> float:
    """Seconds of 20 ms frames with speech-like energy (not counting any gaps)."""
    frame = rate // 50
    frames = audio[: len(audio) // frame * frame].reshape(-1, frame)
    return float(np.count_nonzero(np.sqrt((frames**2).mean(axis=1)) > threshold)) / 50


@pytest.fixture(scope="module")
def recorder(pulse):
    rec = TimedRecorder(pulse).start()
    yield rec
    rec.stop()


def test_daemon_is_ready_with_tray_icon(tray_daemon: Daemon, desktop: Desktop):
    st = tray_daemon.status()
    assert st["ready"] is True and st["state"] == "idle"
    print(f"\nmodel loaded and warmed in {st['ready_seconds']:.1f} s")
    icons = wait_for(desktop.tray_icons, 10, "an icon in trayer")
    assert icons, "no icon is embedded in the tray"
    # First run wrote the commented defaults.
    text = tray_daemon.settings.read_text()
    assert '# voice = "af_heart"' in text and "[hotkeys]" in text


def test_hotkey_reads_primary_selection(tray_daemon: Daemon, desktop: Desktop, recorder: TimedRecorder):
    desktop.set_selection("primary", SENTENCE)
    offset = recorder.mark()
    pressed = time.monotonic()
    desktop.xdotool("key", "ctrl+alt+r")
    wait_for(lambda: tray_daemon.status()["state"] == "speaking", 10, "speaking")
    wait_for(lambda: tray_daemon.status()["state"] == "idle", 30, "idle again")
    time.sleep(0.3)
    audio = recorder.audio_since(offset)
    span = _speech_span(audio, recorder.rate)
    voiced = _voiced_seconds(audio, recorder.rate)
    heard = recognise(audio, recorder.rate)
    first = recorder.first_sound_after(offset)
    print(f"\nspeech: {voiced:.2f} s voiced over a span of {span:.2f} s; heard: {heard!r}")
    if first is not None:
        print(f"hotkey-to-first-sound {1000 * (first - pressed):.0f} ms")
    assert tray_daemon.status()["last_text"] == SENTENCE
    # The sentence takes about 2.5 s to say; a busy CPU can add gaps, not speech.
    assert 1.2 < voiced < 5.0, f"speech of implausible length: {voiced:.2f} s voiced"
    assert word_recall(SENTENCE, heard) >= 0.5, heard


@pytest.mark.parametrize("how", ["prepared", "during", "cold"])
def test_hotkey_latency_median(tray_daemon: Daemon, desktop: Desktop, recorder: TimedRecorder, how):
    """Hotkey to first captured sound, each press on a new selection. "prepared": the
    selection settles first and the daemon prepares its first words (the default);
    "during": the key comes while they are being prepared (a quick user), and the read
    takes over the preparation; "cold": with prepare_selection = false, everything
    happens after the key."""
    path = tray_daemon.settings
    original = path.read_text()
    if how == "cold":
        path.write_text(original.replace("# prepare_selection = true", "prepare_selection = false"))
        wait_for(lambda: tray_daemon.status()["prepare_selection"] is False, 5, "the setting applied")
    rows = []
    try:
        for i in range(5):
            # A new text each time, of a new length (what `prepared_chars` tells apart).
            text = f"{SHORT} {how.capitalize()} number {i + 1}{'.' * (i + 1)}"
            desktop.set_selection("primary", text)
            if how == "prepared":
                wait_for(lambda: tray_daemon.status()["prepared_chars"] == len(text), 10, "prepared")  # noqa: B023
            elif how == "during":
                wait_for(lambda: tray_daemon.status()["preparing_chars"] == len(text), 10, "preparing")  # noqa: B023
            offset = recorder.mark()
            pressed = time.monotonic()
            desktop.xdotool("key", "ctrl+alt+r")
            first = wait_for(lambda: recorder.first_sound_after(offset), 20, "sound after the hotkey")  # noqa: B023
            last = tray_daemon.status()["last"]
            assert last["prepared"] is (how != "cold"), (i, text)
            rows.append((pressed, first, last))
            desktop.xdotool("key", "ctrl+alt+s")
            wait_for(lambda: tray_daemon.status()["state"] == "idle", 10, "idle after stop")
            time.sleep(0.3)
    finally:
        path.write_text(original)
    wait_for(lambda: tray_daemon.status()["prepare_selection"] is True, 5, "the setting back")
    print(f"\n  {how}: press->hotkey  ->selection  ->1st chunk  ->DAC (player)  ->captured (ms)  underruns")
    totals = []
    for pressed, first, last in rows:
        totals.append(first - pressed)
        dac = (
            f"{1000 * (last['first_sample'] - pressed):14.0f}"
            if last.get("first_sample")
            else "             -"
        )
        print(
            f"  {1000 * (last['pressed'] - pressed):12.0f} {1000 * (last['selection_read'] - pressed):11.0f}"
            f" {1000 * (last['first_chunk'] - pressed):11.0f} {dac} {1000 * (first - pressed):13.0f}"
            f" {last['underruns']:10d}"
        )
    print(
        f"hotkey-to-first-sound median ({how}) {1000 * statistics.median(totals):.0f} ms over {len(totals)} presses"
    )
    assert len(totals) == 5


def test_queue_pause_and_stop_hotkeys(tray_daemon: Daemon, desktop: Desktop):
    desktop.set_selection("primary", " ".join([SENTENCE] * 3))
    desktop.xdotool("key", "ctrl+alt+r")
    tray_daemon.wait_state("speaking")
    desktop.set_selection("primary", SHORT)
    desktop.xdotool("key", "ctrl+alt+q")
    wait_for(lambda: tray_daemon.status()["queue"] == 1, 10, "the queued selection")
    icon = wait_for(desktop.tray_icons, 10, "the tray icon")[0][1:]
    desktop.xdotool("mousemove", "10", "700")  # no hover highlight on the icon
    desktop.xdotool("key", "ctrl+alt+p")
    tray_daemon.wait_state("paused", timeout=10)
    time.sleep(0.5)
    paused_icon = desktop.grab(*icon)
    assert len(paused_icon) == icon[2] * icon[3] * 3 and len(set(paused_icon)) > 2, (
        "the icon was not captured"
    )
    desktop.xdotool("key", "ctrl+alt+p")
    tray_daemon.wait_state("speaking", timeout=10)
    desktop.xdotool("key", "ctrl+alt+s")
    st = tray_daemon.wait_state("idle", timeout=10)
    assert st["queue"] == 0
    time.sleep(0.5)
    assert desktop.grab(*icon) != paused_icon, "the tray icon should show the state"


def test_nothing_selected_notifies(tray_daemon: Daemon, desktop: Desktop):
    desktop.clear_selection("primary")
    desktop.clear_selection("clipboard")
    before = desktop.notifications()
    desktop.xdotool("key", "ctrl+alt+r")
    wait_for(lambda: desktop.notifications() > before, 5, "a notification")
    assert tray_daemon.proc is not None and tray_daemon.proc.poll() is None
    assert tray_daemon.status()["state"] == "idle"


def test_tray_menu_through_real_clicks(tray_daemon: Daemon, desktop: Desktop):
    desktop.set_selection("primary", SHORT)
    before = tray_daemon.status()["last"]["pressed"]
    wid, x, y, w, h = wait_for(desktop.tray_icons, 10, "the tray icon")[0]
    windows_before = set(_mapped_windows(desktop))
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2))
    desktop.xdotool("click", "3")
    menu = wait_for(lambda: _new_menu(desktop, windows_before), 10, "the tray menu")
    time.sleep(0.3)
    shot = desktop.screenshot("tray-menu.png")
    print(f"\nmenu window {menu}; screenshot {shot}")
    mx, my, mw, mh = menu[1:]
    assert mh > 100, "the menu is too small to hold its items"
    # The first item is "Read selection".
    desktop.xdotool("mousemove", str(mx + mw // 2), str(my + 14))
    time.sleep(0.2)
    desktop.xdotool("click", "1")
    st = wait_for(
        lambda: (s := tray_daemon.status())["last"]["pressed"] != before and s["state"] == "speaking" and s,
        10,
        "reading started from the menu",
    )
    assert st["last_text"] == SHORT
    tray_daemon.cli("ctl", "stop")


def test_voice_submenu_through_real_clicks(tray_daemon: Daemon, desktop: Desktop):
    before = tray_daemon.status()["voice"]
    wid, x, y, w, h = wait_for(desktop.tray_icons, 10, "the tray icon")[0]
    known = set(_mapped_windows(desktop))
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2))
    desktop.xdotool("click", "3")
    menu = wait_for(lambda: _new_menu(desktop, known), 10, "the tray menu")
    known.add(menu[0])
    mx, my, mw, mh = menu[1:]
    # Hover down the menu until a submenu opens: the first one is Voice.
    submenu = None
    for row in range(my + 6, my + mh, 12):
        desktop.xdotool("mousemove", str(mx + mw // 2), str(row))
        time.sleep(0.35)
        submenu = _new_menu(desktop, known)
        if submenu:
            break
    assert submenu, "no submenu opened while hovering over the menu"
    known.add(submenu[0])
    time.sleep(0.3)
    print(f"\nvoice submenu {submenu}; screenshot {desktop.screenshot('tray-menu-voice.png')}")
    sx, sy, sw, sh = submenu[1:]
    # No voices of the user's own: the Voice menu holds the stock voices' groups, the
    # first "American female"; hovering over it opens its voices.
    desktop.xdotool("mousemove", str(sx + sw // 2), str(sy + 6 + 6))
    group = wait_for(lambda: _new_menu(desktop, known), 10, "the first voice group's menu")
    time.sleep(0.3)
    print(f"voice group {group}; screenshot {desktop.screenshot('tray-menu-voice-group.png')}")
    gx, gy, gw, gh = group[1:]
    assert gh > 200, "the American female group should list its eleven voices"
    # The second row is a voice other than the first (Aoede; the default is Heart).
    desktop.xdotool("mousemove", str(gx + gw // 2), str(gy + 6 + 12))
    time.sleep(0.2)
    desktop.xdotool("mousemove", str(gx + gw // 2), str(gy + 6 + 25 + 12))
    time.sleep(0.2)
    desktop.xdotool("click", "1")
    chosen = wait_for(lambda: (v := tray_daemon.status()["voice"]) != before and v, 10, "the voice to change")
    print(f"voice {before} -> {chosen} from the menu")
    assert f'voice = "{chosen}"' in tray_daemon.settings.read_text()
    assert tray_daemon.cli("ctl", "voice", before).returncode == 0


def _mapped_windows(desktop: Desktop) -> list[str]:
    tree = subprocess.run(
        ["xwininfo", "-root", "-children"], env=desktop.env, capture_output=True, text=True, timeout=10
    ).stdout
    return [line.split()[0] for line in tree.splitlines() if line.strip().startswith("0x")]


def _new_menu(desktop: Desktop, before: set[str]):
    for wid in _mapped_windows(desktop):
        if wid in before:
            continue
        geo = desktop._geometry(wid)
        if geo and geo[2] > 60 and geo[3] > 60:
            return (wid, *geo)
    return None


def test_every_ctl_command(tray_daemon: Daemon):
    def ctl(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
        r = tray_daemon.cli("ctl", *args, input=input)
        print(f"ctl {' '.join(args)[:40]} -> {r.returncode} {r.stderr.strip()[:120]}")
        return r

    st = json.loads(ctl("status").stdout)
    assert {"state", "ready", "voice", "speed", "queue"} <= st.keys()
    long_text = " ".join([SENTENCE] * 4)
    assert ctl("read", long_text).returncode == 0
    tray_daemon.wait_state("speaking")
    assert ctl("queue", SHORT).returncode == 0
    assert ctl("queue", SHORT).returncode == 0
    assert tray_daemon.status()["queue"] >= 1
    assert ctl("pause").returncode == 0
    tray_daemon.wait_state("paused")
    assert ctl("resume").returncode == 0
    tray_daemon.wait_state("speaking")
    assert ctl("toggle").returncode == 0
    tray_daemon.wait_state("paused")
    assert ctl("toggle").returncode == 0
    tray_daemon.wait_state("speaking")
    assert ctl("next").returncode == 0
    assert ctl("prev").returncode == 0
    assert ctl("stop").returncode == 0
    st = tray_daemon.wait_state("idle")
    assert st["queue"] == 0
    assert ctl("voice", "am_adam").returncode == 0
    assert tray_daemon.status()["voice"] == "am_adam"
    bad = ctl("voice", "no_such_voice")
    assert bad.returncode != 0 and "af_heart" in bad.stderr
    assert ctl("speed", "1.25").returncode == 0
    assert tray_daemon.status()["speed"] == 1.25
    assert ctl("speed", "9").returncode != 0
    text = tray_daemon.settings.read_text()
    assert 'voice = "am_adam"' in text and "speed = 1.25" in text
    # read TEXT and read - (stdin)
    r = tray_daemon.cli("read", "-", input=SHORT)
    assert r.returncode == 0, r.stderr
    assert tray_daemon.status()["last_text"] == SHORT
    r = tray_daemon.cli("read", "Second", "line.")
    assert r.returncode == 0 and tray_daemon.status()["last_text"] == "Second line."
    assert ctl("stop").returncode == 0
    assert ctl("voice", "af_heart").returncode == 0
    assert ctl("speed", "1.0").returncode == 0


def test_malformed_messages_are_refused(tray_daemon: Daemon):
    def raw(data: bytes) -> dict:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(str(tray_daemon.socket))
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the daemon may close on an oversized message before we finish
            buf = b""
            while chunk := s.recv(4096):
                buf += chunk
        return json.loads(buf)

    assert oct(tray_daemon.socket.stat().st_mode & 0o777) == "0o600"
    for bad in (
        b"this is not json\n",
        b"\xff\xfe\x00garbage\n",
        b'{"cmd": "format_disk"}\n',
        b'{"cmd": "speed", "args": [2]}\n',
        b'["status"]\n',
        b'{"cmd": "read", "args": ["' + b"a" * (300 * 1024) + b'"]}\n',
    ):
        reply = raw(bad)
        print(f"{bad[:30]!r}... -> {reply}")
        assert reply["ok"] is False and reply["error"]
    assert raw(b'{"cmd": "status"}\n')["ok"] is True
    assert tray_daemon.proc is not None and tray_daemon.proc.poll() is None


def test_settings_change_applies_while_running(tray_daemon: Daemon):
    path = tray_daemon.settings
    original = path.read_text()
    try:
        path.write_text(
            original
            + '\n# test\nread = "ctrl+alt+xx"\nqueue = "ctrl+alt+s"\n'  # invalid, conflicting (in [hotkeys])
        )
        st = wait_for(lambda: (s := tray_daemon.status())["problems"] and s, 5, "the problems reported")
        problems = "\n".join(st["problems"])
        print(problems)
        assert "hotkeys.read" in problems and "'xx'" in problems
        assert "hotkeys.queue" in problems and "hotkeys.stop" in problems
        path.write_text(original.replace("# volume = 1.0", "volume = 0.5"))
        wait_for(
            lambda: tray_daemon.status()["volume"] == 0.5 and not tray_daemon.status()["problems"],
            5,
            "volume",
        )
    finally:
        path.write_text(original)
    wait_for(lambda: tray_daemon.status()["volume"] == 1.0, 5, "volume back")


COPY_TARGET = r"""
import sys, gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, Gdk
text = sys.argv[1]
win = Gtk.Window(title="copy-target")
win.set_default_size(300, 200)
def on_key(w, ev):
    if ev.state & Gdk.ModifierType.CONTROL_MASK and Gdk.keyval_name(ev.keyval).lower() == "c":
        cb = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
        cb.set_text(text, -1)
        cb.store()
        print("copied", flush=True)
    return True
win.connect("key-press-event", on_key)
win.connect("destroy", Gtk.main_quit)
win.show_all()
print("shown", flush=True)
Gtk.main()
"""


def test_copy_and_restore_keeps_the_clipboard(tray_daemon: Daemon, desktop: Desktop):
    path = tray_daemon.settings
    original = path.read_text()
    previous = "the user's own clipboard text"
    copied = "Copied from the focused window."
    app = subprocess.Popen(
        [sys.executable, "-c", COPY_TARGET, copied], env=desktop.env, stdout=subprocess.PIPE, text=True
    )
    try:
        path.write_text(original.replace("# copy_and_restore = false", "copy_and_restore = true"))
        time.sleep(1.5)  # the daemon re-reads the file within a second
        assert app.stdout is not None and app.stdout.readline().strip() == "shown"
        wid = wait_for(
            lambda: desktop.xdotool("search", "--onlyvisible", "--name", "copy-target", check=False).split(),
            10,
            "the copy-target window",
        )[0]
        desktop.xdotool("windowfocus", "--sync", wid)
        desktop.xdotool("mousemove", "--window", wid, "50", "50")
        desktop.clear_selection("primary")
        desktop.set_selection("clipboard", previous)
        r = tray_daemon.cli("ctl", "read")
        assert r.returncode == 0, r.stderr
        assert tray_daemon.status()["last_text"] == copied
        wait_for(lambda: desktop.get_selection("clipboard") == previous, 5, "the clipboard restored")
        tray_daemon.cli("ctl", "stop")
    finally:
        path.write_text(original)
        app.terminate()
        app.wait(5)
        app.stdout.close()


def test_doctor_reports_the_desktop_and_the_daemon(tray_daemon: Daemon):
    r = tray_daemon.cli("doctor", timeout=60)
    print(r.stdout)
    out = r.stdout
    assert "session: x11" in out and "tray backend: pystray gtk" in out
    assert "clipboard tools: xsel, xclip" in out
    assert "Kokoro model (4 packages): ok" in out and "CPUExecutionProvider" in out
    assert "audio output:" in out and "daemon: running" in out


def test_second_instance_forwards_and_exits(tray_daemon: Daemon):
    r = tray_daemon.cli("run", timeout=20)
    print(r.stdout, r.stderr)
    assert r.returncode == 0 and "already running" in r.stdout
    assert tray_daemon.proc is not None and tray_daemon.proc.poll() is None


def test_broken_settings_file_gives_defaults(desktop: Desktop, pulse, tmp_path):
    d = Daemon(desktop, pulse, tmp_path)
    d.settings.parent.mkdir(parents=True)
    d.settings.write_text('voice = "am_adam"\nspeed = [broken\n')
    try:
        d.start()
        st = d.status()
        print("\n".join(st["problems"]))
        assert st["ready"] and st["voice"] == "af_heart" and st["speed"] == 1.0
        assert any(str(d.settings) in p and "not valid TOML" in p for p in st["problems"])
        assert "not valid TOML" in d.log.read_text()
    finally:
        d.stop()


def test_quit_stops_quickly_and_cleanly(tray_daemon: Daemon):
    """Runs last: it ends the module's daemon."""
    proc = tray_daemon.proc
    assert proc is not None
    children_before = _children(proc.pid)
    t0 = time.monotonic()
    r = tray_daemon.cli("ctl", "quit")
    t1 = time.monotonic()
    assert r.returncode == 0, r.stderr
    proc.wait(10)
    t2 = time.monotonic()
    print(
        f"\n`ctl quit` took {t1 - t0:.2f} s (client start-up included); the daemon exited {t2 - t1:.2f} s later"
    )
    assert proc.returncode == 0
    assert not tray_daemon.socket.exists()
    leftovers = [pid for pid in children_before if os.path.exists(f"/proc/{pid}")]
    assert not leftovers, f"processes left behind: {leftovers}"


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def test_sigterm_stops(desktop: Desktop, pulse, tmp_path):
    d = Daemon(desktop, pulse, tmp_path)
    d.start(wait_ready=False)
    time.sleep(3)  # mid-warm-up: the hardest moment to stop
    assert d.proc is not None
    t0 = time.monotonic()
    d.proc.terminate()
    d.proc.wait(10)
    print(f"\nSIGTERM during warm-up -> exit in {time.monotonic() - t0:.2f} s")
    assert d.proc.returncode == 0
