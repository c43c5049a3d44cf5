"""PulseAudio null-sink fixtures (owned by the player work)."""
