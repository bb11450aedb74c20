//! `--set KEY=VALUE` overrides applied to the parsed TOML document before validation.
//!
//! KEY is a dotted path; array elements are addressed by their `name` (links also by
//! their default name "a-b") or by index. VALUE is a TOML value when it parses as one,
//! else a string.

use super::ScenarioError;
use toml::Value;

fn element_name(v: &Value) -> Option<String> {
    let t = v.as_table()?;
    if let Some(n) = t.get("name").and_then(Value::as_str) {
        return Some(n.to_string());
    }
    let b = t.get("between")?.as_array()?;
    Some(format!("{}-{}", b.first()?.as_str()?, b.get(1)?.as_str()?))
}

fn parse_value(s: &str) -> Value {
    let doc = format!("v = {s}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| Value::String(s.to_string())),
        Err(_) => Value::String(s.to_string()),
    }
}

/// The most parts a `--set` key may have. The deepest field of the format is four parts
/// down (`flows.ftp1.params.beta`); a longer key would only build nested tables, and
/// thousands of parts nest deep enough to overflow the stack when the document is read.
const MAX_KEY_PARTS: usize = 16;

/// A key as named in an error: its first 60 characters when it is longer.
fn shown(key: &str) -> String {
    match key.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &key[..i]),
        None => key.to_string(),
    }
}

pub fn apply_overrides(root: &mut toml::Table, overrides: &[String], source: &str) -> Result<(), ScenarioError> {
    for o in overrides {
        let err = |field: &str, msg: String| ScenarioError::new(source, format!("--set {}", shown(field)), msg);
        let Some((key, value)) = o.split_once('=') else {
            return Err(err(o, "expected KEY=VALUE, e.g. --set defaults.qdisc=fq".into()));
        };
        let key = key.trim();
        let segs: Vec<&str> = key.split('.').collect();
        if key.is_empty() || segs.iter().any(|s| s.is_empty()) {
            return Err(err(key, "the key is empty or has an empty part; write e.g. flows.ftp1.cc".into()));
        }
        if segs.len() > MAX_KEY_PARTS {
            let n = segs.len();
            return Err(err(key, format!("the key has {n} parts, more than any field (at most {MAX_KEY_PARTS}); write e.g. flows.ftp1.params.beta")));
        }
        let mut doc = Value::Table(std::mem::take(root));
        let res = set_one(&mut doc, &segs, parse_value(value.trim())).map_err(|m| err(key, m));
        *root = match doc {
            Value::Table(t) => t,
            _ => unreachable!("the document root is a table"),
        };
        res?;
    }
    Ok(())
}

/// Sets the value at `segs` below `doc`, creating missing tables on the way.
fn set_one(doc: &mut Value, segs: &[&str], value: Value) -> Result<(), String> {
    let mut cur = doc;
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let here = || if i == 0 { "the file".to_string() } else { format!("'{}'", segs[..i].join(".")) };
        match cur {
            Value::Table(t) => {
                if last {
                    t.insert(seg.to_string(), value);
                    return Ok(());
                }
                cur = t.entry(seg.to_string()).or_insert_with(|| Value::Table(toml::Table::new()));
            }
            Value::Array(a) => {
                let idx = match seg.parse::<usize>() {
                    Ok(n) => (n < a.len()).then_some(n),
                    Err(_) => a.iter().position(|v| element_name(v).as_deref() == Some(seg)),
                };
                let Some(idx) = idx else {
                    let names: Vec<String> = a.iter().filter_map(element_name).collect();
                    let hint = crate::base::suggest::nearest(seg, names.iter().map(String::as_str))
                        .map(|n| format!(" (did you mean '{n}'?)"))
                        .unwrap_or_default();
                    return Err(format!("{} has no element named '{seg}'{hint}; known: {}", here(), names.join(", ")));
                };
                if last {
                    return Err(format!("cannot replace a whole element of {}; set one of its fields", here()));
                }
                cur = &mut a[idx];
            }
            _ => return Err(format!("{} is a single value, not a section", here())),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> toml::Table {
        r#"
        [scenario]
        duration = "1s"
        [[links]]
        between = ["a", "b"]
        [[links]]
        name = "neck"
        between = ["b", "c"]
        [[flows]]
        name = "f1"
        cc = "reno"
        "#
        .parse()
        .unwrap()
    }

    #[test]
    fn sets_by_name_index_and_creates_sections() {
        let mut t = doc();
        let o: Vec<String> =
            ["flows.f1.cc=tahoe", "links.a-b.rate=1Mbps", "links.1.delay=2s", "defaults.qdisc=fq", "scenario.seed=7"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        apply_overrides(&mut t, &o, "x.toml").unwrap();
        assert_eq!(t["flows"][0]["cc"].as_str(), Some("tahoe"));
        assert_eq!(t["links"][0]["rate"].as_str(), Some("1Mbps"));
        assert_eq!(t["links"][1]["delay"].as_str(), Some("2s"));
        assert_eq!(t["defaults"]["qdisc"].as_str(), Some("fq"));
        assert_eq!(t["scenario"]["seed"].as_integer(), Some(7));
    }

    #[test]
    fn unknown_element_and_bad_syntax_are_errors_naming_the_key() {
        let mut t = doc();
        let e = apply_overrides(&mut t, &["flows.f9.cc=reno".into()], "x.toml").unwrap_err();
        assert_eq!(e.field, "--set flows.f9.cc");
        assert!(e.message.contains("no element named 'f9'"), "{}", e.message);
        let e = apply_overrides(&mut t, &["flows.f1.cc".into()], "x.toml").unwrap_err();
        assert!(e.message.contains("KEY=VALUE"));
        let e = apply_overrides(&mut t, &["scenario.duration.x=1".into()], "x.toml").unwrap_err();
        assert!(e.message.contains("single value"));
    }

    #[test]
    fn a_key_of_thousands_of_parts_is_an_error_not_a_stack_overflow() {
        // `flows.f1.params.x.x...` with 5000 parts used to nest 5000 tables, and reading
        // the document overflowed the stack (a segfault); 100000 parts took a minute.
        let mut t = doc();
        let key = format!("flows.f1.params{}", ".x".repeat(100_000));
        let e = apply_overrides(&mut t, &[format!("{key}=1")], "x.toml").unwrap_err();
        assert!(e.message.contains("100003 parts"), "{}", e.message);
        assert!(e.field.len() < 80, "{}", e.field);
        let ok = format!("flows.f1.params{}", ".x".repeat(MAX_KEY_PARTS - 3));
        apply_overrides(&mut t, &[format!("{ok}=1")], "x.toml").unwrap();
    }
}
