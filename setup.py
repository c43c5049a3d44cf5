"""Puts models/ and icons/ inside the wheel as tray_reader/models and tray_reader/icons.

All metadata lives in pyproject.toml. A source checkout (and an editable install) reads
models/ and icons/ beside the package; an installed wheel carries them inside it, where
model_files.py and the tray look first.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_DIRS = ("models", "icons")


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        root = Path(__file__).resolve().parent
        for name in DATA_DIRS:
            self.copy_tree(str(root / name), str(Path(self.build_lib) / "tray_reader" / name))


setup(cmdclass={"build_py": BuildPyWithData})
