//! "Did you mean": the name a misspelt one was meant to be, for error messages. A name
//! equal but for case is taken first ("Reno" -> "reno"); else the closest by optimal
//! string alignment distance (Levenshtein's insertions, deletions and substitutions plus
//! the swap of two neighbours, each one edit; Damerau's restricted form), within 2 edits.

/// The candidate `name` was meant to be: one equal but for case ("Reno" -> "reno"), else
/// the closest by edit distance (ignoring case; a swap of two neighbours is one edit), if
/// it is within 2 edits, or 1 for a name of up to four characters (so neither "bic" nor
/// "tcp" suggests anything).
pub fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str> + Clone) -> Option<&'a str> {
    // A name that differs only in case ("Reno", "FQ") is the one meant.
    if let Some(c) = candidates.clone().find(|c| c.eq_ignore_ascii_case(name)) {
        return Some(c);
    }
    // Optimal string alignment distance: Levenshtein's edits plus the swap of two
    // adjacent characters ("dealy" -> "delay"), each costing one.
    let distance = |a: &str, b: &str| {
        let a: Vec<char> = a.to_lowercase().chars().collect();
        let b: Vec<char> = b.to_lowercase().chars().collect();
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for j in 0..=b.len() {
            d[0][j] = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        d[a.len()][b.len()]
    };
    // Two edits from a name of up to four letters is most of it ("tcp" is not "rap").
    let limit = if name.chars().count() <= 4 { 1 } else { 2 };
    candidates.map(|c| (distance(name, c), c)).filter(|&(d, _)| d <= limit).min_by_key(|&(d, _)| d).map(|(_, c)| c)
}

/// serde's "unknown field `dealy`, expected one of `delay`, ..." (or "unknown variant")
/// with " (did you mean `delay`?)" after the name when one of those expected is near it.
pub fn with_serde_hint(msg: &str) -> String {
    if !(msg.starts_with("unknown field `") || msg.starts_with("unknown variant `")) {
        return msg.to_string();
    }
    let quoted: Vec<&str> = msg.split('`').skip(1).step_by(2).collect();
    let Some((name, expected)) = quoted.split_first() else { return msg.to_string() };
    let Some(hint) = nearest(name, expected.iter().copied()) else { return msg.to_string() };
    let at = msg.find('`').unwrap_or(0) + name.len() + 2;
    format!("{} (did you mean `{hint}`?){}", &msg[..at], &msg[at..])
}

/// A message "unknown <what> 'X'...; use "a" (...) or "b"" with " (did you mean "a"?)"
/// after 'X' when one of the quoted choices after "; use" is near X. Other messages, and
/// those that already suggest, are returned as they are.
pub fn with_value_hint(msg: &str) -> String {
    let keep = || msg.to_string();
    if !msg.starts_with("unknown ") || msg.contains("did you mean") {
        return keep();
    }
    let Some((head, choices)) = msg.split_once("; use ") else { return keep() };
    let Some(open) = head.find('\'') else { return keep() };
    let Some(len) = head[open + 1..].find('\'') else { return keep() };
    let name = &head[open + 1..open + 1 + len];
    let quoted: Vec<&str> = choices.split('"').skip(1).step_by(2).collect();
    let Some(hint) = nearest(name, quoted.into_iter()) else { return keep() };
    let at = open + len + 2;
    format!("{} (did you mean \"{hint}\"?){}", &msg[..at], &msg[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_first_then_the_fewest_edits() {
        let names = ["reno", "newreno", "cubic", "delay_aimd"];
        let near = |n: &str| nearest(n, names.iter().copied());
        assert_eq!(near("Reno"), Some("reno"));
        assert_eq!(near("NEWRENO"), Some("newreno"));
        // "cbuic": one swap (OSA distance 1; Levenshtein's 2).
        assert_eq!(near("cbuic"), Some("cubic"));
        assert_eq!(near("renoo"), Some("reno"));
        // 3 edits from every name; "rno" is one from "reno", "tcp" two from "rap".
        assert_eq!(near("vegas"), None);
        assert_eq!(near("rno"), Some("reno"));
        assert_eq!(nearest("tcp", ["window", "rap", "tfrc"].into_iter()), None);
    }

    #[test]
    fn serde_and_value_messages_gain_the_hint_after_the_name() {
        assert_eq!(
            with_serde_hint("unknown field `dealy`, expected one of `rate`, `delay`"),
            "unknown field `dealy` (did you mean `delay`?), expected one of `rate`, `delay`"
        );
        assert_eq!(
            with_serde_hint("unknown variant `Keep`, expected `keep` or `clear`"),
            "unknown variant `Keep` (did you mean `keep`?), expected `keep` or `clear`"
        );
        let far = "unknown field `colour`, expected one of `rate`, `delay`";
        assert_eq!(with_serde_hint(far), far);
        assert_eq!(
            with_value_hint("unknown pattern 'uniforn'; use \"uniform\", \"permutation\" or \"all_to_one\""),
            "unknown pattern 'uniforn' (did you mean \"uniform\"?); use \"uniform\", \"permutation\" or \"all_to_one\""
        );
        let other = "unknown node 'x'; declare it in [nodes]";
        assert_eq!(with_value_hint(other), other);
    }
}
