"""X11 desktop fixtures: Xvfb, D-Bus, tray host, notifications (owned by the daemon work)."""
