"""Write outputs atomically: a failed build never leaves a half-written file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


class Staging:
    """Collects a build's outputs and moves them into place only when all succeeded."""

    def __init__(self):
        self.files: dict[Path, bytes] = {}

    def add(self, path: Path, data: bytes) -> None:
        self.files[Path(path)] = data

    def commit(self) -> list[Path]:
        for path, data in self.files.items():
            write_bytes(path, data)
        return list(self.files)
