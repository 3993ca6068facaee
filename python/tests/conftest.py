"""Fixtures: a real store in a temporary directory, on the embedded model
the build converted (ENGRAM_TEST_MODELS_DIR), through the libengram that
ENGRAM_LIBRARY names (scripts/python_test.sh sets both)."""
import os

import pytest

import engram


def model_settings():
    models = os.environ.get("ENGRAM_TEST_MODELS_DIR")
    return {"embed.models_dir": models} if models else {}


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "memory.db"


@pytest.fixture
def memory(store_path):
    with engram.Memory(store_path, settings=model_settings()) as m:
        assert m.warnings == (), m.warnings
        yield m
