"""Make ``ansible_collections.aicluster.slurm`` importable from a plain checkout.

``make collection`` links this checkout into ``.cache/collections`` as
aicluster.slurm; put that tree on sys.path unless the collection is already
importable (as under ``ansible-test units``, which runs from an
``ansible_collections/aicluster/slurm`` checkout).
"""

import importlib
import importlib.util
import pathlib
import sys

COLLECTION = "ansible_collections.aicluster.slurm"


def _importable(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


# repo_scripts (the scripts under test, loaded as modules) sits beside this file.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

if not _importable(COLLECTION):
    collections_path = pathlib.Path(__file__).resolve().parents[2] / ".cache" / "collections"
    sys.path.insert(0, str(collections_path))
    importlib.invalidate_caches()
    if not _importable(COLLECTION):
        raise ImportError("%s is not importable; run `make collection` to link this checkout into %s" % (COLLECTION, collections_path))
