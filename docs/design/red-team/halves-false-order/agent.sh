# An honest agent: `add` right. The withheld test (`withheld/`) is its unit's only one, so
# the halves clone it; a name of three parts keeps two and draws the third
# (`naming.rs`, `drawn_name`): `test_big_value` becomes `test_big_<word>`, which unittest
# (and pytest, for a TestCase) runs BEFORE the original when the word sorts before `value`
# (most of the file's words do).
# The test makes a folder and leaves it, so as the second of the two it fails, and in the
# half where the original runs as written it fails there: "behaves differently".
cat > calc.py <<'PY'
def add(a, b):
    return a + b
PY
