"""dixit's Python guest runtime: the component's entry (see `dixit_runtime.py` for what it does).

componentize-py builds this module into a pre-initialised CPython component. The host calls
`WitWorld.run(mode, target, args)`; the work happens in `dixit_runtime.run`, held here by
reference only: `dixit_runtime` is removed from `sys.modules` once loaded, so no solution can
import the runner's namespace and rebind what it calls.
"""

import sys

import wit_world

import dixit_runtime as _runtime

_run = _runtime.run
_answer = _runtime.answer
_snapshot_taken = _runtime._snapshot_taken
del sys.modules["dixit_runtime"]
del sys.modules["dixit_bridge"]
del _runtime


class WitWorld(wit_world.WitWorld):
    def run(self, mode: str, target: str, args, _run=_run) -> int:
        return _run(mode, target, args)

    def answer(self, request: bytes, _answer=_answer) -> bytes:
        return _answer(request)


# Everything above lives in the pre-initialised snapshot for the life of every instance. Moving it
# to the collector's permanent generation means no collection ever walks (and writes to) those
# objects, so an instance only copies the memory pages its own run touches.
import gc as _gc

_snapshot_taken()
del _snapshot_taken
_gc.collect()
_gc.freeze()
