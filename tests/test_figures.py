"""Figures fit for a paper: formats, size and dpi, nothing clipped, legends in words,
the timeline marked, and `--out` always plotting what it has."""

from __future__ import annotations

import struct
from pathlib import Path

import ccsim
import pytest
from ccsim import output, plots
from ccsim.reproduce import keshav_s1
from conftest import DATA, REPO, run_cli
from matplotlib.collections import PolyCollection

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == MAGIC["png"]
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def captured(monkeypatch):
    """Every figure saved through plots.save, kept for inspection (nothing is written)."""
    figures: list = []

    def fake_save(fig, path):
        plots.fit_texts(fig)
        figures.append((Path(path).name, fig))
        return [Path(path)]

    monkeypatch.setattr(plots, "save", fake_save)
    return figures


def legend_texts(fig) -> list[str]:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [t.get_text() for legend in legends for t in legend.get_texts()]


# Formats, size, dpi ------------------------------------------------------------------------


def test_run_out_writes_every_plot_in_every_format(tmp_path):
    out = tmp_path / "run"
    ok(run_cli("run", DATA / "tiny.toml", "--out", out, "--format", "png,pdf,svg", "--quiet"))
    stems = {p.stem for p in (out / "plots").iterdir()}
    assert stems == {"throughput", "channels", "reno1_window", "reno1_rtt", "r1-to-r2_queue"}
    for stem in stems:
        for fmt, magic in MAGIC.items():
            assert (out / "plots" / f"{stem}.{fmt}").read_bytes().startswith(magic), (stem, fmt)


def test_size_and_dpi_set_the_pixels(tmp_path):
    out = tmp_path / "run"
    ok(run_cli("run", DATA / "tiny.toml", "--out", out, "--size", "3.5x2.5", "--dpi", "100",
               "--quiet"))  # fmt: skip
    assert png_size(out / "plots" / "reno1_window.png") == (350, 250)
    assert png_size(out / "plots" / "channels.png") == (350, 250)


def test_out_without_series_still_plots_throughput_and_channels(tmp_path):
    out = tmp_path / "run"
    ok(run_cli("run", DATA / "tiny.toml", "--set", "measure.series=[]", "--out", out, "--quiet"))
    assert sorted(p.name for p in (out / "plots").iterdir()) == ["channels.png", "throughput.png"]
    # Without intervals or phases either: one bar per flow.
    bare = tmp_path / "bare"
    ok(run_cli("run", DATA / "minimal.toml", "--out", bare, "--quiet"))
    assert (bare / "plots" / "throughput.png").is_file()


def test_reproduce_writes_and_lists_the_formats_asked_for(tmp_path):
    text = ok(run_cli("reproduce", "dabbous-minbuf", "--out", tmp_path, "--format", "pdf,svg"))
    assert (tmp_path / "dabbous-figure9-minbuf.pdf").read_bytes().startswith(MAGIC["pdf"])
    assert (tmp_path / "dabbous-figure9-minbuf.svg").read_bytes().startswith(MAGIC["svg"])
    assert not (tmp_path / "dabbous-figure9-minbuf.png").exists()
    assert "dabbous-figure9-minbuf.pdf" in text and "dabbous-figure9-minbuf.png" not in text


@pytest.mark.parametrize(
    ("flag", "value"), [("--format", "gif"), ("--size", "big"), ("--size", "0x3"), ("--dpi", "ten")]
)
def test_bad_figure_flags_are_one_line_errors(flag, value):
    result = run_cli("run", DATA / "tiny.toml", "--out", "/nonexistent/never", flag, value)
    assert result.returncode == 2
    assert result.stderr.startswith("ccsim: error: ") and len(result.stderr.splitlines()) == 1
    assert flag in result.stderr


def test_the_cli_offers_every_format_plots_can_write():
    from ccsim import cli

    assert cli.FIGURE_FORMATS == plots.FORMATS


def test_pdf_embeds_truetype_and_is_reproducible(tmp_path):
    fig = plots.new_figure()
    fig.add_subplot().plot([0, 1], [0, 1])
    with plots.figure_options(formats=("pdf",)):
        (first,) = plots.save(fig, tmp_path / "a.png")
        (second,) = plots.save(fig, tmp_path / "b.png")
    data = first.read_bytes()
    # Type 42: TrueType outlines in a CID font (Type0 / CIDFontType2), never Type 3.
    assert b"/Subtype /Type3" not in data and b"/Subtype /CIDFontType2" in data
    assert data == second.read_bytes()


# Nothing clipped -----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(8.0, 4.0), (3.5, 2.5)])
def test_long_titles_and_labels_are_wrapped_inside_the_figure(tmp_path, size):
    with plots.figure_options(size=size):
        fig = plots.new_figure()
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1])
        ax.set_title(
            "Scenario 2: PP/FQ packets outstanding of source 1, first 100 round trips "
            "(cf. Keshav 1991, Figure 7)"
        )
        ax.set_ylabel("packets outstanding (pipeline depths of 120 packets)")
        plots.save(fig, tmp_path / "f.png")
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    for text in (ax.title, ax.yaxis.label):
        extent = text.get_window_extent(renderer)
        assert extent.x0 >= box.x0 - 1 and extent.x1 <= box.x1 + 1, text.get_text()
        assert extent.y0 >= box.y0 - 1 and extent.y1 <= box.y1 + 1, text.get_text()
    assert "\n" in ax.title.get_text()


# Words, not series names ---------------------------------------------------------------------


def test_series_names_in_words():
    assert plots.describe("ftp1.cwnd") == "ftp1 congestion window (packets)"
    assert plots.describe("ftp1.outstanding", unit=False) == "ftp1 packets outstanding"
    assert plots.describe("sw->sink.queue") == "sw->sink queue length (packets)"
    assert plots.describe("src.rtt") == "src round-trip time (s)"


def test_run_plots_have_legends_in_words_and_the_timeline(tiny_results, tiny, captured, tmp_path):
    output.write_plots(tiny_results, tmp_path, tiny.check())
    figures = dict(captured)
    window = legend_texts(figures["reno1_window.png"])
    assert "reno1 congestion window (packets)" in window
    assert "reno1 slow-start threshold (packets)" in window
    assert "cbr1 on" in window  # the on periods of the CBR source
    assert not any("." in label.split()[0] for label in window)
    ax = figures["reno1_window.png"].axes[0]
    texts = {t.get_text() for t in ax.texts}
    assert {"first", "second"} <= texts  # phases named
    assert len([p for p in ax.patches]) >= 2  # and shaded
    throughput = legend_texts(figures["throughput.png"])
    assert "reno1 goodput" in throughput and "poisson1 goodput" in throughput
    assert figures["throughput.png"].axes[0].get_title().endswith("goodput per interval")


def test_scheduled_changes_are_marked(captured, tmp_path):
    scenario = ccsim.load(REPO / "scenarios" / "dabbous-route.toml")
    output.write_plots(scenario.run(), tmp_path, scenario.check())
    labels = legend_texts(dict(captured)["src_window.png"])
    assert "change at 20 s (gw-dst: delay 100ms)" in labels


def test_many_flows_plot_their_total_mean_and_range(captured, tmp_path):
    doc = ccsim.load(DATA / "tiny.toml").check()
    hosts = [f"h{i}" for i in range(12)]
    doc["nodes"]["hosts"] += hosts
    doc["links"] += [{"between": [h, "r1"], "rate": "10Mbps"} for h in hosts]
    doc["flows"] = [{"name": f"f{i}", "from": h, "to": "b"} for i, h in enumerate(hosts)]
    doc["measure"] = {"interval": "5s"}
    doc.pop("phases")
    output.write_plots(ccsim.run(doc), tmp_path)
    labels = legend_texts(dict(captured)["throughput.png"])
    assert labels[:3] == ["all 12 flows", "mean per flow", "range of the flows"]


def test_keshav_figure3_says_packets_outstanding(keshav_runs, captured, tmp_path):
    keshav_s1.figure3(keshav_runs["PP/FQ"], tmp_path / "f3.png", 4.0, 40.0)
    keshav_s1.figure2(keshav_runs["JK/FCFS"], tmp_path / "f2.png", 4.0, 40.0)
    figures = dict(captured)
    assert figures["f3.png"].axes[0].get_ylabel().replace("\n", " ").startswith(
        "packets outstanding (pipeline depths"
    )
    assert figures["f2.png"].axes[0].get_ylabel().startswith("window (pipeline depths")
    assert "source 1 (ftp1) packets outstanding" in legend_texts(figures["f3.png"])


def test_sampled_series_are_drawn_with_the_range_of_each_bucket(tiny, tmp_path, captured):
    """A sampled series ([measure] max_points) keeps each bucket's last sample and its
    min and max: the plots shade that range over the time its samples span, so the peaks
    the decimation dropped from ``v`` stay on the figure (and on its scale)."""
    sampled = tiny.with_overrides(["measure.max_points=40"])
    results = ccsim.run(sampled)
    output.write_plots(results, tmp_path, sampled.check())
    figures = dict(captured)
    queue = results.series("r1->r2.queue")
    assert (queue["max"] > queue["v"]).any()  # peaks only the band shows
    for name in ("r1-to-r2_queue.png", "reno1_window.png", "reno1_rtt.png"):
        # One band per series, one legend entry per figure.
        ax = figures[name].axes[0]
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) == len(ax.get_lines()), name
        assert legend_texts(figures[name]).count("range of the samples in each 500 ms") == 1, name
    ax = figures["r1-to-r2_queue.png"].axes[0]
    (band,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    # One rectangle per point: from its bucket's start (or the previous point) to it.
    boxes = [p.vertices for p in band.get_paths()]
    assert len(boxes) == len(queue)
    first = boxes[0]
    assert (first[:, 0].min(), first[:, 0].max()) == (0.0, queue["t"][0])
    assert (first[:, 1].min(), first[:, 1].max()) == (queue["min"][0], queue["max"][0])
    assert ax.get_ylim()[1] >= queue["max"].max()
    # Unsampled: no band.
    captured.clear()
    output.write_plots(ccsim.run(tiny), tmp_path, tiny.check())
    ax = dict(captured)["r1-to-r2_queue.png"].axes[0]
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
