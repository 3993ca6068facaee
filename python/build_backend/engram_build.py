"""A PEP 517 build backend for the engram package, standard library only.

The package is pure Python, so a wheel is a zip of `engram/` with its
dist-info; an sdist is a tar of the project. Nothing is downloaded, which is
what lets `pip install ./python` work on a machine without network access.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "engram"
TAG = "py3-none-any"


def _project():
    """Name, version, summary and Python requirement from pyproject.toml."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    project = text[text.index("[project]"):]
    fields = {}
    for key in ("name", "version", "description", "requires-python"):
        match = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(key), project, re.M)
        if match is None:
            raise ValueError("pyproject.toml: [project] has no %s" % key)
        fields[key] = match.group(1)
    return fields


def _metadata():
    p = _project()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {p['name']}\n"
        f"Version: {p['version']}\n"
        f"Summary: {p['description']}\n"
        f"Requires-Python: {p['requires-python']}\n"
        "License: Apache-2.0\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )


def _dist_info():
    p = _project()
    return f"{p['name']}-{p['version']}.dist-info"


def _package_files():
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, PACKAGE)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".typed")):
                full = os.path.join(dirpath, name)
                yield full, os.path.relpath(full, ROOT).replace(os.sep, "/")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, _dist_info())
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    name = f"{p['name']}-{p['version']}-{TAG}.whl"
    info = _dist_info()
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        def add(arcname, data):
            whl.writestr(arcname, data)
            records.append(_record_line(arcname, data))

        for full, arcname in _package_files():
            with open(full, "rb") as f:
                add(arcname, f.read())
        add(f"{info}/METADATA", _metadata().encode())
        add(f"{info}/WHEEL", (
            "Wheel-Version: 1.0\nGenerator: engram_build\nRoot-Is-Purelib: true\n"
            f"Tag: {TAG}\n").encode())
        records.append(f"{info}/RECORD,,")
        whl.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = f"{p['name']}-{p['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for rel in ("pyproject.toml", "README.md", "build_backend/engram_build.py"):
            tar.add(os.path.join(ROOT, rel), arcname=f"{base}/{rel}")
        for full, arcname in _package_files():
            tar.add(full, arcname=f"{base}/{arcname}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
