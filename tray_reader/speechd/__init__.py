"""speech-dispatcher output module: tray-reader's voices for every program that speaks.

- `protocol`: the module protocol's replies, settings blocks and mappings (pure);
- `ssml`: the SSML speech-dispatcher sends, as text, marks and breaks (pure);
- `spoken`: what CHAR and KEY messages, spelling and punctuation modes say (pure);
- `speaker`: the engine side (synthesis, playback, events), behind a small interface;
- `module`: the command loop on stdin/stdout;
- `install`: the per-user speech-dispatcher configuration.
"""
