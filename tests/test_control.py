"""The control socket in process: protocol, refusals, permissions, single-instance lock."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tray_reader import control
from tray_reader.errors import ControlError, VoiceError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def server(tmp_path):
    calls: list[tuple[str, list[str]]] = []

    def handler(cmd: str, args: list[str]) -> dict:
        calls.append((cmd, args))
        if cmd == "voice" and args[0] == "nope":
            raise VoiceError("Unknown voice 'nope'. Available: af_heart")
        return {"state": "idle", "echo": args}

    srv = control.ControlServer(tmp_path / "c.sock", handler)
    srv.start()
    srv.calls = calls  # type: ignore[attr-defined]
    yield srv
    srv.stop()


def _raw(path, data: bytes) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(str(path))
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        buf = b""
        while chunk := s.recv(4096):
            buf += chunk
    return json.loads(buf)


def test_round_trip_and_socket_is_owner_only(server):
    reply = control.send(server.path, "speed", ["1.5"])
    assert reply == {"ok": True, "state": "idle", "echo": ["1.5"]}
    assert server.calls == [("speed", ["1.5"])]
    assert server.path.stat().st_mode & 0o777 == 0o600


def test_handler_errors_come_back_as_messages(server):
    reply = control.send(server.path, "voice", ["nope"])
    assert reply["ok"] is False and "Available: af_heart" in reply["error"]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"nonsense\n", "JSON"),
        (b"\xff\xfe\n", "UTF-8"),
        (b"[1, 2]\n", "JSON object"),
        (b'{"cmd": "rm"}\n', "unknown command 'rm'"),
        (b'{"cmd": "voice"}\n', "voice takes 1 argument"),
        (b'{"cmd": "status", "args": ["x"]}\n', "status takes 0"),
        (b'{"cmd": "read", "args": "text"}\n', "list of strings"),
        (b'{"cmd": "read", "args": ["' + b"x" * (control.MAX_LINE + 10) + b'"]}\n', "longer than"),
    ],
)
def test_malformed_requests_are_refused_and_the_server_carries_on(server, data, says):
    reply = _raw(server.path, data)
    assert reply["ok"] is False and says in reply["error"]
    assert server.calls == []
    assert control.send(server.path, "status")["ok"] is True
    assert server.refused == 1


def test_a_silent_client_is_dropped(server, monkeypatch):
    monkeypatch.setattr(control, "CLIENT_TIMEOUT", 0.2)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(server.path))
        s.sendall(b'{"cmd": "sta')  # and then nothing
        s.settimeout(5)
        reply = json.loads(s.recv(4096))
    assert reply["ok"] is False and "no complete request" in reply["error"]
    assert control.send(server.path, "status")["ok"] is True


def test_concurrent_clients_all_get_answers(server):
    replies: list[dict] = []

    def ask(i: int) -> None:
        replies.append(control.send(server.path, "speed", [str(i)]))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(replies) == 8 and all(r["ok"] for r in replies)


def test_send_without_daemon_says_so(tmp_path):
    with pytest.raises(ControlError, match="not running"):
        control.send(tmp_path / "none.sock", "status")


def test_a_daemon_that_does_not_answer_is_said_to_and_what_to_do(tmp_path):
    path = tmp_path / "stuck.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stuck:  # listens, never answers
        stuck.bind(str(path))
        stuck.listen(1)
        with pytest.raises(ControlError) as info:
            control.send(path, "status", timeout=0.2)
    assert str(info.value) == (
        f"tray-reader did not answer within 0.2 s (at {path}). Try again; if it still does not "
        "answer, end its process and start it again with `tray-reader`."
    )


def test_stop_removes_the_socket(tmp_path):
    srv = control.ControlServer(tmp_path / "s.sock", lambda c, a: {})
    srv.start()
    srv.stop()
    assert not (tmp_path / "s.sock").exists()


def test_instance_lock_is_exclusive(tmp_path):
    first, second = control.InstanceLock(tmp_path / "l"), control.InstanceLock(tmp_path / "l")
    assert first.acquire()
    assert not second.acquire()
    first.release()
    assert second.acquire()
    second.release()


def test_runtime_dir_prefers_xdg_and_is_private(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    path = control.runtime_dir()
    assert path == tmp_path / "tray-reader" and path.stat().st_mode & 0o777 == 0o700
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setattr(control.tempfile, "gettempdir", lambda: str(tmp_path))
    fallback = control.runtime_dir()
    assert fallback == tmp_path / f"tray-reader-{os.getuid()}" and fallback.stat().st_mode & 0o777 == 0o700


def test_runtime_dir_refuses_a_symlink(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(control.tempfile, "gettempdir", lambda: str(tmp_path))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / f"tray-reader-{os.getuid()}").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ControlError, match="not a directory owned by you"):
        control.runtime_dir()


def _connect(path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(str(path))
    return s


def test_idle_clients_do_not_delay_a_status(server):
    idle = [_connect(server.path) for _ in range(50)]
    try:
        started = time.monotonic()
        reply = control.send(server.path, "status", timeout=5)
        took = time.monotonic() - started
        assert reply["ok"] is True
        assert took < 0.5, f"status took {took:.2f} s behind 50 idle clients"
    finally:
        for s in idle:
            s.close()


def test_a_hundred_concurrent_clients_are_all_answered(server):
    replies: list[dict] = []
    errors: list[Exception] = []

    def ask() -> None:
        try:
            replies.append(control.send(server.path, "status", timeout=10))
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=ask) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert errors == []
    assert len(replies) == 100 and all(r["ok"] for r in replies)


def test_beyond_the_bound_the_most_silent_client_is_dropped(server, monkeypatch):
    monkeypatch.setattr(control, "MAX_CLIENTS", 4)
    idle = [_connect(server.path) for _ in range(10)]
    try:
        assert control.send(server.path, "status", timeout=5)["ok"] is True
        assert server.dropped >= 6
        assert server.clients <= 5
        # The first idle client was dropped: it sees the end of the stream.
        first = idle[0].recv(4096)
        assert first == b"" or b"no complete request" in first
    finally:
        for s in idle:
            s.close()


def test_a_long_text_streams_after_the_request(server):
    text = "Start here. " + "All work and no play makes a long text. " * 52_000
    assert len(text.encode()) > 2_000_000
    reply = control.send(server.path, "read", text=text, timeout=20)
    assert reply["ok"] is True
    cmd, args = server.calls[-1]
    assert cmd == "read" and args == [text]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig", "utf-8"])
def test_a_text_streamed_in_any_unicode_encoding_with_its_byte_order_mark_arrives_as_text(server, encoding):
    data = "Café au lait, s'il vous plaît.".encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data  # PowerShell and Notepad write the mark; "utf-16" does too
    assert control.send(server.path, "read", text=data)["ok"] is True
    assert server.calls[-1] == ("read", ["Café au lait, s'il vous plaît."])


def test_a_long_text_streams_from_a_file(server, tmp_path):
    path = tmp_path / "long.txt"
    path.write_bytes(("Ünïcode first. " + "x y z. " * 400_000).encode())
    with path.open("rb") as f:
        reply = control.send(server.path, "queue", text=f, timeout=20)
    assert reply["ok"] is True
    assert server.calls[-1][1][0] == path.read_text()


def test_a_text_past_the_memory_limit_is_refused_clearly(server, monkeypatch):
    monkeypatch.setattr(control, "MAX_TEXT", 100_000)
    reply = _raw(server.path, b'{"cmd": "read", "args": [], "text_follows": true}\n' + b"word " * 30_000)
    assert reply["ok"] is False and "longer than" in reply["error"] and "MiB" in reply["error"]
    assert server.calls == []
    assert control.send(server.path, "status")["ok"] is True


def test_a_text_beyond_the_arguments_is_refused(server):
    reply = _raw(server.path, b'{"cmd": "read", "args": ["a"], "text_follows": true}\nmore')
    assert reply["ok"] is False and "read takes 0 to 1" in reply["error"]


def _as_another_user(path) -> tuple[int, str]:
    """Connect and ask for the status from a forked child running as `nobody`."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest from here on
        code = 0
        try:
            os.close(r)
            os.setgid(65534)
            os.setuid(65534)
            try:
                out = json.dumps(control.send(path, "status", timeout=5))
            except ControlError as e:
                out = f"ControlError: {e}"
            os.write(w, out.encode())
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        out = f.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out


needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="switching to another uid needs root"
)


@needs_root
def test_another_user_cannot_reach_the_socket(tmp_path):
    srv = control.ControlServer(tmp_path / "c.sock", lambda c, a: {"state": "idle"})
    srv.start()
    try:
        code, out = _as_another_user(srv.path)
    finally:
        srv.stop()
    assert code == 0 and out.startswith("ControlError") and "another user" in out


@needs_root
def test_another_user_is_refused_even_when_the_mode_lets_it_in():
    # A socket whose mode was loosened (or a shared dir): the peer's uid still decides.
    base = Path(tempfile.mkdtemp(prefix="tray-reader-peer-"))
    try:
        base.chmod(0o755)
        calls: list[str] = []
        srv = control.ControlServer(base / "c.sock", lambda c, a: calls.append(c) or {"state": "idle"})
        srv.start()
        srv.path.chmod(0o666)
        try:
            code, out = _as_another_user(srv.path)
        finally:
            srv.stop()
        assert code == 0
        reply = json.loads(out)
        assert reply["ok"] is False and "another user" in reply["error"]
        assert calls == [] and srv.refused == 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_cli_read_streams_stdin_of_any_length(tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    (runtime / "tray-reader").mkdir(mode=0o700)
    calls: list[tuple[str, list[str]]] = []
    srv = control.ControlServer(
        runtime / "tray-reader" / "control.sock", lambda c, a: calls.append((c, a)) or {"state": "speaking"}
    )
    srv.start()
    text = "The first words. " + "Then a great deal more of the same. " * 60_000
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "PYTHONPATH": str(ROOT)}
    try:
        out = subprocess.run(
            [sys.executable, "-m", "tray_reader.cli", "read", "-"],
            input=text.encode(),
            env=env,
            capture_output=True,
            timeout=60,
            cwd=ROOT,
        )
    finally:
        srv.stop()
    assert out.returncode == 0, out.stderr.decode()
    assert calls == [("read", [text])]


def test_stopping_lets_the_client_being_answered_have_its_reply(tmp_path):
    # `ctl quit`: the app stops the server while the quit request is still being answered.
    holder: dict[str, control.ControlServer] = {}

    def handler(cmd: str, args: list[str]) -> dict:
        threading.Thread(target=holder["srv"].stop).start()
        time.sleep(0.05)
        return {"state": "ending"}

    srv = holder["srv"] = control.ControlServer(tmp_path / "q.sock", handler)
    srv.start()
    idle = _connect(srv.path)
    try:
        assert control.send(srv.path, "quit") == {"ok": True, "state": "ending"}
        assert idle.recv(4096) == b""  # a silent client is simply dropped
    finally:
        idle.close()
        srv.stop()
