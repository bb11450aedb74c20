//! Parsing of quantities written with units in scenario files: "10Mbps", "2s", "1000B",
//! "40pkt". Bare numbers are rejected so that a missing unit is never guessed.
//!
//! Numbers are read as exact decimals (no binary floating point): "2.052631579ms" is
//! 2 052 631 579 ps, whatever its size. A time finer than a picosecond is rounded to the
//! nearest picosecond, halves up. The formatters write the shortest exact decimal in the
//! largest unit the value reaches ("2.052631579ms", "1.5Mbps", "1.5kB"), so that every
//! value parses back to itself (property tests below).

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
            Limit::Bytes(b) => f.write_str(&fmt_size(*b)),
        }
    }
}

/// A decimal number as written ("12", "1.5", "-0.25", ".5"), held exactly: the integer
/// part (saturating: a larger one is too large for every quantity) and up to
/// `FRAC_DIGITS` digits of the fraction. A digit past those only says whether a nonzero
/// one was left out (`dropped`); at 10^-24 of a unit it can change a rounded picosecond
/// only within 10^-10 ps of a half.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    negative: bool,
    int: u128,
    frac: u128,
    frac_digits: u32,
    dropped: bool,
}

const FRAC_DIGITS: u32 = 24;

impl Decimal {
    fn parse(num: &str) -> Option<Decimal> {
        let (negative, digits) = match num.as_bytes().first() {
            Some(b'-') => (true, &num[1..]),
            Some(b'+') => (false, &num[1..]),
            _ => (false, num),
        };
        let (int_text, frac_text) = digits.split_once('.').unwrap_or((digits, ""));
        let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if int_text.len() + frac_text.len() == 0 || !all_digits(int_text) || !all_digits(frac_text) {
            return None;
        }
        let int = int_text.bytes().fold(0u128, |acc, b| acc.saturating_mul(10).saturating_add(u128::from(b - b'0')));
        let mut d = Decimal { negative, int, frac: 0, frac_digits: 0, dropped: false };
        for b in frac_text.bytes() {
            if d.frac_digits < FRAC_DIGITS {
                d.frac = d.frac * 10 + u128::from(b - b'0');
                d.frac_digits += 1;
            } else if b != b'0' {
                d.dropped = true;
            }
        }
        Some(d)
    }

    fn is_zero(&self) -> bool {
        self.int == 0 && self.frac == 0 && !self.dropped
    }

    /// The magnitude times `mult`, rounded to the nearest integer (halves up), and whether
    /// that was exact; `None` when it does not fit in a u128.
    fn times(&self, mult: u64) -> Option<(u128, bool)> {
        let mult = u128::from(mult);
        let whole = self.int.checked_mul(mult)?;
        // frac < 10^24: with every unit's multiple at most 6 x 10^13 the product fits.
        let scaled = self.frac.checked_mul(mult)?;
        let one = 10u128.pow(self.frac_digits);
        let (q, r) = (scaled / one, scaled % one);
        let up = u128::from(self.frac_digits > 0 && 2 * r >= one);
        Some((whole.checked_add(q)?.checked_add(up)?, r == 0 && !self.dropped))
    }
}

fn split_number(s: &str) -> Option<(Decimal, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    Some((Decimal::parse(num)?, unit.trim()))
}

/// "unknown rate unit 'mbps' in '10mbps' (did you mean "10Mbps"?); use one of ...": the
/// value with the unit `unit` was likely meant to be, if one of `units` is near it.
fn unknown_unit(s: &str, what: &str, unit: &str, units: &str) -> String {
    // Units as often written otherwise: "Mbit", "Mbit/s", "Mb/s", "Mb" are "Mbps";
    // "msec", "sec", "seconds" are "ms", "s".
    let spelt = match what {
        "rate " => {
            let s = unit.replace("bit/s", "bps").replace("bits", "bps").replace("bit", "bps").replace("b/s", "bps");
            if s.ends_with('b') {
                s + "ps"
            } else {
                s
            }
        }
        "time " => unit.replace("seconds", "s").replace("second", "s").replace("secs", "s").replace("sec", "s"),
        _ => unit.to_string(),
    };
    let hint = crate::base::suggest::nearest(&spelt, units.split(", "))
        .map(|u| format!(" (did you mean \"{}{u}\"?)", s.trim()[..s.trim().len() - unit.len()].trim_end()))
        .unwrap_or_default();
    format!("unknown {what}unit '{unit}' in '{s}'{hint}; use one of {units}")
}

fn need_unit(s: &str, what: &str, units: &str, example: &str) -> String {
    format!("'{s}' is not a {what}; write a number followed by a unit ({units}), e.g. \"{example}\"")
}

/// Parses a rate such as "80kbps" into bits per second. Must be positive.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    const UNITS: &str = "bps, kbps, Mbps, Gbps";
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "rate", UNITS, "10Mbps"))?;
    let mult: u64 = match unit {
        "bps" => 1,
        "kbps" | "Kbps" => 1_000,
        "Mbps" => 1_000_000,
        "Gbps" => 1_000_000_000,
        "" => return Err(format!("rate '{s}' has no unit; write e.g. \"{s}bps\" or \"10Mbps\"")),
        _ => return Err(unknown_unit(s, "rate ", unit, UNITS)),
    };
    if v.negative || v.is_zero() {
        return Err(format!("rate '{s}' must be positive, e.g. \"10Mbps\""));
    }
    match v.times(mult) {
        Some((bps, true)) if bps <= u128::from(u64::MAX) => Ok(bps as u64),
        Some((_, false)) => Err(format!("rate '{s}' must be a whole number of bits per second")),
        _ => Err(format!("rate '{s}' is too large (at most {}bps)", u64::MAX)),
    }
}

/// The longest time a scenario (or `ccsim bench`) may give, in picoseconds: half the
/// range of `SimTime`, about 106 days, so that a time plus a duration never overflows.
pub const MAX_TIME_PS: f64 = u64::MAX as f64 / 2.0;

/// Parses a time such as "2s", "100ms" or "1.5s". Must not be negative. Read exactly;
/// a part finer than a picosecond is rounded to the nearest one (halves up).
pub fn parse_time(s: &str) -> Result<SimDuration, String> {
    const UNITS: &str = "ps, ns, us, ms, s, min";
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "time", UNITS, "100ms"))?;
    let ps_per: u64 = match unit {
        "ps" => 1,
        "ns" => 1_000,
        "us" => 1_000_000,
        "ms" => 1_000_000_000,
        "s" => PS_PER_S,
        "min" => 60 * PS_PER_S,
        "" => return Err(format!("time '{s}' has no unit; write e.g. \"{s}s\" or \"{s}ms\"")),
        _ => return Err(unknown_unit(s, "time ", unit, UNITS)),
    };
    if v.negative && !v.is_zero() {
        return Err(format!("time '{s}' must not be negative"));
    }
    match v.times(ps_per) {
        Some((ps, _)) if ps <= MAX_TIME_PS as u128 => Ok(SimDuration::from_ps(ps as u64)),
        _ => Err(format!("time '{s}' is too large (at most about 100 days)")),
    }
}

/// Parses a size such as "1000B" or "1.5kB" into bytes. Must be positive.
pub fn parse_size(s: &str) -> Result<u64, String> {
    const UNITS: &str = "B, kB, MB";
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "size", UNITS, "1000B"))?;
    let mult: u64 = match unit {
        "B" => 1,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "" => return Err(format!("size '{s}' has no unit; write e.g. \"{s}B\"")),
        _ => return Err(unknown_unit(s, "size ", unit, UNITS)),
    };
    if v.negative || v.is_zero() {
        return Err(format!("size '{s}' must be positive, e.g. \"1000B\""));
    }
    match v.times(mult) {
        Some((_, false)) => Err(format!("size '{s}' must be a whole number of bytes")),
        Some((b, true)) if b <= u128::from(u32::MAX) => Ok(b as u64),
        _ => Err(format!("size '{s}' is too large")),
    }
}

/// Parses a packet count such as "40pkt". Must be positive.
pub fn parse_packets(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| need_unit(s, "packet count", "pkt", "40pkt"))?;
    match unit {
        "pkt" | "pkts" | "packets" => {}
        "" => return Err(format!("packet count '{s}' has no unit; write e.g. \"{s}pkt\"")),
        _ => return Err(format!("unknown unit '{unit}' in '{s}'; a packet count is written like \"40pkt\"")),
    }
    match v.times(1) {
        Some((n, true)) if !v.negative && n >= 1 && n <= u128::from(u64::MAX) => Ok(n as u64),
        _ => Err(format!("packet count '{s}' must be a whole number of at least 1")),
    }
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
        let v = Decimal::parse(num.trim()).ok_or_else(|| need_unit(s, "size", "bit, B, kB, MB", "1000B"))?;
        return match v.times(1) {
            Some((n, true)) if !v.negative && n >= 1 && n <= u128::from(u32::MAX) => Ok(n as u64),
            Some((n, true)) if !v.negative && n > u128::from(u32::MAX) => Err(format!("size '{s}' is too large")),
            _ => Err(format!("size '{s}' must be a whole number of bits, at least 1")),
        };
    }
    let b = parse_size(s)?;
    if b * 8 > u32::MAX as u64 {
        return Err(format!("size '{s}' is too large (at most 536870911B)"));
    }
    Ok(b * 8)
}

/// `value` in the largest of `units` (largest first, each `(name, multiple)`) that it
/// reaches, as the shortest exact decimal: 2052631579 in ps, ns, us, ms gives "2.052631579ms".
/// Zero is written in the last unit. Every multiple is a power of ten.
fn fmt_decimal(value: u64, units: &[(&str, u64)]) -> String {
    let &(unit, per) = units.iter().find(|&&(_, per)| value >= per).unwrap_or(&units[units.len() - 1]);
    let (whole, rest) = (value / per, value % per);
    if rest == 0 {
        return format!("{whole}{unit}");
    }
    let width = per.ilog10() as usize;
    let frac = format!("{rest:0width$}");
    format!("{whole}.{}{unit}", frac.trim_end_matches('0'))
}

/// Writes a time so that `parse_time` reads back exactly the same value: the shortest
/// exact decimal in the largest of s, ms, us, ns and ps it reaches ("2.052631579ms").
pub fn fmt_time(d: SimDuration) -> String {
    const UNITS: [(&str, u64); 5] =
        [("s", PS_PER_S), ("ms", 1_000_000_000), ("us", 1_000_000), ("ns", 1_000), ("ps", 1)];
    let ps = d.as_ps();
    if ps == 0 {
        return "0s".into();
    }
    fmt_decimal(ps, &UNITS)
}

/// Writes a rate so that `parse_rate` reads it back exactly: the shortest exact decimal
/// in the largest of Gbps, Mbps, kbps and bps it reaches ("1.5Mbps").
pub fn fmt_rate(bps: u64) -> String {
    fmt_decimal(bps, &[("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("kbps", 1_000), ("bps", 1)])
}

/// Writes a size in bytes so that `parse_size` reads it back exactly: the shortest exact
/// decimal in the largest of MB, kB and B it reaches ("1.5kB", "64kB", "40B").
pub fn fmt_size(bytes: u64) -> String {
    fmt_decimal(bytes, &[("MB", 1_000_000), ("kB", 1_000), ("B", 1)])
}

/// Writes a size in bits as bytes when whole (`fmt_size`: "1.5kB"), else as bits ("44bit").
pub fn fmt_bits(bits: u64) -> String {
    if bits % 8 == 0 {
        fmt_size(bits / 8)
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
            s.serialize_str(&fmt_size(u64::from(*v)))
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
                Some(v) => s.serialize_str(&fmt_size(*v)),
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
        assert_eq!(
            parse_rate("10mbps").unwrap_err(),
            "unknown rate unit 'mbps' in '10mbps' (did you mean \"10Mbps\"?); use one of bps, kbps, Mbps, Gbps"
        );
        assert!(parse_rate("10 Mbit").unwrap_err().contains("(did you mean \"10Mbps\"?)"));
        assert!(parse_time("20 MS").unwrap_err().contains("(did you mean \"20ms\"?)"));
        assert!(parse_time("1 msec").unwrap_err().contains("(did you mean \"1ms\"?)"));
        assert!(parse_rate("1Gb").unwrap_err().contains("(did you mean \"1Gbps\"?)"));
        assert!(parse_size("1kb").unwrap_err().contains("(did you mean \"1kB\"?)"));
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
        assert_eq!(fmt_time(SimDuration::from_millis(1500)), "1.5s");
        assert_eq!(fmt_rate(10_000_000), "10Mbps");
        assert_eq!(fmt_rate(1_500_000), "1.5Mbps");
        assert_eq!(fmt_bits(8000), "1kB");
        assert_eq!(fmt_bits(44), "44bit");
        assert_eq!(Limit::Packets(40).to_string(), "40pkt");
    }

    #[test]
    fn exact_decimals() {
        // 2.052631579 ms = 2.052631579 x 10^9 ps = 2052631579 ps (the access delay of a
        // dumbbell's RTT spread that to_toml() wrote as "2052631579ps").
        let d = SimDuration::from_ps(2_052_631_579);
        assert_eq!(parse_time("2.052631579ms"), Ok(d));
        assert_eq!(fmt_time(d), "2.052631579ms");
        // 2^53 + 1 ps has no f64; read exactly it is itself.
        assert_eq!(parse_time("9007199254740993ps"), Ok(SimDuration::from_ps(9_007_199_254_740_993)));
        assert_eq!(fmt_time(SimDuration::from_ps(9_007_199_254_740_993)), "9007.199254740993s");
        // Finer than a picosecond: to the nearest, halves up (1.0000000005 ms =
        // 1000000000.5 ps -> 1000000001 ps).
        assert_eq!(parse_time("0.5ps"), Ok(SimDuration::from_ps(1)));
        assert_eq!(parse_time("0.4999ps"), Ok(SimDuration::ZERO));
        assert_eq!(parse_time("1.0000000004ms"), Ok(SimDuration::from_ps(1_000_000_000)));
        assert_eq!(parse_time("1.0000000005ms"), Ok(SimDuration::from_ps(1_000_000_001)));
        // 1.5 min = 90 s; 0.1 s = 10^11 ps, which 0.1 x 10^12 in f64 is not exactly.
        assert_eq!(parse_time("1.5min"), Ok(SimDuration::from_secs(90)));
        assert_eq!(parse_time(".1s"), Ok(SimDuration::from_millis(100)));
        assert_eq!(parse_time("-0s"), Ok(SimDuration::ZERO));
        assert!(parse_time("-0.001ps").unwrap_err().contains("negative"));
        assert!(parse_time("1-2s").unwrap_err().contains("is not a time"));
        assert!(parse_time(".s").unwrap_err().contains("is not a time"));
        // 2^63 ps is the limit; one more is refused.
        assert!(parse_time("9223372036854775808ps").is_ok());
        assert!(parse_time("9223372036854775809ps").unwrap_err().contains("too large"));
        assert!(parse_time("1000000000000000000000000000000000000000s").unwrap_err().contains("too large"));
        assert_eq!(fmt_time(SimDuration::from_ps(7)), "7ps");
        assert_eq!(fmt_time(SimDuration::from_ps(1_000_000_001)), "1.000000001ms");
        assert_eq!(fmt_time(SimDuration::from_secs(600)), "600s");
        assert_eq!(fmt_time(SimDuration::ZERO), "0s");
        // Rates and sizes: whole bits and bytes, exactly.
        assert_eq!(parse_rate("1.000000001Gbps"), Ok(1_000_000_001));
        assert!(parse_rate("1.0000000001Gbps").unwrap_err().contains("whole number"));
        assert_eq!(parse_rate("18446744073709551615bps"), Ok(u64::MAX));
        assert!(parse_rate("18446744073709551616bps").unwrap_err().contains("too large"));
        assert_eq!(fmt_rate(1_000_000_001), "1.000000001Gbps");
        assert_eq!(fmt_rate(999), "999bps");
        assert_eq!(parse_size("1.5kB"), Ok(1500));
        assert!(parse_size("1.0001kB").unwrap_err().contains("whole number"));
        assert_eq!(fmt_size(1500), "1.5kB");
        assert_eq!(fmt_size(64_000), "64kB");
        assert_eq!(fmt_size(4_294_967_295), "4294.967295MB");
        assert_eq!(Limit::Bytes(64_000).to_string(), "64kB");
        assert_eq!(parse_packets("40pkt"), Ok(40));
        assert!(parse_packets("40.5pkt").is_err());
        assert!(parse_packets("-1pkt").is_err());
    }

    /// The number and unit of a formatted quantity.
    fn number_unit(text: &str) -> (&str, &str) {
        let at = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap();
        text.split_at(at)
    }

    /// Shortest: no trailing zero after the point; largest unit: the integer part is below
    /// 1000 unless the unit is the largest one.
    fn shortest_in_largest_unit(text: &str, largest: &str) -> bool {
        let (num, unit) = number_unit(text);
        let int: u64 = num.split('.').next().unwrap().parse().unwrap();
        let no_trailing_zero = !num.contains('.') || !num.ends_with('0') && !num.ends_with('.');
        no_trailing_zero && (unit == largest || int < 1000) && (int >= 1 || num == "0")
    }

    proptest::proptest! {
        #[test]
        fn every_time_formats_and_parses_back(ps in 0u64..=(1u64 << 63)) {
            let d = SimDuration::from_ps(ps);
            let text = fmt_time(d);
            proptest::prop_assert_eq!(parse_time(&text), Ok(d), "{}", text);
            proptest::prop_assert!(shortest_in_largest_unit(&text, "s"), "{}", text);
        }

        #[test]
        fn small_times_format_and_parse_back(ps in 0u64..10_000_000_000_000) {
            let d = SimDuration::from_ps(ps);
            let text = fmt_time(d);
            proptest::prop_assert_eq!(parse_time(&text), Ok(d), "{}", text);
            proptest::prop_assert!(shortest_in_largest_unit(&text, "s"), "{}", text);
        }

        #[test]
        fn every_rate_formats_and_parses_back(bps in 1u64..) {
            let text = fmt_rate(bps);
            proptest::prop_assert_eq!(parse_rate(&text), Ok(bps), "{}", text);
            proptest::prop_assert!(shortest_in_largest_unit(&text, "Gbps"), "{}", text);
        }

        #[test]
        fn every_size_formats_and_parses_back(bytes in 1u64..=u32::MAX as u64) {
            let text = fmt_size(bytes);
            proptest::prop_assert_eq!(parse_size(&text), Ok(bytes), "{}", text);
            proptest::prop_assert!(shortest_in_largest_unit(&text, "MB"), "{}", text);
            proptest::prop_assert_eq!(parse_limit(&Limit::Bytes(bytes).to_string()), Ok(Limit::Bytes(bytes)));
        }

        #[test]
        fn every_packet_size_formats_and_parses_back(bits in 1u64..=u32::MAX as u64) {
            let text = fmt_bits(bits);
            proptest::prop_assert_eq!(parse_bits(&text), Ok(bits), "{}", text);
        }
    }
}
