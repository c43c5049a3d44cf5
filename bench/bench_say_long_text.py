"""`tray-reader say --out` on a long text: time to the first audio and the process's memory.

For each text given (a file read with `-f`, or piped to `say -` with --stdin), starts the
real command, watches the audio file's temporary name grow (its first audio: past the
header) and the process's resident memory (/proc), then ends it with Ctrl+C (SIGINT) a
while after the first audio and prints, per run: the seconds to the first audio, the
resident memory then and at the end, the peak, and how long the process took to end.

    .venv/bin/python bench/bench_say_long_text.py book.txt small.txt --seconds 20

`--make FOLDER` first writes the texts measured in docs/benchmarks.md there, from this
project's README and docs: book.txt and book.md (2 MB), small.txt and small.md (their first
3 kB) and book.pdf (their first 1 MB wrapped into 290 pages, each with a running head and
its number).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.make_documents import write_pdf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXE = Path(sys.executable).parent / "tray-reader"
HEADER_BYTES = 4096
"""A file this large holds audio, not only the header libsndfile writes when it opens it."""


def resident_mb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def one_run(text: Path, stdin: bool, seconds: float, exe: Path = EXE) -> str:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "speech.wav"
        partial = out.with_name(f".{out.name}.part")  # export.AudioFile's temporary name
        args = [str(exe), "say", "--out", str(out), "--threads", "2"]
        args += ["-"] if stdin else ["-f", str(text)]
        started = time.perf_counter()
        with open(text, "rb") as source:
            proc = subprocess.Popen(args, stdin=source if stdin else subprocess.DEVNULL)
        first = first_mb = None
        peak = 0
        while proc.poll() is None:
            peak = max(peak, resident_mb(proc.pid))
            now = time.perf_counter() - started
            if first is None and partial.exists() and partial.stat().st_size > HEADER_BYTES:
                first, first_mb = now, resident_mb(proc.pid)
            if first is not None and now > first + seconds:
                break
            time.sleep(0.02)
        end_mb = resident_mb(proc.pid)
        stopping = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
        ended = time.perf_counter() - stopping
    return (
        f"{text.name} ({text.stat().st_size / 1e6:.1f} MB{', stdin' if stdin else ''}): first audio "
        f"{first if first is None else round(first, 2)} s, memory {first_mb} MB then, {end_mb} MB "
        f"after {seconds:g} s more, peak {peak} MB; Ctrl+C ended it in {ended:.2f} s (exit {code})"
    )


def make_texts(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    source = "".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    book = ((source + "\n\n") * (2_000_000 // len(source) + 1))[:2_000_000].rsplit("\n\n", 1)[0] + "\n"
    small = source[:3000].rsplit("\n\n", 1)[0] + "\n"
    for suffix in (".txt", ".md"):
        (folder / f"book{suffix}").write_text(book)
        (folder / f"small{suffix}").write_text(small)
    lines: list[str] = []
    for paragraph in book[:1_000_000].split("\n\n"):
        words = " ".join(paragraph.split()).encode("cp1252", "replace").decode("cp1252")
        if words:
            lines += [*textwrap.wrap(words, 90), ""]
    body = 48
    pages = [
        ["A long document for reading", *lines[i : i + body], str(n)]
        for n, i in enumerate(range(0, len(lines), body), start=1)
    ]
    write_pdf(folder / "book.pdf", pages)
    print(f"wrote {folder}: book.txt, book.md, small.txt, small.md, book.pdf ({len(pages)} pages)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("texts", nargs="*", type=Path)
    parser.add_argument("--make", type=Path, metavar="FOLDER", help="write the measured texts there first")
    parser.add_argument("--stdin", action="store_true", help="pipe each text to `say -`")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to let it run on")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--exe", type=Path, default=EXE, help="the tray-reader to run (another version's)")
    args = parser.parse_args()
    if args.make:
        make_texts(args.make)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # A shell starts a background job with SIGINT ignored, and the command inherits it.
        raise SystemExit("run this in the foreground: here Ctrl+C would not reach the command")
    for _ in range(args.runs):
        for text in args.texts:
            print(one_run(text, args.stdin, args.seconds, args.exe), flush=True)


if __name__ == "__main__":
    main()
