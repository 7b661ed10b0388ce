from calc import add


def test_big():
    assert add(10, 20) == 30, "10 + 20 should be 30"
