from calc import add


def test_big():
    total = add(10, 20)
    assert 29 < total < 31
