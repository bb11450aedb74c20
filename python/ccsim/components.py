"""The engine's registries of components, read through the native module, and the
reference page docs/components.md written from them (``ccsim list --markdown``).

Every name, alias, description, parameter and default on the page comes from the
registries (``_ccsim.flow_registry``, ``cc_registry``, ``qdisc_registry``,
``element_registry``); tests/test_docs.py fails when the committed page differs.
"""

from __future__ import annotations

import json
from typing import Any

from ccsim import _ccsim

REGENERATE = ".venv/bin/ccsim list --markdown > docs/components.md"


def flow_registry() -> list[dict[str, Any]]:
    """The scenario file's flow kinds (``_ccsim.flow_registry``), in the validator's order."""
    entries: list[dict[str, Any]] = json.loads(_ccsim.flow_registry())
    return entries


def cc_registry() -> list[dict[str, Any]]:
    """The engine's congestion controls (``_ccsim.cc_registry``), in registration order."""
    entries: list[dict[str, Any]] = json.loads(_ccsim.cc_registry())
    return entries


def qdisc_registry() -> list[dict[str, Any]]:
    """The engine's queue disciplines (``_ccsim.qdisc_registry``), in registration order."""
    entries: list[dict[str, Any]] = json.loads(_ccsim.qdisc_registry())
    return entries


def element_registry() -> list[dict[str, Any]]:
    """The engine's network elements (``_ccsim.element_registry``), in registration order."""
    entries: list[dict[str, Any]] = json.loads(_ccsim.element_registry())
    return entries


def toml_value(v: Any) -> str:
    """A default as a scenario file writes it (strings quoted, booleans lower case)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (str, list, dict)):
        return json.dumps(v)
    return repr(v)


def param_text(p: dict[str, Any]) -> str:
    """A parameter or key as ``name = default`` in scenario-file syntax, ``name unset``
    where unset by default, ``name = example (required)`` where required."""
    if p["default"] is None:
        return f"{p['name']} unset"
    required = " (required)" if p.get("required") else ""
    return f"{p['name']} = {toml_value(p['default'])}{required}"


def _cell(text: str) -> str:
    """Text in a Markdown table cell (pipes escaped)."""
    return text.replace("|", "\\|")


def _code_list(items: list[str], empty: str = "none") -> str:
    return ", ".join(f"`{_cell(i)}`" for i in items) if items else empty


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines + [""]


def markdown() -> str:
    """The page docs/components.md: one table per kind of component."""
    flows = flow_registry()
    out = [
        "# Components",
        "",
        "<!-- Written by `ccsim list --markdown` from the engine's registries; do not edit. -->",
        "",
        "Every flow kind, sender, receiver, congestion control, queue discipline and network",
        "element of the engine, with its parameters and their defaults in scenario-file",
        "syntax, as the engine's registries give them (`ccsim list flow|cc|qdisc|element`",
        "prints the same). `unset`: not given by default; `(required)`: no default, the value",
        "shown is an example. What each one does and what its parameters mean:",
        "docs/scenario-format.md. This page is generated: after changing a registry, run",
        f"`{REGENERATE}` (tests/test_docs.py fails until the page matches).",
        "",
        "## Flow kinds (`[[flows]]` `kind`)",
        "",
        "Every flow takes "
        + _code_list(flows[0]["common_keys"] if flows else [])
        + "; the keys below are those of one kind (`[defaults]`: that section sets it too,",
        "for every flow that leaves it out). A window flow's `params` are its congestion",
        "control's (below).",
        "",
    ]
    rows = []
    for f in flows:
        keys = [param_text(k) + (" [defaults]" if k["in_defaults"] else "") for k in f["keys"]]
        if f["cc_params"]:
            params = "`params`: its congestion control's"
        elif f["params_key"] is None:
            params = "none"
        else:
            params = f"`{f['params_key']}`: " + _code_list([param_text(p) for p in f["parameters"]])
        rows.append(
            [
                f"`{f['name']}`",
                _cell(f["description"]),
                f"`{f['sender']['name']}`",
                f"`{f['receiver']['name']}`",
                _code_list(keys),
                params,
            ]
        )
    out += _table(["kind", "description", "sender", "receiver", "keys", "parameters"], rows)

    for title, end in (("Senders", "sender"), ("Receivers", "receiver")):
        out += [f"## {title}", ""]
        seen: dict[str, tuple[str, list[str]]] = {}
        for f in flows:
            e = f[end]
            seen.setdefault(e["name"], (e["description"], []))[1].append(f"`{f['name']}`")
        out += _table(
            [end, "description", "flow kinds"],
            [[f"`{n}`", _cell(d), ", ".join(kinds)] for n, (d, kinds) in seen.items()],
        )

    out += [
        "## Congestion controls (`cc`, parameters in `[flows.params]`)",
        "",
        "Transport parameters are the window transport's retransmission timer and fast "
        "retransmit (`cc::LossRecoveryConfig`), given in the same table, with the policy's "
        "defaults.",
        "",
    ]
    out += _table(
        ["cc", "aliases", "description", "parameters", "transport parameters", "series of its own"],
        [
            [
                f"`{c['name']}`",
                _code_list(c["aliases"], ""),
                _cell(c["description"]),
                _code_list([param_text(p) for p in c["parameters"] if not p.get("transport")]),
                _code_list([param_text(p) for p in c["parameters"] if p.get("transport")], ""),
                _code_list(c["extra_series"], ""),
            ]
            for c in cc_registry()
        ],
    )

    out += ["## Queue disciplines (`qdisc`)", ""]
    out += _table(
        ["qdisc", "aliases", "description", "parameters", "drop reasons of its own", "series of its own"],
        [
            [
                f"`{q['name']}`",
                _code_list(q["aliases"], ""),
                _cell(q["description"]),
                _code_list([param_text(p) for p in q["parameters"]]),
                _code_list(q["drop_reasons"], ""),
                _code_list([f"{s['name']} ({s['unit']})" for s in q["series"]], ""),
            ]
            for q in qdisc_registry()
        ],
    )

    out += ["## Network elements (`[[elements]]` `kind`)", ""]
    out += _table(
        ["kind", "description", "parameters", "drop reasons of its own"],
        [
            [
                f"`{e['name']}`",
                _cell(e["description"]),
                _code_list([param_text(p) for p in e["parameters"]]),
                _code_list(e["drop_reasons"], ""),
            ]
            for e in element_registry()
        ],
    )
    return "\n".join(out).rstrip("\n") + "\n"
