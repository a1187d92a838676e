"""sysrs_ref.loaders imports a harness loader only when its format is read; its names stay what they were."""

from __future__ import annotations

import subprocess
import sys

import sysrs_ref.loaders
from sysrs_ref.loaders import convert
from sysrs_ref.loaders.helm import load_helm

#: The modules that read an evaluation harness's results.
HARNESS_MODULES = ("helm", "inspect_ai", "lighteval", "lm_eval", "long_csv", "_helm_read", "_inspect_files")


def test_reading_a_shipped_benchmark_imports_no_harness_loader() -> None:
    code = (
        "import sys\n"
        "import sysrs_ref.loaders as loaders\n"
        "from sysrs_ref.datasets import load_dataset\n"
        "load_dataset('gsm'); loaders.SOURCES; loaders.load_scores; loaders.check_input_path\n"
        "print(sorted(name for name in sys.modules if name.startswith('sysrs_ref.loaders.')))\n"
        "print(callable(loaders.convert))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, convert_callable = done.stdout.splitlines()
    assert not [name for name in HARNESS_MODULES if f"sysrs_ref.loaders.{name}'" in imported], imported
    assert "sysrs_ref.loaders.convert'" in imported and convert_callable == "True"


def test_the_lazy_names_are_the_defining_modules_objects() -> None:
    assert sysrs_ref.loaders.load_helm is load_helm
    assert callable(convert) and convert.__module__ == "sysrs_ref.loaders.convert"
    assert set(dir(sysrs_ref.loaders)) >= set(sysrs_ref.loaders.__all__)
    assert all(getattr(sysrs_ref.loaders, name) is not None for name in sysrs_ref.loaders.__all__)
