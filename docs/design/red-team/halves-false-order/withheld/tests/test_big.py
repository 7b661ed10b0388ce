import os
import unittest

from calc import add


class BigTest(unittest.TestCase):
    def test_big_value(self):
        # The test makes its own output folder (and leaves it).
        os.mkdir("big-out")
        with open(os.path.join("big-out", "sum.txt"), "w") as out:
            out.write(str(add(10, 20)))
        self.assertEqual(add(10, 20), 30)
