"""The package's rooms stay apart: the text front end runs without the inference runtime."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# None in sys.modules makes any later import of that name fail, as if it were not installed.
_WITHOUT_RUNTIME = textwrap.dedent(
    """
    import sys
    for name in ("onnxruntime", "onnx"):
        sys.modules[name] = None
    from tray_reader.text.frontend import TextFrontEnd

    def phonemes(text):
        return "".join(c for c in text.lower() if c.isalpha() or c == " ")

    chunks = list(TextFrontEnd(phonemes).chunks("Dr. Smith paid $3.50. Then he left."))
    assert [c.sentence for c in chunks][-1] == 1, chunks
    loaded = sorted(m for m in sys.modules if m.startswith("tray_reader."))
    print("\\n".join(loaded))
    """
)


def test_the_text_front_end_imports_and_runs_without_onnxruntime():
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_RUNTIME], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    assert "tray_reader.text.frontend" in loaded
    assert not [m for m in loaded if m.startswith(("tray_reader.speech.engine", "tray_reader.model."))]
