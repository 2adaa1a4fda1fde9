"""How the `cardgen` command ends: its status, and nothing from Python when the output goes
nowhere (a closed pipe, a closed stream)."""
import os
import subprocess
import sys


def test_a_closed_pipe_is_status_1_and_no_message():
    read, write = os.pipe()
    os.close(read)                     # `cardgen --help | true`: the reader has gone
    try:
        done = subprocess.run([sys.executable, "-m", "cardgen", "--help"], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (1, "")


def test_a_closed_stdout_is_no_message():
    done = subprocess.run(f"'{sys.executable}' -m cardgen --version >&-", shell=True, stderr=subprocess.PIPE,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_status_of_a_command_is_kept():
    done = subprocess.run([sys.executable, "-m", "cardgen", "no-such-command"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "No such command 'no-such-command'" in done.stderr
    assert "Traceback" not in done.stderr
