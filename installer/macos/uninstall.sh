#!/usr/bin/env bash
# Removes what installer/macos/install.sh installed for the current user.
#
#   installer/macos/uninstall.sh [--purge]
#
# Your voices and settings (~/Library/Application Support/tray-reader) stay unless you pass
# --purge. The Accessibility / Input Monitoring entries are yours to remove in System Settings.
set -euo pipefail

PURGE=0
case "${1:-}" in
    "") ;;
    --purge) PURGE=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "tray-reader uninstall: unknown option $1 (see --help)" >&2; exit 1 ;;
esac

LABEL="io.github.tray-reader"
APP_DIR="$HOME/Library/Application Support/tray-reader"

remove() {
    local path
    for path in "$@"; do
        if [ -e "$path" ] || [ -L "$path" ]; then rm -rf -- "$path"; echo "removed $path"; fi
    done
}

if [ -x "$APP_DIR/venv/bin/tray-reader" ]; then
    "$APP_DIR/venv/bin/tray-reader" ctl quit >/dev/null 2>&1 || true
fi
launchctl bootout "gui/$(id -u)/$LABEL" 2>/dev/null || true

remove "$HOME/Library/LaunchAgents/$LABEL.plist" \
    "$HOME/Applications/tray-reader.app" \
    "$HOME/.local/bin/tray-reader" \
    "$APP_DIR/venv" \
    "$HOME/Library/Caches/tray-reader" \
    "$HOME/Library/Logs/tray-reader.log"

if [ "$PURGE" = 1 ]; then
    remove "$APP_DIR"
else
    rmdir "$APP_DIR" 2>/dev/null || true
    [ -e "$APP_DIR" ] && echo "kept your voices and settings: $APP_DIR (remove them with --purge)"
fi
echo "tray-reader is uninstalled."
