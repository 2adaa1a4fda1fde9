"""A laid-out side's content hash (`layout.sidehash`, kept in the build manifest for `cardgen
changes`) changes with everything that draws: every field of a text op and of its runs, and the
side's outline; only the element's name, which draws nothing, is left out."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cardgen.layout.sidehash import SideHasher
from cardgen.model import ops

RUN = ops.Run(x=1.0, baseline=2.0, kind="text", content="Gain 1 AP", font="Helvetica", size=9.0,
              color=(0.1, 0.2, 0.3, 1.0), width=40.0)
TEXT = ops.Text(x=3.0, y=4.0, w=50.0, h=20.0, runs=(RUN,), size=9.0, element="rules")

# a different value for each field: what a designer's edit (or the engine) could change
RUN_CHANGES = {"x": 1.5, "baseline": 2.5, "kind": "icon", "content": "Gain 2 AP", "font": "Helvetica-Bold",
               "size": 10.0, "color": (0.1, 0.2, 0.4, 1.0), "width": 41.0, "tracking": 0.3, "glyphs": "\U00100001"}
TEXT_CHANGES = {"x": 3.5, "y": 4.5, "w": 51.0, "h": 21.0, "runs": (RUN, RUN), "size": 8.0, "overflow": True,
                "rotate": 90.0, "shadow": (0.5, -0.5, 1.0, (0.0, 0.0, 0.0, 0.5)),
                "outline": (1.0, 1.0, 1.0, 1.0), "outline_width": 0.8}


def side_hash(*items: ops.Op, outline: tuple = ()) -> str:
    return SideHasher().side(ops.CardLayout(width=180.0, height=252.0, bleed=9.0, ops=list(items),
                                            outline=outline))


def test_every_field_of_a_text_op_is_told() -> None:
    assert set(TEXT_CHANGES) | {"element"} == {f.name for f in dataclasses.fields(ops.Text)}
    before = side_hash(TEXT)
    for name, value in TEXT_CHANGES.items():
        assert side_hash(dataclasses.replace(TEXT, **{name: value})) != before, name
    assert side_hash(dataclasses.replace(TEXT, element="other")) == before


@pytest.mark.parametrize("name", sorted(RUN_CHANGES))
def test_every_field_of_a_run_is_told(name: str) -> None:
    assert set(RUN_CHANGES) == {f.name for f in dataclasses.fields(ops.Run)}
    value = RUN_CHANGES[name]
    if name == "kind":          # an icon's content is its file, hashed by content
        return
    changed = dataclasses.replace(TEXT, runs=(dataclasses.replace(RUN, **{name: value}),))
    assert side_hash(changed) != side_hash(TEXT)


def test_an_icon_run_is_told_by_its_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    a.write_text("<svg/>")
    b.write_text("<svg></svg>")
    icon = dataclasses.replace(RUN, kind="icon", content=a, font="")
    text = dataclasses.replace(TEXT, runs=(icon,))
    assert side_hash(text) != side_hash(TEXT)
    assert side_hash(dataclasses.replace(text, runs=(dataclasses.replace(icon, content=b),))) != side_hash(text)


def test_the_outline_of_a_shaped_side_is_told() -> None:
    assert side_hash(TEXT, outline=(("M", 0.0, 0.0), ("L", 10.0, 0.0))) != side_hash(TEXT)
    assert (side_hash(TEXT, outline=(("M", 0.0, 0.0), ("L", 10.0, 0.0)))
            != side_hash(TEXT, outline=(("M", 0.0, 0.0), ("L", 11.0, 0.0))))


def test_a_side_without_effects_hashes_as_before_they_were_told() -> None:
    """The hash of a side that uses none of what was added (no outline, shadow, letter spacing,
    shaped glyphs or path outline) is the one cardgen gave it before (worked out here the
    earlier way), so an older manifest does not see every card as changed."""
    import hashlib
    import struct

    nums = [180.0, 252.0, 9.0, 3.0, 4.0, 50.0, 20.0, 9.0, False, 0.0, 1, 1.0, 2.0, 9.0, 40.0, 0.1, 0.2, 0.3, 1.0]
    words = ["rect", "Text", "text", "Gain 1 AP", "Helvetica", "(4"]
    h = hashlib.sha256(struct.pack(f"<{len(nums)}d", *nums))
    h.update("\0".join(words).encode())
    assert side_hash(TEXT) == h.hexdigest()[:16]


def test_runs_of_several_colours_hash_as_each_told_in_turn() -> None:
    """A text's runs are told in order, each with its own colour (a colour told once is told
    again for the next run that has it, the same object or an equal one): the hash is the
    one worked out here run by run, and another colour on one run changes it."""
    import hashlib
    import struct

    red, blue = (1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)
    also_red = (*red[:3], 1.0)          # (equal to red, another object)
    colours = [red, red, also_red, blue, None, red]
    runs = tuple(dataclasses.replace(RUN, x=float(i), color=c) for i, c in enumerate(colours))
    text = dataclasses.replace(TEXT, runs=runs)
    nums: list[float] = [180.0, 252.0, 9.0, 3.0, 4.0, 50.0, 20.0, 9.0, False, 0.0, len(runs)]
    words = ["rect", "Text"]
    for i, c in enumerate(colours):
        nums += [float(i), 2.0, 9.0, 40.0]
        words += ["text", "Gain 1 AP", "Helvetica"]
        if c is None:
            words.append("\x01")
        else:
            words.append("(4")
            nums += c
    h = hashlib.sha256(struct.pack(f"<{len(nums)}d", *nums))
    h.update("\0".join(words).encode())
    assert side_hash(text) == h.hexdigest()[:16]
    other = dataclasses.replace(text, runs=(*runs[:2], dataclasses.replace(runs[2], color=blue), *runs[3:]))
    assert side_hash(other) != side_hash(text)
