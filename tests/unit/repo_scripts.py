"""The repository's scripts (bench/, tools/, tests/, roles/*/files/, fixtures) loaded as modules for their tests."""

import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load(relative, name=None):
    """The Python file at ``relative`` (from the repository root) as a module registered as ``name`` (default: its stem).

    No bytecode is written next to it, so a role's files/ stays as shipped.
    """
    path = ROOT / relative
    name = name or path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = write_bytecode
    return module
