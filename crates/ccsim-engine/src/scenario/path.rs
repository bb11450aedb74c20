//! `NodePath`: a flow's route as node indices (`Flow::path`, `Flow::ack_path`), kept
//! inline up to `NodePath::INLINE` nodes. A dumbbell's route (host, router, router,
//! host) takes no heap block of its own; a longer route takes one, as a `Vec` would. At
//! 10^6 flows a `Vec<usize>` of four nodes was 24 bytes plus a 48-byte heap block per
//! route, two routes per flow; a `NodePath` of up to four nodes is 40 bytes.
//!
//! It reads as a `[usize]` (`Deref`), compares as its nodes, and serialises as a list
//! of integers, as the `Vec<usize>` it replaces did.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::Deref;

/// Node indices from a flow's first node to its last, inline up to `INLINE` nodes.
#[derive(Clone)]
pub struct NodePath(Repr);

#[derive(Clone)]
enum Repr {
    /// The nodes are `nodes[..len]`.
    Inline {
        len: u8,
        nodes: [usize; NodePath::INLINE],
    },
    Heap(Box<[usize]>),
}

impl NodePath {
    /// The most nodes kept inline (a dumbbell's route: host, router, router, host).
    pub const INLINE: usize = 4;

    pub fn new(nodes: &[usize]) -> Self {
        if nodes.len() <= Self::INLINE {
            let mut inline = [0; Self::INLINE];
            inline[..nodes.len()].copy_from_slice(nodes);
            NodePath(Repr::Inline { len: nodes.len() as u8, nodes: inline })
        } else {
            NodePath(Repr::Heap(nodes.into()))
        }
    }

    pub fn as_slice(&self) -> &[usize] {
        match &self.0 {
            Repr::Inline { len, nodes } => &nodes[..*len as usize],
            Repr::Heap(v) => v,
        }
    }

    /// Whether the route takes a heap block of its own (more than `INLINE` nodes).
    pub fn on_heap(&self) -> bool {
        matches!(self.0, Repr::Heap(_))
    }
}

impl Default for NodePath {
    fn default() -> Self {
        NodePath::new(&[])
    }
}

impl Deref for NodePath {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl AsRef<[usize]> for NodePath {
    fn as_ref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl From<&[usize]> for NodePath {
    fn from(v: &[usize]) -> Self {
        NodePath::new(v)
    }
}

impl From<Vec<usize>> for NodePath {
    fn from(v: Vec<usize>) -> Self {
        if v.len() <= Self::INLINE {
            NodePath::new(&v)
        } else {
            NodePath(Repr::Heap(v.into_boxed_slice()))
        }
    }
}

impl FromIterator<usize> for NodePath {
    fn from_iter<I: IntoIterator<Item = usize>>(it: I) -> Self {
        let mut nodes = [0; Self::INLINE];
        let mut it = it.into_iter();
        for len in 0..=Self::INLINE {
            match it.next() {
                None => return NodePath(Repr::Inline { len: len as u8, nodes }),
                Some(n) if len < Self::INLINE => nodes[len] = n,
                Some(n) => {
                    let mut v = nodes.to_vec();
                    v.push(n);
                    v.extend(it);
                    return NodePath(Repr::Heap(v.into_boxed_slice()));
                }
            }
        }
        unreachable!("the loop returns by its last pass")
    }
}

impl<'a> IntoIterator for &'a NodePath {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for NodePath {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for NodePath {}

impl PartialEq<Vec<usize>> for NodePath {
    fn eq(&self, other: &Vec<usize>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<[usize]> for NodePath {
    fn eq(&self, other: &[usize]) -> bool {
        self.as_slice() == other
    }
}

impl fmt::Debug for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl Serialize for NodePath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de> Deserialize<'de> for NodePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<usize>::deserialize(d).map(NodePath::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_its_nodes_inline_up_to_four() {
        // A one-byte length and four 8-byte nodes, aligned to 8: 40 bytes.
        assert_eq!(std::mem::size_of::<NodePath>(), 40);
        for (nodes, heap) in [(vec![], false), (vec![3, 0, 1, 7], false), (vec![5, 4, 3, 2, 1], true)] {
            for p in [NodePath::new(&nodes), NodePath::from(nodes.clone()), nodes.iter().copied().collect::<NodePath>()]
            {
                assert_eq!(p.as_slice(), &nodes[..]);
                assert_eq!(p.on_heap(), heap, "{nodes:?}");
                assert_eq!(p, nodes);
                assert_eq!(format!("{p:?}"), format!("{nodes:?}"));
                let json = serde_json::to_string(&p).unwrap();
                assert_eq!(json, serde_json::to_string(&nodes).unwrap());
                assert_eq!(serde_json::from_str::<NodePath>(&json).unwrap(), p);
            }
        }
        let p = NodePath::new(&[1, 2, 3]);
        assert_eq!(p.iter().rev().copied().collect::<NodePath>(), vec![3, 2, 1]);
        assert_eq!(p.windows(2).count(), 2);
    }
}
