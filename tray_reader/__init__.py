"""tray-reader: reads selected text aloud, offline, in a voice you chose or enrolled."""

__version__ = "0.1.0"
