"""Single instance and the local control socket.

One daemon per user: it holds an exclusive lock file and listens on a Unix domain socket
(owner-only, in $XDG_RUNTIME_DIR/tray-reader, else a private dir under the temp dir).
The protocol is one JSON object per line each way::

    -> {"cmd": "speed", "args": ["1.2"]}
    <- {"ok": true, ...}            or   {"ok": false, "error": "what went wrong"}

A request longer than MAX_MESSAGE bytes, not JSON, or not of that shape is answered with
an error and the connection closed; the daemon carries on.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import stat
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from tray_reader.commands import check
from tray_reader.errors import ControlError

MAX_MESSAGE = 256 * 1024
"""Longest request line in bytes (text to read included)."""
CLIENT_TIMEOUT = 2.0
"""Seconds a connected client has to send its request before it is dropped."""
Handler = Callable[[str, list[str]], dict]
"""Runs one checked command; returns the reply's fields or raises a TrayReaderError."""


def runtime_dir() -> Path:
    """A directory only this user can use, for the socket and lock file."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and Path(base).is_dir():
        path = Path(base) / "tray-reader"
    else:
        path = Path(tempfile.gettempdir()) / f"tray-reader-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError as e:
        raise ControlError(f"Cannot create the runtime dir {path}: {e}") from e
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise ControlError(f"{path} is not a directory owned by you; remove it and try again.")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def socket_path() -> Path:
    return runtime_dir() / "control.sock"


def check_request(obj: object) -> tuple[str, list[str]]:
    """Validate a decoded request; ControlError names what is wrong."""
    if not isinstance(obj, dict) or not isinstance(obj.get("cmd"), str):
        raise ControlError('a request is a JSON object like {"cmd": "status", "args": []}')
    return check(obj["cmd"], obj.get("args", []))


class InstanceLock:
    """An exclusive lock held for the daemon's lifetime (released by the OS if it dies)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def acquire(self) -> bool:
        f = open(self.path, "a+")  # noqa: SIM115 - held open for the daemon's lifetime
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            return False
        self._file = f
        return True

    def release(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class ControlServer:
    """Listens on the control socket on its own thread; `handler` runs each command."""

    def __init__(self, path: Path, handler: Handler) -> None:
        self.path = path
        self._handler = handler
        self._stop = threading.Event()
        self._sock: socket.socket | None = None
        self._thread = threading.Thread(target=self._serve, name="control-socket", daemon=True)
        self.refused = 0
        """How many requests were refused as malformed or oversized (for tests and doctor)."""

    def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # stale: the caller holds the instance lock
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(8)
        sock.settimeout(0.1)
        self._sock = sock
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes accept() at once (Linux)
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(1.0)
        if self._sock is not None:
            self._sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                self._serve_one(conn)

    def _serve_one(self, conn: socket.socket) -> None:
        conn.settimeout(CLIENT_TIMEOUT)
        try:
            line = _read_line(conn)
            reply = self._answer(line)
        except ControlError as e:
            self.refused += 1
            reply = {"ok": False, "error": str(e)}
        except OSError:
            return
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(reply).encode("utf-8") + b"\n")
            # Read what the client is still sending (bounded), or closing with unread data
            # would reset the connection before the client reads the reply.
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(0.2)
            drained = 0
            while drained < 4 * MAX_MESSAGE and (data := conn.recv(65536)):
                drained += len(data)

    def _answer(self, line: bytes) -> dict:
        from tray_reader.errors import TrayReaderError

        try:
            obj = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ControlError("the request is not one line of UTF-8 JSON") from None
        cmd, args = check_request(obj)
        try:
            return {"ok": True, **self._handler(cmd, args)}
        except TrayReaderError as e:
            return {"ok": False, "error": str(e)}


def _read_line(conn: socket.socket) -> bytes:
    buf = bytearray()
    while True:
        try:
            data = conn.recv(65536)
        except TimeoutError:
            raise ControlError(f"no complete request within {CLIENT_TIMEOUT} s") from None
        if not data:
            break
        buf += data
        if b"\n" in data or len(buf) > MAX_MESSAGE:
            break
    line, _, _ = bytes(buf).partition(b"\n")
    if len(line) > MAX_MESSAGE:
        raise ControlError(f"the request is longer than {MAX_MESSAGE} bytes")
    return line


def send(path: Path, cmd: str, args: Sequence[str] = (), timeout: float = 5.0) -> dict:
    """Send one command to the daemon and return its reply (ControlError if unreachable)."""
    request = json.dumps({"cmd": cmd, "args": list(args)}).encode("utf-8") + b"\n"
    if len(request) > MAX_MESSAGE:
        raise ControlError(f"the text is too long for one request (at most {MAX_MESSAGE // 1024} KiB)")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(path))
            s.sendall(request)
            buf = bytearray()
            while b"\n" not in buf:
                data = s.recv(65536)
                if not data:
                    break
                buf += data
    except (FileNotFoundError, ConnectionRefusedError):
        raise ControlError("tray-reader is not running (start it with `tray-reader`).") from None
    except OSError as e:
        raise ControlError(f"cannot talk to tray-reader at {path}: {e}") from e
    try:
        reply = json.loads(bytes(buf).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ControlError("tray-reader sent an unreadable reply") from None
    if not isinstance(reply, dict):
        raise ControlError("tray-reader sent an unreadable reply")
    return reply
