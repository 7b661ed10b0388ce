import pytest

from calc import add


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (2, 3, 5),
        (-4, 1, -3),
    ],
)
def test_add(a, b, expected):
    assert add(a, b) == expected
