"""misaki's dictionaries from the cache: the same entries as parsing the JSON files."""

from __future__ import annotations

import subprocess
import sys

from misaki import en

from tray_reader.text.misaki_lexicon import load_lexicon


def test_the_cached_dictionaries_equal_the_parsed_ones_and_a_broken_cache_is_rebuilt(tmp_path):
    parsed = en.Lexicon(False)
    built = load_lexicon(False, tmp_path)  # no cache yet: parsed, then stored
    (stored,) = tmp_path.glob("*.marshal")
    cached = load_lexicon(False, tmp_path)
    for lexicon in (built, cached):
        assert lexicon.golds == parsed.golds and lexicon.silvers == parsed.silvers
        assert vars(lexicon).keys() == vars(parsed).keys() and lexicon.cap_stresses == parsed.cap_stresses
    stored.write_bytes(b"\x00not marshal")
    assert load_lexicon(False, tmp_path).golds == parsed.golds
    assert load_lexicon(False, tmp_path).golds == parsed.golds  # the rewritten cache reads back


def test_the_phonemiser_imports_spacy_without_its_command_line_and_leaves_it_importable():
    code = (
        "import sys\n"
        "from tray_reader.text.g2p import _import_spacy\n"
        "_import_spacy()\n"
        "assert 'typer' not in sys.modules, 'spacy.cli was imported'\n"
        "import spacy.cli\n"
        "assert hasattr(spacy.cli, 'download')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_the_tokenizer_spacy_builds_is_the_one_the_package_saved():
    from tray_reader.text import g2p

    spacy = g2p._import_spacy()
    built = spacy.load(g2p.SPACY_PACKAGE, exclude=list(g2p.SPACY_EXCLUDED))
    saved = spacy.load(g2p.SPACY_PACKAGE, exclude=[p for p in g2p.SPACY_EXCLUDED if p != "tokenizer"])
    assert built.tokenizer.to_bytes() == saved.tokenizer.to_bytes()
    text = "Dr. Smith's e-mail (smith@example.com) said: \"Don't pay $5.50 for U.S. ham-radios!\""
    assert [(t.text, t.tag_, t.whitespace_) for t in built(text)] == [
        (t.text, t.tag_, t.whitespace_) for t in saved(text)
    ]
