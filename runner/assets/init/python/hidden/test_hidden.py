# Hidden tests: never shown to any agent; run against every final implementation.
from solution import median

assert median([5]) == 5
assert median([9, 1, 5]) == 5
assert median([4, 1, 3, 2]) == 2.5
assert median([-3.5, 2.0]) == -0.75
xs = [3, 1, 2]
median(xs)
assert xs == [3, 1, 2]
try:
    median([])
except ValueError:
    pass
else:
    raise AssertionError("an empty list must raise ValueError")
