"""Sweeps (docs/sweeps.md): grid expansion, the DuckDB database, resuming after kill -9,
agreement with direct runs, mean/CI across seeds, CLI errors and a Dask LocalCluster."""

from __future__ import annotations

import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import ccsim
import duckdb
import pytest
from ccsim import _sweep, _sweepresults
from conftest import DATA, REPO, run_cli
from test_cli_errors import assert_user_error

TINY = DATA / "tiny.toml"
N_FLOWS = 5  # tiny.toml
N_LINKS = 10  # five duplex links


def rows(path: Path, query: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


# Values, seeds, grids ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("fcfs,fq", ["fcfs", "fq"]),
        (" fcfs , fq ", ["fcfs", "fq"]),
        ("1..5", ["1", "2", "3", "4", "5"]),
        ("5..3", ["5", "4", "3"]),
        ("2..8:3", ["2", "5", "8"]),
        ("2..9:3", ["2", "5", "8"]),  # the stop is included only when a step lands on it
        ("0.5..2.0:0.5", ["0.5", "1.0", "1.5", "2.0"]),
        ("0.1..0.3:0.1", ["0.1", "0.2", "0.3"]),  # decimal steps, no float drift
        ("1..2:0.5", ["1.0", "1.5", "2.0"]),
        ("10Mbps..50Mbps:10Mbps", ["10Mbps", "20Mbps", "30Mbps", "40Mbps", "50Mbps"]),
        ("10Mbps..45Mbps:10", ["10Mbps", "20Mbps", "30Mbps", "40Mbps"]),
        ("500kbps..2Mbps:500kbps", ["500kbps", "1000kbps", "1500kbps", "2000kbps"]),
        ("1ms..2ms:250us", ["1000us", "1250us", "1500us", "1750us", "2000us"]),
        ("10pkt..80pkt*2", ["10pkt", "20pkt", "40pkt", "80pkt"]),
        ("1.5s..0.5s:-0.5s", ["1.5s", "1s", "0.5s"]),
        ('["a,b", "c"]', ['"a,b"', '"c"']),
        ("[1, 2.5, true]", ["1", "2.5", "true"]),
    ],
)
def test_values_of_lists_ranges_and_arrays(spec, expected):
    assert _sweep.parse_values(spec, "--vary k") == expected


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", ["no values"]),
        ("fcfs,,fq", ["empty value"]),
        ("1..", ["not a number"]),
        ("10Mbps..50Mbps", ["give a step"]),
        ("1..5:0", ["step is 0"]),
        ("5..1:1", ["empty"]),
        ("1Mbps..5s:1Mbps", ["mix"]),
        ("1GHz..2GHz:1GHz", ["unknown unit 'GHz'"]),
        ("10pkt..80pkt*1", ["factor other than 1"]),
        ("0..1000000:0.001", ["more than"]),
        ("[", ["not a TOML array"]),
        ("[]", ["empty"]),
    ],
)
def test_bad_values_say_what_to_write(spec, words):
    with pytest.raises(ccsim.SweepError) as info:
        _sweep.parse_values(spec, "--vary k=" + spec)
    for word in ["--vary k=", *words]:
        assert word in str(info.value)


def test_seeds():
    assert _sweep.parse_seeds(None, "seeds") is None
    assert _sweep.parse_seeds(3, "seeds") == [1, 2, 3]
    assert _sweep.parse_seeds("3", "seeds") == [1, 2, 3]
    assert _sweep.parse_seeds("4-6", "seeds") == [4, 5, 6]
    assert _sweep.parse_seeds("1,3,7", "seeds") == [1, 3, 7]
    assert _sweep.parse_seeds(range(10, 12), "seeds") == [10, 11]
    for bad in (0, "0", "5-1", "x", [1, 1], [-1], [True], 2.5):
        with pytest.raises(ccsim.SweepError):
            _sweep.parse_seeds(bad, "seeds")


def test_product_grid_order_and_case_ids():
    params = {"defaults.qdisc": ["fcfs", "fq"], "links.bottleneck.buffer": "5pkt..15pkt:5pkt"}
    plan = _sweep.make_plan(TINY, params, "1-2", "product", _sweep.PYTHON_NAMES)
    # The first parameter varies slowest, seeds fastest; ids count up in that order.
    expected = [
        ((qdisc, buffer), seed)
        for qdisc in ("fcfs", "fq")
        for buffer in ("5pkt", "10pkt", "15pkt")
        for seed in (1, 2)
    ]
    assert [(c.values, c.seed) for c in plan.cases] == expected
    assert [c.case_id for c in plan.cases] == list(range(12))
    assert plan.overrides(plan.cases[3]) == [
        "defaults.qdisc=fcfs",
        "links.bottleneck.buffer=10pkt",
    ]


def test_zip_grid_pairs_values_and_default_seed_is_the_scenario_s():
    params = {"defaults.qdisc": ["fcfs", "fq", "fq"], "defaults.cc": ["reno", "tahoe", "reno"]}
    plan = _sweep.make_plan(TINY, params, None, "zip", _sweep.PYTHON_NAMES)
    assert [(c.values, c.seed) for c in plan.cases] == [
        (("fcfs", "reno"), 7),  # tiny.toml has seed = 7
        (("fq", "tahoe"), 7),
        (("fq", "reno"), 7),
    ]


def test_parameter_columns_are_typed_like_toml_values():
    params = {
        "flows.gen1.params.beta": [2, 2.5],
        "flows.reno1.params.initial_window": "1..2",
        "defaults.qdisc": "fcfs,fq",
    }
    plan = _sweep.make_plan(TINY, params, 1, "product", _sweep.PYTHON_NAMES)
    assert dict(plan.keys.params) == {
        "flows.gen1.params.beta": "DOUBLE",
        "flows.reno1.params.initial_window": "BIGINT",
        "defaults.qdisc": "VARCHAR",
    }
    assert plan.key_values(plan.cases[-1]) == {
        "case_id": 7,
        "flows.gen1.params.beta": 2.5,
        "flows.reno1.params.initial_window": 2,
        "defaults.qdisc": "fq",
        "seed": 1,
    }


# The database -------------------------------------------------------------------


@pytest.fixture(scope="module")
def pooled(tmp_path_factory) -> ccsim.SweepResults:
    """2 x 2 cases on a pool of 2 processes, into a file."""
    db = tmp_path_factory.mktemp("pooled") / "sweep.duckdb"
    return ccsim.sweep(TINY, {"defaults.qdisc": ["fcfs", "fq"]}, seeds=[1, 2], db=db, jobs=2)


def test_every_case_is_stored_exactly_once(pooled):
    assert pooled.ran == 4 and pooled.skipped == 0 and pooled.failed == 0
    cases = pooled.cases
    assert list(cases["case_id"]) == [0, 1, 2, 3]
    assert list(cases["defaults.qdisc"]) == ["fcfs", "fcfs", "fq", "fq"]
    assert list(cases["seed"]) == [1, 2, 1, 2]
    assert set(cases["status"]) == {"done"}
    assert (cases["events"] > 0).all() and (cases["wall_time_s"] > 0).all()
    for table, per_case in [("flows", N_FLOWS), ("links", N_LINKS), ("phases", 2 * N_FLOWS),
                            ("phase_links", 2 * N_LINKS), ("intervals", 4 * N_FLOWS)]:  # fmt: skip
        counts = rows(pooled.path, f"SELECT case_id, count(*), count(DISTINCT seq) FROM {table} "
                                   "GROUP BY case_id ORDER BY case_id")  # fmt: skip
        assert counts == [(i, per_case, per_case) for i in range(4)], table


def test_rows_equal_a_direct_run_with_the_same_seed(pooled):
    keys = ["case_id", "defaults.qdisc", "seed"]
    for case in (0, 3):
        qdisc, seed = pooled.cases.loc[case, ["defaults.qdisc", "seed"]]
        direct = ccsim.run(ccsim.load(TINY).set("defaults.qdisc", qdisc), seed=int(seed))
        for table in ("flows", "links", "phases", "phase_links", "intervals", "interval_links"):
            stored = getattr(pooled, table)
            stored = stored[stored["case_id"] == case].drop(columns=keys)
            expected = getattr(direct, table)
            # The database keeps lists (a channel's elements) as JSON text.
            expected = expected.apply(lambda c: c.map(lambda v: json.dumps(v) if isinstance(v, list) else v))
            assert list(stored.columns) == list(expected.columns), table
            assert _records(stored) == _records(expected), table
        stored = pooled.series[pooled.series["case_id"] == case]
        for entry in direct.raw["series"]:
            one = stored[stored["name"] == entry["name"]]
            assert list(one["t"]) == entry["t"] and list(one["v"]) == entry["v"]
            assert set(one["unit"]) == {entry["unit"]}
        case_row = pooled.cases.loc[case]
        assert case_row["events"] == direct.events
        assert case_row["sim_time_s"] == direct.sim_time_s
        assert json.loads(case_row["overrides"]) == [f"defaults.qdisc={qdisc}"]


def _records(frame) -> list[dict]:
    """Rows as dicts with NaN/NA as None and numpy scalars as Python ones."""
    out = []
    for row in frame.to_dict("records"):
        clean = {}
        for key, value in row.items():
            if value is None or (isinstance(value, float) and math.isnan(value)):
                clean[key] = None
            elif hasattr(value, "item"):
                clean[key] = value.item()
            elif str(value) == "<NA>":
                clean[key] = None
            else:
                clean[key] = value
        out.append(clean)
    return out


def test_rerun_skips_done_cases_and_refuses_another_sweep(pooled):
    again = ccsim.sweep(TINY, {"defaults.qdisc": ["fcfs", "fq"]}, seeds=[1, 2], db=pooled.path)
    assert again.ran == 0 and again.skipped == 4
    assert rows(pooled.path, "SELECT count(*) FROM flows") == [(4 * N_FLOWS,)]
    with pytest.raises(ccsim.SweepError, match="the seeds differ.*force=True"):
        ccsim.sweep(TINY, {"defaults.qdisc": ["fcfs", "fq"]}, seeds=3, db=pooled.path)
    with pytest.raises(ccsim.SweepError, match="the swept parameters or values differ"):
        ccsim.sweep(TINY, {"defaults.qdisc": ["fq"]}, seeds=[1, 2], db=pooled.path)


def test_force_replaces_another_sweep(tmp_path):
    db = tmp_path / "s.duckdb"
    ccsim.sweep(TINY, {"defaults.cc": ["reno"]}, db=db, jobs=1)
    replaced = ccsim.sweep(TINY, {"defaults.qdisc": ["fq"]}, seeds=2, db=db, jobs=1, force=True)
    assert replaced.params == ["defaults.qdisc"] and replaced.ran == 2
    assert list(replaced.cases["seed"]) == [1, 2]
    assert "defaults.cc" not in replaced.flows.columns


def test_force_never_replaces_a_database_that_is_not_a_sweep(tmp_path):
    db = tmp_path / "other.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.close()
    with pytest.raises(ccsim.SweepError, match="not a ccsim sweep"):
        ccsim.sweep(TINY, {"defaults.qdisc": ["fq"]}, db=db, force=True)
    assert rows(db, "SELECT count(*) FROM t") == [(0,)]


def test_open_sweep_reads_a_database(pooled):
    opened = ccsim.open_sweep(pooled.path)
    assert opened.params == ["defaults.qdisc"]
    assert opened.counts == {"done": 4}
    assert opened.tables[:3] == ["cases", "flows", "links"]
    assert len(opened.sql("SELECT * FROM flows WHERE seed = ?", [2])) == 2 * N_FLOWS


def test_in_memory_sweep_gives_frames_with_parameter_and_seed_columns():
    result = ccsim.sweep(TINY, {"links.bottleneck.rate": "1Mbps..2Mbps:1Mbps"}, jobs=1)
    assert result.path is None
    flows = result.flows
    # Numbers with units are numbers, the unit in the column's name.
    assert list(flows.columns[:3]) == ["case_id", "links.bottleneck.rate_Mbps", "seed"]
    assert list(flows["links.bottleneck.rate_Mbps"].unique()) == [1, 2]
    assert set(flows["seed"]) == {7}
    assert "seq" not in flows.columns


def test_summary_is_mean_and_student_t_interval_across_seeds(tmp_path):
    db = tmp_path / "s.duckdb"
    result = ccsim.sweep(TINY, {"defaults.qdisc": ["fcfs"]}, seeds=4, db=db, jobs=1)
    summary = result.summary("goodput_bps")
    assert list(summary.columns) == [
        "defaults.qdisc", "name", "n", "mean", "std", "ci_low", "ci_high", "half_width",
    ]  # fmt: skip
    assert len(summary) == N_FLOWS
    flows = result.flows
    t3 = 3.182446305284263  # t(0.975, 3 degrees of freedom), from tables
    for name in ("poisson1", "reno1"):
        values = list(flows.loc[flows["name"] == name, "goodput_bps"])
        assert len(values) == 4 and len(set(values)) > 1  # the seed moves Poisson traffic
        mean, sd = statistics.mean(values), statistics.stdev(values)
        row = summary[summary["name"] == name].iloc[0]
        assert row["n"] == 4
        assert row["mean"] == pytest.approx(mean, rel=1e-12)
        assert row["std"] == pytest.approx(sd, rel=1e-12)
        assert row["half_width"] == pytest.approx(t3 * sd / 2, rel=1e-9)
        assert row["ci_low"] == pytest.approx(mean - t3 * sd / 2, rel=1e-9)
    t90 = 2.353363434801823  # t(0.95, 3)
    row = result.summary("goodput_bps", level=0.9).iloc[0]
    assert row["half_width"] == pytest.approx(t90 * row["std"] / 2, rel=1e-9)
    phases = result.summary("goodput_pps", table="phases")
    assert list(phases.columns[:3]) == ["defaults.qdisc", "phase", "name"]
    assert len(phases) == 2 * N_FLOWS
    by_case = result.summary("events", table="cases", by=[])
    assert by_case.iloc[0]["n"] == 4


def test_t_quantile_against_closed_forms_and_tables():
    # df = 1: tan(pi (p - 1/2)); df = 2: (2p - 1) / sqrt(2 p (1 - p)).
    for p in (0.9, 0.975, 0.995):
        tan = math.tan(math.pi * (p - 0.5))
        assert _sweepresults.t_quantile(p, 1) == pytest.approx(tan, rel=1e-12)
        assert _sweepresults.t_quantile(p, 2) == pytest.approx(
            (2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-12
        )
    tables = [
        (0.975, 4, 2.776445105197793),
        (0.975, 10, 2.228138851964938),
        (0.995, 5, 4.032142983557536),
        (0.975, 30, 2.042272456301238),
    ]
    for p, df, table in tables:
        assert _sweepresults.t_quantile(p, df) == pytest.approx(table, rel=1e-9)
    assert _sweepresults.t_quantile(0.025, 4) == pytest.approx(-2.776445105197793, rel=1e-9)


def test_new_result_keys_grow_the_schema(monkeypatch):
    """The engine will add keys: new flow fields, nested objects, new top-level lists and
    scalars, a field that changes type. Later cases add columns and tables; earlier rows
    read NULL there."""
    real = _sweep.run_case

    def evolving(task):
        out = real(task)
        if task[0] == 1:
            raw = json.loads(out["results"])
            for flow in raw["flows"]:
                flow["drops_by_reason"] = {"overflow": 3, "random": 1}
                flow["sack_blocks"] = [1, 2]
                flow["sent_pkts"] = flow["sent_pkts"] + 0.5  # int -> float
            raw["flows"][0]["rtt_min_s"] = "n/a"  # float -> text
            raw["elements"] = [{"name": "tap", "packets": 7}]
            raw["rng_streams"] = 4
            out["results"] = json.dumps(raw)
        return out

    monkeypatch.setattr(_sweep, "run_case", evolving)
    result = ccsim.sweep(TINY, {"defaults.qdisc": ["fcfs", "fq"]}, jobs=1)
    flows = result.flows
    assert flows[flows["case_id"] == 0]["drops_by_reason.overflow"].isna().all()
    assert set(flows[flows["case_id"] == 1]["drops_by_reason.overflow"]) == {3}
    assert set(flows[flows["case_id"] == 1]["sack_blocks"]) == {"[1, 2]"}
    assert flows["sent_pkts"].dtype.kind == "f"
    assert flows["rtt_min_s"].iloc[N_FLOWS] == "n/a"
    assert result.table("elements").to_dict("records")[0]["packets"] == 7
    assert "elements" in result.tables
    assert list(result.cases["rng_streams"].isna()) == [True, False]


def test_a_failed_case_is_recorded_and_retried(monkeypatch, tmp_path):
    db = tmp_path / "s.duckdb"
    real = _sweep.run_case

    def flaky(task):
        if task[0] == 1:
            return {"case_id": 1, "error": "RuntimeError: engine panicked"}
        return real(task)

    monkeypatch.setattr(_sweep, "run_case", flaky)
    first = ccsim.sweep(TINY, {"defaults.qdisc": ["fcfs", "fq"]}, db=db, jobs=1)
    assert (first.ran, first.failed) == (1, 1)
    cases = first.cases
    assert list(cases["status"]) == ["done", "failed"]
    assert cases.loc[1, "error"] == "RuntimeError: engine panicked"
    assert set(first.flows["case_id"]) == {0}
    monkeypatch.setattr(_sweep, "run_case", real)
    second = ccsim.sweep(TINY, {"defaults.qdisc": ["fcfs", "fq"]}, db=db, jobs=1)
    assert (second.ran, second.skipped, second.failed) == (1, 1, 0)
    assert list(second.cases["status"]) == ["done", "done"]


def test_a_worker_that_dies_fails_only_its_case():
    import psutil
    from ccsim._sweepworker import run_batches

    text = TINY.read_text()
    overrides = ["scenario.duration=6000s", "measure.series=[]", "measure.interval=1000s"]
    tasks = [(i, text, "tiny.toml", overrides, i + 1) for i in range(6)]
    batches = run_batches(tasks, 2)
    results = list(next(batches))
    workers = [p for p in psutil.Process().children() if "ccsim._sweepworker" in p.cmdline()]
    assert len(workers) == 2
    workers[0].kill()
    for batch in batches:
        results.extend(batch)
    assert sorted(r["case_id"] for r in results) == list(range(6))
    errors = [r for r in results if "error" in r]
    assert len(errors) == 1 and "worker process died" in errors[0]["error"]
    assert all("results" in r for r in results if "error" not in r)


def test_a_script_without_a_main_guard_can_sweep(tmp_path):
    # Worker processes are fresh interpreters: they never re-run the caller's script.
    script = tmp_path / "study.py"
    script.write_text(
        "import ccsim\n"
        f"s = ccsim.sweep({str(TINY)!r}, {{'defaults.qdisc': ['fcfs', 'fq']}}, jobs=2)\n"
        "print(s.ran, s.failed)\n"
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "0"]


def test_python_errors_name_the_argument():
    cases = [
        ({"params": {"defaults.qdisc": []}}, "params['defaults.qdisc']: the list is empty"),
        ({"params": {"defaults.qdisc": 3}}, "not a list of values"),
        ({"params": {"defaults.qdisc": ["fcfs"]}, "mode": "grid"}, "mode 'grid'"),
        ({"params": {"defaults.qdisc": ["fcfs"]}, "jobs": 0}, "jobs 0"),
        ({"params": {"nope.x": ["1"]}}, "nope"),
    ]
    for kwargs, words in cases:
        with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
            ccsim.sweep(TINY, **kwargs)


def test_import_ccsim_imports_neither_duckdb_nor_dask():
    code = (
        "import sys, ccsim; "
        "print(sorted(m for m in ('duckdb', 'dask', 'distributed', 'pandas', 'ccsim._sweep') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# The command line ----------------------------------------------------------------


def test_cli_sweep_json_summary_and_parquet(tmp_path):
    db = tmp_path / "s.duckdb"
    result = run_cli(
        "sweep", TINY, "--vary", "defaults.qdisc=fcfs,fq", "--vary", "defaults.cc=reno,tahoe",
        "--mode", "zip", "--seeds", "2", "--set", "measure.series=[]", "--db", db,
        "--jobs", "1", "--parquet", tmp_path / "pq", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    summary = json.loads(result.stdout)
    assert summary["cases"] == 4 and summary["ran"] == 4 and summary["failed"] == 0
    assert summary["params"] == ["defaults.qdisc", "defaults.cc"]
    assert summary["mode"] == "zip" and summary["seeds"] == [1, 2]
    assert rows(db, 'SELECT DISTINCT "defaults.qdisc", "defaults.cc" FROM flows ORDER BY 1') == [
        ("fcfs", "reno"),
        ("fq", "tahoe"),
    ]
    assert rows(db, "SELECT count(*) FROM series") == [(0,)]
    names = sorted(Path(p).name for p in summary["parquet"])
    assert "flows.parquet" in names and "cases.parquet" in names and "sweep.parquet" in names
    con = duckdb.connect()
    parquet = tmp_path / "pq" / "flows.parquet"
    flows = con.execute(f"SELECT count(*) FROM read_parquet('{parquet}')")
    assert flows.fetchall() == [(4 * N_FLOWS,)]


def test_cli_sweep_shows_a_progress_bar_on_a_terminal(tmp_path):
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="120", TERM="xterm")
    args = [sys.executable, "-m", "ccsim", "sweep", str(TINY), "--vary",
            "defaults.qdisc=fcfs,fq", "--seeds", "3", "--jobs", "1", "--db",
            str(tmp_path / "s.duckdb")]  # fmt: skip
    proc = subprocess.run(
        args, stdout=subprocess.PIPE, stderr=slave, env=env, cwd=REPO, timeout=120
    )
    os.close(slave)
    shown = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        shown += data
    os.close(master)
    assert proc.returncode == 0
    assert b"sweep tiny" in shown and b"ETA" in shown and b"6/6" in shown
    assert b"6 cases; 6 run now" in proc.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--vary", "defaults.qdisc"], ["--vary 'defaults.qdisc'", "KEY=VALUES"]),
        (["--vary", "defaults.qdisc="], ["--vary defaults.qdisc=", "no values"]),
        (["--vary", "defaults.nope=1,2"], ["tiny.toml", "nope"]),
        (["--vary", "links.bottleneck.rate=1Mbps,fast"],
         ["tiny.toml", "links.bottleneck.rate", "fast"]),
        (["--vary", "links.bottleneck.rate=1Mbps..5Mbps"], ["--vary", "give a step"]),
        (["--vary", "defaults.qdisc=fcfs,fq", "--vary", "defaults.cc=reno", "--mode", "zip"],
         ["--mode zip", "defaults.qdisc: 2", "defaults.cc: 1"]),
        (["--vary", "defaults.qdisc=fcfs,fq", "--seeds", "5-1"], ["--seeds 5-1", "1-5"]),
        (["--vary", "defaults.qdisc=fcfs,fq", "--db", "DIR"], ["--db", "is a directory"]),
        (["--vary", "defaults.qdisc=fcfs,fq", "--db", "README.md"],
         ["--db README.md", "not a DuckDB"]),
        (["--vary", "defaults.qdisc=fcfs,fq", "--jobs", "0"], ["--jobs 0"]),
        (["--vary", "defaults.qdisc=fcfs", "--jobs", "2", "--dask", "tcp://127.0.0.1:9"],
         ["--jobs and --dask"]),
    ],
)  # fmt: skip
def test_cli_sweep_errors(args, words, tmp_path):
    args = [str(tmp_path) if a == "DIR" else a for a in args]
    if "--db" not in args:
        args += ["--db", str(tmp_path / "s.duckdb")]
    assert_user_error(run_cli("sweep", TINY, *args), *words)


def test_cli_refuses_a_database_of_another_sweep_and_a_running_one(tmp_path):
    import fcntl

    db = tmp_path / "s.duckdb"
    assert run_cli("sweep", TINY, "--vary", "defaults.qdisc=fq", "--db", db).returncode == 0
    assert_user_error(
        run_cli("sweep", TINY, "--vary", "defaults.qdisc=fcfs", "--db", db),
        f"--db {db}", "holds another sweep", "--force",
    )  # fmt: skip
    with open(tmp_path / "s.duckdb.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write("4242")
        lock.flush()
        assert_user_error(
            run_cli("sweep", TINY, "--vary", "defaults.qdisc=fq", "--db", db),
            "another sweep is writing it (pid 4242)",
        )


def test_resume_after_kill_9_loses_and_duplicates_nothing(tmp_path):
    """Kill the CLI (and so its transaction in flight) once some cases are committed;
    the same command then finishes the rest, every case exactly once."""
    import psutil

    db = tmp_path / "s.duckdb"
    # 16 cases of about 0.2 s each on 2 worker processes.
    args = [
        "sweep", str(TINY), "--set", "scenario.duration=3000s", "--set", "measure.series=[]",
        "--set", "measure.interval=500s", "--vary", "defaults.qdisc=fcfs,fq", "--seeds", "8",
        "--jobs", "2", "--db", str(db), "--quiet",
    ]  # fmt: skip
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccsim", *args], cwd=REPO, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    workers: set[int] = set()
    done = 0
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            workers |= {p.pid for p in psutil.Process(proc.pid).children(recursive=True)}
            if db.exists():
                try:
                    [(done,)] = rows(db, "SELECT count(*) FROM cases WHERE status = 'done'")
                except duckdb.Error:
                    done = 0  # being created or written right now
            if done >= 3:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.02)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the sweep ended before it could be killed"
    # The worker processes notice that their parent died and exit.
    for pid in workers:
        try:
            psutil.Process(pid).wait(timeout=10)  # TimeoutExpired: still running
        except psutil.NoSuchProcess:
            pass
    [(after_kill,)] = rows(db, "SELECT count(*) FROM cases WHERE status = 'done'")
    assert 3 <= after_kill < 16

    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    assert f"{16 - after_kill} run now, {after_kill} already done, 0 failed" in result.stdout
    assert rows(db, "SELECT status, count(*) FROM cases GROUP BY status") == [("done", 16)]
    for table, per_case in [("flows", N_FLOWS), ("links", N_LINKS), ("phases", 2 * N_FLOWS),
                            ("intervals", 6 * N_FLOWS)]:  # fmt: skip
        counts = rows(db, f"SELECT case_id, count(*), count(DISTINCT seq) FROM {table} "
                          "GROUP BY case_id ORDER BY case_id")  # fmt: skip
        assert counts == [(i, per_case, per_case) for i in range(16)], table
    # A case finished before the kill and one after both equal a direct run.
    scenario = ccsim.load(TINY).with_overrides(
        ["scenario.duration=3000s", "measure.series=[]", "measure.interval=500s"]
    )
    for case_id, qdisc, seed in [(0, "fcfs", 1), (15, "fq", 8)]:
        direct = ccsim.run(scenario.set("defaults.qdisc", qdisc), seed=seed)
        stored = rows(db, f"SELECT name, delivered_pkts, goodput_bps FROM flows "
                          f"WHERE case_id = {case_id} ORDER BY seq")  # fmt: skip
        flows = direct.raw["flows"]
        expected = [(f["name"], f["delivered_pkts"], f["goodput_bps"]) for f in flows]
        assert stored == expected


# Dask ----------------------------------------------------------------------------


def test_dask_local_cluster_runs_each_case_as_a_task(tmp_path, pooled):
    from distributed import Client, LocalCluster

    db = tmp_path / "dask.duckdb"
    params = {"defaults.qdisc": ["fcfs", "fq"]}
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, Client(cluster) as client:
        result = ccsim.sweep(TINY, params, seeds=[1, 2], db=db, client=client)
        assert (result.ran, result.failed) == (4, 0)
        # The same database, resumed through the scheduler's address (as --dask does).
        again = ccsim.sweep(TINY, params, seeds=[1, 2], db=db, client=cluster.scheduler_address)
        assert (again.ran, again.skipped) == (0, 4)
        # The CLI's --dask.
        cli = run_cli("sweep", TINY, "--vary", "defaults.qdisc=fcfs,fq", "--seeds", "1-2",
                      "--db", db, "--dask", cluster.scheduler_address)  # fmt: skip
        assert cli.returncode == 0, cli.stderr
        assert "0 run now, 4 already done" in cli.stdout
    # Same rows as the process pool's sweep.
    columns = ["case_id", "defaults.qdisc", "seed", "name", "sent_pkts", "goodput_bps"]
    assert _records(result.flows[columns]) == _records(pooled.flows[columns])
