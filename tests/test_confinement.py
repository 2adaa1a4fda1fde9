"""Confinement: a game folder reads only the game folder, the project's shared folders and
cardgen's bundled data; every way out is refused with one located line, and nothing from
outside reaches a message or an output file."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import run_cli, write

from cardgen.core.data import DATA
from cardgen.core.paths import _show

MARK = "SECRETMARKER7731"
WHERE = ("files may only come from the game folder, the project's templates/, art/, fonts/ and layouts/ folders, "
         "or cardgen's bundled ones")
TEMPLATE = """
    elements:
      - name: bg
        type: rect
        box: bleed
        fill: "#ffffff"
      - name: pic
        type: image
        x: 2mm
        y: 2mm
        width: 20mm
        height: 20mm
        src: "{{ card.pic }}"
"""


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """Files outside any game folder, each carrying a marker that must never leak."""
    from PIL import Image

    d = tmp_path / "secret"
    d.mkdir()
    Image.new("RGB", (8, 8), (12, 34, 56)).save(d / "secret.png")
    (d / "secret.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                                  f'<symbol id="s"><text>{MARK}</text></symbol></svg>')
    (d / "deck.yaml").write_text(f"deck: {MARK}\ntemplate: tiny/face\ncards:\n  - name: {MARK}\n")
    (d / "tpl.yaml").write_text(f"elements:\n  - name: {MARK}\n    type: text\n    text: {MARK}\n")
    (d / "rules.yaml").write_text(f"source: {MARK}\n")
    (d / "game.yaml").write_text(f"title: {MARK}\n")
    return d


def build(root: Path, out: Path) -> tuple[int, str, str]:
    start = time.monotonic()
    result = run_cli("build", str(root), "--out", str(out), "--only", "print", "--page", "a4")
    assert time.monotonic() - start < 60          # safety net only
    return result


def errors(stderr: str) -> list[str]:
    assert "Traceback" not in stderr
    return [ln for ln in stderr.splitlines() if ": error: " in ln]


def no_leak(out: Path, *texts: str) -> None:
    for t in texts:
        assert MARK not in t
    for p in out.rglob("*") if out.exists() else []:
        if p.is_file():
            assert MARK.encode() not in p.read_bytes(), p


def image_game(tiny_game, pic: str):
    return tiny_game(f"cards:\n  - {{name: A, pic: '{pic}'}}\n", template=TEMPLATE)


@pytest.mark.parametrize("pic, why", [
    ("{secret}/secret.png", "is an absolute path; write it relative to the game folder ({where})"),
    ("../secret/secret.png", "climbs out of its folder with '..'; {where}"),
    ("art/../../secret/secret.png", "climbs out of its folder with '..'; {where}"),
    ("art/link.png", "resolves outside the allowed folders; {where}"),
    ("art/evil.svg", "SVG evil.svg: reference '../../secret/secret.svg' resolves outside the allowed folders; "
                     "{where}"),
    ("art/abs.svg", "SVG abs.svg: reference '{secret}/secret.svg' is an absolute path; {where}"),
    ("art/remote.svg", "SVG remote.svg refers to 'file:///etc/passwd'; only files next to it may be "
                       "referenced ({where})"),
    ("art/entity.svg", "SVG entity.svg declares XML entities or an external DTD, which cardgen does not read; "
                       "remove them"),
])
def test_art_outside_is_refused(tiny_game, tmp_path, secret, pic, why):
    pic = pic.format(secret=secret)
    root = image_game(tiny_game, pic)
    art = root / "art"
    art.mkdir()
    os.symlink(secret / "secret.png", art / "link.png")
    (art / "evil.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/'
                                  'xlink" width="10" height="10"><use xlink:href="../../secret/secret.svg#s"/></svg>')
    (art / "abs.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                                 f'<image href="{secret}/secret.svg" width="5" height="5"/></svg>')
    (art / "remote.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                                    '<image href="file:///etc/passwd" width="5" height="5"/></svg>')
    (art / "entity.svg").write_text(f'<!DOCTYPE svg [<!ENTITY x SYSTEM "{secret}/rules.yaml">]>'
                                    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                                    '<text>&x;</text></svg>')
    out = tmp_path / "out"
    code, stdout, stderr = build(root, out)
    assert code == 1
    lines = errors(stderr)
    # (a reference is shown as `paths._show` shortens it: a long temporary folder is cut)
    why = why.replace("'{secret}/secret.svg'", "'" + _show(f"{secret}/secret.svg").replace("{", "{{").replace("}", "}}")
                      + "'")
    assert lines == [f"{root}/templates/tiny/face.yaml:12:10: error: card 'A' (deck.yaml:5), element 'pic': "
                     f"image '{_show(pic)}' " + why.format(where=WHERE, secret=secret)
                     if not pic.endswith(".svg") else
                     f"{root}/templates/tiny/face.yaml:12:10: error: card 'A' (deck.yaml:5), element 'pic': "
                     + why.format(where=WHERE, secret=secret)]
    no_leak(out, stdout, stderr)


def test_art_inside_the_game_still_works(tiny_game, tmp_path):
    from PIL import Image

    root = image_game(tiny_game, "art/ok.png")
    (root / "art").mkdir()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(root / "art" / "ok.png")
    (root / "art" / "same.png").symlink_to(root / "art" / "ok.png")    # a link that stays inside is fine
    (root / "art" / "inner.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
        '<defs><rect id="r" width="5" height="5"/></defs><use xlink:href="#r"/></svg>')
    code, _, stderr = build(root, tmp_path / "out")
    assert code == 0, stderr
    for pic in ("art/same.png", "inner.svg"):
        write(root / "deck.yaml", f"deck: Things\ntemplate: tiny/face\nback: tiny/back\n"
                                  f"cards:\n  - {{name: A, pic: '{pic}'}}\n")
        code, _, stderr = build(root, tmp_path / "out")
        assert code == 0, stderr


def test_icon_alias_outside_is_refused(tiny_game, tmp_path, secret):
    root = tiny_game(game_extra="icons:\n  leak: ../../secret/secret\n")
    code, stdout, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root}/game.yaml:3:9: error: icon alias 'leak' file '../../secret/secret' climbs "
                              f"out of its folder with '..'; {WHERE}"]
    no_leak(tmp_path / "out", stdout, stderr)


def test_icon_symlink_outside_is_refused(tiny_game, tmp_path, secret):
    root = tiny_game(template="""
        elements:
          - name: i
            type: icon
            icon: leak
    """)
    (root / "art" / "icons").mkdir(parents=True)
    (root / "art" / "icons" / "leak.svg").symlink_to(secret / "secret.svg")
    code, stdout, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root}/templates/tiny/face.yaml:4:11: error: element 'i': icon 'leak' resolves "
                              f"outside the allowed folders; {WHERE}"]
    no_leak(tmp_path / "out", stdout, stderr)


@pytest.mark.parametrize("ref, why", [
    ("{secret}/tpl", "is an absolute path; write it relative to the game folder ({where})"),
    ("../../secret/tpl", "climbs out of its folder with '..'; {where}"),
    ("~/tpl", "is an absolute path; write it relative to the game folder ({where})"),
])
def test_template_outside_is_refused(tiny_game, tmp_path, secret, ref, why):
    ref = ref.format(secret=secret)
    root = tiny_game(deck_extra="")
    write(root / "deck.yaml", f"deck: Things\ntemplate: '{ref}'\ncards:\n  - name: A\n")
    code, stdout, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root}/deck.yaml:2:11: error: template '{_show(ref)}' " + why.format(where=WHERE)]
    no_leak(tmp_path / "out", stdout, stderr)


def test_extends_outside_is_refused(tiny_game, tmp_path, secret):
    root = tiny_game(template=f"extends: '{secret}/tpl'\nelements: []\n")
    code, stdout, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root}/templates/tiny/face.yaml:1:10: error: template '{_show(f'{secret}/tpl')}' is an "
                              f"absolute path; write it relative to the game folder ({WHERE})"]
    no_leak(tmp_path / "out", stdout, stderr)


def test_template_symlink_outside_is_refused(tiny_game, tmp_path, secret):
    root = tiny_game()
    (root / "templates" / "tiny" / "face.yaml").unlink()
    (root / "templates" / "tiny" / "face.yaml").symlink_to(secret / "tpl.yaml")
    code, stdout, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root}/deck.yaml:2:11: error: template 'tiny/face' resolves outside the allowed "
                              f"folders; {WHERE}"]
    no_leak(tmp_path / "out", stdout, stderr)


@pytest.mark.parametrize("entry, why", [
    ("../secret/deck", "deck file '../secret/deck' climbs out of its folder with '..'; {where}"),
    ("{secret}/deck", "deck file '{secret}/deck' is an absolute path; write it relative to the game folder "
                      "({where})"),
])
def test_decks_outside_are_refused(tiny_game, tmp_path, secret, entry, why):
    entry = entry.format(secret=secret)
    root = tiny_game(game_extra=f"decks: ['{entry}']\n")
    code, stdout, stderr = build(root, tmp_path / "out")
    assert code == 1
    assert errors(stderr) == [f"{root}/game.yaml:2:9: error: " + why.format(where=WHERE, secret=secret)
                              .replace(f"'{secret}/deck'", f"'{_show(f'{secret}/deck')}'")]
    no_leak(tmp_path / "out", stdout, stderr)


@pytest.mark.parametrize("name", ["other.yaml", "rules.yaml", "game.yaml"])
def test_yaml_symlinks_outside_are_refused(tiny_game, tmp_path, secret, name):
    root = tiny_game()
    target = {"other.yaml": "deck.yaml", "rules.yaml": "rules.yaml", "game.yaml": "game.yaml"}[name]
    if (root / name).exists():
        (root / name).unlink()
    (root / name).symlink_to(secret / target)
    what = {"other.yaml": "deck file 'other.yaml'", "rules.yaml": "rules.yaml 'rules.yaml'",
            "game.yaml": "game.yaml 'game.yaml'"}[name]
    for command in ("build", "validate"):
        args = ("--out", str(tmp_path / "out"), "--only", "print") if command == "build" else ()
        code, stdout, stderr = run_cli(command, str(root), *args)
        assert code == 1
        assert f"{root}/{name}: error: {what} resolves outside the allowed folders; {WHERE}" in \
            errors(stdout + stderr)
        no_leak(tmp_path / "out", stdout, stderr)


def test_font_symlink_outside_is_not_used(tiny_game, tmp_path, secret):
    root = tiny_game()
    (root / "fonts").mkdir()
    (root / "fonts" / "Evil-Regular.ttf").symlink_to(DATA / "fonts" / "Lato-Regular.ttf")
    outside = tmp_path / "secret" / "Evil2-Regular.ttf"
    outside.write_bytes((DATA / "fonts" / "Lato-Regular.ttf").read_bytes())
    (root / "fonts" / "Evil2-Regular.ttf").symlink_to(outside)
    from cardgen.core.paths import allowed_roots
    from cardgen.model.game import BUNDLED
    from cardgen.resources.fonts import FontBook, FontError

    book = FontBook([root / "fonts"], allowed_roots(root, tmp_path, BUNDLED))
    assert book.has("Evil")               # points into cardgen's own fonts/: allowed
    assert not book.has("Evil2")
    with pytest.raises(FontError, match=r"font file 'Evil2-Regular\.ttf' resolves outside the allowed folders"):
        book.face("Evil2")


def test_rules_yaml_directory_is_an_error(tiny_game, tmp_path):
    root = tiny_game()
    (root / "rules.yaml").mkdir()
    code, stdout, stderr = run_cli("validate", str(root))
    assert code == 1
    assert f"{root}/rules.yaml: error: rules.yaml is not a file (a folder?); make it a YAML file or remove it" \
        in errors(stdout + stderr)
