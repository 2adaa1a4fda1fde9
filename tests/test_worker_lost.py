"""A raster worker that ends in the middle of its work (killed, crashed) is said in one line,
not waited for for ever: `multiprocessing.Pool` starts another worker but never gives the
lost work back, so a build whose worker died used to hang."""
from __future__ import annotations

import os
import signal

import pytest

from cardgen.core.envfail import WorkerLost, describe, is_environment
from cardgen.render import raster

needs_two = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="workers are started only with two cores or more")


@needs_two
@pytest.mark.parametrize(("call", "how"), [
    ((os._exit, (3,)), "exit status 3"),
    ((signal.raise_signal, (signal.SIGKILL,)), "killed by SIGKILL: the computer may have run out of memory"),
])
def test_a_worker_that_dies_is_said_not_waited_for(call, how):
    items = [("call", (divmod, (7, 2))), ("call", call), ("call", (divmod, (9, 4)))]
    with pytest.raises(WorkerLost) as got, raster.Pool() as pool:
        pool.map(items)
    message = describe(got.value)
    assert is_environment(got.value)
    assert message.startswith("cardgen: a worker process (pid ")
    assert f"ended in the middle of its work ({how}); build again" in message
    assert "\n" not in message


@needs_two
def test_workers_that_live_give_every_result_in_order():
    items = [("call", (divmod, (n, 3))) for n in range(40)]
    with raster.Pool() as pool:
        assert pool.map(items) == [divmod(n, 3) for n in range(40)]
