"""Write outputs atomically: a failed build never leaves a half-written file."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def _replace_with(path: Path, fill: Callable[[str], object]) -> None:
    """Write a temporary file beside `path` with `fill(tmp_path)`, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        fill(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_bytes(path: Path, data: bytes) -> None:
    _replace_with(path, lambda tmp: Path(tmp).write_bytes(data))


def copy_file(src: Path, path: Path) -> None:
    """Copy `src` to `path` atomically (for large outputs kept on disk, e.g. bitmaps)."""
    _replace_with(path, lambda tmp: shutil.copyfile(src, tmp))


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


class Staging:
    """Collects a build's outputs and moves them into place only when all succeeded."""

    def __init__(self) -> None:
        self.files: dict[Path, bytes | Path] = {}
        self.owned: list[Path] = []

    def add(self, path: Path, data: bytes) -> None:
        self.files[Path(path)] = data

    def add_file(self, path: Path, src: Path) -> None:
        """Stage a copy of the file `src` (kept on disk until commit, not in memory)."""
        self.files[Path(path)] = Path(src)

    def own_dir(self, folder: Path) -> None:
        """`folder` holds only this output: after commit, files in it that this build did
        not write (left from an earlier build, e.g. a card since removed) are deleted."""
        self.owned.append(Path(folder))

    def commit(self) -> list[Path]:
        for path, data in self.files.items():
            if isinstance(data, Path):
                copy_file(data, path)
            else:
                write_bytes(path, data)
        written = set(self.files)
        for folder in self.owned:
            if folder.is_dir():
                for f in sorted(folder.rglob("*")):
                    if f.is_file() and f not in written:
                        f.unlink()
        return list(self.files)
