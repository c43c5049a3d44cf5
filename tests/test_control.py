"""The control socket in process: protocol, refusals, permissions, single-instance lock."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from tray_reader import control
from tray_reader.errors import ControlError, VoiceError


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
        (b'{"cmd": "read", "args": ["' + b"x" * (control.MAX_MESSAGE + 10) + b'"]}\n', "longer than"),
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
