"""Single instance and the local control socket.

One daemon per user: it holds an exclusive lock file and listens on a Unix domain socket
(owner-only, in $XDG_RUNTIME_DIR/tray-reader, else a private dir under the temp dir; the
peer's uid is checked too, with SO_PEERCRED). The protocol is one JSON object per line
each way::

    -> {"cmd": "speed", "args": ["1.2"]}
    <- {"ok": true, ...}            or   {"ok": false, "error": "what went wrong"}

A text of any length (`read -`) follows its request line as raw UTF-8 up to the end of
the stream (the client half-closes), read in pieces: ``{"cmd": "read", "args": [],
"text_follows": true}``; it becomes the command's last argument.

Clients are served concurrently, each on its own thread: a slow or silent client never
delays another. At most MAX_CLIENTS are served at once; a new one beyond that drops the
one that has been silent longest, and a client silent for CLIENT_TIMEOUT is dropped. A
request line longer than MAX_LINE bytes, a text over MAX_TEXT, not JSON, or not of that
shape is answered with an error and the connection closed; the daemon carries on.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import stat
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, BinaryIO

from tray_reader.commands import check
from tray_reader.documents import decode_text
from tray_reader.errors import ControlError

MAX_LINE = 64 * 1024
"""Longest request line in bytes (a text sent as an argument included)."""
MAX_TEXT = 64 * 1024 * 1024
"""Longest text streamed after a request line (~10 million words, days of reading): past
this a text is held in memory for no use."""
MAX_BUFFERED = 2 * MAX_TEXT
"""Most bytes of streamed text held at once, all clients together."""
MAX_CLIENTS = 64
"""Clients served at once; one more drops the one silent the longest."""
CLIENT_TIMEOUT = 2.0
"""Seconds a connected client may stay silent before it is dropped."""
REPLY_GRACE = 0.2
"""Seconds `stop()` lets clients being answered finish (the reply to `quit` among them)."""
PIECE = 64 * 1024
"""Bytes sent or received per call."""
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


def peer_uid(conn: socket.socket) -> int | None:
    """The uid of the process at the other end (None where SO_PEERCRED is missing)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return int(uid)


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


class _Client:
    """One connection: its socket and when it last sent something (inf while it is answered)."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.last_heard = time.monotonic()
        self.thread: threading.Thread | None = None

    def drop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.shutdown(socket.SHUT_RDWR)  # its thread's recv() returns at once


class ControlServer:
    """Listens on the control socket; each client is served on a thread of its own and
    `handler` runs each command (on that thread)."""

    def __init__(self, path: Path, handler: Handler) -> None:
        self.path = path
        self._handler = handler
        self._stop = threading.Event()
        self._sock: socket.socket | None = None
        self._thread = threading.Thread(target=self._serve, name="control-socket", daemon=True)
        self._clients: set[_Client] = set()
        self._lock = threading.Lock()
        self._buffered = 0
        self.refused = 0
        """How many requests were refused as malformed, oversized or from another user."""
        self.dropped = 0
        """How many silent clients were dropped to make room for a new one."""

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
        sock.listen(socket.SOMAXCONN)
        self._sock = sock
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes accept() at once (Linux)
        with self._lock:
            clients = list(self._clients)
        # Silent clients go at once; one being answered (`ctl quit` itself) gets its reply out.
        for c in clients:
            if c.last_heard != float("inf"):
                c.drop()
        deadline = time.monotonic() + REPLY_GRACE
        for c in clients:
            if c.thread is not None and c.thread is not threading.current_thread():
                c.thread.join(max(0.0, deadline - time.monotonic()))
            c.drop()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(1.0)
        if self._sock is not None:
            self._sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    @property
    def clients(self) -> int:
        """Connections being served now."""
        with self._lock:
            return len(self._clients)

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            client = _Client(conn)
            with self._lock:
                if len(self._clients) >= MAX_CLIENTS:
                    self._drop_the_most_silent()
                self._clients.add(client)
            client.thread = threading.Thread(
                target=self._serve_one, args=(client,), name="control-client", daemon=True
            )
            client.thread.start()

    def _drop_the_most_silent(self) -> None:
        silent = min(self._clients, key=lambda c: c.last_heard)
        if silent.last_heard != float("inf"):
            self.dropped += 1
            self._clients.discard(silent)  # its thread ends on its own
            silent.drop()

    def _serve_one(self, client: _Client) -> None:
        conn = client.conn
        try:
            with conn:
                conn.settimeout(CLIENT_TIMEOUT)
                self._answer_client(client)
        finally:
            with self._lock:
                self._clients.discard(client)

    def _answer_client(self, client: _Client) -> None:
        conn = client.conn
        reader: _Reader | None = None
        try:
            uid = peer_uid(conn)
            if uid is not None and uid != os.getuid():
                raise ControlError("this tray-reader belongs to another user")
            reader = _Reader(client)
            obj = _decode(reader.line())
            cmd, args = check_request(obj)
            if isinstance(obj, dict) and obj.get("text_follows"):
                data = reader.rest(MAX_TEXT, self._reserve)
                args = [*args, decode_text(data)]
                cmd, args = check(cmd, args)
            client.last_heard = float("inf")  # being answered: never the one dropped
            reply = self._run(cmd, args)
        except ControlError as e:
            self.refused += 1
            reply = {"ok": False, "error": str(e)}
        except OSError:
            return
        finally:
            with self._lock:
                self._buffered -= reader.reserved if reader is not None else 0
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(reply).encode("utf-8") + b"\n")
            # Read what the client is still sending (bounded), or closing with unread data
            # would reset the connection before the client reads the reply.
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(0.2)
            drained = 0
            while drained < 4 * MAX_LINE and (data := conn.recv(PIECE)):
                drained += len(data)

    def _reserve(self, size: int) -> None:
        """Count `size` more bytes held for a streamed text; ControlError past MAX_BUFFERED."""
        with self._lock:
            if self._buffered + size > MAX_BUFFERED:
                raise ControlError("tray-reader is receiving other long texts; try again in a moment")
            self._buffered += size

    def _run(self, cmd: str, args: list[str]) -> dict:
        from tray_reader.errors import TrayReaderError

        try:
            return {"ok": True, **self._handler(cmd, args)}
        except TrayReaderError as e:
            return {"ok": False, "error": str(e)}


def _decode(line: bytes) -> object:
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ControlError("the request is not one line of UTF-8 JSON") from None


class _Reader:
    """Reads a client's request line, then the rest of its stream, in pieces."""

    def __init__(self, client: _Client) -> None:
        self._client = client
        self._buf = bytearray()
        self.reserved = 0
        """Bytes of the text counted against the server's budget."""

    def _recv(self) -> bytes:
        try:
            data = self._client.conn.recv(PIECE)
        except TimeoutError:
            raise ControlError(f"no complete request within {CLIENT_TIMEOUT} s") from None
        self._client.last_heard = time.monotonic()
        return data

    def line(self) -> bytes:
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise ControlError(
                    f"the request is longer than {MAX_LINE} bytes (send a long text after it: `tray-reader read -`)"
                )
            data = self._recv()
            if not data:
                break
            self._buf += data
        line, _, rest = bytes(self._buf).partition(b"\n")
        if len(line) > MAX_LINE:
            raise ControlError(f"the request is longer than {MAX_LINE} bytes")
        self._buf = bytearray(rest)
        return line

    def rest(self, limit: int, reserve: Callable[[int], None]) -> bytes:
        """Everything up to the end of the stream (at most `limit` bytes); `reserve(n)` is
        told of each piece before it is kept, and may refuse it."""
        reserve(len(self._buf))
        self.reserved = len(self._buf)
        while data := self._recv():
            if len(self._buf) + len(data) > limit:
                raise ControlError(f"the text is longer than {limit >> 20} MiB; send it in parts")
            reserve(len(data))
            self.reserved += len(data)
            self._buf += data
        return bytes(self._buf)


def send(
    path: Path,
    cmd: str,
    args: Sequence[str] = (),
    timeout: float = 5.0,
    text: str | bytes | BinaryIO | None = None,
) -> dict:
    """Send one command to the daemon and return its reply (ControlError if unreachable).

    `text`, when given, is streamed after the request line in pieces (any length up to
    MAX_TEXT) and is the command's last argument: a str, UTF-8 bytes, or a binary file
    such as stdin, read piece by piece."""
    header: dict = {"cmd": cmd, "args": list(args)}
    if text is not None:
        header["text_follows"] = True
    request = json.dumps(header).encode("utf-8") + b"\n"
    if len(request) > MAX_LINE:
        raise ControlError(
            f"the request is too long (at most {MAX_LINE // 1024} KiB; pass long text as text=)"
        )
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(path))
            s.sendall(request)
            if text is not None:
                try:
                    _send_text(s, text)
                    s.shutdown(socket.SHUT_WR)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the daemon stopped reading: its reply says why
            buf = bytearray()
            while b"\n" not in buf:
                data = s.recv(PIECE)
                if not data:
                    break
                buf += data
    except (FileNotFoundError, ConnectionRefusedError):
        raise ControlError("tray-reader is not running (start it with `tray-reader`).") from None
    except PermissionError as e:
        raise ControlError(f"cannot talk to tray-reader at {path}: it belongs to another user ({e})") from e
    except TimeoutError:
        raise ControlError(
            f"tray-reader did not answer within {timeout:g} s (at {path}). Try again; if it still does "
            "not answer, end its process and start it again with `tray-reader`."
        ) from None
    except OSError as e:
        raise ControlError(f"cannot talk to tray-reader at {path}: {e}") from e
    try:
        reply = json.loads(bytes(buf).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        if not buf and text is not None:
            raise ControlError(f"tray-reader refused the text (at most {MAX_TEXT >> 20} MiB)") from None
        raise ControlError("tray-reader sent an unreadable reply") from None
    if not isinstance(reply, dict):
        raise ControlError("tray-reader sent an unreadable reply")
    return reply


def _send_text(s: socket.socket, text: str | bytes | BinaryIO) -> None:
    if isinstance(text, str):
        text = text.encode("utf-8")
    if isinstance(text, bytes):
        view = memoryview(text)
        for i in range(0, len(view), PIECE):
            s.sendall(view[i : i + PIECE])
        return
    while piece := text.read(PIECE):
        s.sendall(piece)
