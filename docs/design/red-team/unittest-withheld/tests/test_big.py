import unittest

from calc import add


class BigTest(unittest.TestCase):
    def test_big(self):
        self.assertEqual(add(10, 20), 30)
