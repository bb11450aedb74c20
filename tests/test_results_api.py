"""The Results API: series_names, the sack column, fairness (Jain's index), scenario
warnings (ccsim.ScenarioWarning) and the HTML summary of a run."""

from __future__ import annotations

import pickle
import warnings
from html.parser import HTMLParser

import ccsim
import pytest
from ccsim.cli import main

NET = """
[scenario]
name = "api"
duration = "3s"

[defaults]
buffer = "20pkt"

[nodes]
hosts = ["s1", "s2", "d"]
routers = ["r"]

[[links]]
between = ["s1", "r"]
rate = "10Mbps"
delay = "1ms"

[[links]]
between = ["s2", "r"]
rate = "10Mbps"
delay = "1ms"

[[links]]
name = "bottleneck"
between = ["r", "d"]
rate = "1Mbps"
delay = "10ms"
"""

TWO_FLOWS = NET + """
[[flows]]
name = "a"
from = "s1"
to = "d"
cc = "reno"
sack = true

[[flows]]
name = "b"
from = "s2"
to = "d"
cc = "reno"

[measure]
series = ["a.cwnd"]
"""

CADPC = NET + """
[[flows]]
name = "c1"
kind = "cadpc"
from = "s1"
to = "d"
"""


@pytest.fixture(scope="module")
def two() -> ccsim.Results:
    return ccsim.run(ccsim.loads(TWO_FLOWS), progress=False)


def test_series_names_is_a_list_and_may_be_called(two: ccsim.Results) -> None:
    assert two.series_names == ["a.cwnd"]
    assert two.series_names() == ["a.cwnd"]
    assert isinstance(two.series_names, list)


def test_sack_column(two: ccsim.Results) -> None:
    flows = two.flows.set_index("name")
    assert flows.loc["a", "sack"] == True  # noqa: E712 (numpy bool)
    assert flows.loc["b", "sack"] == False  # noqa: E712
    assert list(two.flows.columns).index("sack") == list(two.flows.columns).index("cc") + 1
    # The JSON export has the key too, and results read back from it keep it.
    assert [f["sack"] for f in two.raw["flows"]] == [True, False]
    assert list(ccsim.Results.from_json(two.to_json()).flows["sack"]) == [True, False]


def _results_with_goodputs(goodputs: list[float]) -> ccsim.Results:
    return ccsim.Results(
        {"scenario": "x", "seed": 1, "sim_time_s": 1.0, "wall_time_s": 0.0, "events": 0,
         "partial": False, "stop_reason": None,
         "flows": [{"name": f"f{i}", "kind": "window", "goodput_bps": g, "goodput_pps": g / 8000}
                   for i, g in enumerate(goodputs)],
         "links": [], "nodes": [], "phases": [], "intervals": [], "series": []}
    )  # fmt: skip


def test_fairness_by_hand() -> None:
    # Goodputs 1, 2, 3 Mbps: (1+2+3)^2 / (3 (1+4+9)) = 36/42 = 6/7.
    r = _results_with_goodputs([1e6, 2e6, 3e6])
    assert r.fairness() == pytest.approx(6 / 7, rel=1e-12)
    assert r.fairness("goodput_bps") == pytest.approx(6 / 7, rel=1e-12)
    # Packets per second scale by the same factor: the same index.
    assert r.fairness("goodput_pps") == pytest.approx(6 / 7, rel=1e-12)
    # Flows f0 and f2 only: (1+3)^2 / (2 (1+9)) = 16/20 = 0.8.
    assert r.fairness(flows=["f0", "f2"]) == pytest.approx(0.8, rel=1e-12)
    # One flow with everything among four: 1/n = 0.25.
    assert _results_with_goodputs([5e6, 0, 0, 0]).fairness() == pytest.approx(0.25)
    # Equal shares: 1. Nothing delivered: no index.
    assert _results_with_goodputs([2e6, 2e6]).fairness() == pytest.approx(1.0)
    assert _results_with_goodputs([0.0, 0.0]).fairness() is None


def test_fairness_errors_name_the_choices() -> None:
    r = _results_with_goodputs([1e6, 2e6])
    with pytest.raises(KeyError, match="no flow column 'latency'.*goodput_bps"):
        r.fairness("latency")
    with pytest.raises(KeyError, match="no flow named 'zz'.*'f0'"):
        r.fairness(flows=["zz"])


def test_cli_summary_prints_the_same_index(capsys: pytest.CaptureFixture[str]) -> None:
    # Beyond 20 flows the CLI prints a summary line with Jain's index.
    text = NET.replace('duration = "3s"', 'duration = "2s"') + """
[[flows]]
name = "f"
count = 21
from = "s1"
to = "d"
"""
    path = _write(text)
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    index = ccsim.run(ccsim.load(path), progress=False).fairness()
    assert f"Jain's fairness index {index:.3f}" in out


def _write(text: str, name: str = "scenario.toml"):
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / name
    path.write_text(text)
    return path


# Warnings --------------------------------------------------------------------------


def test_cadpc_without_ptp_warns_on_load_and_run() -> None:
    with pytest.warns(ccsim.ScenarioWarning, match="flows.c1.kind: CADPC flow 'c1'.*no channel on the path") as rec:
        scenario = ccsim.loads(CADPC, "cadpc.toml")
    w = rec[0].message
    assert isinstance(w, ccsim.ScenarioWarning)
    assert (w.field, w.source) == ("flows.c1.kind", "cadpc.toml")
    assert "8000 bit/s" in w.message and "ptp" in w.fix
    assert rec[0].filename == __file__  # attributed to the caller, not to ccsim
    with pytest.warns(ccsim.ScenarioWarning, match="flows.c1.kind"):
        results = ccsim.run(scenario, progress=False)
    assert [x.field for x in results.warnings] == ["flows.c1.kind"]
    # They survive pickling (sweep workers and Dask send results so).
    assert pickle.loads(pickle.dumps(results)).warnings == results.warnings


def test_no_warning_once_fixed() -> None:
    fixed = CADPC + '\n[[elements]]\nkind = "ptp"\nat = "r->d"\n'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = ccsim.run(ccsim.loads(fixed), progress=False)
    assert results.warnings == []


def test_warnings_of_overrides_come_with_the_run() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scenario = ccsim.loads(TWO_FLOWS).set("flows.b.ecn", True)  # set() validates nothing
    with pytest.warns(ccsim.ScenarioWarning, match="flows.b.ecn: flow 'b' sends ECN-capable"):
        results = ccsim.run(scenario, progress=False)
    assert [w.field for w in results.warnings] == ["flows.b.ecn"]


def test_warnings_change_no_result() -> None:
    fixed = CADPC + '\n[[elements]]\nkind = "counter"\nat = "r->d"\n'
    with pytest.warns(ccsim.ScenarioWarning):
        warned = ccsim.run(ccsim.loads(fixed), progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ccsim.ScenarioWarning)
        quiet = ccsim.run(ccsim.loads(fixed), progress=False)
    assert warned.flows.drop(columns=[]).equals(quiet.flows)


def test_rate_series_of_a_cadpc_flow_says_why() -> None:
    with pytest.raises(ccsim.ScenarioError, match="flow 'c1' is a cadpc flow, which records no time series"):
        ccsim.loads(CADPC + '\n[measure]\nseries = ["c1.rate"]\n')


def test_cli_prints_warnings_once_before_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(CADPC)
    assert main(["run", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("ccsim: warning:") == 1
    assert "flows.c1.kind: CADPC flow 'c1'" in captured.err
    # A warning an override brings is printed too (the scenario as run).
    assert main(["run", str(path), "--set", 'elements=[{kind="ptp", at="r->d"}]']) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["run", str(path), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# HTML --------------------------------------------------------------------------------


class _Checker(HTMLParser):
    """Parses HTML and checks that every tag opened is closed, in order."""

    VOID = {"br", "hr", "img", "meta", "col"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def check_html(html: str) -> _Checker:
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert checker.stack == [], f"unclosed: {checker.stack}"
    return checker


def test_results_html(two: ccsim.Results) -> None:
    html = two._repr_html_()
    c = check_html(html)
    text = " ".join(c.text)
    for part in ("api", "seed 1", "3 s simulated", "completed", "Jain's fairness index",
                 "goodput", "sack"):  # fmt: skip
        assert part in text, part
    assert c.tags.count("tr") == 1 + 2  # header and one row per flow
    assert f"{two.fairness():.3f}" in text


def test_results_html_escapes_and_warns() -> None:
    with pytest.warns(ccsim.ScenarioWarning):
        r = ccsim.run(ccsim.loads(CADPC.replace('name = "api"', 'name = "<b>&"')), progress=False)
    html = r._repr_html_()
    check_html(html)
    assert "<b>&lt;b&gt;&amp;</b>" in html and "<b><b>&</b>" not in html
    assert "flows.c1.kind" in html


def test_results_html_many_flows() -> None:
    r = _results_with_goodputs([float(i) for i in range(1, 31)])
    c = check_html(r._repr_html_())
    assert c.tags.count("tr") == 1 + 10 + 1  # header, 5 highest, "...", 5 lowest
    assert "30 flows" in " ".join(c.text)
