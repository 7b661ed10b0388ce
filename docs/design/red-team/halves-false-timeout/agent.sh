# An honest agent: `add` right. The withheld test is slow, over half of the check's time
# limit (`[recipe] timeout_secs = 14` here); it is its unit's only one, so W1 and W2 run it
# and its clone, twice its time: past the limit, the twin pass times out, cannot be judged,
# and the check fails.
cat > calc.py <<'PY'
def add(a, b):
    return a + b
PY
