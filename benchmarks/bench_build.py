"""Time a build of N distinct poker cards to both print PDFs (Letter and A4).

    python benchmarks/bench_build.py [N]        (default 500)

Target on the 2-core dev machine: 500 cards in under 2 s, peak memory under 250 MB.
"""
from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
REPO = Path(__file__).resolve().parent.parent

from synthetic import make_game  # noqa: E402

from cardgen.pipeline.build import BuildOptions, build_game  # noqa: E402
from cardgen.core.errors import Report  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    with tempfile.TemporaryDirectory() as tmp:
        root = make_game(Path(tmp) / "bench", n)
        opts = BuildOptions(out=Path(tmp) / "out", only=("print",), papers=("letter", "a4"))
        start = time.perf_counter()
        report = Report()
        written = build_game(root, REPO, opts, report)
        took = time.perf_counter() - start
        sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in written)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n} distinct poker cards -> print-letter.pdf + print-a4.pdf: {took:.2f} s, "
          f"peak memory {peak:.0f} MB ({sizes}; {len(report.warnings)} warnings)")


if __name__ == "__main__":
    main()
