"""Envelope maps at part of their strength, replayed on saved runs.

A voice through its envelope map comes closer to the speaker by both encoders, but some maps
make it harder for the recogniser to follow, and the guard then passes it over (esco's and
ivrvoice_wb's mapped voices read the check's words at 0.33-0.55 against 0.25). This replays,
on what `bench_enroll.py --save DIR` kept, each mapped candidate also at part of its map's
strength (`_Weaker`: every bin's gain in dB times the strength, the level measured again
on the voice's render the map was made from): every map made again from the fit part as enrolment makes it, JUDGE_TEXT
rendered through it at each strength, the guard's judgements taken again on the held-back
part, its winners checked (CHECK_TEXT after the JUDGE_TEXT render, recognised once, at most
``--checks``), and the kept voice scored on clip B (gap closed, enc/AHS/GE2E). Rules:

* ``full maps``: the candidates as enrolment makes them (the failed voice's kin last);
* ``+ weaker maps``: the weaker maps judged too, as kin of their full maps;
* ``weaker next``: as above, but when a mapped voice fails, its weaker map is checked next.

    nice -n 5 .venv/bin/python bench/map_strength_study.py DIR [DIR ...] [--strength 0.5]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from bench.guard_order_study import ORDERS, PITCHED, check_errors, loaded, saved_runs  # noqa: E402
from tray_reader.speech.envelope import EnvelopeMap  # noqa: E402
from tray_reader.speech.types import Prosody  # noqa: E402
from tray_reader.voices import guard  # noqa: E402
from tray_reader.voices.enroll import MAP_TEXT, MAPPED  # noqa: E402

WEAKER = ", weaker"


@dataclasses.dataclass(frozen=True)
class _Weaker(EnvelopeMap):
    """A map applying ``share`` of its shape's gain (in dB)."""

    share: float = 1.0

    def _shape_db(self, spec: np.ndarray, rate: int) -> np.ndarray:
        return super()._shape_db(spec, rate) * self.share

    @classmethod
    def of(cls, full: EnvelopeMap, share: float, voice16k: np.ndarray) -> EnvelopeMap | None:
        fields = {f.name: getattr(full, f.name) for f in dataclasses.fields(full)}
        made = cls(**(fields | {"level_db": None}), share=share)
        level = made.added_db(voice16k, 16_000)
        return dataclasses.replace(made, level_db=level) if np.isfinite(level) else None


def replay(z, renderer, embedder, strength: float) -> dict:
    """One saved run with every mapped candidate also at ``strength``: judgements, winners,
    word errors (heard when first asked for) and every candidate's closure on clip B."""
    labels = [str(x) for x in z["labels"]]
    fit16k, held = guard.split(z["a16"])
    band = guard.band_gain(fit16k)
    voices, renders, weaker_of = [], [], {}
    extra = []
    for i, label in enumerate(labels):
        pack, speed = z["packs"][i], float(z["speeds"][i])
        prosody = Prosody(float(z["pitch"][i]), float(z["spread"][i]))
        if not label.endswith(MAPPED):
            voices.append((pack, speed, prosody, None))
            renders.append(z["renders"][i])
            continue
        base = labels.index(label[: -len(MAPPED)].split(PITCHED)[0])
        source = renderer.render16k(z["packs"][base], float(z["speeds"][base]), [MAP_TEXT])
        full = EnvelopeMap.fit(source, fit16k, band)
        voices.append((pack, speed, prosody, full))
        renders.append(renderer.render16k(pack, speed, [guard.JUDGE_TEXT], prosody, full))
        weak = _Weaker.of(full, strength, source) if full is not None else None
        if weak is not None:
            extra.append((i, f"{label}{WEAKER}", (pack, speed, prosody, weak)))
    for i, label, voice in extra:
        weaker_of[i] = len(labels)
        labels.append(label)
        voices.append(voice)
        renders.append(renderer.render16k(voice[0], voice[1], [guard.JUDGE_TEXT], *voice[2:]))
    verdict = guard.decide(labels[0], labels, lambda i: renders[i], held, embedder, lambda _i, _a: None)
    measure = be.distance_to(z["b16"], embedder)
    d = np.array([measure(r) for r in renders])
    ceiling = np.array(measure(z["a16"]))
    return {
        "labels": labels,
        "judgements": verdict.judgements,
        "winners": guard.winners(verdict.judgements),
        "errors": check_errors(renderer, voices, renders, labels[0]),
        "closed": (d[0] - d) / (d[0] - ceiling),
        "kin": [hash(np.ascontiguousarray(v[0][..., :128]).tobytes()) for v in voices],
        "weaker_of": weaker_of,
        "originals": len(z["labels"]),
    }


def kept(run: dict, rule: str, checks: int) -> tuple[int, int]:
    """(the voice the guard keeps under ``rule``, checks run)."""
    js, originals, weaker_of = run["judgements"], run["originals"], run["weaker_of"]
    order = ORDERS["most wins (now)"]
    waiting = sorted(
        (i for i in run["winners"] if rule != "full maps" or i < originals), key=lambda i: order(js[i])
    )
    stock = run["errors"][0]
    for n in range(checks):
        if not waiting:
            return 0, n
        i = waiting.pop(0)
        if run["errors"][i] <= stock + guard.MAX_WER_RISE:
            return i, n + 1
        later = [j for j in waiting if run["kin"][j] == run["kin"][i]]
        waiting = [j for j in waiting if j not in later] + later
        if rule == "weaker next" and weaker_of.get(i) in waiting:
            waiting.remove(weaker_of[i])
            waiting.insert(0, weaker_of[i])
    return 0, checks


RULES = ("full maps", "+ weaker maps", "weaker next")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--strength", type=float, default=0.5)
    ap.add_argument("--checks", type=int, default=4)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    renderer, embedder = loaded()
    got: dict[str, list] = {r: [] for r in RULES}
    pairs = []
    for z, held_out in saved_runs(args.folders, args.only):
        run = replay(z, renderer, embedder, args.strength)
        for rule in RULES:
            i, n = kept(run, rule, args.checks)
            print(
                f"   {rule:>14}: {be.percents(run['closed'][i])} errors {run['errors'][i]:.2f}"
                f" (stock {run['errors'][0]:.2f}) after {n} checks  {run['labels'][i][:70]}",
                flush=True,
            )
            if held_out:
                got[rule].append(run["closed"][i])
        for full, weak in run["weaker_of"].items():
            checked = full in run["errors"] and weak in run["errors"]
            print(
                f"     map {be.percents(run['closed'][full])} -> weaker {be.percents(run['closed'][weak])}"
                f" wins {run['judgements'][full].wins:.2f} -> {run['judgements'][weak].wins:.2f}"
                + (f" errors {run['errors'][full]:.2f} -> {run['errors'][weak]:.2f}" if checked else ""),
                flush=True,
            )
            if held_out:
                pairs.append((run["closed"][full], run["closed"][weak]))
    print(f"\nheld out, gap closed on clip B (enc/AHS/GE2E); strength {args.strength}, {args.checks} checks")
    print("| rule | guarded | worst |")
    print("|---|---|---|")
    for rule in RULES:
        g = np.array(got[rule])
        if len(g):
            print(f"| {rule} | {be.percents(g.mean(axis=0))} | {be.percents(g.min(axis=0))} |")
    if pairs:
        p = np.array(pairs)
        print(
            f"every mapped candidate ({len(p)}): full {be.percents(p[:, 0].mean(axis=0))},"
            f" weaker {be.percents(p[:, 1].mean(axis=0))}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
