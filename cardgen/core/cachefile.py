"""A cache file of an output folder: `<folder>/.cache/<name>`, read once, kept while a process
runs, written back (atomically, sealed) when a build is done.

The drawn card forms (`cardgen.render.formcache`) and the laid-out card sides
(`cardgen.layout.cache`) are kept this way.  The file is sealed with a checksum like every
cache file (`core.digest.seal`): a damaged one is deleted and its entries made again.  It
starts with cardgen's code version (`core.digest.code_version`, which includes when this
installation's libraries were installed) and an HMAC of it and the output folder's path under
this user's secret key (`core.digest.own_stamp`): a file made by another installation or
user, or for another output folder, such as one shipped inside a downloaded game folder, is
ignored without being read further.  Only then is
the rest read, with `marshal` (plain data: no object of a class is ever made from it), and
each kind of cache checks the shape of what it reads (`accept`).
"""
from __future__ import annotations

import contextlib
import marshal
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from cardgen.core.digest import own_stamp, read_sealed, seal_parts
from cardgen.core.paths import through_link

C = TypeVar("C", bound="CacheFile")


class CacheFile:
    """Entries by key, from and to one sealed file; `used`: the keys this process asked for
    or added (what `save` keeps)."""

    NAME: ClassVar[str] = ""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.entries: dict[Any, Any] = {}
        self.used: set[Any] = set()
        self.found = 0                  # entries found (since this process opened the file)
        self.made = 0                   # entries added
        self._new = False               # added since saved
        self._loaded = path is None
        self._stamp: tuple[int, int] | None = None      # the file as last read or written

    @classmethod
    def open_in(cls: type[C], folder: Path, registry: dict[Path, C]) -> C:
        """The cache of an output folder (`<folder>/.cache/<NAME>`), one per process and
        `registry` (read again when the file changed since: another process wrote it, or it was
        damaged)."""
        path = Path(folder) / ".cache" / cls.NAME
        hit = registry.get(path)
        if hit is None or (hit._loaded and hit._stamp != stamp(path)):
            hit = registry[path] = cls(path)
        return hit

    def stamp(self) -> bytes:
        """What the file starts with: `core.digest.own_stamp` of its output folder."""
        assert self.path is not None
        return own_stamp(self.path.parent.parent).encode()

    def accept(self, data: Any) -> bool:
        """Take what the file held (plain data, already unmarshalled); False if it has not the
        shape this kind of cache writes (then it is ignored).  Default: a dict of entries, each
        as `entry_ok` says."""
        if not (isinstance(data, dict) and all(self.entry_ok(k, v) for k, v in data.items())):
            return False
        self.entries = data
        return True

    @staticmethod
    def entry_ok(key: Any, entry: Any) -> bool:
        """Has this entry of the file the shape this kind of cache writes?  Default: any."""
        return True

    def payload(self) -> Any:
        """What `save` writes (marshal-able plain data).  Default: the entries used."""
        return {k: v for k, v in self.entries.items() if k in self.used}

    def load(self) -> None:
        """Read the file (once; `get` does it when first asked)."""
        if self._loaded:
            return
        self._loaded = True
        if self.path is None:
            return
        if through_link(self.path):
            return       # `.cache` or the file is a link: not cardgen's own (core.paths.drop_links)
        self._stamp = stamp(self.path)
        body = read_sealed(self.path, view=True)
        if body is None:
            return
        head = self.stamp() + b"\n"
        if body[:len(head)] != head:
            return       # another version of cardgen (or not cardgen's): never unmarshalled
        with contextlib.suppress(ValueError, EOFError, TypeError):
            if not self.accept(marshal.loads(body[len(head):])):
                self.entries = {}

    def get(self, key: Any) -> Any | None:
        if not self._loaded:
            self.load()
        hit = self.entries.get(key)
        if hit is not None:
            self.used.add(key)
            self.found += 1
        return hit

    def has(self, key: Any) -> bool:
        """Whether there is an entry for `key` (not counted as found or used)."""
        if not self._loaded:
            self.load()
        return key in self.entries

    def keep(self, key: Any) -> None:
        """Mark the entry for `key`, if there is one, as used (`save` keeps it), without
        counting it as found: its user did not need it this time (`render.assemble.deferred`)."""
        if not self._loaded:
            self.load()
        if key in self.entries:
            self.used.add(key)

    def put(self, key: Any, entry: Any) -> None:
        self.entries[key] = entry
        self.used.add(key)
        self.made += 1
        self._new = True

    def save(self) -> None:
        """Write the file if this process added entries (else it is current)."""
        if self.path is None or not self._new or through_link(self.path):
            return
        body = marshal.dumps(self.payload())
        from cardgen.core import atomic  # (only a build writes: `validate` does not import it)

        atomic.write_parts(self.path, seal_parts(self.stamp() + b"\n", body))
        self._stamp = stamp(self.path)
        self._new = False


def stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def save_every(registry: dict[Path, Any]) -> None:
    """Save every cache of `registry` that has new entries (after a build)."""
    for cache in registry.values():
        with contextlib.suppress(OSError):
            cache.save()


OWNER = "OWNER"         # a cache folder's stamp (`digest.own_stamp`): whose files these are


def claim_folder(folder: Path, out_dir: Path) -> None:
    """A cache folder of files (bitmaps, picture copies) of the output folder `out_dir`,
    trusted only as cardgen's own: one whose OWNER stamp is not this user's cardgen's for this
    output folder (shipped with a game, copied from elsewhere, made by another installation)
    is emptied before use, so no file a game brings can stand in for one cardgen makes.  (The
    caller never uses a folder reached through a link.)"""
    stamp = own_stamp(Path(out_dir))
    owner = folder / OWNER
    try:
        if owner.is_file() and not owner.is_symlink() and owner.read_text(encoding="ascii") == stamp:
            return
    except (OSError, UnicodeDecodeError):
        pass
    if folder.is_dir():
        for f in folder.iterdir():
            with contextlib.suppress(OSError):
                if f.is_symlink() or f.is_file():
                    f.unlink()
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        owner.write_text(stamp, encoding="ascii")
