//! Parsing of quantities written with units in scenario files: "10Mbps", "2s", "1000B",
//! "40pkt". Bare numbers are rejected so that a missing unit is never guessed.

use crate::time::{SimDuration, PS_PER_S};

/// A buffer limit: a count of packets or a number of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
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
    if ps > u64::MAX as f64 / 2.0 {
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
}
