"""Build variants: `cardgen build --set KEY=VALUE` over game.yaml, read back from the PDF's
pixels and text and from the manifest; a changed --set rebuilds, a bad one is one line."""
from __future__ import annotations

import json

import pypdfium2 as pdfium
from conftest import run_cli

GAME = 'title: Sets\nvars: {art: colour}\npalette: {accent: "#ff0000"}\n'
FACE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "{{ game.palette.accent }}"}
  - {name: t, type: text, box: safe, y: 10mm, size: 14, text: "art {{ game.vars.art }}"}
"""


def _game(tmp_path):
    root = tmp_path / "g"
    (root / "templates" / "g").mkdir(parents=True)
    (root / "game.yaml").write_text(GAME)
    (root / "templates" / "g" / "face.yaml").write_text(FACE)
    (root / "d.yaml").write_text("deck: D\ntemplate: g/face\ncards:\n  - {name: One}\n")
    return root


def _look(out):
    """The colour at the card's corner, its text and the manifest's `set`."""
    pdf = pdfium.PdfDocument(str(out / "g" / "cards.pdf"))
    page = pdf[0]
    pixel = page.render(scale=0.5).to_pil().convert("RGB").getpixel((2, 2))
    text = page.get_textpage().get_text_bounded()
    return pixel, text, json.loads((out / "g" / "manifest.json").read_text()).get("set")


def test_set_changes_the_output_and_the_manifest_and_rebuilds(tmp_path):
    root, out = _game(tmp_path), tmp_path / "out"
    args = ("build", str(root), "--only", "cards", "--out", str(out))
    code, _, err = run_cli(*args, "--set", "palette.accent=#0000ff", "--set", "vars.art=bw")
    assert code == 0, err
    assert _look(out) == ((0, 0, 255), "art bw", {"palette.accent": "#0000ff", "vars.art": "bw"})
    code, said, err = run_cli(*args, "--set", "palette.accent=#0000ff", "--set", "vars.art=bw")
    assert code == 0 and "up to date" in said + err, said      # the same --set: nothing to do
    code, _, err = run_cli(*args)       # no --set: a change, game.yaml's own values again
    assert code == 0, err
    assert _look(out) == ((255, 0, 0), "art colour", None)


def test_a_bad_set_is_one_line_naming_it(tmp_path):
    root = _game(tmp_path)
    for item, message in (
            ("palete.accent=#00f", "--set palete.accent=#00f: error: game.yaml has no value 'palete' a build can "
                                   "set; did you mean 'palette'?"),
            ("palette.accent=nocolour", "--set palette.accent=nocolour: error: `palette.accent` must be a colour "
                                        "such as #1d6a72, a CSS colour name or none, got 'nocolour'"),
            ("bleed=abc", "--set bleed=abc: error: `bleed` must be a length such as 5mm, 0.25in or 10pt, got 'abc'"),
            ("vars", "--set vars: error: write KEY=VALUE, e.g. vars.art=art/bw or palette.accent=#336699"),
            ("title.x=1", "--set title.x=1: error: `title` is not a mapping of names (write --set title=VALUE)")):
        code, _, err = run_cli("build", str(root), "--only", "cards", "--out", str(tmp_path / "out"), "--set", item)
        assert code == 1 and err.splitlines()[0].startswith(message), err
        assert "Traceback" not in err
    assert not (tmp_path / "out" / "g" / "cards.pdf").exists()
