from calc import add


def test_big():
    assert add(0.25, 1.5) == 1.75
