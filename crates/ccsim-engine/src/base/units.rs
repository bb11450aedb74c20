//! Parsing of quantities written with units in scenario files: "10Mbps", "2s", "1000B",
//! "40pkt". Bare numbers are rejected so that a missing unit is never guessed.

use crate::base::time::{SimDuration, PS_PER_S};
use std::fmt;

/// A buffer limit: a count of packets or a number of bytes. Written "40pkt" or
/// "64000B" in scenario files and in `Scenario` JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Packets(n) => write!(f, "{n}pkt"),
            Limit::Bytes(b) => write!(f, "{b}B"),
        }
    }
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

fn need_unit(s: &str, what: &str, units: &str, example: &str) -> String {
    format!("'{s}' is not a {what}; write a number followed by a unit ({units}), e.g. \"{example}\"")
}

/// Parses a rate such as "80kbps" into bits per second. Must be positive.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    const UNITS: &str = "bps, kbps, Mbps, Gbps";
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "rate", UNITS, "10Mbps"))?;
    let mult = match unit {
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "" => return Err(format!("rate '{s}' has no unit; write e.g. \"{s}bps\" or \"10Mbps\"")),
        _ => return Err(format!("unknown rate unit '{unit}' in '{s}'; use one of {UNITS}")),
    };
    let bps = v * mult;
    if !(bps > 0.0) || !bps.is_finite() {
        return Err(format!("rate '{s}' must be positive, e.g. \"10Mbps\""));
    }
    if bps.fract() != 0.0 || bps > u64::MAX as f64 {
        return Err(format!("rate '{s}' must be a whole number of bits per second"));
    }
    Ok(bps as u64)
}

/// The longest time a scenario (or `ccsim bench`) may give, in picoseconds: half the
/// range of `SimTime`, about 106 days, so that a time plus a duration never overflows.
pub const MAX_TIME_PS: f64 = u64::MAX as f64 / 2.0;

/// Parses a time such as "2s", "100ms" or "1.5s". Must not be negative.
pub fn parse_time(s: &str) -> Result<SimDuration, String> {
    const UNITS: &str = "ps, ns, us, ms, s, min";
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "time", UNITS, "100ms"))?;
    let ps_per: f64 = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" => 1e6,
        "ms" => 1e9,
        "s" => PS_PER_S as f64,
        "min" => 60.0 * PS_PER_S as f64,
        "" => return Err(format!("time '{s}' has no unit; write e.g. \"{s}s\" or \"{s}ms\"")),
        _ => return Err(format!("unknown time unit '{unit}' in '{s}'; use one of {UNITS}")),
    };
    if v < 0.0 || !v.is_finite() {
        return Err(format!("time '{s}' must not be negative"));
    }
    let ps = (v * ps_per).round();
    if ps > MAX_TIME_PS {
        return Err(format!("time '{s}' is too large (at most about 100 days)"));
    }
    Ok(SimDuration::from_ps(ps as u64))
}

/// Parses a size such as "1000B" or "1.5kB" into bytes. Must be positive.
pub fn parse_size(s: &str) -> Result<u64, String> {
    const UNITS: &str = "B, kB, MB";
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "size", UNITS, "1000B"))?;
    let mult = match unit {
        "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "" => return Err(format!("size '{s}' has no unit; write e.g. \"{s}B\"")),
        _ => return Err(format!("unknown size unit '{unit}' in '{s}'; use one of {UNITS}")),
    };
    let b = v * mult;
    if !(b > 0.0) || !b.is_finite() {
        return Err(format!("size '{s}' must be positive, e.g. \"1000B\""));
    }
    if b.fract() != 0.0 {
        return Err(format!("size '{s}' must be a whole number of bytes"));
    }
    if b > u32::MAX as f64 {
        return Err(format!("size '{s}' is too large"));
    }
    Ok(b as u64)
}

/// Parses a packet count such as "40pkt". Must be positive.
pub fn parse_packets(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "packet count", "pkt", "40pkt"))?;
    match unit {
        "pkt" | "pkts" | "packets" => {}
        "" => return Err(format!("packet count '{s}' has no unit; write e.g. \"{s}pkt\"")),
        _ => return Err(format!("unknown unit '{unit}' in '{s}'; a packet count is written like \"40pkt\"")),
    }
    if !(v >= 1.0) || v.fract() != 0.0 {
        return Err(format!("packet count '{s}' must be a whole number of at least 1"));
    }
    Ok(v as u64)
}

/// Parses a buffer limit: "40pkt" or "64000B".
pub fn parse_limit(s: &str) -> Result<Limit, String> {
    if s.trim_end().ends_with("pkt") || s.trim_end().ends_with("pkts") {
        parse_packets(s).map(Limit::Packets)
    } else {
        parse_size(s)
            .map(Limit::Bytes)
            .map_err(|e| format!("{e} (a buffer is a size like \"64000B\" or a packet count like \"40pkt\")"))
    }
}

/// Parses a packet size as bits: "1000B", "1.5kB" (bytes) or "44bit" (bits, for
/// Heybey's voice and control packets). Must be positive and below 2^32 bits.
pub fn parse_bits(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if let Some(num) = t.strip_suffix("bits").or_else(|| t.strip_suffix("bit")) {
        let v: f64 = num.trim().parse().map_err(|_| need_unit(s, "size", "bit, B, kB, MB", "1000B"))?;
        if !(v >= 1.0) || v.fract() != 0.0 {
            return Err(format!("size '{s}' must be a whole number of bits, at least 1"));
        }
        if v > u32::MAX as f64 {
            return Err(format!("size '{s}' is too large"));
        }
        return Ok(v as u64);
    }
    let b = parse_size(s)?;
    if b * 8 > u32::MAX as u64 {
        return Err(format!("size '{s}' is too large (at most 536870911B)"));
    }
    Ok(b * 8)
}

/// Writes a time so that `parse_time` reads back exactly the same value.
pub fn fmt_time(d: SimDuration) -> String {
    let ps = d.as_ps();
    for (unit, per) in [("s", PS_PER_S), ("ms", 1_000_000_000), ("us", 1_000_000), ("ns", 1000)] {
        if ps % per == 0 && (ps / per) < (1 << 52) {
            return format!("{}{unit}", ps / per);
        }
    }
    format!("{ps}ps")
}

/// Writes a rate so that `parse_rate` reads it back.
pub fn fmt_rate(bps: u64) -> String {
    for (unit, per) in [("Gbps", 1_000_000_000u64), ("Mbps", 1_000_000), ("kbps", 1000)] {
        if bps % per == 0 {
            return format!("{}{unit}", bps / per);
        }
    }
    format!("{bps}bps")
}

/// Writes a size in bits as bytes when whole ("1000B"), else as bits ("44bit").
pub fn fmt_bits(bits: u64) -> String {
    if bits % 8 == 0 {
        format!("{}B", bits / 8)
    } else {
        format!("{bits}bit")
    }
}

/// Serde adapters for quantities written with units ("100ms", "10Mbps", "1000B",
/// "40pkt"): they read the strings scenario files use (a bare number is an error saying
/// which unit to add) and write them back the same way, so a checked scenario's JSON
/// can be loaded again.
pub mod serde_units {
    use super::*;
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    struct UnitStr {
        what: &'static str,
        example: &'static str,
    }

    impl<'de> Visitor<'de> for UnitStr {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a quoted {} with a unit, e.g. \"{}\"", self.what, self.example)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
            Err(E::custom(format!(
                "{v} has no unit; write it as a quoted string with a unit, e.g. \"{}\"",
                self.example
            )))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
            self.visit_i64(v as i64)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
            Err(E::custom(format!(
                "{v} has no unit; write it as a quoted string with a unit, e.g. \"{}\"",
                self.example
            )))
        }
    }

    pub(super) fn text<'de, D: Deserializer<'de>>(
        d: D,
        what: &'static str,
        example: &'static str,
    ) -> Result<String, D::Error> {
        d.deserialize_any(UnitStr { what, example })
    }

    pub mod time {
        use super::*;
        pub fn serialize<S: Serializer>(v: &SimDuration, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&fmt_time(*v))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
            parse_time(&text(d, "time", "100ms")?).map_err(de::Error::custom)
        }
    }

    pub mod opt_time {
        use super::*;
        pub fn serialize<S: Serializer>(v: &Option<SimDuration>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => s.serialize_str(&fmt_time(*v)),
                None => s.serialize_none(),
            }
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SimDuration>, D::Error> {
            parse_time(&text(d, "time", "100ms")?).map(Some).map_err(de::Error::custom)
        }
    }

    pub mod rate {
        use super::*;
        pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&fmt_rate(*v))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            parse_rate(&text(d, "rate", "10Mbps")?).map_err(de::Error::custom)
        }
    }

    /// A packet size held in bits, written "1000B" or "44bit".
    pub mod bits {
        use super::*;
        pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&fmt_bits(*v as u64))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
            parse_bits(&text(d, "size", "1000B")?).map(|b| b as u32).map_err(de::Error::custom)
        }
    }

    /// A size held in bytes, written "500B".
    pub mod bytes {
        use super::*;
        pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&format!("{v}B"))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
            parse_size(&text(d, "size", "1000B")?).map(|b| b as u32).map_err(de::Error::custom)
        }
    }

    /// An optional size held in bytes, written "32MB" or "1000B" (absent: none).
    pub mod opt_bytes {
        use super::*;
        pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => s.serialize_str(&format!("{v}B")),
                None => s.serialize_none(),
            }
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
            parse_size(&text(d, "size", "32MB")?).map(Some).map_err(de::Error::custom)
        }
    }

    /// A packet count, written "40pkt".
    pub mod packets {
        use super::*;
        pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&format!("{v}pkt"))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
            let n = parse_packets(&text(d, "packet count", "40pkt")?).map_err(de::Error::custom)?;
            u32::try_from(n).map_err(|_| de::Error::custom("too many packets (at most 4294967295)"))
        }
    }
}

impl serde::Serialize for Limit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for Limit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Limit, D::Error> {
        let t = serde_units::text(d, "buffer size", "40pkt")?;
        parse_limit(&t).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("80kbps"), Ok(80_000));
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("1.5Gbps"), Ok(1_500_000_000));
        assert_eq!(parse_rate(" 800000bps "), Ok(800_000));
        assert!(parse_rate("-5Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate("0bps").unwrap_err().contains("positive"));
        assert!(parse_rate("10").unwrap_err().contains("no unit"));
        assert!(parse_rate("10MB").unwrap_err().contains("unknown rate unit"));
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("2s"), Ok(SimDuration::from_secs(2)));
        assert_eq!(parse_time("100ms"), Ok(SimDuration::from_millis(100)));
        assert_eq!(parse_time("1.5s"), Ok(SimDuration::from_millis(1500)));
        assert_eq!(parse_time("0s"), Ok(SimDuration::ZERO));
        assert_eq!(parse_time("3us"), Ok(SimDuration::from_micros(3)));
        assert!(parse_time("-1s").unwrap_err().contains("negative"));
        assert!(parse_time("5").unwrap_err().contains("no unit"));
    }

    #[test]
    fn sizes_and_limits() {
        assert_eq!(parse_size("1000B"), Ok(1000));
        assert_eq!(parse_size("1.5kB"), Ok(1500));
        assert_eq!(parse_limit("40pkt"), Ok(Limit::Packets(40)));
        assert_eq!(parse_limit("64000B"), Ok(Limit::Bytes(64000)));
        assert!(parse_limit("40").is_err());
        assert!(parse_packets("0pkt").is_err());
    }

    #[test]
    fn bits_and_round_trips() {
        assert_eq!(parse_bits("44bit"), Ok(44));
        assert_eq!(parse_bits("10bits"), Ok(10));
        assert_eq!(parse_bits("1000B"), Ok(8000));
        assert!(parse_bits("0bit").is_err());
        assert!(parse_bits("1.5bit").is_err());
        for t in ["100ms", "3s", "2us", "7ps", "1.25s"] {
            let d = parse_time(t).unwrap();
            assert_eq!(parse_time(&fmt_time(d)), Ok(d), "{t}");
        }
        assert_eq!(fmt_time(SimDuration::from_millis(1500)), "1500ms");
        assert_eq!(fmt_rate(10_000_000), "10Mbps");
        assert_eq!(fmt_rate(1_500_000), "1500kbps");
        assert_eq!(fmt_bits(8000), "1000B");
        assert_eq!(fmt_bits(44), "44bit");
        assert_eq!(Limit::Packets(40).to_string(), "40pkt");
    }
}
