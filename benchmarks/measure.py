"""Measure a process and every process it starts: wall time, CPU time and peak memory.

`measure(args)` runs `args` as a child process and returns `Measured`:

- CPU (user + system) of the child and of every process below it, orphans included.  This
  process is made a *child subreaper* (Linux `prctl(PR_SET_CHILD_SUBREAPER)`): a descendant
  whose parent ended before it (a raster worker or fork server outliving the build process)
  is handed to this process instead of to init, and is waited for here.  So every process
  a build starts is counted by `getrusage(RUSAGE_CHILDREN)`, either directly or through the
  parent that waited for it (GNU time and a plain `RUSAGE_CHILDREN` of the build process
  miss the orphans: issue 30 saw 2.5 s shown for 6.8 s used).
- Peak memory of the whole process tree, sampled from /proc every 50 ms: the summed resident
  set sizes (RSS: shared pages count once per process, an upper bound) and proportional set
  sizes (PSS: shared pages divided among the processes sharing them).  A peak shorter than
  the sampling interval may be missed.
- `limit_mb`: the tree is killed when its summed RSS passes it (`Measured.killed`), so a
  benchmark of a build that would exhaust the machine's memory stops in time.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

PR_SET_CHILD_SUBREAPER = 36


def _subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children() -> dict[int, list[int]]:
    """Every process's children, from one pass over /proc (when `/proc/<pid>/task/*/children`
    is not there: a kernel without CONFIG_PROC_CHILDREN)."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _own_children(pid: int) -> list[int] | None:
    """The children of `pid` (of any of its threads), read from its own /proc entry: a few
    small files, where a pass over /proc reads every process on the machine (sampled every
    50 ms, that pass cost a loaded machine several percent of a core).  None: not available."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []                   # (ended)
    out: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(x) for x in f.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue            # (the thread ended)
            return None
        except OSError:
            continue
    return out


def tree(pid: int) -> list[int]:
    """`pid` and its descendants now."""
    out, todo = [], [pid]
    kids: dict[int, list[int]] | None = None
    while todo:
        p = todo.pop()
        out.append(p)
        mine = _own_children(p) if kids is None else None
        if mine is None:
            kids = kids if kids is not None else _children()
            mine = kids.get(p, [])
        todo.extend(mine)
    return out


def memory(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of one process in MB, from smaps_rollup."""
    rss = pss = 0.0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1]) / 1024
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss, pss


class Sampler(threading.Thread):
    """The peak of the summed memory of the descendants of this process (every process a
    child started, orphans included: they are reparented here, `_subreaper`)."""

    def __init__(self, every: float = 0.05, limit_mb: float | None = None):
        super().__init__(daemon=True)
        self.every, self.limit_mb = every, limit_mb
        self.rss = self.pss = 0.0
        self.procs = 0
        self.killed = False
        self.done = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.done.is_set():
            pids = [p for p in tree(me) if p != me]
            mems = [memory(p) for p in pids]
            rss = sum(m[0] for m in mems)
            self.rss = max(self.rss, rss)
            self.pss = max(self.pss, sum(m[1] for m in mems))
            self.procs = max(self.procs, len(pids))
            if self.limit_mb is not None and rss > self.limit_mb:
                self.killed = True
                for p in pids:
                    with contextlib.suppress(OSError):
                        os.kill(p, signal.SIGKILL)
            self.done.wait(self.every)


@dataclass
class Measured:
    wall: float             # seconds
    cpu: float              # user + system seconds of every process
    rss_mb: float           # peak summed RSS of the process tree
    pss_mb: float           # peak summed PSS
    procs: int              # most processes at once
    returncode: int
    killed: bool            # stopped for passing `limit_mb`
    stdout: str
    stderr: str


def _reap_all() -> None:
    """Wait for every remaining child (orphans handed to this process)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            return
        if pid == 0:
            return


@contextlib.contextmanager
def every_process():
    """Within the block, processes that this one's children leave behind (orphans: a fork
    server, raster workers) are handed to this process and waited for at the end of the
    block, so that `getrusage(RUSAGE_CHILDREN)` read after it counts them."""
    _subreaper()
    try:
        yield
    finally:
        _reap_all()


def measure(args: list[str], cwd: str | None = None, env: dict | None = None,
            limit_mb: float | None = None) -> Measured:
    """Run `args` to its end and every process it started, measured (see the module)."""
    _subreaper()
    sampler = Sampler(limit_mb=limit_mb)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler.start()
    out, err = proc.communicate()
    _reap_all()
    wall = time.perf_counter() - start
    sampler.done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Measured(wall, cpu, sampler.rss, sampler.pss, sampler.procs, proc.returncode, sampler.killed, out, err)


def machine() -> str:
    """The machine and its load, for the figures' caption."""
    load = os.getloadavg()
    return f"{os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)"


def compiled(root) -> str:
    """Make the builds measured use compiled modules, as an installed cardgen does: with
    `PYTHONDONTWRITEBYTECODE` set and no `__pycache__` (a fresh clone), every build compiled
    cardgen's sources again, about 1.2 s of CPU in the build process and more in the raster
    workers' fork server (session 9: `cardgen validate` of the TTS benchmark's 500 cards, 2.3
    to 2.6 s with them compiled, 3.5 to 3.7 s without).  Compiles `root`'s package once, lets
    the children write what they import, and says so for the caption."""
    import compileall
    from pathlib import Path

    compileall.compile_dir(str(Path(root) / "cardgen"), quiet=1)
    was = os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    return "modules compiled" + (" (PYTHONDONTWRITEBYTECODE unset for the builds)" if was else "")


def before_rasterizing(game, root) -> Measured:
    """What a build of `game` does before it rasterizes anything, and what the benchmarks'
    floors leave out: `cardgen validate` in a fresh process (imports, loading, the checks and
    laying out every card, as `cardgen build` does them first), measured like the builds."""
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    m = measure([sys.executable, "-m", "cardgen", "validate", str(game)], env=env)
    if m.returncode:
        raise SystemExit(f"validate failed:\n{m.stdout}{m.stderr}")
    return m


def before_line(before: float, build: float, floor: float, name: str = "floor") -> str:
    """The benchmarks' line under a size's figures: how much of the build's CPU comes before
    rasterizing (`before_rasterizing`), and the rest of the build against the floor (`name`)."""
    return (f"{'':>6} of the build's CPU {before:.2f} s ({100 * before / build:.0f} %) is before rasterizing "
            f"(load, check, lay out: `cardgen validate`); the rest / {name}: {(build - before) / floor:.2f}")


def paired_line(builds: list[tuple[float, float]], floors: list[tuple[float, float]]) -> str:
    """The benchmarks' line of run-by-run ratios: each build (CPU, wall) against the floor
    measured in the same turn, their median and range.  The best-of ratios set the best build
    against the best floor, which on a machine whose speed drifts from minute to minute may
    come from different spells; the two runs of a turn share theirs."""
    import statistics

    cpu = sorted(b[0] / f[0] for b, f in zip(builds, floors))
    wall = sorted(b[1] / f[1] for b, f in zip(builds, floors))
    return (f"{'':>6} run by run, build / floor ({len(cpu)} turns): CPU median {statistics.median(cpu):.2f} "
            f"({cpu[0]:.2f} to {cpu[-1]:.2f}), wall median {statistics.median(wall):.2f} "
            f"({wall[0]:.2f} to {wall[-1]:.2f})")
