"""Progress bars (fastperf.progress): when they are drawn, that chunked work gives the results of
one call (the oracle: the same call without a bar, and scipy), and that the CLI's
--no-progress and a pipe silence them."""
import io
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest
import scipy.stats as sps

import fastperf
import fastperf.progress as progress
from fastperf.cli import main
from fastperf.errors import InputError
from fastperf.progress import ProgressBar, progress_chunks, progress_default, wants_progress


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def chunks_of_equal_work(monkeypatch):
    """Chunks of 1/CHUNKS of the work each, not sized by the clock: small inputs still split,
    and the same way on every run."""
    monkeypatch.setattr(progress, "CHUNK_SECONDS", 0)


def naive_chunks(weights, chunks):
    """Greedy: each chunk closes at the first item where its own work reaches total/chunks
    (or at its first item, or at the end); equal weights where all are zero."""
    if sum(weights) == 0:
        weights = [1.0] * len(weights)
    least = sum(weights) / chunks
    out, first = [], 0
    while first < len(weights):
        work, stop = 0.0, first
        while stop < len(weights):
            work += weights[stop]
            stop += 1
            if work >= least * (1 - 1e-12):
                break
        out.append((first, stop))
        first = stop
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunks", [1, 2, 5, 50])
def test_chunks_of_equal_work_match_the_naive_rule(seed, chunks, capsys):
    rng = np.random.default_rng(seed)
    weights = rng.choice([0.0, 1.0, 10.0, 1e6], size=int(rng.integers(1, 40)))
    got = list(progress_chunks("x", len(weights), True, 0, chunks=chunks, weights=weights))
    assert got == naive_chunks(weights.tolist(), chunks)
    assert len(got) <= chunks + 1
    assert got[0][0] == 0 and got[-1][1] == len(weights)
    assert all(b == c for (_, b), (c, _) in zip(got, got[1:]))
    assert f"{len(weights)}/{len(weights)} groups" in capsys.readouterr().err


def test_chunks_sized_by_the_clock(monkeypatch):
    import time

    monkeypatch.setattr(progress, "CHUNK_SECONDS", 1000.0)
    got = []
    for chunk in progress_chunks("x", 1000, True, 0, chunks=50):
        got.append(chunk)
        time.sleep(0.001)
    # the first chunk is 1/50 of the work; its pace says the rest takes far less than 1000 s
    assert got == [(0, 20), (20, 1000)]
    monkeypatch.setattr(progress, "CHUNK_SECONDS", 1e-9)  # a chunk never below 1/chunks
    assert len(list(progress_chunks("x", 1000, True, 0, chunks=50))) == 50


def test_progress_chunks_without_a_bar_is_one_chunk(capsys):
    assert list(progress_chunks("x", 10, False, 1e15)) == [(0, 10)]
    assert capsys.readouterr().err == ""
    assert list(progress_chunks("x", 0, True, 0)) == [(0, 0)]  # the one kernel call still runs
    captured = capsys.readouterr()
    assert "100% 0/0 groups" in captured.err and captured.out == ""
    assert list(progress_chunks("x", 5, True, 10, chunks=2)) == [(0, 3), (3, 5)]


def test_bar_text_and_throttle():
    stream = Terminal()
    bar = ProgressBar("read", 1000, "about 1e+09 steps", unit="files", stream=stream)
    for done in range(1, 1001):
        bar.update(done)
    bar.close()
    text = stream.getvalue()
    assert text.startswith("read: about 1e+09 steps\n\rread [")
    assert "0/1000 files" in text and text.rstrip().endswith("s")
    assert "100% 1000/1000 files" in text
    # redrawn at most every REDRAW_SECONDS (1000 fast updates: a few lines, not 1000)
    assert text.count("\r") < 20


def test_default_and_its_context():
    tty, pipe = Terminal(), io.StringIO()
    assert wants_progress(None, progress.AUTO_MIN_STEPS, tty)
    assert not wants_progress(None, progress.AUTO_MIN_STEPS, pipe)
    with progress_default(False):
        assert not wants_progress(None, 10 ** 15, tty)
        assert wants_progress(True, 0, pipe)  # an explicit argument wins
        with progress_default(True):
            assert wants_progress(None, 0, pipe)
        assert not wants_progress(None, 10 ** 15, tty)
    with pytest.raises(RuntimeError):
        with progress_default(True):
            raise RuntimeError("restored after an error")
    assert not wants_progress(None, 10 ** 15, pipe)
    with pytest.raises(InputError, match="progress must be"):
        with progress_default("off"):
            pass


def test_default_does_not_leak_into_other_threads():
    import threading

    seen = []
    with progress_default(False):
        worker = threading.Thread(
            target=lambda: seen.append(wants_progress(None, 10 ** 15, Terminal())))
        worker.start()
        worker.join()
        assert not wants_progress(None, 10 ** 15, Terminal())
    assert seen == [True]


def test_warmup_stream_follows_the_default(monkeypatch):
    from fastperf.warmup import progress_stream

    monkeypatch.setattr(sys, "stderr", Terminal())
    assert progress_stream() is sys.stderr
    with progress_default(False):
        assert progress_stream() is None


# --- reading ----------------------------------------------------------------------------------

def write_files(tmp_path, count=3, row_group_size=None):
    table = fastperf.simulate(20, 9, seed=4).table
    paths = []
    for i in range(count):
        path = tmp_path / f"part{i}.parquet"
        pq.write_table(table.slice(60 * i, 60 * (i + 1)) if count > 1 else table, path,
                       row_group_size=row_group_size)
        paths.append(path)
    return table, paths


def test_read_many_files_with_a_bar_equals_without(tmp_path, capsys):
    _, paths = write_files(tmp_path, count=3)
    quiet = fastperf.read(paths, progress=False)
    assert capsys.readouterr().err == ""
    loud = fastperf.read(paths, progress=True)
    assert loud.equals(quiet)
    assert "3/3 files" in capsys.readouterr().err
    with pytest.raises(InputError, match="progress must be"):
        fastperf.read(paths, progress="yes")


def test_read_one_parquet_by_row_groups_equals_read_table(tmp_path, capsys):
    table, (path,) = write_files(tmp_path, count=1, row_group_size=70)
    assert pq.ParquetFile(path).metadata.num_row_groups == 6
    quiet = fastperf.read(path, progress=False)
    loud = fastperf.read(path, progress=True)
    assert loud.equals(quiet) and loud.schema.equals(quiet.schema, check_metadata=True)
    assert loud.num_rows == table.num_rows
    assert f"{table.num_rows}/{table.num_rows} rows" in capsys.readouterr().err


def test_auto_bar_for_large_reads_only_on_a_terminal(tmp_path, monkeypatch):
    _, paths = write_files(tmp_path, count=2)
    tty = Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    fastperf.read(paths)  # a few kB: below the automatic threshold
    assert tty.getvalue() == ""
    monkeypatch.setattr(progress, "AUTO_MIN_STEPS", 1)
    fastperf.read(paths)
    assert "2/2 files" in tty.getvalue()


# --- exact distributions ----------------------------------------------------------------------

def exact_batches(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(14, 30))
    y = rng.normal(size=(14, 26))
    x[:7], y[:7] = np.round(x[:7], 1), np.round(y[:7], 1)  # ties: the conditional tails
    return x, y


@pytest.mark.parametrize("chunks", [1, 3, 50])
def test_exact_rank_sum_in_chunks_equals_one_call(chunks, monkeypatch, capsys):
    x, y = exact_batches(1)
    one = fastperf.mannwhitneyu(x, y, method="exact", progress=False)
    monkeypatch.setattr(progress, "CHUNKS", chunks)
    many = fastperf.mannwhitneyu(x, y, method="exact", progress=True)
    np.testing.assert_array_equal(many.pvalue, one.pvalue)
    assert set(one.method) == {"exact", "exact (ties)"}
    assert "distributions" in capsys.readouterr().err
    for i in range(7, 14):  # the untied rows against scipy's exact p
        assert one.method[i] == "exact"
        assert many.pvalue[i] == pytest.approx(
            sps.mannwhitneyu(x[i], y[i], method="exact").pvalue, rel=1e-12)


@pytest.mark.parametrize("chunks", [2, 50])
def test_exact_signed_rank_in_chunks_equals_one_call(chunks, monkeypatch):
    x, y = exact_batches(2)
    d = x[:, :20] - np.round(y[:, :20], 0)
    one = fastperf.wilcoxon(d, method="exact", progress=False)
    monkeypatch.setattr(progress, "CHUNKS", chunks)
    many = fastperf.wilcoxon(d, method="exact", progress=True)
    np.testing.assert_array_equal(many.pvalue, one.pvalue)
    untied = [i for i in range(len(d)) if one.method[i] == "exact"]
    assert untied
    for i in untied:
        assert many.pvalue[i] == pytest.approx(sps.wilcoxon(d[i], method="exact").pvalue,
                                               rel=1e-12)


def test_table_forms_take_progress(capsys):
    table = fastperf.simulate(6, 12, seed=3).table
    one = fastperf.mannwhitneyu(table, baseline="baseline", candidate="candidate",
                                method="exact", progress=False)
    many = fastperf.mannwhitneyu(table, baseline="baseline", candidate="candidate",
                                 method="exact", progress=True)
    assert one.benchmarks.equals(many.benchmarks)
    assert "exact rank-sum" in capsys.readouterr().err
    paired = fastperf.wilcoxon(table, baseline="baseline", candidate="candidate",
                               method="exact", progress=True)
    assert "exact signed-rank" in capsys.readouterr().err
    assert paired.benchmarks.num_rows == 6
    with pytest.raises(InputError, match="progress must be"):
        fastperf.wilcoxon(table, baseline="baseline", candidate="candidate", progress=0)


# --- the command line -------------------------------------------------------------------------

@pytest.mark.parametrize("flag", [[], ["--no-progress"], ["--no-progress", "after"]])
def test_cli_no_progress(flag, tmp_path, monkeypatch, capsys):
    _, paths = write_files(tmp_path, count=2)
    monkeypatch.setattr(progress, "AUTO_MIN_STEPS", 1)  # every read would draw a bar
    tty = Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    argv = ["describe", *map(str, paths), "--variant", "none"]
    if flag == ["--no-progress"]:
        argv = flag + argv
    elif flag:
        argv = argv + ["--no-progress"]
    assert main(argv) == 0
    assert ("2/2 files" in tty.getvalue()) == (not flag)
    assert "benchmark" in capsys.readouterr().out


def test_cli_never_draws_into_a_pipe(tmp_path, monkeypatch, capsys):
    _, paths = write_files(tmp_path, count=2)
    monkeypatch.setattr(progress, "AUTO_MIN_STEPS", 1)
    assert main(["describe", *map(str, paths), "--variant", "none"]) == 0
    assert capsys.readouterr().err == ""
