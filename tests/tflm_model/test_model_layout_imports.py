"""The model rewriter (tflm_model/model_layout.py) imports the flatbuffers runtime without numpy: numpy's import
was a fifth of a cold `size-report ops` on a firmware with a model linked in. The bytes written are checked by
test_model_layout.py; here, in a fresh interpreter, that numpy stays unloaded and the importer is left as it was."""

import subprocess
import sys

from tests.conftest import FIXTURES, REPO_ROOT

MODEL = FIXTURES / "models" / "arena_add_chain.tflite"

PROGRAM = f"""
import importlib.machinery, sys
finder = importlib.machinery.PathFinder.__dict__["find_spec"]
from tflm_model.model_layout import strip_saving
saving = strip_saving({str(MODEL)!r})
assert saving.rewritten >= saving.stripped > 0, saving
assert "numpy" not in sys.modules, "numpy was imported"
assert importlib.machinery.PathFinder.__dict__["find_spec"] is finder, "PathFinder was not restored"
import flatbuffers
assert flatbuffers.builder.np is None
print("ok")
"""


def test_rewriting_a_model_does_not_import_numpy():
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
