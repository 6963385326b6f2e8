"""Every Python example in README.md and docs/ runs (from the repository root, as documented)."""
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def examples():
    for page in PAGES:
        for i, code in enumerate(BLOCK.findall(page.read_text(encoding="utf-8"))):
            yield pytest.param(code, id=f"{page.name}#{i}")


def spark_available() -> bool:
    """pyspark installed and a Java runtime on the PATH (the optional extra ``fastperf[spark]``)."""
    import importlib.util
    import shutil

    return importlib.util.find_spec("pyspark") is not None and shutil.which("java") is not None


@pytest.mark.parametrize("code", list(examples()))
def test_example_runs(code, monkeypatch, capsys):
    # an example marked "# needs: pyspark" runs where the spark extra is installed (CI requires it)
    if code.startswith("# needs: pyspark") and not spark_available():
        if os.environ.get("FASTPERF_REQUIRE_SPARK") == "1":
            pytest.fail("FASTPERF_REQUIRE_SPARK=1 but pyspark or java is missing")
        pytest.skip("needs pyspark and java (pip install '.[spark]')")
    monkeypatch.chdir(ROOT)
    exec(compile(code, "<doc example>", "exec"), {})


def test_every_page_is_linked_from_the_index():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for page in (ROOT / "docs").glob("*.md"):
        if page.name != "index.md":
            assert f"({page.name})" in index, page.name


def test_the_api_reference_documents_each_public_name_once():
    # docs/api*.md render each public name with a mkdocstrings directive `::: fastperf.NAME`
    # (mkdocs.yml); a name added to EXPORTS must get its entry, and no entry may name another
    import fastperf

    directives = []
    for page in sorted((ROOT / "docs").glob("api*.md")):
        directives += re.findall(r"^::: fastperf\.(\w+)$", page.read_text(encoding="utf-8"), re.M)
    assert sorted(directives) == sorted(fastperf.EXPORTS)


def test_the_top_level_pages_link_to_files_that_exist():
    # `mkdocs build --strict` (.ci/run) checks the links of docs/; README.md, CHANGELOG.md and
    # CONTRIBUTING.md are not part of the site, so their relative links are checked here
    for page in sorted(ROOT.glob("*.md")):
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            path = target.split("#")[0]
            if path and not re.match(r"[a-z]+:", path):
                assert (ROOT / path).exists(), f"{page.name} links to {target}"
