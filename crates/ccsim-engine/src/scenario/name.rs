//! `Name`: the name of a node, a link or a flow of a scenario, a string that keeps a
//! short name inline. A name of up to `Name::INLINE` bytes (every name the bench and
//! the topology builders write, and most names people write) takes no heap block of its
//! own; a longer one takes one, as a `String` would. At 10^6 flows the scenario holds
//! five names per flow (the flow's, two hosts', two access links'): a `String` each is
//! 24 bytes plus a 32-byte heap block. A `Name` is the 24 bytes alone.
//!
//! It reads as a `str` (`Deref`, `as_str`), compares, orders and hashes as its text,
//! and serialises as a plain string, so the scenario format and every output are those
//! of a `String`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// A name of a scenario: a string, kept inline up to `Name::INLINE` bytes.
#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    /// The text is `bytes[..len]`, valid UTF-8 (it was a `str`).
    Inline {
        len: u8,
        bytes: [u8; Name::INLINE],
    },
    Heap(Box<str>),
}

impl Name {
    /// The longest name kept inline, in bytes (with the length byte and the variant's
    /// tag, a `Name` is 24 bytes, the size of a `String`).
    pub const INLINE: usize = 22;

    pub fn new(s: &str) -> Self {
        if s.len() <= Self::INLINE {
            let mut bytes = [0u8; Self::INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Name(Repr::Inline { len: s.len() as u8, bytes })
        } else {
            Name(Repr::Heap(s.into()))
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..*len as usize]).expect("an inline name holds the bytes of a str")
            }
            Repr::Heap(s) => s,
        }
    }

    /// Whether the name takes a heap block of its own (longer than `INLINE` bytes).
    pub fn on_heap(&self) -> bool {
        matches!(self.0, Repr::Heap(_))
    }
}

impl Default for Name {
    fn default() -> Self {
        Name::new("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        if s.len() <= Self::INLINE {
            Name::new(&s)
        } else {
            Name(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Self {
        Name::new(s)
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.as_str().to_string()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Name::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_its_text_inline_up_to_22_bytes_and_the_size_of_a_string() {
        assert_eq!(std::mem::size_of::<Name>(), std::mem::size_of::<String>());
        assert_eq!(std::mem::size_of::<Name>(), 24);
        // 22 bytes inline, 23 on the heap; multi-byte characters count by their bytes
        // ("é" is 2 bytes: 11 of them are 22 bytes).
        for (s, heap) in [
            ("", false),
            ("f0", false),
            ("s999999-left", false),
            ("abcdefghijklmnopqrstuv", false),
            ("abcdefghijklmnopqrstuvw", true),
            ("ééééééééééé", false),
            ("éééééééééééé", true),
        ] {
            for n in [Name::new(s), Name::from(s.to_string())] {
                assert_eq!(n.as_str(), s);
                assert_eq!(n.on_heap(), heap, "{s}");
                assert_eq!(n, s);
                assert_eq!(n.to_string(), s);
                assert_eq!(format!("{n:?}"), format!("{s:?}"));
                assert_eq!(serde_json::to_string(&n).unwrap(), serde_json::to_string(s).unwrap());
                assert_eq!(serde_json::from_str::<Name>(&serde_json::to_string(s).unwrap()).unwrap(), n);
            }
        }
        // Ordered and hashed by the text, inline or not.
        let (short, long) = (Name::new("b"), Name::new("abcdefghijklmnopqrstuvwxyz"));
        assert!(long < short);
        let set: std::collections::HashSet<Name> = [short.clone(), long.clone()].into_iter().collect();
        assert!(set.contains("b") && set.contains("abcdefghijklmnopqrstuvwxyz") && !set.contains("a"));
    }
}
