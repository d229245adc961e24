"""The README's example runs and prints what it says; its test command is .ci/run's."""

import contextlib
import io
import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_the_first_example_prints_1024():
    block = re.search(r"```python\n(import numpy as np\nimport gradmagic as gm\n.*?)```", README, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(block, {})
    assert out.getvalue() == "1024.0\n"


def test_the_readme_has_exactly_two_commands_and_ci_runs_the_test_one():
    commands = re.findall(r"```bash\n(.*?)\n```", README.split("## What it shows")[0], re.S)
    assert commands == ['pip install -e . && python -m gradmagic demo',
                        'pip install -e ".[test]" && pytest']
    assert "<!-- test-command -->\n```bash\npip install -e \".[test]\" && pytest" in README


# -- the notebook section ------------------------------------------------------------------
def notebook_section():
    return README[README.index("## In a notebook"):README.index("\n## ", README.index("## In a notebook") + 3)]


def test_the_notebook_cells_run_verbatim_in_a_fresh_kernel():
    import nbformat
    from nbclient import NotebookClient

    cells = re.findall(r"```python\n(.*?)```", notebook_section(), re.S)
    assert cells[0].startswith("%load_ext gradmagic\n") and cells[-1].startswith("%%gradtrace")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c.strip()) for c in cells])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()  # raises on any error
    outputs = [o for cell in nb.cells for o in cell.outputs]
    assert all(o.output_type != "stream" for o in outputs), outputs  # no "already loaded"
    result, shown, picture = nb.cells[-1].outputs
    assert result.data["text/plain"] == "<gm.Tensor: shape=(), dtype=float32, numpy=1024.0>"
    assert "d(y)/d(x) = 1024" in shown.data["text/plain"] and "gradmagic-trace" in shown.data["text/html"]
    assert "image/png" in picture.data


def test_the_notebook_section_says_how_to_open_the_tutorials():
    commands = re.findall(r"```bash\n(.*?)```", notebook_section(), re.S)
    lines = [line.split("#")[0].strip() for block in commands for line in block.splitlines()]
    assert "pip install jupyterlab" in lines and "jupyter lab notebooks/" in lines


def test_the_readme_states_the_python_requirement_of_pyproject():
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    version = pyproject["project"]["requires-python"].removeprefix(">=")
    assert f"Python {version} or later" in README.split("## What it shows")[0]


def test_the_speed_section_speaks_without_the_benchmarks_shorthand():
    speed = README[README.index("## Speed"):]
    assert not re.search(r"\bW[1-8]\b|\bfloor\b|the least a tape does", speed)
