#!/usr/bin/env bash
# Removes what installer/linux/install.sh installed for the current user.
#
#   installer/linux/uninstall.sh [--purge]
#
# Your voices ($XDG_DATA_HOME/tray-reader/voices) and settings ($XDG_CONFIG_HOME/tray-reader)
# stay unless you pass --purge, which removes them too.
set -euo pipefail

PURGE=0
case "${1:-}" in
    "") ;;
    --purge) PURGE=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "tray-reader uninstall: unknown option $1 (see --help)" >&2; exit 1 ;;
esac

DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
CONFIG_HOME=${XDG_CONFIG_HOME:-$HOME/.config}
CACHE_HOME=${XDG_CACHE_HOME:-$HOME/.cache}
STATE_HOME=${XDG_STATE_HOME:-$HOME/.local/state}
APP_DIR="$DATA_HOME/tray-reader"
UNIT="$CONFIG_HOME/systemd/user/tray-reader.service"

removed() { echo "removed $1"; }
remove() {
    local path
    for path in "$@"; do
        if [ -e "$path" ] || [ -L "$path" ]; then rm -rf -- "$path"; removed "$path"; fi
    done
}

# Stop a running instance politely first; it may hold files in the venv open.
if [ -x "$APP_DIR/venv/bin/tray-reader" ]; then
    "$APP_DIR/venv/bin/tray-reader" ctl quit >/dev/null 2>&1 || true
    # Only what `tray-reader speechd install` (install.sh --speechd) wrote, if it did.
    if "$APP_DIR/venv/bin/tray-reader" speechd status 2>/dev/null | grep -q '^configured'; then
        "$APP_DIR/venv/bin/tray-reader" speechd remove || true
    fi
fi

if [ -e "$UNIT" ]; then
    systemctl --user disable --now tray-reader.service >/dev/null 2>&1 || true
    remove "$UNIT"
    systemctl --user daemon-reload >/dev/null 2>&1 || true
fi

remove "$CONFIG_HOME/autostart/tray-reader.desktop" \
    "$DATA_HOME/applications/tray-reader.desktop" \
    "$HOME/.local/bin/tray-reader" \
    "$APP_DIR/venv" \
    "$CACHE_HOME/tray-reader"
for icon in "$DATA_HOME"/icons/hicolor/*/apps/tray-reader.png; do
    [ -e "$icon" ] || continue
    remove "$icon"
    # Leave no empty size folders behind that only this icon needed.
    rmdir "$(dirname "$icon")" "$(dirname "$(dirname "$icon")")" 2>/dev/null || true
done

if [ "$PURGE" = 1 ]; then
    remove "$APP_DIR" "$CONFIG_HOME/tray-reader" "$STATE_HOME/tray-reader"
else
    rmdir "$APP_DIR" 2>/dev/null || true
    for kept in "$APP_DIR" "$CONFIG_HOME/tray-reader"; do
        [ -e "$kept" ] && echo "kept your data: $kept (remove it with --purge)"
    done
fi
echo "tray-reader is uninstalled."
