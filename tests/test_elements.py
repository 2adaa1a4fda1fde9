"""Element plug-ins: every declared option of every element type checked for a wrong type, an
out-of-range value and a misspelling, with the exact message at its file:line:col; the
polygon element and a rotated line read back as pixels."""
from __future__ import annotations

import pypdfium2 as pdfium
import pytest
from conftest import REPO
from test_validate import run
from vgame import make_game

from cardgen.core.errors import Report
from cardgen.elements import ELEMENTS
from cardgen.elements.base import Element
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.schema.core import Anything, Bool, Choice, Colour, Features, Int, Kind, Length, ListOf, Number, OneOf, Text
from cardgen.schema.paint import Paint, ShadowKind

# What each element needs besides the option under test, so that only that option is wrong.
NEEDS = {"text": "    text: hi\n", "icon": "    icon: coins\n", "image": "    placeholder: true\n"}


def _range(lo, hi, unit="", lo_open=False):
    if lo is not None and hi is not None:
        return (f"greater than {lo:g} and at most {hi:g}" if lo_open else f"from {lo:g} to {hi:g}") + unit
    if lo is not None:
        return (f"greater than {lo:g}" if lo_open else f"at least {lo:g}") + unit
    return f"at most {hi:g}" + unit


def wrong_type(kind: Kind) -> tuple[str, str] | None:
    """(YAML value, the message's end) for a value of the wrong type; written out by hand per
    kind, so the test checks the wording rather than repeating the code."""
    if isinstance(kind, Length):
        example = "5mm, 0.25in, 10pt or 50%" if kind.percent else "5mm, 0.25in or 10pt"
        return "[1, 2]", f"must be a length such as {example}, got a list"
    if isinstance(kind, Number):
        return "big", "must be a number, got 'big'"
    if isinstance(kind, Int):
        return "many", f"must be a whole number {_range(kind.min, kind.max)}, got 'many'"
    if isinstance(kind, Colour):
        return "12", "must be a colour such as #1d6a72, a CSS colour name or none, got 12"
    if isinstance(kind, Choice):
        return "[a]", f"must be one of {', '.join(kind.choices)}, got a list"
    if isinstance(kind, Bool):
        return "maybe", "must be true or false, got 'maybe'"
    if isinstance(kind, Text):
        return "{a: 1}", "must be text, got a mapping"
    if isinstance(kind, ListOf):
        return "x", f"must be a list ({kind.item.describe()} each), got 'x'"
    if isinstance(kind, OneOf):
        return "[1]", "must be true/false or text, got a list"
    if isinstance(kind, Features):
        return "{a: 1}", "must be a list of OpenType feature tags such as [smcp, tnum], got a mapping"
    if isinstance(kind, Paint):
        return "12", "must be a colour such as #1d6a72, a CSS colour name or none, got 12"
    if isinstance(kind, ShadowKind):
        return "[1, 2]", "must be a shadow such as `1mm 1mm 0.5mm #00000080` (x, y, blur, colour), got a list"
    assert isinstance(kind, Anything), f"no wrong-type case for {kind!r}"
    return None


def out_of_range(kind: Kind) -> tuple[str, str] | None:
    if isinstance(kind, Length) and kind.max is not None:
        return f"{kind.max + 1:g}", f"must be a length {_range(kind.min, kind.max, ' mm')}, got {kind.max + 1:g}"
    if isinstance(kind, Length) and kind.min is not None:
        return "-5", f"must be a length {_range(kind.min, None, ' mm')}, got -5"
    if isinstance(kind, Number) and kind.max is not None:
        return f"{kind.max + 1:g}", (f"must be a number {_range(kind.min, kind.max, '', kind.min_open)}, "
                                     f"got {kind.max + 1:g}")
    if isinstance(kind, Int) and kind.max is not None:
        return f"{kind.max + 1}", f"must be a whole number {_range(kind.min, kind.max)}, got {kind.max + 1}"
    if isinstance(kind, Choice):
        return "sideways", f"must be one of {', '.join(kind.choices)}, got 'sideways'"
    if isinstance(kind, ListOf) and isinstance(kind.item, Choice):
        return "[sideways]", f"item 1 must be one of {', '.join(kind.item.choices)}, got 'sideways'"
    if isinstance(kind, Features):
        return "[smallcaps]", ("item 1 must be an OpenType feature tag of four letters or digits (lnum, onum, tnum, "
                               "smcp, ss01, ...), got 'smallcaps'")
    if isinstance(kind, ListOf) and isinstance(kind.item, Number):
        return "[-1]", f"item 1 must be a number {_range(kind.item.min, kind.item.max)}, got -1"
    return None


def cases():
    for etype, cls in ELEMENTS.items():
        for key, (_, o) in cls.options().items():
            if key in Element.META:
                continue
            for name, make in (("type", wrong_type), ("range", out_of_range)):
                case = make(o.kind)
                if case is not None:
                    yield pytest.param(etype, key, *case, id=f"{etype}-{key}-{name}")


def template(etype: str, line: str) -> str:
    needs = NEEDS.get(etype, "")
    if needs and line.split(":")[0] == needs.split(":")[0]:
        needs = ""              # the option under test is the one the element needs
    return ("elements:\n  - name: bg\n    type: rect\n    box: bleed\n    fill: white\n"
            f"  - name: e\n    type: {etype}\n" + needs + line)


@pytest.mark.parametrize("etype,key,value,message", list(cases()))
def test_every_option_wrong_value(tmp_path, etype, key, value, message):
    tpl = template(etype, f"    {key}: {value}\n")
    line = tpl.count("\n")
    col = len(key) + 7 + (1 if message.startswith("item ") else 0)    # a list item: at the item
    make_game(tmp_path, templates={"face": tpl})
    assert run(tmp_path, "g") == (1, [
        f"templates/g/face.yaml:{line}:{col}: error: element 'e' ({etype}): `{key}` {message}",
        "g: 1 error, 0 warnings"])


def test_every_option_of_every_element_has_a_case():
    covered = {(p.values[0], p.values[1]) for p in cases()}
    for etype, cls in ELEMENTS.items():
        for key, (_, o) in cls.options().items():
            if key not in Element.META and not isinstance(o.kind, Anything):
                assert (etype, key) in covered, f"{etype}.{key}: no wrong-value case"


@pytest.mark.parametrize("etype", sorted(ELEMENTS))
def test_misspelled_option(tmp_path, etype):
    key = next(k for k in ELEMENTS[etype].options() if k not in Element.META and k not in ("x", "y"))
    typo = key + key[-1]
    tpl = template(etype, f"    {typo}: 1\n")
    make_game(tmp_path, templates={"face": tpl})
    assert run(tmp_path, "g") == (1, [
        f"templates/g/face.yaml:{tpl.count(chr(10))}:5: error: element 'e' ({etype}): unknown key '{typo}'; "
        f"did you mean '{key}'?", "g: 1 error, 0 warnings"])


def test_expression_giving_a_bad_value_is_reported_for_the_card(tmp_path):
    tpl = template("polygon", "    fill: red\n    sides: \"{{ card.sides }}\"\n")
    deck = "deck: Action\ntemplate: g/face\ncards:\n  - {name: Digging, count: 6, sides: 2}\n" \
           "  - {name: Bribe, count: 3, sides: 5}\n  - {name: Theft, count: 3, sides: 7}\n"
    make_game(tmp_path, templates={"face": tpl}, decks={"actions.yaml": deck})
    assert run(tmp_path, "g") == (1, [
        "cards/g/actions.yaml:4:38: error: card 'Digging' (actions.yaml:4), field `sides` (element 'e', "
        "templates/g/face.yaml:9:12): `sides` must be a whole number from 3 to 100, got 2",
        "g: 1 error, 0 warnings"])


def test_static_option_cannot_be_an_expression(tmp_path):
    tpl = template("rect", "    fill: red\n    name: \"{{ card.name }}\"\n")
    make_game(tmp_path, templates={"face": tpl})
    code, out = run(tmp_path, "g")
    assert code == 1
    assert "templates/g/face.yaml:9:5: error: template g/face: duplicate key" not in out[0]


# -- pixels -------------------------------------------------------------------------------------

DPI = 100


def _card(tmp_path, elements: str):
    root = tmp_path / "px"
    (root / "templates" / "px").mkdir(parents=True)
    (root / "game.yaml").write_text("title: Px\nbleed: 0\n")
    (root / "deck.yaml").write_text("deck: D\ntemplate: px/face\ncards:\n  - {name: A}\n")
    (root / "templates" / "px" / "face.yaml").write_text(
        "elements:\n  - {name: bg, type: rect, box: bleed, fill: white}\n" + elements)
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    page = pdfium.PdfDocument(str(tmp_path / "out" / "px" / "cards.pdf"))[0]
    img = page.render(scale=DPI / 72).to_pil().convert("RGB")

    def at(x_mm: float, y_mm: float) -> tuple[int, int, int]:
        return img.getpixel((int(x_mm * DPI / 25.4), int(y_mm * DPI / 25.4)))
    return at


RED = (255, 0, 0)
WHITE = (255, 255, 255)


def test_polygon_triangle_points_up_inside_its_box(tmp_path):
    at = _card(tmp_path, "  - {name: t, type: polygon, sides: 3, x: 10, y: 10, width: 40, height: 40, fill: red}\n")
    # circumscribed ellipse centre (30, 30) mm, radius 20: apex at (30, 10), base at y = 40
    assert at(30, 12) == RED                 # just under the apex
    assert at(30, 38) == RED                 # above the base
    assert at(12, 12) == WHITE               # the box's top-left corner is outside a triangle
    assert at(48, 12) == WHITE
    assert at(30, 42) == WHITE               # below the base (a triangle's base is at 3/4 of the box)
    assert at(15, 38) == RED and at(45, 38) == RED


def test_polygon_rotated_half_a_turn_points_down(tmp_path):
    at = _card(tmp_path, "  - {name: t, type: polygon, sides: 3, x: 10, y: 10, width: 40, height: 40, "
                         "fill: red, rotate: 180}\n")
    assert at(30, 48) == RED                 # the apex is now at the bottom
    assert at(30, 22) == RED                 # the base is now near the top, at y = 20
    assert at(30, 18) == WHITE


def test_line_rotate_is_honoured(tmp_path):
    """`rotate:` on a line turns it about its middle (it used to be accepted and ignored)."""
    at = _card(tmp_path, "  - {name: l, type: line, x: 10, y: 40, x2: 50, y2: 40, stroke: red, "
                         "stroke_width: 2mm, rotate: 90}\n")
    assert at(30, 40) == RED                 # the middle stays
    assert at(30, 25) == RED                 # now vertical: 20 mm above and below the middle
    assert at(30, 55) == RED
    assert at(15, 40) == WHITE               # no longer horizontal


def _modules_after(code: str) -> list[str]:
    """The element modules a fresh process has imported after running `code`."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                          "print(sorted(m for m in sys.modules if m.startswith('cardgen.elements.')))"],
                         capture_output=True, text=True, check=True, cwd=REPO)
    return eval(out.stdout.strip().splitlines()[-1])


def test_element_types_imported_when_asked_for():
    """`cardgen.elements.TABLE` names each type's module: listing the types, asking whether one
    exists and suggesting one for a misspelling import none; asking for a type imports its module
    alone (`validate` of a template with rects and text imports no icon or stack module)."""
    assert _modules_after("from cardgen.elements import ELEMENTS\n"
                          "from cardgen.schema.core import suggest\n"
                          "assert list(ELEMENTS)[:2] == ['rect', 'ellipse'] and 'stack' in ELEMENTS\n"
                          "assert ELEMENTS.get('rectangle') is None and 'rect' in suggest('rectangle', ELEMENTS)\n"
                          ) == []
    assert _modules_after("from cardgen.elements import ELEMENTS\nELEMENTS['rect']") == [
        "cardgen.elements.base", "cardgen.elements.rect"]


def test_the_table_names_each_class_once():
    """Each row's class is in the module it names, and no class is named by two rows."""
    from cardgen.elements import TABLE

    classes = [ELEMENTS[name] for name in TABLE]
    assert len(set(classes)) == len(TABLE) == 8
    for name, (module, cls) in TABLE.items():
        assert ELEMENTS[name].__module__ == f"cardgen.elements.{module}" and ELEMENTS[name].__name__ == cls
        assert issubclass(ELEMENTS[name], Element)


def test_an_element_for_a_card_is_what_its_class_makes_of_its_values():
    """`Prepared.element` copies the element of the template's plain values (made once) and puts
    each card's values in: every element type takes all its fields from its arguments (no
    `__post_init__`, no field made otherwise), and the element a card gets is equal to the one
    its class makes of the same values, frozen, with its own values and the next card's its own."""
    import dataclasses

    from cardgen.layout import expr
    from cardgen.layout.engine import Prepared
    from cardgen.schema.core import Env

    for cls in ELEMENTS.values():
        assert not hasattr(cls, "__post_init__") and "__init__" not in {
            k for c in cls.__mro__[:-1] if not dataclasses.is_dataclass(c) for k in c.__dict__}
        assert all(f.init and f.default_factory is dataclasses.MISSING for f in dataclasses.fields(cls))
    el = {"name": "title", "type": "text", "x": "5mm", "width": "50mm", "size": 9, "text": "{{ card.name }}",
          "color": "{{ card.color }}", "align": "{{ card.align }}", "font": "{{ card.font }}"}
    p, env = Prepared(el), Env(180.0, 252.0)
    made = []
    for name, color, align in (("Alpha", "#ff0000", "center"), ("Beta", "#00ff00", "right"), ("Alpha", "#ff0000", "")):
        got = p.element(expr.context({"name": name, "color": color, "align": align, "font": None}, {}, {}), env)
        want = type(got)(name="title", x=5 * 72 / 25.4, width=50 * 72 / 25.4, size=9.0, text=name,
                         color=Colour().convert(color, env), **({"align": align} if align else {}))
        assert got == want and got.__dict__ == want.__dict__ and type(got) is type(want)
        with pytest.raises(dataclasses.FrozenInstanceError):
            got.text = "x"      # type: ignore[misc]
        made.append(got)
    assert [(e.text, e.color, e.align) for e in made] == [
        ("Alpha", (1.0, 0.0, 0.0, 1.0), "center"), ("Beta", (0.0, 1.0, 0.0, 1.0), "right"),
        ("Alpha", (1.0, 0.0, 0.0, 1.0), "left")]
