import pytest

from calc import add

CASES = [
    (10, 20, 30),
    (7, 8, 15),
]


@pytest.mark.parametrize("a, b, want", CASES)
def test_big(a, b, want):
    assert add(a, b) == want
