"""Packet captures as libpcap files, readable by Wireshark and tshark.

The engine records the packets that start transmission on a channel carrying a
``capture`` element (``[[elements]] kind = "capture"``, or :func:`with_capture` for every
channel); :func:`write_pcaps` turns each channel's records into ``<a>-to-<b>.pcap``.

Headers are synthetic: there are no real headers in the simulation. Each packet becomes
a raw IPv4 packet (link type 101, nanosecond timestamps) whose total length is the
packet's size on the wire, so captured lengths are the 40 (TCP) or 28 (UDP) header bytes
only:

- addresses: node i of the scenario is 10.x.y.z with x.y.z = i + 1; ports: the flow's
  index + 10000 at the sender, 5001 at the receiver (5002 for control packets);
- window flows are TCP. A data packet of sequence number n carries bytes
  ``n * payload + 1 .. (n + 1) * payload`` with payload = size - 40; an ack of
  cumulative number n acknowledges ``n * payload + 1``; ECN bits map to the IP header's
  ECT/CE codepoints and the TCP ECE/CWR flags;
- unresponsive sources and control packets are UDP.

So tshark's TCP analysis (retransmissions, duplicate acks) works on ccsim's packets.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.output import safe_name

if TYPE_CHECKING:
    from ccsim import Results, Scenario

FLAG_RETX, FLAG_ECT, FLAG_CE, FLAG_ECE, FLAG_CWR = 1, 8, 16, 32, 64
NO_FLOW = 0xFFFFFFFF
LINKTYPE_RAW = 101


def with_capture(
    scenario: Scenario, channels: list[str] | None = None, max_packets: int | None = None
) -> Scenario:
    """A copy of ``scenario`` with a ``capture`` element on the given channels
    (``"a->b"``; default every channel)."""
    from ccsim import Scenario

    doc = scenario.check()
    if channels is None:
        channels = []
        for link in doc.get("links", []):
            a, b = link["between"]
            channels += [f"{a}->{b}", f"{b}->{a}"]
    elements = list(doc.get("elements", []))
    for ch in channels:
        element: dict[str, Any] = {"kind": "capture", "at": ch}
        if max_packets is not None:
            element["max_packets"] = max_packets
        elements.append(element)
    doc["elements"] = elements
    return Scenario.from_dict(doc, scenario.source)


def _address(node: int) -> bytes:
    n = node + 1
    return bytes([10, (n >> 16) & 255, (n >> 8) & 255, n & 255])


def _checksum(header: bytes) -> int:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _ip(src: int, dst: int, total: int, proto: int, ident: int, flags: int) -> bytes:
    tos = 0
    if flags & FLAG_CE:
        tos = 3
    elif flags & FLAG_ECT:
        tos = 2
    header = struct.pack(
        "!BBHHHBBH4s4s",
        0x45, tos, min(total, 0xFFFF), ident & 0xFFFF, 0, 64, proto, 0,
        _address(src), _address(dst),
    )  # fmt: skip
    return header[:10] + struct.pack("!H", _checksum(header)) + header[12:]


def packet_bytes(
    flow: dict[str, Any] | None,
    flow_index: int,
    nodes: dict[str, int],
    seq: int,
    bits: int,
    kind: int,
    flags: int,
    at: int,
) -> tuple[bytes, int]:
    """The synthetic headers of one captured packet and its length on the wire."""
    size = (bits + 7) // 8
    if flow is None:  # a control packet of no flow (from an element)
        src = dst = at
        udp = struct.pack("!HHHH", 5002, 5002, max(size - 20, 8), 0)
        return _ip(src, dst, max(size, 28), 17, seq, flags) + udp, max(size, 28)
    a, b = nodes[flow["from"]], nodes[flow["to"]]
    src, dst = (a, b) if kind == 0 else (b, a)
    sport, dport = (10000 + flow_index % 50000, 5001) if kind == 0 else (5001, 10000 + flow_index % 50000)
    if flow["kind"] != "window" or kind == 2:
        port = 5002 if kind == 2 else dport
        udp = struct.pack("!HHHH", sport, port, max(size - 20, 8), 0)
        return _ip(src, dst, max(size, 28), 17, seq, flags) + udp, max(size, 28)
    payload = max((flow["packet_bits"] + 7) // 8 - 40, 1)
    tcp_flags = 0x10  # ACK
    if flags & FLAG_ECE:
        tcp_flags |= 0x40
    if flags & FLAG_CWR:
        tcp_flags |= 0x80
    if kind == 0:
        tcp_flags |= 0x08  # PSH
        seq_no, ack_no = (seq * payload + 1) & 0xFFFFFFFF, 1
    else:
        seq_no, ack_no = 1, (seq * payload + 1) & 0xFFFFFFFF
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq_no, ack_no, 5 << 4, tcp_flags, 65535, 0, 0)
    total = max(size, 40)
    return _ip(src, dst, total, 6, seq, flags) + tcp, total


def write_pcaps(results: Results, out_dir: str | Path) -> list[Path]:
    """Write one pcap file per captured channel into ``out_dir``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    raw = results.raw
    nodes = {n["name"]: i for i, n in enumerate(raw.get("nodes", []))}
    flows = raw["flows"]
    written = []
    for link in raw["links"]:
        for element in link.get("elements", []):
            if element.get("kind") != "capture":
                continue
            # As series files are named: a '/' in a node name used to make the path point
            # into a directory that does not exist.
            path = out / f"{safe_name(link['from'] + '->' + link['to'])}.pcap"
            at = nodes.get(link["to"], 0)
            with path.open("wb") as f:
                f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, LINKTYPE_RAW))
                columns = zip(
                    element["t_ps"], element["flow"], element["seq"], element["bits"],
                    element["packet_kind"], element["flags"], strict=True,
                )  # fmt: skip
                for t_ps, flow, seq, bits, kind, flags in columns:
                    info = flows[flow] if flow != NO_FLOW else None
                    data, wire = packet_bytes(info, flow, nodes, seq, bits, kind, flags, at)
                    sec, ns = divmod(t_ps // 1000, 1_000_000_000)
                    f.write(struct.pack("<IIII", sec, ns, len(data), wire))
                    f.write(data)
            written.append(path)
    return written
