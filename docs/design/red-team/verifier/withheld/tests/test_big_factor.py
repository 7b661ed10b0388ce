from calc import factor


def test_big():
    assert factor(1000036000099) == [1000003, 1000033]
