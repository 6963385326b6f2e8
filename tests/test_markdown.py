"""The Markdown renderings show the text of their cells, names and warnings, as GitHub renders them.

Oracle: GitHub's own renderer, cmark-gfm (`tests/markdown_oracle.py`), with raw HTML kept as
GitHub keeps it before its sanitizer: a benchmark name must come back as the same characters,
and the renderer must make no element of its own from it (emphasis, a link, a tag such as the
``<int>`` of a C++ template benchmark, which GitHub then drops).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings, strategies as st

import fastperf
from fastperf.results.base import Result
from fastperf.results.render import code_span, render_markdown, render_text
from markdown_oracle import shown, table_cells

#: Names Markdown would act on, each as a benchmark of the tools that write them.
HOSTILE = [
    "BM_Sort<int>/8",                    # Google Benchmark, a C++ template: an HTML tag
    "BM_vector<std::string>/1024",
    "BM_sum_mean",                       # underscores between letters: inert, kept as is
    "_private_", "__init__", "a*b*c", "**bold**", "~~gone~~", "~one~",
    "[link](http://example.com)", "![image](x.png)", "test_a[1-2]",
    "`tick`", "``", "a|b", "a\\|b", "ends\\", "\\", "AT&T", "&lt;", "&#60;",
    "Outer$Inner.bench", "$x$", "<script>alert(1)</script>", "<!-- c -->",
    "line\nbreak", "cr\rlf", "# heading", "- item", "1. item", "> quote", "<http://x.org>",
]


def test_cells_show_their_text():
    table = pa.table({"benchmark": HOSTILE, "value": np.arange(len(HOSTILE), dtype=float)})
    cells, foreign = table_cells(render_markdown(table))
    want = [text.replace("\r", "\n") for text in HOSTILE]
    assert cells[2::2] == want
    assert foreign == ["a", "a"]  # the two web addresses, linked as GitHub links any, text kept


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list("ab_*`~[]()!<>&;#$|\\\n -:/.=")), min_size=1, max_size=12)
       .filter(lambda s: s.strip(" ") == s))
def test_any_punctuation_shows_as_itself(text):
    cells, foreign = table_cells(render_markdown(pa.table({"name": [text]})))
    assert cells == ["name", text] and foreign == [], (text, cells, foreign)


def test_code_span():
    for text in ["plain", "a`b", "`start", "end`", "``two``", "a ``` b", "|pipe|", "<b>"]:
        texts, foreign = shown(code_span(text) + "\n", {"code"})
        assert texts == [text] and foreign == [], (text, texts)


def test_compare_markdown_shows_names():
    """The pull-request comment: the variant names in the headline's code spans, the benchmark
    names in the tables, the warnings' names, all as written."""
    rng = np.random.default_rng(1)
    names = ["BM_Sort<int>/8", "a*b*c", "_private_", "x|y", "Outer$Inner"]
    base, cand = "main`v1", "pr<2>"
    rows = {"benchmark": [], "variant": [], "value": []}
    for i, name in enumerate(names):
        for variant, factor in ((base, 1.0), (cand, 1.3 if i % 2 else 1.0)):
            values = rng.lognormal(0.0, 0.01, 12) * factor
            rows["benchmark"] += [name] * 12
            rows["variant"] += [variant] * 12
            rows["value"] += values.tolist()
    rows["benchmark"].append("only<one>")  # one side only: a row all the same
    rows["variant"].append(base)
    rows["value"].append(1.0)
    result = fastperf.compare(pa.table(rows), baseline=base, candidate=cand)
    markdown = result.to_markdown()
    spans, foreign = shown(markdown, {"code"})
    assert spans[:2] == [base, cand] and foreign == [], (spans, foreign)
    cells, _ = table_cells(markdown)
    for name in names + ["only<one>"]:
        assert name in cells, name


def test_warnings_as_a_list():
    warnings = ["benchmark 'BM_Sort<int>' has one run", "variant `a*b*` dropped"]
    items, foreign = shown(Result(pa.table({"k": [1]}), {}, warnings).to_markdown(), {"li"})
    assert items == warnings and foreign == []


def test_text_warnings_escape_terminal_controls():
    """A warning that quotes a name with a terminal escape is written with the escape spelt
    out, as the text table writes the name."""
    result = Result(pa.table({"k": ["a"]}), {}, ["group '\x1b[31mred' has one value"])
    text = result.to_text()
    assert "\x1b" not in text and "\\x1b[31mred" in text
    assert "\x1b" not in render_text(pa.table({"k": ["\x1b[2J"]}))


def test_footers_keep_their_lines():
    """The footer's own lines stay lines (the structure line under the counts), with no
    escaped line break, in the text; the Markdown keeps its code span of `fastperf check`."""
    sim = fastperf.simulate(benchmarks=4, processes=6, iterations=4, seed=5)
    result = fastperf.compare(sim.table, baseline="baseline", candidate="candidate")
    text = result.to_text()
    assert "\\n" not in text
    assert any(line.startswith("compared on independent units") for line in text.splitlines())
    few = pa.table({"benchmark": ["a"] * 6, "variant": ["x"] * 3 + ["y"] * 3,
                    "value": [1.0, 1.1, 1.2, 1.3, 1.4, 1.5]})
    flagged = fastperf.compare(few, baseline="x", candidate="y")  # flagged: few runs
    spans, _ = shown(flagged.to_markdown(), {"code"})
    assert flagged.summary["flagged"] == 1 and "fastperf check" in spans
