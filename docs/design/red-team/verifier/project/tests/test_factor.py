from calc import factor


def test_small():
    assert factor(15) == [3, 5]


def test_seven():
    assert factor(77) == [7, 11]
