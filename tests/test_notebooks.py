"""The tutorial notebooks: each runs start to finish in a fresh kernel with no error
(nbval, run by pytest's --nbval on notebooks/, compares their stored outputs), and
follows the rules that keep nbval's comparison meaningful."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_nine_numbered_notebooks():
    assert [p.name[:3] for p in NOTEBOOKS] == [f"0{i}_" for i in range(1, 10)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_without_error(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()  # fails on any error reply, except in cells tagged raises-exception
    except CellExecutionError as e:
        pytest.fail(f"{path.name}: {e}")
    for cell in nb.cells:
        if "raises-exception" in cell.metadata.get("tags", []):
            assert any(o.output_type == "error" for o in cell.outputs), \
                f"{path.name}: a cell tagged raises-exception did not raise"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_cells_are_executed_and_end_without_semicolon(path):
    cells = json.loads(path.read_text())["cells"]
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]).rstrip()
        assert not source.endswith(";"), f"{path.name} cell {k}: a trailing ';' is ignored by nbval"
        assert cell["execution_count"] is not None, f"{path.name} cell {k}: never executed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_outputs_are_deterministic_text(path):
    text = path.read_text()
    assert "0x7f" not in text and " at 0x" not in text, f"{path.name}: an address in an output"
    # a traceback ends in the reader's code: none of gradmagic's files (whose path would be
    # the building machine's) shows in it
    package = str(Path(__file__).resolve().parents[1] / "gradmagic")
    assert package not in text and "gradmagic/core/" not in text, f"{path.name}: gradmagic's frames shown"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            html = out.get("data", {}).get("text/html", "")
            assert "data:image/png" not in html, f"{path.name}: a PNG inlined into HTML"
            if out.get("data"):
                assert "text/plain" in out["data"], f"{path.name}: a display without text/plain"


# On a GPU, each notebook runs again with set_backend("cupy") first: the same code, every
# value on the device. Each cell must end as it does on NumPy (an error where, and only where,
# the NumPy run has one), except where a cell calls what CuPy cannot give (below).
ON_CUPY_ONLY = {"07_from_tensorflow": "v.value()"}  # a CuPy array cannot be made callable


def _errors(nb, backend):
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    nb.cells.insert(0, nbformat.v4.new_code_cell(f"import gradmagic\ngradmagic.set_backend({backend!r})"))
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True).execute()
    return {"".join(c.source): [f"{o.ename}: {o.evalue}" for o in c.outputs if o.output_type == "error"]
            for c in nb.cells[1:] if c.cell_type == "code"}


@pytest.mark.cupy
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_on_the_gpu_as_on_numpy(path):
    from _cases import module_or_skip

    module_or_skip("cupy")
    nb = nbformat.read(path, as_version=4)
    on_numpy, on_cupy = _errors(nb, "numpy"), _errors(nb, "cupy")
    allowed = ON_CUPY_ONLY.get(path.stem)
    differ = [(source, on_cupy[source]) for source in on_numpy if on_numpy[source] != on_cupy[source]
              and not (allowed and allowed in source)]
    assert not differ, f"{path.name}: cells that end otherwise on CuPy: {differ}"
