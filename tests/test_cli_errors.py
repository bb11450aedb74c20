"""Bad input: one clear line on stderr naming the file and the field, exit 2, no traceback."""

from __future__ import annotations

import pytest
from conftest import DATA, KESHAV, run_cli

# file in tests/data -> words the message must contain besides the file name
BAD_FILES = {
    "bad_syntax.toml": [],  # where exactly depends on the TOML parser
    "unknown_key.toml": ["durration"],
    "unknown_node.toml": ["nowhere"],
    "negative_rate.toml": ["rate"],
    "unitless_rate.toml": ["rate"],
    "no_route.toml": ["f1"],
}


def assert_user_error(result, *words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    assert "panicked" not in result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("ccsim: error: ")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_scenario_file(name):
    result = run_cli("run", DATA / name)
    assert_user_error(result, name, *BAD_FILES[name])


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_scenario_file_with_json(name):
    # --json must not change how errors are reported (stdout stays empty).
    assert_user_error(run_cli("run", DATA / name, "--json"), name)


def test_missing_file():
    assert_user_error(run_cli("run", DATA / "does-not-exist.toml"), "does-not-exist.toml")


def test_set_without_equals_sign():
    assert_user_error(run_cli("run", KESHAV, "--set", "defaults.cc"), "keshav-s1.toml", "defaults.cc")


def test_set_of_unknown_key():
    assert_user_error(
        run_cli("run", KESHAV, "--set", "defaults.no_such_key=1"),
        "keshav-s1.toml",
        "no_such_key",
    )


def test_set_of_bad_value():
    assert_user_error(
        run_cli("run", KESHAV, "--set", "links.bottleneck.rate=fast"),
        "keshav-s1.toml",
        "rate",
    )


def test_bad_seed():
    assert_user_error(run_cli("run", KESHAV, "--seed", "-3"), "--seed")


def test_unknown_command():
    assert_user_error(run_cli("frobnicate"), "frobnicate")


def test_unknown_reproduction():
    assert_user_error(run_cli("reproduce", "nope"), "nope", "keshav-s1")


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--bottleneck", "100"], "--bottleneck"),
        (["--bottleneck=-5Mbps"], "--bottleneck"),
        (["--time", "ten"], "--time"),
        (["--flows", "0"], "--flows"),
        (["--flows", "1000001"], "--flows"),
        (["--qdisc", "sfq"], "--qdisc"),
        (["--repeat", "0"], "--repeat"),
        (["--repeat", "1001"], "--repeat"),
        (["--repeat", "many"], "--repeat"),
    ],
)
def test_bad_bench_arguments(args, word):
    assert_user_error(run_cli("bench", *args, "--json"), word)


def test_seed_beyond_64_bits_is_a_user_error():
    # `ccsim bench --seed 18446744073709551616` used to end in an OverflowError traceback.
    for command in (["bench", "--time", "1ms", "--flows", "1"], ["run", KESHAV]):
        assert_user_error(run_cli(*command, "--seed", str(2**64)), "--seed", "at most 18446744073709551615")


def test_pcap_naming_a_file_is_a_user_error_before_the_run(tmp_path):
    # It used to fail after the run with "afile: File exists".
    target = tmp_path / "afile"
    target.write_text("x")
    assert_user_error(
        run_cli("run", DATA / "tiny.toml", "--pcap", target),
        "--pcap",
        "is a file; give a directory",
    )


def test_a_misspelt_default_cc_is_an_error_even_when_every_flow_names_its_own():
    # tiny.toml's window flows all set cc, so defaults.cc=westwood used to do nothing silently.
    assert_user_error(
        run_cli("run", DATA / "tiny.toml", "--set", "defaults.cc=westwood"),
        "defaults.cc",
        "unknown congestion control 'westwood'",
    )


def test_an_override_key_of_thousands_of_parts_is_a_user_error_not_a_segfault():
    key = "flows.reno1.params" + ".x" * 5000
    assert_user_error(run_cli("run", DATA / "tiny.toml", "--set", f"{key}=1"), "the key has 5003 parts")


def test_prr_without_sack_names_the_field_and_the_fix():
    assert_user_error(
        run_cli("run", DATA / "tiny.toml", "--set", "flows.reno1.sack_recovery=prr"),
        "flows.reno1.sack_recovery",
        "set sack = true",
    )


def test_an_unknown_sack_recovery_lists_the_two_it_has():
    assert_user_error(
        run_cli("run", DATA / "tiny.toml", "--set", "flows.reno1.sack=true", "--set", "flows.reno1.sack_recovery=fast"),
        "flows.reno1.sack_recovery",
        '"rfc6675"',
        '"prr"',
    )


def test_prr_runs_from_the_command_line_and_reaches_the_sender():
    import json

    def reno1(recovery: str) -> dict:
        result = run_cli(
            "run",
            DATA / "tiny.toml",
            "--set",
            "flows.reno1.sack=true",
            "--set",
            f"flows.reno1.sack_recovery={recovery}",
            "--json",
        )
        assert result.returncode == 0, result.stderr
        return next(f for f in json.loads(result.stdout)["flows"] if f["name"] == "reno1")

    rfc, prr = reno1("rfc6675"), reno1("prr")
    # The 15-packet bottleneck drops reno1's packets, so its recoveries send differently.
    assert rfc["fast_retransmits"] > 0
    assert (rfc["sent_pkts"], rfc["delivered_pkts"]) != (prr["sent_pkts"], prr["delivered_pkts"])
