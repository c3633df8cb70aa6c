"""dixit's disagreement finder, the guest side (the host side is runner/src/consensus/).

Run by the Python runtime in mode `main` (a program):

  consensus.py guard TEST
      Writes TEST's source to stdout with every statement guarded (`try: ... except Exception:
      pass`), so a failed check does not end the test: the calls after it are made too.

The host then runs the guarded test as an ordinary unit test against each final implementation,
which runs apart in an instance of its own and only answers requests (see
guest-sdk/python/dixit_bridge.py); the host reads the calls and answers off the bridge. To an
implementation, this is a test whose checks all passed: it cannot tell it from one.
"""

import ast
import sys

# Statements left unguarded: definitions and directives that cannot fail on their own (and
# `from __future__` must stay first).
_KEEP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal, ast.Pass)


def _guard(body):
    """Every statement of `body` (recursively) wrapped in `try: ... except Exception: pass`."""
    out = []
    for st in body:
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(st, field, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                setattr(st, field, _guard(sub))
        for h in getattr(st, "handlers", ()):
            h.body = _guard(h.body)
        for c in getattr(st, "cases", ()):
            c.body = _guard(c.body)
        if isinstance(st, _KEEP) or (isinstance(st, ast.ImportFrom) and st.module == "__future__"):
            out.append(st)
            continue
        handler = ast.ExceptHandler(type=ast.Name(id="Exception", ctx=ast.Load()), name=None, body=[ast.Pass()])
        out.append(ast.copy_location(ast.Try(body=[st], handlers=[handler], orelse=[], finalbody=[]), st))
    return out



def guard(test_path):
    with open(test_path, "r", encoding="utf-8") as f:
        source = f.read()
    try:
        tree = ast.parse(source, test_path)
        tree.body = _guard(tree.body)
        out = ast.unparse(ast.fix_missing_locations(tree))
    except Exception:
        out = source  # unguarded: its calls up to the first failed check are still seen
    sys.stdout.write(out)
    return 0


if __name__ == "__main__" and len(sys.argv) > 2 and sys.argv[1] == "guard":
    sys.exit(guard(sys.argv[2]))
