"""The per-user speech-dispatcher configuration that makes tray-reader one of its voices.

Written, for the current user only (system files are never touched):

- a launcher, `sd_tray-reader`, in speech-dispatcher's user module directory
  (`$XDG_DATA_HOME/../libexec/speech-dispatcher-modules`, as the server computes it): a
  shell script that runs this installation's `tray-reader speechd-module`;
- `$XDG_CONFIG_HOME/speech-dispatcher/modules/tray-reader.conf`;
- an `AddModule "tray-reader" ...` line in `$XDG_CONFIG_HOME/speech-dispatcher/speechd.conf`,
  the file made from the system one if the user has none. speech-dispatcher loads only the
  listed modules once one AddModule line is active, so when the file listed none (it
  detected the installed modules itself), the modules it would have found are listed too:
  adding tray-reader never takes espeak-ng away.

`remove` takes out exactly what `install` added (lines between its markers, and its files).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

MODULE = "tray-reader"
LAUNCHER = f"sd_{MODULE}"
BEGIN = "# tray-reader:begin (written by `tray-reader speechd install`; `tray-reader speechd remove` takes it out)"
END = "# tray-reader:end"
SYSTEM_CONF_DIR = Path("/etc/speech-dispatcher")
SYSTEM_MODULE_DIRS = (
    Path("/usr/lib/speech-dispatcher-modules"),
    Path("/usr/libexec/speech-dispatcher-modules"),
)

MODULE_CONF = """\
# tray-reader's speech-dispatcher output module (offline Kokoro voices).
# Its settings are tray-reader's own (~/.config/tray-reader/settings.toml: fast_model);
# the voice, rate, pitch and volume come from speech-dispatcher with each message.
"""


@dataclass(frozen=True)
class UserDirs:
    """Where speech-dispatcher looks for a user's configuration and modules."""

    config: Path
    """$XDG_CONFIG_HOME/speech-dispatcher."""
    modules: Path
    """$XDG_DATA_HOME/../libexec/speech-dispatcher-modules."""
    system_config: Path = SYSTEM_CONF_DIR
    """The system configuration (read only)."""
    system_modules: tuple[Path, ...] = SYSTEM_MODULE_DIRS
    """Where installed modules are (read only)."""

    @classmethod
    def from_environment(cls) -> UserDirs:
        home = Path.home()
        config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
        return cls(config / "speech-dispatcher", data.parent / "libexec" / "speech-dispatcher-modules")

    @property
    def conf(self) -> Path:
        return self.config / "speechd.conf"

    @property
    def module_conf(self) -> Path:
        return self.config / "modules" / f"{MODULE}.conf"

    @property
    def launcher(self) -> Path:
        return self.modules / LAUNCHER


def module_command(command: str | None = None) -> str:
    """The shell command that starts the module: given, else this Python running it."""
    return command or f"{shlex.quote(sys.executable)} -m tray_reader.cli speechd-module"


def launcher_script(command: str) -> str:
    return f'#!/bin/sh\n# tray-reader speech-dispatcher module (tray-reader speechd install)\nexec {command} "$@"\n'


def active_modules(conf_text: str) -> list[str]:
    """The modules an `AddModule` line names (outside tray-reader's own lines)."""
    names = []
    for line in _without_ours(conf_text).splitlines():
        words = shlex.split(line, comments=True) if line.strip() else []
        if len(words) >= 2 and words[0].lower() == "addmodule":
            names.append(words[1])
    return names


def detected_modules(dirs: UserDirs) -> list[tuple[str, str, str]]:
    """(name, binary, config) of the modules speech-dispatcher finds by itself: sd_NAME
    in the module directories with a NAME.conf (or none), as its detect_output_modules."""
    found: dict[str, tuple[str, str, str]] = {}
    for directory in dirs.system_modules:
        if not directory.is_dir():
            continue
        for binary in sorted(directory.glob("sd_*")):
            name = binary.name[3:]
            if name in found or name == MODULE or name in ("dummy", "generic"):
                continue
            conf = f"{name}.conf"
            found[name] = (name, binary.name, conf)
    return list(found.values())


def _without_ours(text: str) -> str:
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith(BEGIN):
            inside = True
        elif inside and line.startswith(END):
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def conf_with_module(conf_text: str, dirs: UserDirs) -> str:
    """speechd.conf's text with tray-reader's AddModule block (replacing an older one)."""
    base = _without_ours(conf_text)
    lines = [BEGIN]
    if not active_modules(base):
        for name, binary, conf in detected_modules(dirs):
            lines.append(f'AddModule "{name}" "{binary}" "{conf}"')
    lines.append(f'AddModule "{MODULE}" "{dirs.launcher}" "{MODULE}.conf"')
    lines.append(END)
    if base and not base.endswith("\n"):
        base += "\n"
    return base + "\n".join(lines) + "\n"


def install(dirs: UserDirs, command: str) -> list[str]:
    """Write the launcher, the module configuration and the AddModule line; what was done."""
    done = []
    dirs.modules.mkdir(parents=True, exist_ok=True)
    dirs.launcher.write_text(launcher_script(command), encoding="utf-8")
    dirs.launcher.chmod(0o755)
    done.append(f"wrote {dirs.launcher}")
    dirs.module_conf.parent.mkdir(parents=True, exist_ok=True)
    dirs.module_conf.write_text(MODULE_CONF, encoding="utf-8")
    done.append(f"wrote {dirs.module_conf}")
    if dirs.conf.exists():
        text = dirs.conf.read_text(encoding="utf-8", errors="replace")
    else:
        system = dirs.system_config / "speechd.conf"
        text = system.read_text(encoding="utf-8", errors="replace") if system.exists() else ""
        done.append(f"made {dirs.conf} from {system}" if text else f"made {dirs.conf}")
    dirs.conf.write_text(conf_with_module(text, dirs), encoding="utf-8")
    done.append(f"added tray-reader to {dirs.conf}")
    done.append(
        "restart speech-dispatcher to use it: killall -u $USER speech-dispatcher (it starts again on demand)"
    )
    return done


def remove(dirs: UserDirs) -> list[str]:
    """Take out what `install` added; what was done. A speechd.conf that is, without our
    lines, the system file as it was copied goes too (install made it), and so do the
    folders left empty."""
    done = []
    if dirs.conf.exists():
        text = dirs.conf.read_text(encoding="utf-8", errors="replace")
        cleaned = _without_ours(text).rstrip("\n") + "\n"
        system = dirs.system_config / "speechd.conf"
        copied = (
            system.exists()
            and cleaned == system.read_text(encoding="utf-8", errors="replace").rstrip("\n") + "\n"
        )
        if cleaned != text and copied:
            dirs.conf.unlink()
            done.append(f"removed {dirs.conf} (the copy of {system} install made)")
        elif cleaned != text:
            dirs.conf.write_text(cleaned, encoding="utf-8")
            done.append(f"removed tray-reader from {dirs.conf}")
    for path in (dirs.module_conf, dirs.launcher):
        if path.exists():
            path.unlink()
            done.append(f"removed {path}")
    for folder in (dirs.module_conf.parent, dirs.config, dirs.modules, dirs.modules.parent):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
    return done or ["tray-reader was not configured for speech-dispatcher"]


def configured(dirs: UserDirs) -> bool:
    """Whether install's launcher, module configuration and AddModule line are all there."""
    if not (dirs.launcher.exists() and dirs.module_conf.exists() and dirs.conf.exists()):
        return False
    return BEGIN in dirs.conf.read_text(encoding="utf-8", errors="replace")


def status(dirs: UserDirs) -> str:
    if configured(dirs):
        return f"configured: {dirs.launcher}, {dirs.module_conf}, {dirs.conf}"
    return "not configured (tray-reader speechd install)"


def probe(dirs: UserDirs, timeout: float = 60.0) -> str | None:
    """Start the installed launcher as speech-dispatcher would and say INIT, then QUIT:
    None when it answers both, else what went wrong."""
    import subprocess

    try:
        done = subprocess.run(
            [str(dirs.launcher), str(dirs.module_conf)],
            input=b"INIT\nQUIT\n",
            capture_output=True,
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"the module did not run ({e})"
    out = done.stdout.decode("utf-8", "replace")
    if "299 OK LOADED SUCCESSFULLY" in out and "210 OK QUIT" in out:
        return None
    last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
    return f"the module did not answer INIT (exit {done.returncode}: {last[0]})"
