"""The speech-dispatcher module's pure parts and its command loop, in memory (a recording
speaker stands in for the engine; test_speechd_module.py drives the real one)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.timings import WordTiming
from tray_reader.speech.types import AudioChunk, Prosody
from tray_reader.speechd import install, protocol, spoken, ssml
from tray_reader.speechd.module import MessageSettings, OutputModule, apply_settings
from tray_reader.speechd.protocol import Command, MessageType
from tray_reader.speechd.speaker import MarkPlacer, Run, Voice, runs
from tray_reader.speechd.spoken import Capitals, Punctuation


@pytest.mark.parametrize(
    ("line", "command", "kind", "args"),
    [
        ("SPEAK", Command.SPEAK, MessageType.TEXT, ()),
        ("CHAR", Command.SPEAK, MessageType.CHAR, ()),
        ("KEY", Command.SPEAK, MessageType.KEY, ()),
        ("SOUND_ICON", Command.SPEAK, MessageType.SOUND_ICON, ()),
        ("STOP", Command.STOP, None, ()),
        ("PAUSE", Command.PAUSE, None, ()),
        ("SET", Command.SET, None, ()),
        ("AUDIO", Command.AUDIO, None, ()),
        ("LOGLEVEL", Command.LOGLEVEL, None, ()),
        ("QUIT", Command.QUIT, None, ()),
        ("LIST VOICES", Command.LIST_VOICES, None, ()),
        ("LIST VOICES en GB", Command.LIST_VOICES, None, ("en", "GB")),
        ("DEBUG ON /tmp/x ", Command.DEBUG, None, ("ON", "/tmp/x")),
        ("speak", Command.UNKNOWN, None, ()),
        ("SPEAK now", Command.UNKNOWN, None, ()),
        ("", Command.UNKNOWN, None, ()),
        ("\x00\xff\ufffd", Command.UNKNOWN, None, ()),
    ],
)
def test_parse_command(line, command, kind, args) -> None:
    parsed = protocol.parse_command(line)
    assert (parsed.command, parsed.message_type, parsed.args) == (command, kind, args)


@pytest.mark.parametrize(
    ("lines", "settings", "ok"),
    [
        (["rate=10", "language=NULL"], {"rate": "10", "language": "NULL"}, True),
        (["rate=10", "junk", "volume=5"], {"rate": "10", "volume": "5"}, False),
        (["=3"], {}, False),
        (["rate="], {}, False),
        (["a=b=c"], {"a": "b=c"}, True),
        ([], {}, True),
    ],
)
def test_parse_settings(lines, settings, ok) -> None:
    assert protocol.parse_settings(lines) == (settings, ok)


@pytest.mark.parametrize(
    ("values", "changed", "ok"),
    [
        ({"rate": "50", "pitch": "-20", "volume": "0"}, {"rate": 50, "pitch": -20, "volume": 0}, True),
        ({"rate": "101"}, {}, False),
        ({"rate": "fast", "pitch": "10"}, {"pitch": 10}, False),
        ({"punctuation_mode": "all"}, {"punctuation": Punctuation.ALL}, True),
        ({"punctuation_mode": "lots"}, {}, False),
        (
            {"spelling_mode": "on", "cap_let_recogn": "spell"},
            {"spelling": True, "capitals": Capitals.SPELL},
            True,
        ),
        ({"voice": "female2", "language": "en-GB"}, {"voice_type": "FEMALE2", "language": "en-GB"}, True),
        ({"synthesis_voice": "bf_emma"}, {"synthesis_voice": "bf_emma"}, True),
        ({"synthesis_voice": "NULL", "language": "NULL"}, {}, True),
        ({"pitch_range": "0"}, {}, True),
        ({"no_such_setting": "1"}, {}, False),
    ],
)
def test_apply_settings(values, changed, ok) -> None:
    before = MessageSettings(synthesis_voice="am_adam" if "synthesis_voice" not in changed else None)
    if values.get("synthesis_voice") == "NULL":
        before = MessageSettings(synthesis_voice="am_adam", language="en")
    after, valid = apply_settings(before, values)
    assert valid is ok
    for name, value in changed.items():
        assert getattr(after, name) == value
    if values.get("synthesis_voice") == "NULL":
        assert after.synthesis_voice is None and after.language is None


@pytest.mark.parametrize(
    ("rate", "speed"), [(-100, 0.5), (-50, 2**-0.5), (0, 1.0), (50, 2**0.5), (100, 2.0), (500, 2.0)]
)
def test_rate_to_speed(rate, speed) -> None:
    assert protocol.rate_to_speed(rate) == pytest.approx(speed)


@pytest.mark.parametrize(("volume", "gain"), [(-100, 0.0), (0, 0.5), (100, 1.0), (-300, 0.0)])
def test_volume_to_gain(volume, gain) -> None:
    assert protocol.volume_to_gain(volume) == pytest.approx(gain)


@pytest.mark.parametrize(("pitch", "factor"), [(-100, 2**-0.5), (0, 1.0), (100, 2**0.5)])
def test_pitch_to_factor(pitch, factor) -> None:
    assert protocol.pitch_to_factor(pitch) == pytest.approx(factor)


def test_replies_and_events() -> None:
    assert protocol.reply(200, "a\ten-US\tnone", last="OK VOICE LIST SENT") == (
        "200-a\ten-US\tnone\n200 OK VOICE LIST SENT\n"
    )
    assert protocol.mark_event("m1") == "700-m1\n700 INDEX MARK\n"
    assert protocol.unescape_data_line("..") == "."
    assert protocol.unescape_data_line(".x") == "x"
    assert protocol.unescape_data_line("x.") == "x."


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("<speak>Hello there.</speak>", [ssml.Speech("Hello there.")]),
        (
            '<speak><mark name="a"/>One. <mark name="b"/>Two.<mark name="c"/></speak>',
            [ssml.Mark("a"), ssml.Speech("One. "), ssml.Mark("b"), ssml.Speech("Two."), ssml.Mark("c")],
        ),
        (
            '<speak>Wait<break time="250ms"/>now<break time="2s"/>then<break strength="strong"/>go</speak>',
            [
                ssml.Speech("Wait"),
                ssml.Pause(0.25),
                ssml.Speech("now"),
                ssml.Pause(2.0),
                ssml.Speech("then"),
                ssml.Pause(0.7),
                ssml.Speech("go"),
            ],
        ),
        ('<break time="9000s"/>', [ssml.Pause(ssml.MAX_BREAK)]),
        ('<speak><say-as interpret-as="characters">ab</say-as> ok</speak>', [ssml.Speech("ay, bee ok")]),
        ("<speak>5 &lt; 6 &amp; 7</speak>", [ssml.Speech("5 < 6 & 7")]),
        ("<speak><p>One</p><p>Two.</p></speak>", [ssml.Speech("One. Two. ")]),
        ("plain <unknown attr='x'>text</unknown>", [ssml.Speech("plain text")]),
        ('<speak>broken <mark name="x" tail', [ssml.Speech('broken <mark name="x" tail')]),
        ("bin\x00ary\x07 junk", [ssml.Speech("bin ary  junk")]),
        ("<speak></speak>", []),
        ("<!-- note --><speak>hi</speak>", [ssml.Speech("hi")]),
    ],
)
def test_ssml_segments(source, expected) -> None:
    assert ssml.segments(source) == expected


@pytest.mark.parametrize(
    ("message", "capitals", "said"),
    [
        ("a", Capitals.NONE, "ay"),
        ("A", Capitals.NONE, "ay"),
        ("A", Capitals.SPELL, "capital ay"),
        ("w", Capitals.NONE, "double you"),
        ("7", Capitals.NONE, "seven"),
        (".", Capitals.NONE, "dot"),
        ("space", Capitals.NONE, "space"),
        # Other characters by their Unicode names: the front end drops what it cannot read,
        # and a typed "€" was silent.
        ("é", Capitals.NONE, "ee acute"),
        ("\u00c9", Capitals.SPELL, "capital ee acute"),
        ("\u00df", Capitals.NONE, "sharp ess"),
        ("\u20ac", Capitals.NONE, "euro sign"),
        ("\U0001f600", Capitals.NONE, "grinning face"),
        ("\u4e2d", Capitals.NONE, "cjk unified ideograph"),
        ("left paren", Capitals.NONE, "left paren"),
    ],
)
def test_char_text(message, capitals, said) -> None:
    assert spoken.char_text(message, capitals) == said


@pytest.mark.parametrize(
    ("key", "said"),
    [
        ("a", "ay"),
        ("shift_a", "shift ay"),
        ("control_alt_delete", "control alt delete"),
        ("kp-enter", "keypad enter"),
        ("double-quote", "double quote"),
        ("f5", "F 5"),
        ("underscore", "underscore"),
        ("Shift_L", "left shift"),  # an X key's side, not shift and the letter
        ("Control_R", "right control"),
        ("shift_l", "shift el"),
        ("__", ""),
    ],
)
def test_key_text(key, said) -> None:
    assert spoken.key_text(key) == said


def test_spell_and_punctuation() -> None:
    assert spoken.spell("Hi 2", Capitals.SPELL) == "capital aitch, eye, two"
    assert spoken.with_punctuation("a, b @ c", Punctuation.NONE) == "a, b @ c"
    assert spoken.with_punctuation("a, b @ c", Punctuation.SOME) == "a, b  at  c"
    assert spoken.with_punctuation("a, (b)", Punctuation.MOST) == "a,  left paren b right paren "
    assert spoken.with_punctuation("a, b.", Punctuation.ALL) == "a comma  b dot "


# -- the command loop, with a recording speaker ---------------------------------------------------
class RecordingSpeaker:
    """Stands in for the engine: records what it is asked and reports begin/end at once."""

    def __init__(self) -> None:
        self.emit = None
        self.spoken: list[tuple[list[ssml.Segment], Voice]] = []
        self.calls: list[str] = []
        self.closed = False

    def speak(self, segments, voice) -> None:
        self.spoken.append((segments, voice))
        self.emit(protocol.EVENT_BEGIN + "\n")
        for segment in segments:
            if isinstance(segment, ssml.Mark):
                self.emit(protocol.mark_event(segment.name))
        self.emit(protocol.EVENT_END + "\n")

    def stop(self) -> None:
        self.calls.append("stop")

    def pause(self) -> None:
        self.calls.append("pause")

    def close(self) -> None:
        self.closed = True


class StockVoices:
    """The catalogue's interface over three fake voices (no files read)."""

    def __init__(self) -> None:
        from tray_reader.speechd.module import VoiceCatalog

        self._catalog = VoiceCatalog.__new__(VoiceCatalog)
        self.packs = {
            n: np.full((510, 1, 256), i, np.float32)
            for i, n in enumerate(["af_heart", "bf_emma", "am_michael"])
        }

    def names(self) -> list[str]:
        return list(self.packs)

    def default(self) -> str:
        return "af_heart"

    def choose(self, settings: MessageSettings) -> str:
        from tray_reader.speechd.module import VoiceCatalog

        self._catalog.names = self.names  # type: ignore[method-assign]
        self._catalog.default = self.default  # type: ignore[method-assign]
        return VoiceCatalog.choose(self._catalog, settings)

    def pack(self, name: str) -> np.ndarray:
        return self.packs[name]

    def speed(self, name: str) -> float:
        return 1.0

    def prosody(self, name: str) -> Prosody:
        return Prosody(1.25, 0.8) if name == "am_michael" else Prosody()  # as if enrolled

    def envelope(self, name: str) -> EnvelopeMap | None:
        return None


def run_module(script: str | bytes) -> tuple[str, int, RecordingSpeaker]:
    data = script.encode() if isinstance(script, str) else script
    lines = iter(data.splitlines(keepends=True))
    out: list[str] = []
    speaker = RecordingSpeaker()
    speaker.emit = out.append
    module = OutputModule(speaker, StockVoices(), out.append)  # type: ignore[arg-type]
    code = module.run(lambda: next(lines, b""))
    assert speaker.closed
    return "".join(out), code, speaker


LOADED = "299-tray-reader: the model is loading and warming\n299 OK LOADED SUCCESSFULLY\n"


def test_init_and_quit() -> None:
    out, code, _ = run_module("INIT\nQUIT\n")
    assert (out, code) == (LOADED + "210 OK QUIT\n", 0)


def test_must_begin_with_init() -> None:
    out, code, _ = run_module("SPEAK\n")
    assert (out, code) == ("", 3)


def test_exits_when_input_ends() -> None:
    out, code, _ = run_module("INIT\n")
    assert (out, code) == (LOADED, 0)
    out, code, _ = run_module("INIT\nSPEAK\nhalf a message\n")  # the server died mid-block
    assert (out, code) == (LOADED + "202 OK RECEIVING MESSAGE\n", 0)


def test_speak_with_settings_and_escapes() -> None:
    out, _, speaker = run_module(
        "INIT\nSET\nrate=100\nvolume=0\npitch=-100\nsynthesis_voice=bf_emma\n.\n"
        'SPEAK\n<speak>Line one\n..dotted\n<mark name="m"/></speak>\n.\nQUIT\n'
    )
    assert out == (
        LOADED + "203 OK RECEIVING SETTINGS\n203 OK SETTINGS RECEIVED\n"
        "202 OK RECEIVING MESSAGE\n200 OK SPEAKING\n701 BEGIN\n700-m\n700 INDEX MARK\n702 END\n210 OK QUIT\n"
    )
    (segments, voice) = speaker.spoken[0]
    assert segments == [ssml.Speech("Line one\n.dotted\n"), ssml.Mark("m")]
    assert voice.pack[0, 0, 0] == 1  # bf_emma
    assert (voice.speed, voice.gain, voice.pitch) == pytest.approx((2.0, 0.5, 2**-0.5))


def test_a_voice_with_its_own_pitch_keeps_it_under_the_desktop_pitch() -> None:
    _, _, speaker = run_module("INIT\nSET\npitch=100\nsynthesis_voice=am_michael\n.\nSPEAK\nHello\n.\nQUIT\n")
    (_, voice) = speaker.spoken[0]
    assert (voice.pitch, voice.spread) == pytest.approx((1.25 * 2**0.5, 0.8))


@pytest.mark.parametrize(
    ("settings", "voice"),
    [
        ("voice=MALE1\nlanguage=en\nsynthesis_voice=NULL\n", 0),
        ("voice=MALE2\nsynthesis_voice=NULL\n", 2),
        ("language=en-GB\nsynthesis_voice=NULL\n", 1),
        ("synthesis_voice=no_such_voice\n", 0),
        ("synthesis_voice=am_michael\nvoice=FEMALE2\n", 2),
    ],
)
def test_voice_choice(settings, voice) -> None:
    _, _, speaker = run_module(f"INIT\nSET\n{settings}.\nSPEAK\nhi\n.\n")
    assert speaker.spoken[0][1].pack[0, 0, 0] == voice


def test_char_key_and_sound_icon() -> None:
    _, _, speaker = run_module(
        "INIT\nSET\ncap_let_recogn=spell\n.\nCHAR\nB\n.\nCHAR\nspace\n.\nKEY\ncontrol_s\n.\nSOUND_ICON\nmessage\n.\n"
    )
    said = [seg for seg, _ in speaker.spoken]
    assert said == [
        [ssml.Speech("capital bee")],
        [ssml.Speech("space")],
        [ssml.Speech("control ess")],
        [],
    ]


def test_spelling_and_punctuation_modes() -> None:
    _, _, speaker = run_module(
        "INIT\nSET\nspelling_mode=on\n.\nSPEAK\nab\n.\nSET\nspelling_mode=off\npunctuation_mode=all\n.\nSPEAK\nx!\n.\n"
    )
    assert [seg for seg, _ in speaker.spoken] == [
        [ssml.Speech("ay, bee")],
        [ssml.Speech("x exclamation mark ")],
    ]


def test_stop_and_pause_go_to_the_speaker_without_reply() -> None:
    out, _, speaker = run_module("INIT\nSTOP\nPAUSE\nSTOP\n")
    assert out == LOADED
    assert speaker.calls == ["stop", "pause", "stop"]


@pytest.mark.parametrize(
    ("script", "answer"),
    [
        ("BOGUS\n", "300 ERR UNKNOWN COMMAND\n"),
        ("\x00\x01\xff\xfe\n", "300 ERR UNKNOWN COMMAND\n"),
        ("SPEAK\n.\n", "202 OK RECEIVING MESSAGE\n301 ERROR CANT SPEAK\n"),
        ("CHAR\nab\ncd\n.\n", "202 OK RECEIVING MESSAGE\n305 DATA MORE THAN ONE LINE\n"),
        ("SET\nrate=\n.\n", "203 OK RECEIVING SETTINGS\n302 ERROR BAD SYNTAX\n"),
        ("SET\nrate=1000\n.\n", "203 OK RECEIVING SETTINGS\n303 ERROR INVALID PARAMETER OR VALUE\n"),
        ("LOGLEVEL\nlog_level=3\n.\n", "207 OK RECEIVING LOGLEVEL SETTINGS\n203 OK LOGLEVEL SET\n"),
        (
            "LOGLEVEL\nlog_level=x\n.\n",
            "207 OK RECEIVING LOGLEVEL SETTINGS\n303 ERROR INVALID PARAMETER OR VALUE\n",
        ),
        (
            "AUDIO\naudio_output_method=server\n.\n",
            "207 OK RECEIVING AUDIO SETTINGS\n300-tray-reader plays its audio itself\n300 MODULE ERROR\n",
        ),
        (
            "AUDIO\naudio_output_method=pulse\naudio_pulse_device=default\n.\n",
            "207 OK RECEIVING AUDIO SETTINGS\n203 OK AUDIO INITIALIZED\n",
        ),
        ("LIST VOICES fr\n", "304 CANT LIST VOICES\n"),
        ("LIST VOICES en GB\n", "304 CANT LIST VOICES\n"),
        ("LIST VOICES en-GB\n", "200-bf_emma\ten-GB\tnone\n200 OK VOICE LIST SENT\n"),
        ("DEBUG\n", "302 ERROR BAD SYNTAX\n"),
        ("DEBUG OFF\n", "200 OK DEBUGGING OFF\n"),
        ("DEBUG ON /nonexistent/dir/log\n", "303 CANT OPEN CUSTOM DEBUG FILE\n"),
    ],
)
def test_answers(script, answer) -> None:
    out, code, _ = run_module("INIT\n" + script + "QUIT\n")
    assert out == LOADED + answer + "210 OK QUIT\n"
    assert code == 0


def test_list_voices() -> None:
    out, _, _ = run_module("INIT\nLIST VOICES\n")
    assert (
        out
        == LOADED
        + "200-af_heart\ten-US\tnone\n200-bf_emma\ten-GB\tnone\n200-am_michael\ten-US\tnone\n200 OK VOICE LIST SENT\n"
    )


def test_junk_huge_and_binary_messages_leave_the_module_working() -> None:
    huge = ("word " * 220_000).encode()  # 1.1 MB on one line
    junk = bytes(range(256)).replace(b"\n", b"") + b"\xc3\x28\xa0\xa1"
    script = (
        b"INIT\nSPEAK\n" + huge + b"\n.\nSPEAK\n" + junk + b"\n.\n\n\n.\n..\nSPEAK\nstill here\n.\nQUIT\n"
    )
    out, code, speaker = run_module(script)
    assert code == 0 and out.endswith("200 OK SPEAKING\n701 BEGIN\n702 END\n210 OK QUIT\n")
    assert out.count("300 ERR UNKNOWN COMMAND\n") == 4  # the two blank lines, "." and ".." outside a block
    first = speaker.spoken[0][0][0]
    assert isinstance(first, ssml.Speech) and len(first.text) <= 200_000
    second = speaker.spoken[1][0][0]
    assert isinstance(second, ssml.Speech) and "\x00" not in second.text and "\x07" not in second.text
    assert speaker.spoken[2][0] == [ssml.Speech("still here")]


# -- installation -------------------------------------------------------------------------------
SYSTEM_CONF = '# system file\nLogLevel 3\n#AddModule "espeak-ng" "sd_espeak-ng" "espeak-ng.conf"\nDefaultModule espeak-ng\n'


def dirs_in(tmp_path: Path) -> install.UserDirs:
    system = tmp_path / "etc"
    system.mkdir()
    (system / "speechd.conf").write_text(SYSTEM_CONF)
    modules = tmp_path / "usr-modules"
    modules.mkdir()
    for name in ("sd_espeak-ng", "sd_dummy", "sd_generic"):
        (modules / name).write_text("")
    return install.UserDirs(tmp_path / "config", tmp_path / "libexec", system, (modules,))


def test_install_from_the_system_file_and_remove(tmp_path: Path) -> None:
    dirs = dirs_in(tmp_path)
    install.install(dirs, "/opt/python -m tray_reader.cli speechd-module")
    text = dirs.conf.read_text()
    assert text.startswith(SYSTEM_CONF)
    assert 'AddModule "espeak-ng" "sd_espeak-ng" "espeak-ng.conf"\n' in text  # still found
    assert f'AddModule "tray-reader" "{dirs.launcher}" "tray-reader.conf"\n' in text
    assert "dummy" not in text.split(install.BEGIN)[1]
    assert dirs.launcher.read_text().endswith('exec /opt/python -m tray_reader.cli speechd-module "$@"\n')
    assert dirs.launcher.stat().st_mode & 0o111
    assert dirs.module_conf.exists() and install.configured(dirs)
    assert (tmp_path / "etc" / "speechd.conf").read_text() == SYSTEM_CONF  # untouched
    install.install(dirs, "/opt/python -m tray_reader.cli speechd-module")  # again: one block
    assert dirs.conf.read_text().count(install.BEGIN) == 1
    install.remove(dirs)
    assert not dirs.conf.exists()  # it was the system file's copy: nothing of the user's in it
    assert not dirs.launcher.exists() and not dirs.module_conf.exists() and not install.configured(dirs)
    assert not dirs.config.exists() and not dirs.modules.exists()
    assert install.remove(dirs) == ["tray-reader was not configured for speech-dispatcher"]


def test_remove_keeps_the_users_own_changes(tmp_path: Path) -> None:
    dirs = dirs_in(tmp_path)
    install.install(dirs, "tray-reader speechd-module")
    dirs.conf.write_text(dirs.conf.read_text() + "DefaultRate 20\n")
    (dirs.config / "clients").mkdir()
    install.remove(dirs)
    assert dirs.conf.read_text() == SYSTEM_CONF + "DefaultRate 20\n"
    assert (dirs.config / "clients").is_dir()


def test_install_keeps_a_user_module_list(tmp_path: Path) -> None:
    dirs = dirs_in(tmp_path)
    dirs.config.mkdir(parents=True)
    dirs.conf.write_text('AddModule "festival" "sd_festival" "festival.conf"')
    install.install(dirs, "tray-reader speechd-module")
    text = dirs.conf.read_text()
    assert install.active_modules(text) == ["festival"]
    assert "espeak-ng" not in text  # the user chose their modules; only tray-reader is added
    install.remove(dirs)
    assert dirs.conf.read_text() == 'AddModule "festival" "sd_festival" "festival.conf"\n'


def test_probe_reports_a_module_that_does_not_answer(tmp_path: Path) -> None:
    dirs = dirs_in(tmp_path)
    install.install(dirs, "sh -c 'exit 4'")
    assert install.probe(dirs, timeout=10) == "the module did not answer INIT (exit 4: no output)"
    install.install(dirs, "sh -c 'cat >/dev/null; echo 299 OK LOADED SUCCESSFULLY; echo 210 OK QUIT'")
    assert install.probe(dirs, timeout=10) is None


ORCA = '<speak><mark name="0:4"/>Good <mark name="5:12"/>morning, <mark name="14:19"/>world.</speak>'


def test_speech_and_its_marks_are_one_run_between_pauses():
    # Orca marks every word: said piece by piece, each word was an utterance of its own.
    assert list(runs(ssml.segments(ORCA))) == [
        Run("Good morning, world.", ((0, "0:4"), (5, "5:12"), (14, "14:19")))
    ]
    parts = list(
        runs(
            ssml.segments('<speak>One <mark name="a"/>two<break time="300ms"/>three<mark name="b"/></speak>')
        )
    )
    assert parts == [Run("One two", ((4, "a"),)), ssml.Pause(0.3), Run("three", ((5, "b"),))]


def test_marks_cut_the_audio_where_their_words_begin():
    # "Good morning, world." as two chunks; the first in two pieces, the word "morning"
    # (text 5-12) beginning at sample 900, in the second piece.
    words = (WordTiming(100, 800, (0, 4)), WordTiming(900, 1500, (5, 12)))
    placer = MarkPlacer(((0, "m0"), (5, "m5"), (14, "m14"), (20, "end")))
    first = placer.split(AudioChunk(np.arange(600, dtype=np.float32), 0, words=words))
    assert [(p.size, names) for p, names in first] == [(100, []), (500, ["m0"])]
    second = placer.split(AudioChunk(np.arange(600, 1600, dtype=np.float32), 0))
    assert [(p.size, names) for p, names in second] == [(300, []), (700, ["m5"])]
    assert second[1][0][0] == 900  # the audio is cut, not changed
    third = placer.split(AudioChunk(np.zeros(400, np.float32), 1, words=(WordTiming(0, 300, (14, 20)),)))
    assert [(p.size, names) for p, names in third] == [(400, ["m14"])]  # at its very start
    assert placer.rest() == ["end"]  # after the last word: heard when the run ends


def test_without_word_timings_marks_are_placed_by_sentence():
    placer = MarkPlacer(((0, "a"), (3, "b"), (12, "c")))
    one = placer.split(AudioChunk(np.zeros(500, np.float32), 0, sentence_span=(0, 10)))
    again = placer.split(AudioChunk(np.zeros(500, np.float32), 0, sentence_span=(0, 10)))
    two = placer.split(AudioChunk(np.zeros(500, np.float32), 1, sentence_span=(11, 20)))
    assert [names for _, names in one] == [["a"]]
    assert [names for _, names in again] == [[]]
    assert [names for _, names in two] == [["b"]]
    assert placer.rest() == ["c"]
