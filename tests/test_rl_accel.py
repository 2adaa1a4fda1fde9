"""ReportLab's C accelerator (`rl_accel`, a dependency): ReportLab uses it, and it writes the
same bytes as ReportLab's pure-Python functions, so a PDF is the same with it or without it."""
from __future__ import annotations

import importlib.util
import random

import pytest
import reportlab
from reportlab.lib import rl_accel


def _python_versions() -> dict:
    """ReportLab's own pure-Python versions of the accelerated functions (its module loaded
    again, privately, in its testing mode, which defines them beside the C ones)."""
    spec = importlib.util.spec_from_file_location("_cardgen_rl_accel_py", rl_accel.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    before = getattr(reportlab, "_rl_testing", None)
    reportlab._rl_testing = True          # type: ignore[attr-defined]
    try:
        spec.loader.exec_module(module)
    finally:
        if before is None:
            del reportlab._rl_testing     # type: ignore[attr-defined]
        else:
            reportlab._rl_testing = before    # type: ignore[attr-defined]
    return module._py_funcs


def test_reportlab_draws_with_the_c_accelerator():
    from reportlab.pdfgen import canvas

    assert "fp_str" in rl_accel._c_funcs and "escapePDF" in rl_accel._c_funcs
    assert canvas.fp_str is rl_accel._c_funcs["fp_str"]


def _numbers() -> list[float]:
    rng = random.Random(30)
    edges = [0.0, -0.0, 1e-7, -1e-7, 1.0000001e-7, 9.99e-8, 0.5, 1.5, 2.5, -2.5, 5e-7, 5.1e-7, 0.9999995,
             0.99999949, 9.9999995, 99.999995, 999.99995, 999999.5, 1e6, 1e9, 72, 1, 3]
    numbers = list(edges)
    for _ in range(6000):
        numbers.append(rng.uniform(-2000, 2000))                           # coordinates, pt
        numbers.append(rng.uniform(0, 1))                                   # colours, alpha
        numbers.append(rng.randint(-10 ** 7, 10 ** 7) / 10 ** rng.randint(0, 7) + rng.choice([0, 5e-7, -5e-6]))
    return numbers


@pytest.mark.parametrize("name", ["fp_str", "escapePDF"])
def test_the_accelerator_writes_what_reportlabs_python_writes(name):
    c, py = rl_accel._c_funcs[name], _python_versions()[name]
    if name == "fp_str":
        numbers = _numbers()
        assert [c(v) for v in numbers] == [py(v) for v in numbers]
        assert c(numbers[:6]) == py(numbers[:6]) and c(1, 2.5, -3.25) == py(1, 2.5, -3.25)
    else:
        rng = random.Random(30)
        texts = ["".join(chr(rng.choice([rng.randint(0, 255), 40, 41, 92, 10, 13])) for _ in range(rng.randint(0, 24)))
                 for _ in range(3000)]
        assert [c(t) for t in texts] == [py(t) for t in texts]
        assert [c(t.encode("latin-1")) for t in texts] == [py(t.encode("latin-1")) for t in texts]
