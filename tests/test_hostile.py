"""Hostile and odd game folders found by hunting for them: links in a game's own folders and in
its output, pipes and devices, SVGs whose references hide behind character references or
another encoding, lengths that overflow, expressions that make huge texts out of small ones,
objects printed as Python names, endless `extends:` chains, concurrent builds, git
submodules.  Each case asserts one clear located line (or the output it must make), never a
traceback, and nothing read or written outside the game."""
from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import run_cli, write

from cardgen.core import atomic
from cardgen.core.digest import walk_files, walk_stats
from cardgen.layout import expr
from cardgen.pipeline.incremental import input_files

WHERE = ("files may only come from the game folder, the project's templates/, art/, fonts/ and layouts/ folders, "
         "or cardgen's bundled ones")
PIC = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
      - {name: pic, type: image, x: 2mm, y: 2mm, width: 20mm, height: 20mm, src: "{{ card.pic }}"}
"""


def build(root: Path, out: Path | None = None, *args: str) -> tuple[int, str, str]:
    where = ["--out", str(out)] if out is not None else []
    code, stdout, stderr = run_cli("build", str(root), *where, "--only", "print", "--page", "a4", *args)
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    return code, stdout, stderr


def errors(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ": error: " in ln]


def _png(path: Path, size=(8, 8), colour=(200, 30, 30)) -> Path:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path)
    return path


# -- a stand-alone game's own folders are part of the game -----------------------------------

def test_a_games_own_art_folder_linked_elsewhere_is_not_trusted(tiny_game, tmp_path):
    outside = tmp_path / "elsewhere"
    _png(outside / "private.png")
    root = tiny_game("cards:\n  - {name: A, pic: art/private.png}\n", template=PIC)
    (root / "art").symlink_to(outside, target_is_directory=True)
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root / 'templates/tiny/face.yaml'}:3:78: error: card 'A' (deck.yaml:5), element "
                              f"'pic': image 'art/private.png' resolves outside the allowed folders; {WHERE}"]
    assert not (tmp_path / "out").exists()


def test_walk_files_never_leaves_the_game_or_opens_pipes(tmp_path):
    game = tmp_path / "g"
    write(game / "game.yaml", "title: G\n")
    _png(game / "art" / "ok.png")
    outside = tmp_path / "usr"
    write(outside / "lib" / "big.txt", "x")
    (game / "stuff").symlink_to(outside, target_is_directory=True)
    (game / "zero.txt").symlink_to("/dev/zero")
    os.mkfifo(game / "art" / "pipe.png")
    (game / "inside.png").symlink_to(game / "art" / "ok.png")
    files = sorted(os.path.relpath(f, game) for f in input_files(game, game, game / "build"))
    assert files == ["art/ok.png", "game.yaml", "inside.png"]
    # without bounds (cardgen's own package): links are followed, pipes still never listed
    assert sorted(os.path.relpath(f, game) for f in walk_files(game)) == [
        "art/ok.png", "game.yaml", "inside.png", "stuff/lib/big.txt"]
    # each with the status of what it is (a link's target's), as a hash by status needs it
    for bounds in (None, [game.resolve()]):
        found = walk_stats(game, inside=bounds)
        assert [f for f, _ in found] == walk_files(game, inside=bounds)
        for f, st in found:
            there = os.stat(f)
            assert (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_mode) == \
                (there.st_ino, there.st_dev, there.st_size, there.st_mtime_ns, there.st_mode)


def test_pipes_in_a_game_folder_neither_hang_a_build_nor_pass_as_decks(tiny_game, tmp_path):
    root = tiny_game()
    os.mkfifo(root / "notes.txt")
    os.mkfifo(root / "extra.yaml")
    start = time.monotonic()
    code, _, stderr = build(root, tmp_path / "out")
    assert time.monotonic() - start < 60
    assert code == 1
    assert errors(stderr) == [f"{root / 'extra.yaml'}: error: not a regular file (a pipe, device or socket), so "
                              f"cardgen does not read it; replace it with a YAML file or remove it"]
    (root / "extra.yaml").unlink()
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 0, stderr


# -- SVG references as the SVG reader sees them ----------------------------------------------

@pytest.mark.parametrize("name, body, why", [
    ("escaped.svg", '<image href="..&#47;..&#47;elsewhere&#47;private.png" width="5" height="5"/>',
     "SVG escaped.svg: reference '../../elsewhere/private.png' resolves outside the allowed folders; {where}"),
    ("hex.svg", '<use xlink:href="&#x2e;&#x2e;/&#x2e;&#x2e;/elsewhere/x.svg#s"/>',
     "SVG hex.svg: reference '../../elsewhere/x.svg' resolves outside the allowed folders; {where}"),
    ("sheet.svg", '<?xml-stylesheet href="x.css"?><rect width="5" height="5"/>',
     "SVG sheet.svg links a style sheet (<?xml-stylesheet?>); cardgen reads only the SVG file itself"),
])
def test_svg_references_are_checked_after_decoding(tiny_game, tmp_path, name, body, why):
    _png(tmp_path / "elsewhere" / "private.png")
    write(tmp_path / "elsewhere" / "x.svg", '<svg xmlns="http://www.w3.org/2000/svg"><symbol id="s"/></svg>')
    root = tiny_game(f"cards:\n  - {{name: A, pic: art/{name}}}\n", template=PIC)
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" '
           f'height="10">{body}</svg>')
    if body.startswith("<?"):
        svg = body[:body.index("?>") + 2] + svg.replace(body[:body.index("?>") + 2], "")
    write(root / "art" / name, svg)
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert [e.split("element 'pic': ", 1)[1] for e in errors(stderr)] == [why.format(where=WHERE)]


def test_svg_in_utf16_or_another_encoding_is_refused(tiny_game, tmp_path):
    root = tiny_game("cards:\n  - {name: A, pic: art/wide.svg}\n  - {name: B, pic: art/seven.svg}\n", template=PIC)
    (root / "art").mkdir()
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>'
    (root / "art" / "wide.svg").write_bytes(svg.encode("utf-16"))
    (root / "art" / "seven.svg").write_bytes(b'<?xml version="1.0" encoding="UTF-7"?>' + svg.encode())
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert [e.split("element 'pic': ", 1)[1] for e in errors(stderr)] == [
        "SVG wide.svg is not UTF-8 text (UTF-16?); save it as UTF-8",
        "SVG seven.svg is in the UTF-7 encoding; save it as UTF-8"]


def test_svg_limits_elements_style_rules_embedded_images_and_numbers(tiny_game, tmp_path):
    from PIL import Image

    root = tiny_game("cards:\n" + "".join(f"  - {{name: {n}, pic: art/{n}.svg}}\n"
                                          for n in ("many", "styled", "embedded", "nan")), template=PIC)
    head = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    write(root / "art" / "many.svg", head + '<rect width="1" height="1"/>' * 100_001 + "</svg>")
    write(root / "art" / "styled.svg", head + "<style>" + "rect{fill:red}" * 10_001 + "</style></svg>")
    buf = io.BytesIO()
    Image.new("1", (6000, 6000)).save(buf, "PNG")
    data = base64.b64encode(buf.getvalue()).decode()
    write(root / "art" / "embedded.svg", head + f'<image width="5" height="5" href="data:image/png;base64,{data}"/></svg>')
    write(root / "art" / "nan.svg", head + '<rect width="5" height="5" transform="rotate(NaN)"/></svg>')
    start = time.monotonic()
    code, _, stderr = build(root, tmp_path / "out")
    assert time.monotonic() - start < 60
    assert code == 1
    assert [e.split("element 'pic': ", 1)[1] for e in errors(stderr)] == [
        "SVG embedded.svg embeds an image of 6000 x 6000 pixels, more than the 30,000,000 cardgen reads; scale it "
        "down (limit CARDGEN_MAX_IMAGE_PIXELS)",
        "SVG many.svg has more than 100,000 elements; simplify it (or export it as PNG)",
        "cannot use image 'art/nan.svg': SVG nan.svg has a size, position or transform that is not a finite number "
        "(transform=...); fix it in the SVG",
        "SVG styled.svg has more than 10,000 style rules; simplify it (or export it as PNG)"]


def test_a_raster_image_past_the_pixel_limit_is_refused_without_a_warning(tiny_game, tmp_path):
    from PIL import Image

    root = tiny_game("cards:\n  - {name: A, pic: art/huge.png}\n", template=PIC)
    (root / "art").mkdir()
    Image.new("1", (6000, 6000)).save(root / "art" / "huge.png")
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert "DecompressionBombWarning" not in stderr
    assert [e.split("element 'pic': ", 1)[1] for e in errors(stderr)] == [
        "cannot use image 'art/huge.png': huge.png is 6000 x 6000 pixels, more than the 30,000,000 cardgen reads; "
        "scale it down (limit CARDGEN_MAX_IMAGE_PIXELS)"]


# -- values that overflow or make no sense ---------------------------------------------------

@pytest.mark.parametrize("extra, message", [
    ("width: 1e308", "`width` must be a length of at most 10,000 mm (10 m) either way, got 1e+308"),
    ("x: '{{ 1e308 }}'", "`x` must be a length of at most 10,000 mm (10 m) either way, got 1e+308"),
    ("stroke: '#000000'; dash: [0, 0]", "`dash` must not be all zeros, got [0, 0]; give a dash and a gap, "
                                         "such as [2, 1]"),
    ("radius: '-50%'", "`radius` must be from 0% to 10000% of the element's own size, got '-50%'"),
])
def test_lengths_are_bounded(tiny_game, tmp_path, extra, message):
    base = {"x": "2mm", "y": "2mm", "width": "10mm", "height": "10mm", "fill": "'#ff0000'"}
    for part in extra.split(";"):
        key, value = part.strip().split(": ", 1)
        base[key] = value
    tpl = ("elements:\n  - {name: bg, type: rect, box: bleed, fill: '#ffffff'}\n"
           "  - {name: box, type: rect, " + ", ".join(f"{k}: {v}" for k, v in base.items()) + "}\n")
    root = tiny_game(template=tpl)
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert {e.split("(rect): ", 1)[-1].split("'box': ", 1)[-1] for e in errors(stderr)} == {message}


def test_back_offset_is_bounded(tiny_game, tmp_path):
    root = tiny_game()
    code, _, stderr = run_cli("build", str(root), "--out", str(tmp_path / "out"), "--back-offset", "1e308,0")
    assert code == 2
    assert "must be X,Y of at most 50 mm either way" in stderr and "Traceback" not in stderr


# -- expressions ----------------------------------------------------------------------------

@pytest.mark.parametrize("source, message", [
    ("{{ '{:{}}'.format('a', 10**9) }}", "'format': 1,000,000,000 is more than 100,000 (limit CARDGEN_MAX_TEXT)"),
    ("{{ ('y'*40000).join('x'*40000) }}", "the expression would make a text of 1,600,000,000 (more than 100,000); "
                                          "simplify it (limit CARDGEN_MAX_TEXT)"),
    ("{{ ('\t'*40000).expandtabs(40000) }}", "the expression would make a text of 1,600,040,000 (more than "
                                             "100,000); simplify it (limit CARDGEN_MAX_TEXT)"),
    ("{{ ('\n'*40000)|indent('x'*40000, true, true) }}", "the expression would make a text of 1,600,080,000 "
                                                          "(more than 100,000); simplify it (limit CARDGEN_MAX_TEXT)"),
    ("a{{ ['x'*40000]*40000 }}", "the expression would make a text of more than 100,000 characters (from a list "
                                 "or mapping this large); simplify it (limit CARDGEN_MAX_TEXT)"),
    ("{{ (['x'*40000]*40000)|map('upper')|list|length }}", "the expression makes more than 2,000,000 characters "
                                                            "of text in all (20 times CARDGEN_MAX_TEXT); simplify it"),
    ("{{ 'x'.encode() * 100000000 }}", "the expression would make a text of 100,000,000 (more than 100,000); "
                                       "simplify it (limit CARDGEN_MAX_TEXT)"),
    ("{{ '%s' % (['x'*40000]*40000,) }}", "the expression would make a text of more than 100,000 characters "
                                          "(from a list or mapping this large); simplify it (limit CARDGEN_MAX_TEXT)"),
])
def test_expressions_are_refused_before_they_make_huge_texts(source, message):
    tracemalloc.start()
    try:
        with pytest.raises(expr.ExprError) as caught:
            expr.evaluate(source, expr.context({"name": "A"}, {}, {}))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value) == message
    assert peak < 50_000_000            # refused before the text is made, not after


@pytest.mark.parametrize("source, message", [
    ("{{ card.name.upper }}", "the expression gives a method or function, not text or a number (call it with `()`, "
                              "such as card.name.upper())"),
    ("{{ cycler(1, 2) }}", "the expression gives a Cycler object, not text or a number"),
    ("x {{ range }}", "the expression gives a class, not text or a number"),
])
def test_objects_that_are_not_data_are_refused(source, message):
    with pytest.raises(expr.ExprError) as caught:
        expr.evaluate(source, expr.context({"name": "A"}, {}, {}))
    assert str(caught.value) == message


def test_ordinary_values_still_print():
    ctx = expr.context({"name": "A", "tags": ["x", "y"], "cost": None}, {}, {"version": None})
    assert expr.evaluate("{{ card.tags | join(', ') }} {{ card.name.upper() }} {{ card.tags[1] }}", ctx) == \
        "x, y A y"
    # a list or mapping printed as it is would come out as Python writes it (`['x', 'y']`): refused
    with pytest.raises(expr.ExprError, match="gives a list, which cannot be printed as text; join it"):
        expr.evaluate("{{ card.name }} {{ card.tags }}", ctx)
    assert expr.evaluate("{{ game.version ~ ' · ' if game.version }}{{ card.name }}", ctx) == "A"
    assert expr.evaluate("{{ '%s-%s' % (1, 2) }}", ctx) == "1-2"


# -- templates ------------------------------------------------------------------------------

def _chain(root: Path, depth: int) -> None:
    for i in range(depth):
        write(root / "templates" / "tiny" / f"c{i}.yaml", f"extends: tiny/c{i + 1}\n")
    write(root / "templates" / "tiny" / f"c{depth}.yaml", (root / "templates" / "tiny" / "face.yaml").read_text())
    (root / "deck.yaml").write_text((root / "deck.yaml").read_text().replace("template: tiny/face",
                                                                             "template: tiny/c0"))


def test_a_long_extends_chain_works_and_an_endless_one_is_refused(tiny_game, tmp_path):
    root = tiny_game()
    _chain(root, 99)
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 0, stderr
    shutil.rmtree(root / "templates" / "tiny")
    write(root / "templates" / "tiny" / "face.yaml", "elements: []\n")
    write(root / "templates" / "tiny" / "back.yaml", "elements: []\n")
    _chain(root, 1500)
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root / 'templates/tiny/c1400.yaml'}:1:10: error: template tiny/c1400 is more than "
                              f"100 templates up a chain of `extends:`; shorten the chain"]


def test_merged_elements_are_bounded_and_names_must_be_text(tiny_game, tmp_path):
    root = tiny_game()
    rows = "".join(f"  - {{name: e{i}, type: rect, x: 1, y: 1, width: 1, height: 1, fill: red}}\n" for i in range(600))
    write(root / "templates" / "tiny" / "parent.yaml", "elements:\n" + rows)
    write(root / "templates" / "tiny" / "face.yaml", "extends: tiny/parent\nelements:\n" + rows.replace("{name: e", "{name: f"))
    code, _, stderr = build(root, tmp_path / "out")
    assert errors(stderr) == [f"{root / 'templates/tiny/face.yaml'}:403:5: error: template tiny/face has more than "
                              f"1000 elements with those of the templates it extends; draw with fewer"]
    write(root / "templates" / "tiny" / "face.yaml", "elements:\n  - {name: [a], type: rect}\n")
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root / 'templates/tiny/face.yaml'}:2:12: error: an element's `name:` must be text, "
                              f"got list; write a name such as title"]


def test_a_card_side_draws_a_bounded_number_of_things(tiny_game, tmp_path):
    rows = "".join(f"  - {{name: i{i}, type: icon, icon: coins, count: 1000, x: 1, y: 1, width: 50, height: 5}}\n"
                   for i in range(6))
    root = tiny_game(template="elements:\n" + rows)
    start = time.monotonic()
    code, _, stderr = build(root, tmp_path / "out")
    assert time.monotonic() - start < 60
    assert code == 1
    assert {e.split(": error: ", 1)[1].split("): ", 1)[1] for e in errors(stderr)} == {
        "element 'i5' brings the card side to more than 5,000 things to draw (shapes, icons, lines of text); draw "
        "fewer (limit CARDGEN_MAX_CARD_OPS)"}


# -- the output folder ----------------------------------------------------------------------

def test_links_among_cardgens_own_files_are_removed_never_followed(tiny_game, tmp_path):
    root = tiny_game()
    precious = tmp_path / "docs"
    write(precious / "thesis.docx", "precious")
    os.utime(precious / "thesis.docx", (time.time() - 40 * 86400,) * 2)
    write(tmp_path / "victim" / "layout.bin", "mine")
    out = root / "build"
    (out / ".cache").mkdir(parents=True)
    (out / ".cache" / "raster").symlink_to(precious, target_is_directory=True)
    (out / ".cache" / "layout.bin").symlink_to(tmp_path / "victim" / "layout.bin")
    (out / "manifest.json").symlink_to("/dev/zero")
    code, _, stderr = run_cli("build", str(root), "--only", "print", "--only", "tts", "--page", "a4")
    assert code == 0, stderr
    assert sorted(p.name for p in precious.iterdir()) == ["thesis.docx"]
    assert (tmp_path / "victim" / "layout.bin").read_text() == "mine"
    assert not any(p.is_symlink() for p in out.rglob("*"))
    assert f"{Path('tiny/build/.cache/layout.bin')}: warning: was a link; removed" in stderr.replace(
        str(root.parent) + os.sep, "")


def test_a_default_output_folder_that_is_a_link_is_refused(tiny_game, tmp_path):
    root = tiny_game()
    (tmp_path / "victim").mkdir()
    (root / "build").symlink_to(tmp_path / "victim", target_is_directory=True)
    code, _, stderr = build(root)
    assert code == 1
    assert errors(stderr)[0].endswith("build: error: the output folder is a link to another place; cardgen writes "
                                      "a game's output only into a folder of its own: remove the link, or choose "
                                      "where the output goes with --out")
    assert list((tmp_path / "victim").iterdir()) == []


def test_one_build_of_an_output_folder_at_a_time(tmp_path):
    """A second build of the same output waits for the first (another process holding the lock)."""
    out = tmp_path / "build" / "g"
    out.parent.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"""
import time
from cardgen.core import atomic
with atomic.exclusive({str(out)!r}):
    print("held", flush=True)
    time.sleep(1.5)
"""], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    said = []
    start = time.monotonic()
    with atomic.exclusive(out, lambda: said.append(time.monotonic() - start)):
        waited = time.monotonic() - start
    holder.wait()
    assert len(said) == 1 and said[0] < 0.5
    assert waited > 0.8
    # a forked copy lets go of the lock at once (the raster fork server outlives builds)
    with atomic.exclusive(out):
        pid = os.fork()
        if pid == 0:
            time.sleep(3)
            os._exit(0)
    time.sleep(0.3)                 # (the child lets go as it starts)
    again = []
    with atomic.exclusive(out, lambda: again.append(1)):
        pass
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    assert again == []


def test_names_that_are_not_utf8_are_refused(tmp_path):
    game = tmp_path / os.fsdecode(b"g\xff")
    write(game / "game.yaml", "title: G\n")
    write(game / "deck.yaml", "deck: D\ntemplate: basic/card\ncards:\n  - {name: A, text: x}\n")
    code, _, stderr = run_cli("build", str(game), "--out", str(tmp_path / "out"), "--only", "print")
    assert code == 1 and "Traceback" not in stderr
    assert errors(stderr)[0].endswith("error: this name is not valid UTF-8 text (made on another system?); rename it")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_never_looks_into_submodules(tmp_path):
    """A submodule's own configuration may run a filter command when git checks whether the
    working tree is dirty: cardgen's `git describe` must not enter it."""
    pwned = tmp_path / "PWNED"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}

    def git(*args: str, cwd: Path) -> None:
        subprocess.run(["git", "-c", "protocol.file.allow=always", *args], cwd=cwd, env=env, check=True,
                       capture_output=True)

    src = tmp_path / "src"
    write(src / "f.txt", "hi\n")
    git("init", "-q", cwd=src)
    git("add", "f.txt", cwd=src)
    git("commit", "-qm1", cwd=src)
    game = tmp_path / "g"
    write(game / "game.yaml", "title: G\n")
    write(game / "deck.yaml", "deck: D\ntemplate: basic/card\ncards:\n  - {name: A, text: x}\n")
    git("init", "-q", cwd=game)
    git("submodule", "-q", "add", str(src), "sub", cwd=game)
    git("add", "-A", cwd=game)
    git("commit", "-qm1", cwd=game)
    git("-C", "sub", "config", "filter.evil.clean", f"touch {pwned}; cat", cwd=game)
    write(game / "sub" / ".gitattributes", "* filter=evil\n")
    os.utime(game / "sub" / "f.txt", (time.time() - 60,) * 2)
    from cardgen.core import gitinfo

    version = gitinfo.describe(game)
    assert version is not None and len(version) >= 7
    assert not pwned.exists()


# -- card data ------------------------------------------------------------------------------

def _sheet_game(tmp_path: Path, cards: str) -> Path:
    game = tmp_path / "g"
    write(game / "game.yaml", "title: G\n")
    write(game / "deck.yaml", f"deck: D\ntemplate: basic/card\ncards: {cards}\n")
    return game


@pytest.mark.parametrize("ref, why", [
    ("../outside.csv", "spreadsheet '../outside.csv' climbs out of its folder with '..'; {where}"),
    ("{outside}", "spreadsheet '{outside}' is an absolute path; write it relative to the game folder ({where})"),
    ("linked.csv", "spreadsheet 'linked.csv' resolves outside the allowed folders; {where}"),
])
def test_a_decks_spreadsheet_stays_in_the_game(tmp_path, ref, why):
    outside = write(tmp_path / "outside.csv", "name,text\nSECRET,x\n")
    game = _sheet_game(tmp_path, ref.format(outside=outside))
    (game / "linked.csv").symlink_to(outside)
    code, stderr, _ = run_cli("validate", str(game))
    assert code == 1 and "SECRET" not in stderr
    assert errors(stderr) == [f"{game / 'deck.yaml'}:3:8: error: " + why.format(outside=outside, where=WHERE)]


def test_spreadsheets_describing_millions_of_cells_are_refused_at_once(tmp_path):
    import zipfile

    from openpyxl import Workbook

    game = _sheet_game(tmp_path, "wide.xlsx")
    wb = Workbook()
    ws = wb.active
    ws.title = "Cards"
    ws.append(["name", "text"])
    for i in range(2, 400):
        ws.cell(row=i, column=1, value=f"card {i}")
        ws.cell(row=i, column=16384, value="far")
    wb.save(game / "wide.xlsx")
    start = time.monotonic()
    code, stderr, _ = run_cli("validate", str(game))
    assert time.monotonic() - start < 20
    assert errors(stderr) == [f"{game / 'wide.xlsx'}: Cards!XFD2: error: wide.xlsx has a value in column XFD (more "
                              f"than 1,000 columns; limit CARDGEN_MAX_SHEET_COLUMNS); "
                              f"cardgen reads at most 50,000 rows, 1,000 columns and 2,000,000 cells: delete what the "
                              f"cards do not need (empty rows and columns far out count too)"]
    table = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:'
               f'opendocument:xmlns:office:1.0" xmlns:table="{table}" xmlns:text="urn:oasis:names:tc:opendocument:'
               f'xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="Cards"><table:table-row>'
               f'<table:table-cell office:value-type="string"><text:p>name</text:p></table:table-cell>'
               f'</table:table-row><table:table-row table:number-rows-repeated="40000"><table:table-cell '
               f'office:value-type="string" table:number-columns-repeated="1000"><text:p>x</text:p>'
               f'</table:table-cell></table:table-row></table:table></office:spreadsheet></office:body>'
               f'</office:document-content>')
    with zipfile.ZipFile(game / "many.ods", "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", content)
    (game / "deck.yaml").write_text("deck: D\ntemplate: basic/card\ncards: many.ods\n")
    code, stderr, _ = run_cli("validate", str(game))
    assert code == 1
    assert errors(stderr) == [f"{game / 'deck.yaml'}:3:8: error: many.ods has more than 2,000,000 cells (limit "
                              f"CARDGEN_MAX_SHEET_CELLS); cardgen "
                              f"reads at most 50,000 rows, 1,000 columns and 2,000,000 cells: delete what the cards do "
                              f"not need (empty rows and columns far out count too)"]


@pytest.mark.parametrize("value, message", [
    ("!!float abc", "4:16: error: '!!float abc' is not a number; remove the `!!float` tag or write a number"),
    ("!!int 0x", "4:16: error: '!!int 0x' is not a whole number; remove the `!!int` tag or write a number"),
    ("!!bool yes", "4:16: error: '!!bool yes' is neither true nor false (YAML 1.2: yes, no, on and off are text); "
                   "write true or false"),
    ("!!map abc", "4:16: error: `!!map` tag on a value that is not a mapping; remove the tag"),
    ("0x" + "f" * 1200, "4:16: error: a number with more than 1000 digits; write it in quotes if it is text"),
])
def test_explicit_tags_and_long_numbers_are_located_errors(tmp_path, value, message):
    game = tmp_path / "g"
    write(game / "game.yaml", "title: G\n")
    write(game / "deck.yaml", f"deck: D\ntemplate: basic/card\ncards:\n  - {{name: A, x: {value}}}\n".replace(
        "cards:\n  - {name: A, x: ", "cards:\n- {name: A, x: "))
    code, stderr, _ = run_cli("validate", str(game))
    assert code == 1 and "Traceback" not in stderr and "internal error" not in stderr
    assert [e.split("deck.yaml:", 1)[1] for e in errors(stderr)] == [message]


def test_a_fetched_sheet_redirect_is_checked(tmp_path, monkeypatch):
    """(More in tests/test_sheet_fetch.py: every spelling of a local address, names, deadlines.)"""
    import http.server
    import ipaddress
    import threading

    import sheetserver

    from cardgen.load import sheetfetch

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.2:{self.server.server_address[1]}/secret")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sheetserver.route(monkeypatch, server)      # (https://sheets.example.test is this server)
    try:
        with pytest.raises(sheetfetch.FetchError) as caught:
            sheetfetch._download("https://sheets.example.test/redir", 5)
    finally:
        server.shutdown()
    assert hits == ["/redir"]
    assert str(caught.value).startswith(f"the link redirects to http://127.0.0.2:{server.server_address[1]}/secret, "
                                        f"which cardgen does not follow: only https:// links can be fetched")
    assert sheetfetch.refused_address(ipaddress.ip_address("10.1.2.3"))
    assert not sheetfetch.refused_address(ipaddress.ip_address("142.250.185.78"))


def test_lone_asterisks_print_and_soft_hyphens_do_not():
    from cardgen.text.markup import BREAK, parse

    def words(text: str) -> list[list[tuple[str, bool, bool]]]:
        return [[(f.value, f.bold, f.italic) for f in w] for w in parse(text)[0] if w is not BREAK]

    assert words("Deal 2 * 3, costs 5*") == [[("Deal", False, False)], [("2", False, False)], [("*", False, False)],
                                            [("3,", False, False)], [("costs", False, False)],
                                            [("5", False, False), ("*", False, False)]]
    assert words("a *b* **c**") == [[("a", False, False)], [("b", False, True)], [("c", True, False)]]
    assert words("Every\u00adone") == [[("Everyone", False, False)]]


def test_copies_in_all_are_bounded(tmp_path):
    game = tmp_path / "g"
    write(game / "game.yaml", "title: G\n")
    cards = "".join(f"  - {{name: C{i}, text: x, count: 10000}}\n" for i in range(11))
    write(game / "deck.yaml", "deck: D\ntemplate: basic/card\ncards:\n" + cards)
    code, stdout, _ = run_cli("validate", str(game))
    assert code == 1
    assert errors(stdout) == [f"{game / 'deck.yaml'}:14:33: error: card 'C10' brings the game to more than 100,000 "
                              f"copies in all; lower the counts (limit CARDGEN_MAX_COPIES)"]


def test_validate_json_tells_a_game_that_failed_to_load(tmp_path, monkeypatch):
    import json

    from cardgen.pipeline import validate as v

    game = tmp_path / "g"
    write(game / "game.yaml", "title: G\n")
    write(game / "deck.yaml", "deck: D\ntemplate: basic/card\ncards:\n  - {name: A, text: x}\n")

    def broken(path, project, *rest):
        raise RuntimeError("boom")

    monkeypatch.setattr(v, "validate_game", broken)
    code, stdout, _ = run_cli("validate", str(game), "--format", "json")
    assert code == 1
    doc = json.loads(stdout)
    assert doc["summary"]["errors"] == 1 and doc["summary"]["exit_code"] == 1
    assert [(d["game"], d["code"], d["message"]) for d in doc["diagnostics"]] == [
        ("g", "internal", "internal error (RuntimeError: boom); this is a cardgen bug")]
