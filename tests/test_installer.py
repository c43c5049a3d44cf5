"""The per-platform installers.

Linux for real: install from this working tree into a temporary HOME, use the installed
program, check its menu, login and systemd entries with the desktop's own validators, then
uninstall and find nothing left but the user's data. macOS and Windows cannot run here:
their plist is parsed and their PowerShell scripts are parsed with a PowerShell grammar.
"""

from __future__ import annotations

import os
import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
LINUX = ROOT / "installer" / "linux"
MACOS = ROOT / "installer" / "macos"
WINDOWS = ROOT / "installer" / "windows"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux installer")


def _user_env(home: Path) -> dict[str, str]:
    """This process's environment as a fresh user with ``home`` would have it."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("XDG_", "PYTHON", "VIRTUAL_ENV", "TRAY_READER_")) and k != "HOME"
    }
    # The temporary HOME has no pip cache: reuse the real one so repeat runs are quick.
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    env["HOME"] = str(home)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    # Byte-compiling some 400 MB of packages is a large part of the install's time; Python
    # compiles lazily on first import instead, which changes nothing the test checks.
    env["TRAY_READER_PIP_ARGS"] = os.environ.get("TRAY_READER_PIP_ARGS", "--no-compile")
    if os.geteuid() == 0:
        env["TRAY_READER_ALLOW_ROOT"] = "1"  # CI runs as root; the HOME is still a private one
    return env


def _run(argv, env, timeout=60, check=True) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        pytest.fail(f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()}


# Written into HOME by others, not by the installer: onnxruntime's device id and the
# PulseAudio client's runtime link at run time, and rustup's settings when the PyGObject
# build probes for compilers. The installer neither owns nor removes them.
THIRD_PARTY = re.compile(
    r"^(\.cache/Microsoft/|\.config/pulse/|\.cache/fontconfig/|\.config/dconf/|\.rustup/|\.cargo/)"
)


@linux_only
@pytest.mark.desktop
@pytest.mark.timeout(600)
def test_install_use_verify_uninstall(tmp_path, desktop, pulse):
    home = tmp_path / "home"
    home.mkdir()
    env = _user_env(home)
    env.update(DISPLAY=desktop.env["DISPLAY"], XDG_SESSION_TYPE="x11", **pulse.client_env)
    env["DBUS_SESSION_BUS_ADDRESS"] = desktop.env["DBUS_SESSION_BUS_ADDRESS"]
    # The user's data from an earlier installation: it must survive an uninstall.
    voice = home / ".local/share/tray-reader/voices/me.json"
    settings = home / ".config/tray-reader/settings.toml"
    for path, text in ((voice, "{}"), (settings, "# mine\n")):
        path.parent.mkdir(parents=True)
        path.write_text(text)
    user_data = _files(home)

    # --no-fast-model: building it is a minute more; test_engine_fast builds and checks it.
    _run(["bash", str(LINUX / "install.sh"), "--systemd", "--no-fast-model", "--speechd"], env, timeout=480)
    venv_bin = home / ".local/share/tray-reader/venv/bin"
    launcher = home / ".local/bin/tray-reader"
    menu = home / ".local/share/applications/tray-reader.desktop"
    unit = home / ".config/systemd/user/tray-reader.service"
    for size in ICON_SIZES:
        assert (home / f".local/share/icons/hicolor/{size}x{size}/apps/tray-reader.png").is_file()
    assert os.access(launcher, os.X_OK)

    doctor = _run([str(launcher), "doctor"], env, check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "Kokoro model (4 packages): ok" in doctor.stdout
    assert "fast decoder: not built" in doctor.stdout and "--build-fast-model" in doctor.stdout
    assert "recordings read: WAV, FLAC, OGG, MP3, M4A and more (through ffmpeg)" in doctor.stdout
    if shutil.which("speech-dispatcher"):
        assert "tray-reader module: configured and answers" in doctor.stdout, doctor.stdout
    sd_launcher = home / ".local/libexec/speech-dispatcher-modules/sd_tray-reader"
    assert f"exec {venv_bin / 'tray-reader'} speechd-module" in sd_launcher.read_text()
    assert _run([str(launcher), "--version"], env).stdout.strip() == "tray-reader 0.1.0"

    wav = tmp_path / "x.wav"
    _run([str(launcher), "say", "--out", str(wav), "Hello."], env, timeout=180)
    import soundfile

    audio, rate = soundfile.read(wav, dtype="float32")
    assert rate == 24_000 and 0.3 < len(audio) / rate < 5
    assert np.sqrt(np.mean(audio**2)) > 0.01, "the spoken WAV is silent"

    # With --systemd the unit starts tray-reader, not XDG autostart; turn that on too, as the
    # tray's Settings would, to check the entry the app writes.
    autostart = home / ".config/autostart/tray-reader.desktop"
    assert not autostart.exists()
    _run([str(launcher), "autostart", "on"], env)
    assert f"Exec={venv_bin / 'tray-reader'} run\n" in autostart.read_text()
    for entry in (menu, autostart):
        check = _run(["desktop-file-validate", str(entry)], env, check=False)
        assert check.returncode == 0 and not check.stdout.strip(), check.stdout + check.stderr
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    verify = _run(
        ["systemd-analyze", "--user", "verify", str(unit)],
        {**env, "XDG_RUNTIME_DIR": str(runtime)},
        check=False,
    )
    assert verify.returncode == 0 and not verify.stderr.strip(), verify.stderr

    _run(["bash", str(LINUX / "uninstall.sh")], env)
    left = {f for f in _files(home) - user_data if not THIRD_PARTY.match(f)}
    assert left == set(), f"uninstall left {sorted(left)}"
    assert _files(home) >= user_data
    named = {str(p.relative_to(home)) for p in home.rglob("*tray-reader*")}
    assert named == {".local/share/tray-reader", ".config/tray-reader"}, "a tray-reader folder was left"

    _run(["bash", str(LINUX / "uninstall.sh"), "--purge"], env)
    assert not voice.exists() and not settings.parent.exists()


def _fake_path(tmp_path: Path, have: list[str], package_manager: str) -> str:
    """A PATH with only the named tools (linked to the real ones) and a package manager stub."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in have:
        real = shutil.which(tool) or shutil.which(tool, path="/sbin:/usr/sbin")
        if tool == "python3":  # the interpreter itself, not a version manager's shim
            real = os.path.realpath(sys.executable)
        if real:
            (bin_dir / tool).symlink_to(real)
    stub = bin_dir / package_manager
    stub.write_text("#!/bin/sh\nexit 99\n")
    stub.chmod(0o755)
    return str(bin_dir)


BASICS = ["bash", "dirname", "id", "grep", "python3", "pkg-config", "cc", "ldconfig", "sed"]


@linux_only
@pytest.mark.parametrize(
    ("package_manager", "expected"),
    [
        ("apt-get", "sudo apt-get install xsel"),
        ("dnf", "sudo dnf install xsel"),
        ("pacman", "sudo pacman -S --needed xsel"),
    ],
)
def test_missing_clipboard_tool_prints_the_install_command(tmp_path, package_manager, expected):
    env = _user_env(tmp_path)
    env["PATH"] = _fake_path(tmp_path, BASICS, package_manager)
    done = _run(["bash", str(LINUX / "install.sh"), "--check-only", "--no-gtk"], env)
    assert expected in done.stdout.splitlines()[-1], done.stdout


@linux_only
def test_missing_build_tools_stop_the_install_with_the_command(tmp_path):
    env = _user_env(tmp_path)
    env["PATH"] = _fake_path(tmp_path, [t for t in BASICS if t != "cc"] + ["xsel"], "apt-get")
    done = _run(["bash", str(LINUX / "install.sh"), "--check-only"], env, check=False)
    assert done.returncode == 1
    assert (
        "sudo apt-get install libgirepository1.0-dev libcairo2-dev pkg-config gcc python3-dev" in done.stderr
    )
    assert "--no-gtk" in done.stderr
    assert not (tmp_path / ".local").exists(), "a failed check must not start installing"


def test_shell_scripts_parse():
    for script in (*LINUX.glob("*.sh"), *MACOS.glob("*.sh")):
        done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert done.returncode == 0, f"{script}: {done.stderr}"
        assert os.access(script, os.X_OK), f"{script} is not executable"


def test_macos_launch_agent_template_parses_and_matches_the_app():
    from tray_reader import autostart

    template = MACOS / "io.github.tray-reader.plist"
    agent = plistlib.loads(template.read_bytes())
    assert agent["Label"] == autostart.LAUNCH_AGENT_LABEL == template.stem
    assert agent["ProgramArguments"][-1] == "run" and agent["RunAtLoad"] is True
    # The installer fills in the same keys the app's own `autostart on` writes.
    made = plistlib.loads(autostart.launch_agent_plist(["x", "run"], Path("/l.log")))
    assert set(agent) == set(made)


def _powershell_errors(path: Path) -> list[str]:
    tree_sitter = pytest.importorskip("tree_sitter")
    grammar = pytest.importorskip("tree_sitter_powershell")
    parser = tree_sitter.Parser(tree_sitter.Language(grammar.language()))
    tree = parser.parse(path.read_bytes())
    errors, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            errors.append(f"line {node.start_point[0] + 1}: {node.text[:60]!r}")
        stack.extend(node.children)
    return errors


@pytest.mark.parametrize("name", ["install.ps1", "uninstall.ps1", "check.ps1"])
def test_powershell_scripts_parse(name):
    """A grammar check; on Windows, `installer/windows/check.ps1` runs PowerShell's own parser."""
    assert _powershell_errors(WINDOWS / name) == []


def test_powershell_parse_check_catches_errors(tmp_path):
    broken = tmp_path / "broken.ps1"
    broken.write_text('function Install-It {\n  if ($x -eq 1) { Write-Host "one"\n')
    assert _powershell_errors(broken)
