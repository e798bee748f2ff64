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


def attn_tutor_exe():
    """The binary whose option table the scripts read: $ATTN_TUTOR, else build/attn-tutor of this checkout."""
    return os.environ.get("ATTN_TUTOR") or os.path.join(ROOT, "build", "attn-tutor")


_OPTIONS = {}


def lesson_options(lesson, exe=None):
    """{flag: kind} of one lesson, as the binary lists them (`attn-tutor lessons --json`: its option table)."""
    import json
    import subprocess
    exe = exe or attn_tutor_exe()
    if exe not in _OPTIONS:
        try:
            out = subprocess.run([exe, "lessons", "--json"], stdout=subprocess.PIPE, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit("%s lessons --json: %s; build attn-tutor first (or set $ATTN_TUTOR)" % (exe, e))
        _OPTIONS[exe] = {row["name"]: {o["flag"]: o["kind"] for o in row["options"]}
                         for row in json.loads(out)["lessons"]}
    if lesson not in _OPTIONS[exe]:
        sys.exit("lesson %r: attn-tutor has no such lesson" % lesson)
    return _OPTIONS[exe][lesson]


def case_argv(lesson, settings, joined=(), exe=None):
    """The command line of one case (besides --json and --inputs FILE), from the binary's option table.

    settings: (config key, value) pairs in the order they are written; a key is the option's flag without
    its dashes, '_' for '-' (d_out is --d-out); one given a value must be one of the lesson's options. None,
    and False for a flag, leaves the option out. A number is written with repr(float), a list of words
    joined by spaces; a key in joined as --flag=value (so that a negative seed is not read as an option)."""
    options, argv = lesson_options(lesson, exe), []
    for key, value in settings:
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if flag not in options:
            raise KeyError("%s: %s is not an option of %s (attn-tutor %s --help)" % (key, flag, lesson, lesson))
        if options[flag] == "flag":
            argv.append(flag)
            continue
        text = repr(float(value)) if options[flag] == "number" else \
            " ".join(value) if isinstance(value, (list, tuple)) else str(value)
        argv += [flag + "=" + text] if key in joined else [flag, text]
    return argv


def export_all(jobs, folder):
    """Each job (name, make): make() gives (lesson, tensors, config), exported as folder/NAME.json with the
    learners' exporter, as a learner would write it."""
    from export_pytorch import export
    os.makedirs(folder, exist_ok=True)
    for name, make in jobs:
        lesson, tensors, config = make()
        path = os.path.join(folder, name + ".json")
        export(tensors, lesson, path, **config)
        print("wrote %s (%s, %d tensors)" % (path, lesson, len(tensors)), file=sys.stderr)


def add_generator_args(ap, cases, out, exports, rng_seed, cases_help="random cases"):
    """The options of a generator that also writes correct exports and verify's entries."""
    ap.add_argument("--cases", type=int, default=cases, help=cases_help + " (default %(default)s)")
    ap.add_argument("--out", default=out)
    ap.add_argument("--exports", help="also write %s for check into this folder" % exports)
    ap.add_argument("--reference", action="store_true", help="print verify's entries instead")
    ap.add_argument("--rng-seed", type=int, default=rng_seed, help="seed of Python's random (default %(default)s)")
