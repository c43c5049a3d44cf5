"""Text to speech: the text front end, the Kokoro engine, streaming synthesis, the worker."""
