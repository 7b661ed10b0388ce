import time

from calc import add


def test_big():
    # A slow test (an integration run, a large input): most of the check's time.
    time.sleep(8)
    assert add(10, 20) == 30
