"""What the maintainer scripts of tools/ share.

Importing it puts the learners' folder (python/: export_pytorch.py, the check tracer) on sys.path, so that a
generator exports its fixtures with the very exporter a learner uses (`from export_pytorch import export`).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEARNER_PYTHON = os.path.join(ROOT, "python")
if LEARNER_PYTHON not in sys.path:
    sys.path.insert(0, LEARNER_PYTHON)
