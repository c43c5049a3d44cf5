"""The text front end: pure functions from text to Kokoro phoneme ids (no onnxruntime, no threads)."""
