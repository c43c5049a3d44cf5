"""The user pronunciation lexicon: loading, validation, and its effect on G2P."""

from __future__ import annotations

import pytest

from tray_reader.errors import ConfigError
from tray_reader.text.frontend import TextFrontEnd
from tray_reader.text.lexicon import Lexicon


def write(tmp_path, body: str):
    path = tmp_path / "lexicon.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_load_and_apply(tmp_path):
    lexicon = Lexicon.load(write(tmp_path, '[words]\nnginx = "engine x"\nKokoro = "/kˈOkəɹO/"\n'))
    assert lexicon.apply("Run NGINX with kokoro, not nginxes.") == (
        "Run engine x with [kokoro](/kˈOkəɹO/), not nginxes."
    )


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "lexicon.toml"
    path.write_bytes('\ufeff[words]\r\nnginx = "engine x"\r\n'.encode())
    assert Lexicon.load(path).apply("Run nginx.") == "Run engine x."


def test_missing_file_is_an_empty_lexicon(tmp_path):
    lexicon = Lexicon.load(tmp_path / "absent.toml")
    assert lexicon.apply("anything at all") == "anything at all"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[words]\nfoo = "/xyz\u4e2d/"\n', "not Kokoro phoneme symbols: \u4e2d"),
        ("[words]\nfoo = 3\n", "must be a string"),
        ('[words]\nfoo = ""\n', "1 to 200 characters"),
        ('[words]\nfoo = "a[b](c)"\n', "respelling may use only"),
        ('[words]\n"a|b" = "x"\n', "a key must be a word"),
        ('foo = "bar"\n', "put entries under [words]"),
        ("words = 3\n", "must be a table"),
        ("[words\n", "cannot read the pronunciation lexicon"),
    ],
)
def test_invalid_files_name_file_key_and_rule(tmp_path, body, message):
    path = write(tmp_path, body)
    with pytest.raises(ConfigError) as err:
        Lexicon.load(path)
    assert message in str(err.value)
    assert str(path) in str(err.value)


def test_lexicon_changes_what_is_said_not_what_is_shown(phonemizer):
    lexicon = Lexicon.from_mapping({"Kokoro": "/kˈOkəɹO/", "nginx": "engine x"})
    plain = list(TextFrontEnd(phonemizer).chunks("Kokoro serves nginx."))
    custom = list(TextFrontEnd(phonemizer, lexicon).chunks("Kokoro serves nginx."))
    assert [c.text for c in custom] == [c.text for c in plain] == ["Kokoro serves nginx."]
    assert custom[0].phonemes.startswith("kˈOkəɹO ")
    assert "ˈɛnʤən" in custom[0].phonemes
    assert custom[0].phonemes != plain[0].phonemes


def test_user_lexicon_lives_in_the_config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert Lexicon.user().entries == {}
    (tmp_path / "tray-reader").mkdir(exist_ok=True)
    (tmp_path / "tray-reader" / "lexicon.toml").write_text('[words]\nGIF = "jif"\n', encoding="utf-8")
    assert Lexicon.user().apply("a GIF") == "a jif"
