"""What the `tray-reader voice …` commands do, as plain functions (cli.py only parses).

Output goes through `out` (print by default) and progress to `err`, so tests and the tray's
window can capture them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tray_reader import config, model_files
from tray_reader.errors import EnrollmentError, VoiceError, VoiceNameError
from tray_reader.files import sha256
from tray_reader.speech.types import NEUTRAL
from tray_reader.voices.library import VoiceInfo, VoiceLibrary

if TYPE_CHECKING:  # these load models when imported
    from tray_reader.voices.enroll import EnrollResult, EnrollSettings
    from tray_reader.voices.record import AudioSource

Out = Callable[[str], None]

CONSENT_QUESTION = (
    "Is this your own voice, or do you have the speaker's permission to make a voice from it? [y/N] "
)


def _err(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def confirm_consent(
    yes: bool,
    ask: Callable[[str], str] = input,
    interactive: Callable[[], bool] = lambda: sys.stdin.isatty(),
) -> None:
    """Raise EnrollmentError unless the user confirmed consent (--yes or a 'y' answer)."""
    if yes:
        return
    if not interactive():
        raise EnrollmentError(
            "Enrolment needs your confirmation that the voice is your own or used with permission; "
            "run it in a terminal to answer, or pass --yes to confirm."
        )
    if ask(CONSENT_QUESTION).strip().lower() not in ("y", "yes"):
        raise EnrollmentError("Not confirmed; no voice was made.")


def made_by(info: VoiceInfo) -> str:
    """How an enrolled voice was made, in a few words: the recipe the guard kept (a stock
    voice, a blend of stock voices, another language's voice's timbre, a style fitted to the
    recording) and, if it reads at the speaker's pitch, that pitch."""
    found = info.scores.get("judged")
    judged: dict = found if isinstance(found, dict) else {}
    method = info.method
    if judged.get("fell_back") or method.startswith("stock "):
        recipe = f"stock voice {info.scores.get('nearest_stock', '?')}"
        if judged.get("fell_back"):
            # (Voices enrolled before the count was kept say it in the guard's message only.)
            harder = judged.get("passed_over", "harder for a recogniser" in str(judged.get("guard", "")))
            recipe += (
                " (the made voices closer to you were harder for a recogniser to follow"
                + ("; time ran out before the rest were checked)" if judged.get("unchecked") else ")")
                if harder
                else " (nothing made was closer)"
            )
    elif method.startswith("fitted style"):
        recipe = "style fitted to your recording"
    else:
        timbre = info.settings.get("timbre")
        timbre = timbre if isinstance(timbre, dict) else {}
        other_voices = set(model_files.other_voices())
        others = [n for n in timbre if n in other_voices]
        prosody = info.settings.get("prosody")
        if method.startswith("timbre of ") and others:
            lead = next(iter(prosody)) if isinstance(prosody, dict) and prosody else "a stock voice"
            name = others[0]
            recipe = (
                f"timbre of {name}, a voice made for {model_files.language(name)}, "
                f"with {lead}'s rhythm and intonation"
            )
        else:
            recipe = "blend of stock voices" + (" and voices made for other languages" if others else "")
    prosody = info.prosody
    if prosody != NEUTRAL:
        recipe += (
            f", at your pitch (x{prosody.pitch:.2f}, range x{prosody.spread:.2f}, speed {info.speed:.2f})"
        )
    if info.envelope is not None:
        recipe += ", through a filter that moves its sound as yours moves"
    search = info.scores.get("search")
    if isinstance(search, dict) and search.get("cut_by_time"):
        recipe += " (search cut short by its time limit)"
    said = info.scores.get("text")
    if isinstance(said, dict):
        first, end = int(said.get("first", 0)), int(said.get("end", 0))
        if said.get("used"):
            which = f"the first {end}" if first == 0 else f"words {first + 1} to {end}"
            recipe += f", matched on {which} of your text's {int(said.get('words', 0))} words"
        else:
            recipe += ", without your text (the recording did not say enough of it)"
    heard = info.scores.get("heard")
    if isinstance(heard, dict):
        if heard.get("used"):
            recipe += ", matched on the words recognised in your recording"
        else:
            recipe += ", without words to match (no text given, none recognised surely)"
    return recipe


def _encoders(judged: dict) -> str:
    """The speaker encoders' cosines of the kept voice and the nearest stock voice (voices
    enrolled before the guard had a second encoder have only the first)."""
    enc, stock = float(judged.get("enc", 0)), float(judged.get("stock_enc", 0))
    if "judge" not in judged:
        return f"speaker encoder {enc:.2f} vs {stock:.2f}"
    judge, stock_judge = float(judged["judge"]), float(judged.get("stock_judge", 0))
    return f"speaker encoders {enc:.2f} and {judge:.2f} vs {stock:.2f} and {stock_judge:.2f}"


def describe(info: VoiceInfo, default: str | None) -> str:
    mark = "*" if info.name == default else " "
    if info.kind == "stock":
        lang = {"a": "English (US)", "b": "English (UK)"}.get(info.name[0], "")
        gender = {"f": "female", "m": "male"}.get(info.name[1:2], "")
        return f"{mark} {info.name:<16} stock     {lang} {gender}"
    detail = info.method
    judged = info.scores.get("judged") if isinstance(info.scores.get("judged"), dict) else None
    if info.kind == "enrolled" and judged:
        s = info.scores
        detail = (
            f"{made_by(info)}; on {float(judged.get('judged_seconds', 0)):.0f} s held back from the fit: "
            f"MFCC distance {float(judged.get('ahs', 0)):.3f} vs nearest stock "
            f"{s.get('nearest_stock', '?')} {float(judged.get('stock_ahs', 0)):.3f} (lower is closer), "
            f"{_encoders(judged)} (higher is closer), {info.created[:10]}"
        )
    elif info.kind == "enrolled" and "similarity" in info.scores:
        s = info.scores
        detail = (
            f"similarity {float(s['similarity']):.2f} (nearest stock {s.get('nearest_stock', '?')} "
            f"{float(s.get('nearest_similarity', 0)):.2f}), {info.created[:10]}"
        )
    return f"{mark} {info.name:<16} {info.kind:<9} {detail}"


def list_voices(library: VoiceLibrary, out: Out = print, err: Out = _err) -> None:
    """The user's own voices first (as in the tray's menu), then the stock voices."""
    default = library.default_voice()
    for info in sorted(library.list(), key=lambda v: v.kind == "stock"):
        out(describe(info, default))
    for problem in library.problems:
        err(f"warning: {problem}")


def _set_settings_voice(name: str, only_if: str | None = None) -> str:
    """Put ``name`` for the voice settings.toml sets (where it sets one, and it is
    ``only_if`` when that is given); a note saying so, or ''.

    A voice in settings.toml (the tray's Voice menu saves one there) comes first for the
    daemon and `say`: left as it was, the voice chosen here would not be heard."""
    path = config.settings_path()
    loaded = config.load(path, create=False)
    current = loaded.settings.voice
    if "voice" not in loaded.given or current == name or only_if not in (None, current):
        return ""
    try:
        config.save_values(path, voice=name)
    except OSError as e:
        raise VoiceError(
            f"{path} sets voice = {current!r}, which comes first, and cannot be changed "
            f"({e.strerror or e}); set voice = {name!r} there."
        ) from None
    return f" (set in {path} too)"


def use(library: VoiceLibrary, name: str, out: Out = print) -> None:
    library.use(name)
    out(f"default voice: {name}{_set_settings_voice(name)}")


def rename(library: VoiceLibrary, old: str, new: str, out: Out = print) -> None:
    library.rename(old, new)
    out(f"renamed {old} to {new}{_set_settings_voice(new, only_if=old)}")


def remove(library: VoiceLibrary, name: str, out: Out = print) -> None:
    library.remove(name)
    out(f"removed {name}")


def export(library: VoiceLibrary, name: str, path: Path, out: Out = print) -> None:
    library.export(name, path)
    out(f"exported {name} to {path}")


def import_voice(library: VoiceLibrary, path: Path, name: str | None, out: Out = print) -> None:
    try:
        info = library.import_file(path, name)
    except VoiceNameError as e:
        if name is None:  # the file's own name: another one would do
            raise VoiceNameError(f"{e} Or import it under another name: --name NEW_NAME.") from None
        raise
    out(f"imported {info.name} ({info.kind})")


def parse_parts(specs: Sequence[str]) -> list[tuple[str, float]]:
    """'af_sarah:0.6' items -> [(name, weight)]; VoiceError on a malformed item."""
    parts = []
    for spec in specs:
        name, sep, weight = spec.rpartition(":")
        if not sep or not name:
            raise VoiceError(f"Write each voice of a mix as NAME:WEIGHT (e.g. af_sarah:0.6), got {spec!r}.")
        try:
            parts.append((name, float(weight)))
        except ValueError:
            raise VoiceError(f"The weight in {spec!r} is not a number.") from None
    return parts


def mix(library: VoiceLibrary, name: str, specs: Sequence[str], speed: float, out: Out = print) -> None:
    info = library.mix(name, parse_parts(specs), speed)
    out(f"made {name}: {info.method}")


def _progress(err: Out, clock: Callable[[], float] | None = None) -> Callable[[float, str], None]:
    from tray_reader.voices.job import TimeLeft

    time_left = TimeLeft(clock) if clock is not None else TimeLeft()

    def report(fraction: float, message: str) -> None:
        left = time_left.update(fraction)
        when = f", about {left:.0f} s left" if left is not None and fraction < 1 else ""
        err(f"[{fraction:4.0%}{when}] {message}")

    return report


def _enroll_settings(budget: float | None) -> EnrollSettings:
    from tray_reader.voices.enroll import EnrollSettings

    if budget is not None and not 0 <= budget <= 3600:
        raise EnrollmentError(f"--budget must be from 0 to 3600 seconds, got {budget}")
    if budget is None:
        return EnrollSettings()
    # --budget is the time for the search and the fit together, shared as the defaults are,
    # and given in full however slow the machine.
    d = EnrollSettings()
    share = d.budget_seconds / (d.budget_seconds + d.fit_seconds)
    return EnrollSettings(
        budget_seconds=budget * share, fit_seconds=budget * (1 - share), total_seconds=float("inf")
    )


def _report(info: VoiceInfo, result: EnrollResult, out: Out) -> None:
    out(f"enrolled {info.name}: {result.summary()}")
    for w in info.checks:
        out(f"note: {w}")
    out(f"made as: {made_by(info)}; {result.renders} renders in {result.seconds:.0f} s")
    out(f"use it with: tray-reader say --voice {info.name} …   or   tray-reader voice use {info.name}")


def add(
    library: VoiceLibrary,
    name: str,
    path: Path,
    text: str | None,
    yes: bool,
    budget: float | None,
    threads: int | None = None,
    out: Out = print,
    err: Out = _err,
) -> None:
    """Enrol a voice from an audio file."""
    from tray_reader.voices.checks import check_sound
    from tray_reader.voices.enroll import Enroller
    from tray_reader.voices.preprocess import load_audio, prepare

    library.check_new_name(name)
    # Check the recording before asking anything or loading models.
    recording = prepare(*load_audio(path), from_start=bool(text and text.strip()))
    check_sound(recording.speech16k, recording.speech_seconds, text, recording.snr_db)
    confirm_consent(yes)
    settings = _enroll_settings(budget)
    err("loading the voice models…")
    enroller = Enroller.load(threads=threads)
    info, result = enroller.enroll_file(
        library, name, path, consent=True, text=text, settings=settings, progress=_progress(err)
    )
    _report(info, result, out)


def record_and_add(
    library: VoiceLibrary,
    name: str,
    yes: bool,
    budget: float | None,
    seconds: float | None = None,  # record.MAX_SECONDS by default
    source: AudioSource | None = None,  # the microphone by default
    wait_for_enter: Callable[[], object] = input,
    threads: int | None = None,
    out: Out = print,
    err: Out = _err,
) -> None:
    """Show a passage, record it (Enter stops early), then enrol it."""
    from tray_reader.voices.enroll import Enroller
    from tray_reader.voices.preprocess import prepare
    from tray_reader.voices.record import MAX_SECONDS, PASSAGE, MicrophoneSource, meter, record

    library.check_new_name(name)
    confirm_consent(yes)
    source = source or MicrophoneSource()
    source.check()  # no microphone: said before the passage is shown
    out("Read this aloud in your normal voice (press Enter when you are done):\n")
    out(f"  {PASSAGE}\n")
    stop = threading.Event()

    def enter() -> None:
        try:
            wait_for_enter()
        except EOFError:
            return
        stop.set()

    threading.Thread(target=enter, daemon=True).start()

    def level(t: float, db: float) -> None:
        sys.stderr.write(f"\r  {t:4.1f} s  [{meter(db)}] {db:5.0f} dB ")
        sys.stderr.flush()

    samples = record(source, seconds or MAX_SECONDS, stop, level)
    err("")
    recording = prepare(samples, source.rate, from_start=True)
    settings = _enroll_settings(budget)
    err("loading the voice models…")
    enroller = Enroller.load(threads=threads)
    # However far the reading got (stopped early, or at the time limit), enrolment finds
    # which of the passage's words were said and matches those.
    text = PASSAGE
    info, result = enroller.enroll(
        library,
        name,
        recording,
        consent=True,
        source_sha256=sha256(samples.tobytes()),
        text=text,
        settings=settings,
        progress=_progress(err),
    )
    _report(info, result, out)


def enroll_from_tray() -> None:
    """The tray's "Enroll voice…" (found by app.py, called from any thread): open the
    enrolment window on the GUI loop (tray_reader.enroll_window)."""
    from tray_reader.enroll_window import open_enroll_window

    open_enroll_window()
