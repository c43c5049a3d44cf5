"""The speech runtime: phoneme ids to audio on threads (engine, decoder windows, synthesis, worker)."""
