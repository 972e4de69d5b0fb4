"""setup.py - builds libshardtab.so for the shardtab package: runs CMake on the
project's top folder (two levels up) for the target shardtab_shared, and puts
the library inside the package, beside _lib.py, which loads it from there.

    /usr/bin/python3 -m venv --system-site-packages venv   # sees Debian's NumPy, mpi4py
    venv/bin/pip install --no-build-isolation ./src/python

SHARDTAB_BACKEND (auto, hip, cuda or host; default auto, as CMake's) is the
backend; SHARDTAB_CMAKE_ARGS adds CMake options (split as a shell would).
Everything the build writes goes to one temporary folder, removed at the end:
nothing lands in the source tree."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import atexit
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext
from wheel.bdist_wheel import bdist_wheel

TOP = Path(__file__).resolve().parents[2]
SCRATCH = Path(tempfile.mkdtemp(prefix="shardtab-build-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def project_version():
    """The version of CMakeLists.txt's project(shardtab VERSION x.y.z)."""
    cmake_lists = TOP / "CMakeLists.txt"
    if not cmake_lists.is_file():
        raise SystemExit(
            f"shardtab: no {cmake_lists}: build the package from the project's "
            "checkout (pip install ./src/python), not from a copy of src/python"
        )
    found = re.search(
        r"\bproject\(\s*shardtab\s[^)]*?\bVERSION\s+([0-9.]+)", cmake_lists.read_text()
    )
    if found is None:
        raise SystemExit(f"shardtab: no project(shardtab VERSION ...) in {cmake_lists}")
    return found.group(1)


def run(command):
    """Runs command, its temporary files (the HIP compiler leaves some) in SCRATCH."""
    print("shardtab:", shlex.join(command), flush=True)
    temporary = SCRATCH / "tmp"
    temporary.mkdir(exist_ok=True)
    try:
        subprocess.run(command, check=True, env=dict(os.environ, TMPDIR=str(temporary)))
    except FileNotFoundError:
        raise SystemExit(
            f"shardtab: {command[0]} not found (apt install cmake)"
        ) from None
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"shardtab: {command[0]} exited {error.returncode}") from None


class BuildLibrary(build_ext):
    """The package's compiled part: libshardtab.so, by CMake."""

    def run(self):
        if self.editable_mode or self.inplace:
            raise SystemExit(
                "shardtab: no editable install (pip install -e), which would build "
                "libshardtab.so into the source tree: install without -e, or run "
                "from the tree with PYTHONPATH=src/python and "
                "SHARDTAB_LIBRARY=<build>/libshardtab.so"
            )
        build = Path(self.build_temp) / "cmake"
        output = build / "lib"
        options = {
            "SHARDTAB_BACKEND": os.environ.get("SHARDTAB_BACKEND", "auto"),
            "SHARDTAB_BUILD_TESTS": "OFF",
            "SHARDTAB_FORTRAN": "off",
            "CMAKE_LIBRARY_OUTPUT_DIRECTORY": str(output),  # where the .so lands
            # the RPATH of cmake --install's copy (its link paths: MPI, the GPU
            # runtime), not the build tree's
            "CMAKE_BUILD_WITH_INSTALL_RPATH": "ON",
        }
        defines = [f"-D{name}={value}" for name, value in options.items()]
        extra = shlex.split(os.environ.get("SHARDTAB_CMAKE_ARGS", ""))
        run(["cmake", "-S", str(TOP), "-B", str(build), *defines, *extra])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        run(["cmake", "--build", str(build), "--target", "shardtab_shared", "-j", jobs])
        target = self.library_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(output / "libshardtab.so", target)

    def library_path(self):
        return Path(self.build_lib) / "shardtab" / "libshardtab.so"

    def get_outputs(self):
        return [str(self.library_path())]


class WithLibrary(Distribution):
    """A distribution with a compiled part, so that build_ext runs and the
    wheel is marked for this platform."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """ctypes loads the library: no Python ABI, one wheel for every Python 3
    of this platform."""

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


setup(
    version=project_version(),
    distclass=WithLibrary,
    cmdclass={"build_ext": BuildLibrary, "bdist_wheel": PlatformWheel},
    # setuptools' own folders (build/, shardtab.egg-info) go to SCRATCH too
    options={
        "build": {"build_base": str(SCRATCH / "build")},
        "egg_info": {"egg_base": str(SCRATCH)},
    },
)
