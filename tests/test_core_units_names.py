"""Lengths, colours and file names: the small core functions every stage leans on, held to
exact values (mutation testing, docs/design.md#tests-that-fail-when-the-code-is-wrong)."""

import pytest

from cardgen.core import names, units
from cardgen.core.units import MM, UnitError, color, length_mm, length_pt, number

# -- lengths ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, points", [
    (0, 0.0),
    (10, 10 * 72 / 25.4),            # a bare number is millimetres
    (2.5, 2.5 * 72 / 25.4),
    ("10", 10 * 72 / 25.4),
    ("10mm", 10 * 72 / 25.4),
    (" 10 mm ", 10 * 72 / 25.4),
    ("1cm", 10 * 72 / 25.4),
    ("1in", 72.0),
    ("0.25in", 18.0),
    ("12pt", 12.0),
    ("300px", 72.0),                 # px are 1/300 in
    ("75px", 18.0),
    ("-3mm", -3 * 72 / 25.4),
    ("+3mm", 3 * 72 / 25.4),
    (".5in", 36.0),
    ("5.", 5 * 72 / 25.4),
])
def test_lengths_in_every_unit(value, points):
    assert length_pt(value) == pytest.approx(points, abs=1e-12)


def test_points_per_millimetre():
    assert pytest.approx(72 / 25.4, abs=1e-12) == MM
    assert units.UNIT_PT == {"mm": MM, "cm": 10 * MM, "in": 72.0, "pt": 1.0, "px": 0.24}


def test_percentages_need_a_whole_and_take_their_share_of_it():
    assert length_pt("50%", 200.0) == 100.0
    assert length_pt("12.5%", 80.0) == 10.0
    assert length_pt("0%", 80.0) == 0.0
    with pytest.raises(UnitError) as info:
        length_pt("50%")
    assert str(info.value) == "a percentage is not allowed here ('50%'); use mm, in or pt"
    assert length_mm("50%", 63.0) == pytest.approx(31.5, abs=1e-9)
    assert length_mm("1in") == pytest.approx(25.4, abs=1e-9)
    assert length_mm(7) == pytest.approx(7.0, abs=1e-12)


@pytest.mark.parametrize("value", [None, True, False, "", "mm", "5 apples", "5mmm", "1e3mm", "5 m", "--5", "5,5",
                                   "5mm 3mm", "in", [5], "x5"])
def test_what_is_not_a_length_is_said(value):
    with pytest.raises(UnitError) as info:
        length_pt(value, 100.0)
    assert str(info.value) == f"expected a length such as 5mm, 0.25in, 10pt or 50%, got {value!r}"


@pytest.mark.parametrize("value, expected", [(3, 3.0), ("2.5", 2.5), (" 7 ", 7.0), (1.25, 1.25), ("-1", -1.0)])
def test_numbers(value, expected):
    out = number(value)
    assert out == expected and type(out) is float


@pytest.mark.parametrize("value", [True, None, "three", [1], {"a": 1}, "", object()])
def test_what_is_not_a_number_is_said(value):
    with pytest.raises(UnitError) as info:
        number(value)
    assert str(info.value) == f"expected a number, got {value!r}"


# -- colours ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, rgba", [
    ("#000", (0.0, 0.0, 0.0, 1.0)),
    ("#fff", (1.0, 1.0, 1.0, 1.0)),
    ("#f80", (1.0, 0x88 / 255, 0.0, 1.0)),
    ("#1d6a72", (0x1d / 255, 0x6a / 255, 0x72 / 255, 1.0)),
    ("#1D6A72", (0x1d / 255, 0x6a / 255, 0x72 / 255, 1.0)),
    ("#10203080", (0x10 / 255, 0x20 / 255, 0x30 / 255, 0x80 / 255)),
    ("#102030ff", (0x10 / 255, 0x20 / 255, 0x30 / 255, 1.0)),
    ("#10203000", (0x10 / 255, 0x20 / 255, 0x30 / 255, 0.0)),
    ("  #abc  ", (0xaa / 255, 0xbb / 255, 0xcc / 255, 1.0)),
    ("red", (1.0, 0.0, 0.0, 1.0)),
    ("Red", (1.0, 0.0, 0.0, 1.0)),
    ("rebeccapurple", None),        # not in ReportLab's table: said below
])
def test_colours(value, rgba):
    if rgba is None:
        with pytest.raises(UnitError):
            color(value)
        return
    assert color(value) == pytest.approx(rgba, abs=1e-12)


@pytest.mark.parametrize("value", [None, "none", "NONE", "transparent", "", "  "])
def test_no_colour(value):
    assert color(value) is None


@pytest.mark.parametrize("value", ["#12", "#12345", "#1234567", "#ggg", "blurple", "#1234", "123456"])
def test_unknown_colours_are_said(value):
    with pytest.raises(UnitError) as info:
        color(value)
    assert str(info.value) == f"unknown colour {value!r}; use #rrggbb, a CSS colour name or none"


# -- file names ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, slug", [
    ("Dark Forest!", "dark-forest"),
    ("  Action  ", "action"),
    ("ACTION", "action"),
    ("a--b", "a-b"),
    ("a - - b", "a-b"),
    ("a----b", "a-b"),
    ("---", "deck"),
    ("", "deck"),
    ("Café 2", "café-2"),
    (42, "42"),
])
def test_slugify(name, slug):
    assert names.slugify(name) == slug


def test_short_hash_is_the_start_of_the_sha256():
    import hashlib

    assert names.short_hash("abc") == hashlib.sha256(b"abc").hexdigest()[:8]
    assert names.short_hash("abc", 4) == hashlib.sha256(b"abc").hexdigest()[:4]
    assert names.short_hash("\udcff") == hashlib.sha256("\udcff".encode("utf-8", "surrogatepass")).hexdigest()[:8]


def test_bounded_keeps_short_names_and_cuts_long_ones_with_a_hash():
    assert names.bounded("a" * 80) == "a" * 80                          # exactly the limit: kept
    long = "a" * 81
    cut = names.bounded(long)
    assert cut == "a" * 71 + "-" + names.short_hash(long)
    assert len(cut.encode()) == 80
    assert names.bounded("abcdefghijklmnop", 12) == "abc-" + names.short_hash("abcdefghijklmnop")
    assert names.bounded("abcdefghijklmnop", 12, key="k") == "abc-" + names.short_hash("k")
    assert names.bounded("ab-defghijklmnop", 12) == "ab-" + names.short_hash("ab-defghijklmnop")  # no double dash
    # multi-byte characters are never split
    s = "é" * 50
    out = names.bounded(s, 20)
    assert out == "é" * 5 + "-" + names.short_hash(s) and len(out.encode()) <= 20
    assert names.bounded("abcdefghijklmnopqrstuvwxyz", 5) == "a-" + names.short_hash("abcdefghijklmnopqrstuvwxyz")


def test_unique_slugs_never_clash():
    assert names.unique_slugs(["Action", "Event"]) == ["action", "event"]
    out = names.unique_slugs(["Action", "ACTION!", "Event"])
    assert out == ["action-" + names.short_hash("Action"), "action-" + names.short_hash("ACTION!"), "event"]
    # the same spelling twice: a counter
    out = names.unique_slugs(["Hero", "Hero", "Hero"])
    h = names.short_hash("Hero")
    assert out == [f"hero-{h}", f"hero-{h}-2", f"hero-{h}-3"]
    # bounded: every slug within the limit, and still distinct
    out = names.unique_slugs(["x" * 100, "x" * 100 + "y", "x" * 100 + "z"], limit=20)
    assert len(set(out)) == 3 and all(len(s.encode()) <= 20 for s in out)
    assert names.SLUG_LIMIT == 48 and names.NAME_LIMIT == 80
    out = names.unique_slugs(["a" * 60])
    assert out == [names.bounded("a" * 60, 48, "a" * 60)] and len(out[0]) == 48


def test_a_counter_suffix_stays_within_the_limit():
    out = names.unique_slugs(["b" * 60] * 3, limit=30)
    assert len(set(out)) == 3 and all(len(s.encode()) <= 30 for s in out)
    assert out[1].endswith("-2") and out[2].endswith("-3")
