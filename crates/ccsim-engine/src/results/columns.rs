//! Results as columns (struct of arrays): what the Python binding hands over instead of
//! one JSON string.
//!
//! Every table of the results JSON (flows, links, nodes, the flow and link rows of phases
//! and intervals, series points) becomes one `Column` per JSON key, in the JSON's key
//! order; nested objects become one column per key named `a.b`
//! (`drops_by_reason.overflow`). The scalars (`ccsim_version` ... `events`) stay a small
//! JSON object, as do the few values with no fixed shape (a channel's `elements` and
//! `rate_history`, sparse: only rows where they are not empty). The JSON export
//! (`Results::to_json`) is unchanged; `python/ccsim/results.py` rebuilds the same JSON
//! from these columns (tests/test_columns.py compares the two).
//!
//! Strings: a column of few distinct values (`kind`, `cc`, `qdisc`) carries its own small
//! dictionary (`Column::Str`); names refer by code to a dictionary the columns share
//! (`Column::Ref` into `Columns::dicts`): node names (the `from` and `to` of flows and
//! channels are node ids), flow names, link names (channel `i` belongs to link `i / 2`)
//! and channel names ("from->to", written straight into one NUL-joined text). Built from
//! a simulation, the columns allocate no string per row.
//!
//! The columns of each row type come from its one declaration in `results/mod.rs`
//! (`record!`): `Record::write_columns` writes one column per field in field order, each
//! through its type's `ColumnValue`.
//!
//! Null: serde_json writes a non-finite `f64` and `None` both as `null`, so an `F64`
//! column holds `NaN` for both; integers that may be absent carry a validity mask.

pub use super::Meta;
use super::{
    flow_cc, flow_numbers, link_numbers, node_numbers, DropsByReason, FlowResult, LinkResult, NodeResult, PhaseFlow,
    PhaseLink, PhaseResult, RateChange, Results,
};
use crate::base::time::SimTime;
use crate::base::trace::Series;
use crate::net::Channel;
use crate::qdisc::DropReason;
use crate::sim::Simulation;
use std::mem::take;

/// One column of a table; every column of a table has the table's number of rows.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    /// `NaN` where the JSON has `null` (`None`, or a non-finite value).
    F64(Vec<f64>),
    /// Values and validity (1 = present, 0 = `null`; the value is then 0).
    OptU64(Vec<u64>, Vec<u8>),
    Bool(Vec<u8>),
    /// Dictionary-encoded strings: row `i` is `dict[codes[i]]`, or `null` for
    /// `u32::MAX`.
    Str {
        dict: Vec<String>,
        codes: Vec<u32>,
    },
    /// Strings from a dictionary the columns share: row `i` is
    /// `Columns::dicts[dict][codes[i]]`, or `null` for `u32::MAX`.
    Ref {
        dict: usize,
        codes: Vec<u32>,
    },
    /// A list of floats per row (or `null`): row `i` is
    /// `values[offsets[i]..offsets[i + 1]]` where `valid[i]` is 1.
    ListF64 {
        offsets: Vec<u64>,
        values: Vec<f64>,
        valid: Vec<u8>,
    },
    /// Any JSON per row, sparse: (row, value) for rows whose value differs from `empty`
    /// (`elements`, `rate_history`: usually empty lists).
    Json {
        empty: serde_json::Value,
        rows: Vec<(u64, serde_json::Value)>,
    },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::OptU64(v, _) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str { codes, .. } | Column::Ref { codes, .. } => codes.len(),
            Column::ListF64 { valid, .. } => valid.len(),
            Column::Json { .. } => usize::MAX,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Heap bytes of the column's data (strings counted by their length).
    pub fn bytes(&self) -> usize {
        match self {
            Column::U64(v) => v.len() * 8,
            Column::F64(v) => v.len() * 8,
            Column::OptU64(v, m) => v.len() * 8 + m.len(),
            Column::Bool(v) => v.len(),
            Column::Str { dict, codes } => dict.iter().map(|s| s.len()).sum::<usize>() + codes.len() * 4,
            Column::Ref { codes, .. } => codes.len() * 4,
            Column::ListF64 { offsets, values, valid } => offsets.len() * 8 + values.len() * 8 + valid.len(),
            Column::Json { rows, .. } => rows.iter().map(|(_, v)| v.to_string().len() + 8).sum(),
        }
    }
}

/// A dictionary of strings that columns share (`Column::Ref`).
#[derive(Clone, Debug, PartialEq)]
pub enum Dict {
    /// `count` strings joined by NUL into `text` (none of them holds a NUL).
    Joined { count: usize, text: String },
    /// The strings, when one of them holds a NUL.
    List(Vec<String>),
}

impl Dict {
    /// The `n` strings `strs`, joined (or listed if one of them holds a NUL). One pass
    /// over the strings (at 10^5 flows they are scattered over the heap): a NUL in one
    /// of them shows as more NULs in the text than the `n - 1` separators.
    fn of<'a>(n: usize, strs: impl Iterator<Item = &'a str> + Clone) -> Dict {
        let mut text = String::new();
        for (i, s) in strs.clone().enumerate() {
            if i > 0 {
                text.push('\0');
            }
            text.push_str(s);
        }
        if nuls(&text) != n.saturating_sub(1) {
            return Dict::List(strs.map(str::to_string).collect());
        }
        Dict::Joined { count: n, text }
    }

    /// The channels' names, "from->to", written into one text: no string per channel.
    /// `ends`: each channel's (from, to) node ids; the node names are copied from their
    /// joined text (`node_dict`), contiguous, rather than from each node's own string.
    fn channel_names(node_dict: &Dict, ends: &[(u32, u32)]) -> Dict {
        let text = match node_dict {
            Dict::List(nodes) => {
                return Dict::List(
                    ends.iter().map(|&(f, t)| [&nodes[f as usize], "->", &nodes[t as usize]].concat()).collect(),
                )
            }
            Dict::Joined { text, .. } => text,
        };
        // Node i's name is text[start[i]..start[i + 1] - 1] (the separator dropped).
        let mut start: Vec<usize> = Vec::with_capacity(node_dict.len() + 1);
        start.push(0);
        start.extend(text.bytes().enumerate().filter(|&(_, b)| b == 0).map(|(i, _)| i + 1));
        start.push(text.len() + 1);
        let name = |i: u32| &text[start[i as usize]..start[i as usize + 1] - 1];
        let len: usize = ends.iter().map(|&(f, t)| name(f).len() + name(t).len() + 3).sum();
        let mut out = String::with_capacity(len);
        for (i, &(f, t)) in ends.iter().enumerate() {
            if i > 0 {
                out.push('\0');
            }
            out.push_str(name(f));
            out.push_str("->");
            out.push_str(name(t));
        }
        Dict::Joined { count: ends.len(), text: out }
    }

    pub fn len(&self) -> usize {
        match self {
            Dict::Joined { count, .. } => *count,
            Dict::List(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The strings, in order.
    pub fn strings(&self) -> Vec<&str> {
        match self {
            Dict::Joined { count: 0, .. } => Vec::new(),
            Dict::Joined { text, .. } => text.split('\0').collect(),
            Dict::List(v) => v.iter().map(String::as_str).collect(),
        }
    }

    /// The index of the first string equal to `s` (no list of the strings is made: a
    /// million channels' names would take 64 MB of `&str`).
    pub fn position(&self, s: &str) -> Option<usize> {
        match self {
            Dict::Joined { count: 0, .. } => None,
            Dict::Joined { text, .. } => text.split('\0').position(|d| d == s),
            Dict::List(v) => v.iter().position(|d| d == s),
        }
    }

    pub fn bytes(&self) -> usize {
        match self {
            Dict::Joined { text, .. } => text.len(),
            Dict::List(v) => v.iter().map(|s| s.len()).sum(),
        }
    }
}

/// The shared dictionaries of columns built from a simulation, by index in
/// `Columns::dicts`.
pub const NODE_NAMES: usize = 0;
pub const FLOW_NAMES: usize = 1;
pub const LINK_NAMES: usize = 2;
pub const CHANNEL_NAMES: usize = 3;

/// The NUL bytes of `text`.
fn nuls(text: &str) -> usize {
    text.bytes().filter(|&b| b == 0).count()
}

/// The shared dictionaries (in the order of `NODE_NAMES` ... `CHANNEL_NAMES`); `ends`:
/// each channel's (from, to). (`into_results_columns` builds the same four in steps.)
fn dicts(sc: &crate::scenario::Scenario, ends: &[(u32, u32)]) -> Vec<Dict> {
    let node_dict = Dict::of(sc.nodes.len(), sc.nodes.iter().map(|n| n.name.as_str()));
    let channel_dict = Dict::channel_names(&node_dict, ends);
    let flow_dict = Dict::of(sc.flows.len(), sc.flows.iter().map(|f| f.name.as_str()));
    let link_dict = Dict::of(sc.links.len(), sc.links.iter().map(|l| l.name.as_str()));
    vec![node_dict, flow_dict, link_dict, channel_dict]
}

/// Codes `0, 1, ..., n - 1`, each repeated for every period (`rows` in all).
fn row_codes(rows: usize, n: usize) -> Vec<u32> {
    (0..rows).map(|r| (r % n.max(1)) as u32).collect()
}

/// Strings of few distinct values (kinds, disciplines), borrowed: each distinct value is
/// copied once into the column's dictionary.
fn few_strs<'a>(rows: usize, v: impl Iterator<Item = Option<&'a str>>) -> Column {
    let mut dict: Vec<String> = Vec::new();
    let mut codes = Vec::with_capacity(rows);
    for s in v {
        codes.push(match s {
            None => u32::MAX,
            Some(s) => match dict.iter().position(|d| d == s) {
                Some(c) => c as u32,
                None => {
                    dict.push(s.to_string());
                    (dict.len() - 1) as u32
                }
            },
        });
    }
    Column::Str { dict, codes }
}

/// A table: named columns in the JSON's key order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub rows: usize,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    fn new(rows: usize) -> Self {
        Table { rows, columns: Vec::new() }
    }
    /// A writer that adds whole columns of `rows` rows after the table's columns.
    fn writer(&mut self) -> Writer<'_> {
        self.writer_leaving(&[])
    }
    /// `writer`, leaving the columns named in `later` empty for the caller to set.
    fn writer_leaving<'a>(&'a mut self, later: &'a [&'a str]) -> Writer<'a> {
        Writer { next: self.columns.len(), base: 0, total: self.rows, later, t: self }
    }
    /// A writer of the next batch of rows of a table that will have `total` rows: it
    /// creates the columns at the first batch and extends them at the others (`chunked`).
    fn batch_writer<'a>(&'a mut self, total: usize, later: &'a [&'a str]) -> Writer<'a> {
        Writer { next: 0, base: self.rows, total, later, t: self }
    }
    /// Replaces column `name`, keeping its place.
    fn set(&mut self, name: &str, c: Column) {
        assert_eq!(c.len(), self.rows, "column {name}");
        let slot = self.columns.iter_mut().find(|(n, _)| n == name).expect("the column to replace exists");
        slot.1 = c;
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    pub fn bytes(&self) -> usize {
        self.columns.iter().map(|(n, c)| n.len() + c.bytes()).sum()
    }
}

/// Writes a table's columns in their order, a batch of rows at a time: a call for a
/// column the table does not have yet creates it (with room for `total` rows), a call for
/// one it has extends it (`chunked`: the rows of one chunk go straight into the table's
/// columns, no table per chunk to copy from). Columns named in `later` are left empty:
/// their caller sets them whole afterwards (`Table::set`), so the chunks do not encode
/// strings that would be thrown away.
pub(crate) struct Writer<'a> {
    t: &'a mut Table,
    /// The index of the next column written.
    next: usize,
    /// The table's rows before this batch (the row numbers of `Json` columns).
    base: usize,
    total: usize,
    later: &'a [&'a str],
}

impl Writer<'_> {
    /// The next column, created by `new(total)` if the table does not have it; `None`
    /// for a column left for later.
    fn col(&mut self, name: &str, new: impl FnOnce(usize) -> Column) -> Option<&mut Column> {
        let k = self.next;
        self.next += 1;
        let later = self.later.contains(&name);
        if k == self.t.columns.len() {
            let c = if later { Column::Ref { dict: usize::MAX, codes: Vec::new() } } else { new(self.total) };
            self.t.columns.push((name.to_string(), c));
        }
        debug_assert_eq!(self.t.columns[k].0, name, "columns written in another order");
        (!later).then(|| &mut self.t.columns[k].1)
    }
    fn u64(&mut self, name: &str, v: impl Iterator<Item = u64>) {
        match self.col(name, |n| Column::U64(Vec::with_capacity(n))) {
            Some(Column::U64(x)) => x.extend(v),
            None => {}
            Some(c) => unreachable!("column {name} is {c:?}"),
        }
    }
    fn f64(&mut self, name: &str, v: impl Iterator<Item = f64>) {
        match self.col(name, |n| Column::F64(Vec::with_capacity(n))) {
            Some(Column::F64(x)) => x.extend(v.map(nan_if_not_finite)),
            None => {}
            Some(c) => unreachable!("column {name} is {c:?}"),
        }
    }
    fn opt_f64(&mut self, name: &str, v: impl Iterator<Item = Option<f64>>) {
        self.f64(name, v.map(|x| x.unwrap_or(f64::NAN)));
    }
    fn opt_u64(&mut self, name: &str, v: impl Iterator<Item = Option<u64>>) {
        match self.col(name, |n| Column::OptU64(Vec::with_capacity(n), Vec::with_capacity(n))) {
            Some(Column::OptU64(vals, valid)) => {
                for x in v {
                    vals.push(x.unwrap_or(0));
                    valid.push(x.is_some() as u8);
                }
            }
            None => {}
            Some(c) => unreachable!("column {name} is {c:?}"),
        }
    }
    fn bool(&mut self, name: &str, v: impl Iterator<Item = bool>) {
        match self.col(name, |n| Column::Bool(Vec::with_capacity(n))) {
            Some(Column::Bool(x)) => x.extend(v.map(|b| b as u8)),
            None => {}
            Some(c) => unreachable!("column {name} is {c:?}"),
        }
    }
    /// Strings, dictionary-encoded: a value equal to one of the last `RECENT` distinct
    /// values of this batch gets its code, any other a new dictionary entry (so the
    /// dictionary may repeat a value; codes still decode right). Few distinct values
    /// (kinds, cc, disciplines) cost a few entries; names cost one entry each, with no
    /// hashing. The strings are moved in, not copied.
    fn str(&mut self, name: &str, v: impl Iterator<Item = Option<String>>) {
        const RECENT: usize = 8;
        let Some(col) = self.col(name, |n| Column::Str { dict: Vec::new(), codes: Vec::with_capacity(n) }) else {
            return;
        };
        let Column::Str { dict, codes } = col else { unreachable!("column {name} is {col:?}") };
        let mut recent: [u32; RECENT] = [u32::MAX; RECENT];
        let mut next = 0;
        for s in v {
            codes.push(match s {
                None => u32::MAX,
                Some(s) => match recent.iter().find(|&&c| c != u32::MAX && dict[c as usize] == s) {
                    Some(&c) => c,
                    None => {
                        dict.push(s);
                        let c = (dict.len() - 1) as u32;
                        recent[next] = c;
                        next = (next + 1) % RECENT;
                        c
                    }
                },
            });
        }
    }
    fn json(&mut self, name: &str, empty: serde_json::Value, v: impl Iterator<Item = serde_json::Value>) {
        let base = self.base as u64;
        let e = empty.clone();
        match self.col(name, move |_| Column::Json { empty: e, rows: Vec::new() }) {
            Some(Column::Json { rows, .. }) => {
                rows.extend(v.enumerate().filter(|(_, x)| *x != empty).map(|(i, x)| (base + i as u64, x)))
            }
            None => {}
            Some(c) => unreachable!("column {name} is {c:?}"),
        }
    }
    /// A list of floats per row, or `None`.
    fn list_f64<'v>(&mut self, name: &str, v: impl Iterator<Item = Option<&'v [f64]>>) {
        let new = |n: usize| {
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0);
            Column::ListF64 { offsets, values: Vec::new(), valid: Vec::with_capacity(n) }
        };
        match self.col(name, new) {
            Some(Column::ListF64 { offsets, values, valid }) => {
                for w in v {
                    if let Some(w) = w {
                        values.extend(w.iter().map(|&x| nan_if_not_finite(x)));
                    }
                    offsets.push(values.len() as u64);
                    valid.push(w.is_some() as u8);
                }
            }
            None => {}
            Some(c) => unreachable!("column {name} is {c:?}"),
        }
    }
}

fn nan_if_not_finite(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        f64::NAN
    }
}

/// Phases or intervals: one entry per period, and the flow and link rows of all periods,
/// period after period (each period has one row per flow and one per channel, in the
/// order of `Columns::flows` / `Columns::links`; `name` is a column of each).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Periods {
    pub name: Vec<String>,
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    pub flows: Table,
    pub links: Table,
}

/// Time series: the points of all series one after the other; series `i` is
/// `t[offsets[i]..offsets[i + 1]]` (and `v`, `min`, `max` likewise).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesColumns {
    pub name: Vec<String>,
    pub entity: Vec<String>,
    pub metric: Vec<String>,
    pub unit: Vec<String>,
    /// The bucket width of sampled series, seconds (every series of a run is sampled
    /// alike); `None` when not sampled, and then `min` and `max` are empty.
    pub sample_s: Option<f64>,
    pub offsets: Vec<u64>,
    pub t: Vec<f64>,
    pub v: Vec<f64>,
    pub min: Vec<f64>,
    pub max: Vec<f64>,
}

/// The results of a run as columns (see the module comment).
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    pub meta: Meta,
    pub flows: Table,
    pub links: Table,
    pub nodes: Table,
    pub phases: Periods,
    pub intervals: Periods,
    pub series: SeriesColumns,
    /// Dictionaries shared by the string columns (`Column::Ref`); empty for columns
    /// built from rows (`Results::into_columns`).
    pub dicts: Vec<Dict>,
}

impl Columns {
    /// Total data packets delivered in order, over all flows (`Results::delivered_pkts`).
    pub fn delivered_pkts(&self) -> u64 {
        self.flows_sum("delivered_pkts")
    }

    /// The sum of the flows' counter `name` (e.g. `sent_pkts`); 0 if there is none.
    pub fn flows_sum(&self, name: &str) -> u64 {
        match self.flows.column(name) {
            Some(Column::U64(v)) => v.iter().sum(),
            _ => 0,
        }
    }

    /// The float `key` (e.g. `utilization`) of the channel named `name`, if both exist.
    pub fn link_f64(&self, name: &str, key: &str) -> Option<f64> {
        let (code, codes) = match self.links.column("name")? {
            Column::Str { dict, codes } => (dict.iter().position(|d| d == name)?, codes),
            Column::Ref { dict, codes } => (self.dicts.get(*dict)?.position(name)?, codes),
            _ => return None,
        };
        let row = codes.iter().position(|&c| c == code as u32)?;
        match self.links.column(key) {
            Some(Column::F64(v)) => v.get(row).copied(),
            _ => None,
        }
    }

    /// The scalars as JSON (an object, in the results JSON's key order).
    pub fn meta_json(&self) -> String {
        serde_json::to_string(&self.meta).expect("results metadata serialises")
    }

    /// Bytes of the columns' data (what crosses into Python, give or take the names).
    pub fn bytes(&self) -> usize {
        let p = |p: &Periods| {
            p.name.iter().map(|s| s.len()).sum::<usize>() + p.start_s.len() * 16 + p.flows.bytes() + p.links.bytes()
        };
        let s = &self.series;
        let strs = |v: &[String]| v.iter().map(|x| x.len()).sum::<usize>();
        self.meta_json().len()
            + self.flows.bytes()
            + self.links.bytes()
            + self.nodes.bytes()
            + p(&self.phases)
            + p(&self.intervals)
            + strs(&s.name)
            + strs(&s.entity)
            + strs(&s.metric)
            + strs(&s.unit)
            + (s.offsets.len() + s.t.len() + s.v.len() + s.min.len() + s.max.len()) * 8
            + self.dicts.iter().map(Dict::bytes).sum::<usize>()
    }
}

/// Rows per chunk when the columns are built straight from a simulation: the row
/// structs of one chunk at a time exist, never those of the whole table.
const CHUNK: usize = 4096;

/// A table of `n` rows built `CHUNK` rows at a time (`fill` writes one chunk's rows
/// through a `Writer`; `later`: the columns its caller sets afterwards).
fn chunked<R>(n: usize, later: &[&str], row: impl Fn(usize) -> R, fill: impl Fn(&mut Writer, &mut [R])) -> Table {
    let mut t = Table::new(0);
    // One buffer of rows for every chunk (a new one per chunk would be mapped and
    // unmapped each time: about 1.5 MB of fresh pages per chunk).
    let mut rows: Vec<R> = Vec::with_capacity(CHUNK.min(n));
    let mut start = 0;
    loop {
        let end = (start + CHUNK).min(n);
        rows.clear();
        rows.extend((start..end).map(&row));
        fill(&mut t.batch_writer(n, later), &mut rows);
        t.rows += rows.len();
        start = end;
        if start >= n {
            break;
        }
    }
    t
}

impl Simulation {
    /// The results as columns, built straight from the simulation (no whole table of
    /// rows in between, no string per row): the same values as
    /// `results(wall_time_s).into_columns()`, names coded into `Columns::dicts`.
    pub fn results_columns(&mut self, wall_time_s: f64) -> Columns {
        let (meta, in_net) = self.settle_and_count(wall_time_s);
        let ends = self.channel_ends();
        let mut c = self.scalar_tables(meta);
        c.dicts = dicts(&self.scenario, &ends);
        c.series = series(self.net.rec.series.clone());
        let now = self.now();
        let finite = self.finite_flows();
        c.flows = flow_columns(&self.scenario, self.flow_views(), now, &in_net, &finite);
        c.links = link_columns(&self.scenario, &self.channels, &self.merged_per_channel(), now);
        c
    }

    /// `results_columns`, consuming the simulation and freeing its largest parts as the
    /// columns are built: the net (event queue, packet metadata, merged arrivals, the
    /// pipes) first, once the figures read from it are taken and before any table is
    /// built, the scenario's
    /// nodes and links before the flow table, the endpoints and the scenario's flows once
    /// it is built, then the channels after the channel table (`free_later`: on a
    /// thread of their own when there are many). So the results add little to the run's
    /// peak memory (at 10^5 flows the columns are about 143 MB; the simulation's parts
    /// are larger): the flow table, built while the endpoints and the channels are
    /// alive, is the hand-off's peak, and the dictionaries of flow and channel names
    /// are built after it.
    pub fn into_results_columns(mut self, wall_time_s: f64) -> Columns {
        let now = self.now();
        let (meta, in_net) = self.settle_and_count(wall_time_s);
        let series_rec = take(&mut self.net.rec.series);
        let feeders = self.merged_feeders();
        let finite = self.finite_flows();
        // Everything read from the net is taken: it goes (with the run's packets, events
        // and merged arrivals) before any table, and any array per channel, is built.
        drop(take(&mut self.net));
        let mut merged = vec![0u32; self.channels.len()];
        for f in feeders {
            merged[f as usize] += 1;
        }
        let mut c = self.scalar_tables(meta);
        c.series = series(series_rec);
        drop(take(&mut self.snapshots));
        // The dictionaries of the names the scenario holds, then its nodes and links
        // freed (read again only for an element's results, which name flows) before the
        // flow table, the peak of the hand-off; the flow and channel names after it.
        let sc = &self.scenario;
        let node_dict = Dict::of(sc.nodes.len(), sc.nodes.iter().map(|n| n.name.as_str()));
        let link_dict = Dict::of(sc.links.len(), sc.links.iter().map(|l| l.name.as_str()));
        let elements = !self.scenario.elements.is_empty();
        if !elements {
            drop(take(&mut self.scenario.nodes));
            drop(take(&mut self.scenario.links));
        }
        let flows = take(&mut self.flows);
        let life = self.take_lifecycle();
        c.flows = flow_columns(
            &self.scenario,
            crate::sim::Flows { eps: &flows, life: life.as_deref() },
            now,
            &in_net,
            &finite,
        );
        drop(flows);
        drop(life);
        drop(in_net);
        let sc = &self.scenario;
        let flow_dict = Dict::of(sc.flows.len(), sc.flows.iter().map(|f| f.name.as_str()));
        // Nor are its flows (names, routes, specs) unless an element's results name them.
        if !elements {
            drop(take(&mut self.scenario.flows));
        }
        let channel_dict = Dict::channel_names(&node_dict, &self.channel_ends());
        c.dicts = vec![node_dict, flow_dict, link_dict, channel_dict];
        // The endpoints were many small heap blocks: hand their pages back, or they stay
        // resident while the channel table's columns take fresh pages.
        release_free_heap();
        let channels = take(&mut self.channels);
        c.links = link_columns(&self.scenario, &channels, &merged, now);
        free_later((channels, self));
        c
    }

    /// The results JSON written to `w` a row at a time: the same text as
    /// `results(wall_time_s).to_json()` without the whole table of rows in memory.
    pub fn write_results_json<W: std::io::Write>(&mut self, w: W, wall_time_s: f64) -> serde_json::Result<()> {
        let now = self.now();
        for c in self.channels.iter_mut() {
            c.settle(now);
        }
        super::write_json(self, now, wall_time_s, w)
    }

    /// Settles the channels and takes what the tables need from the net: the scalars
    /// (`Meta`) and `Simulation::in_network`.
    fn settle_and_count(&mut self, wall_time_s: f64) -> (Meta, Vec<u64>) {
        let now = self.now();
        for c in self.channels.iter_mut() {
            c.settle(now);
        }
        (Meta::of(self, now, wall_time_s), self.in_network())
    }

    /// Each channel's (from, to).
    fn channel_ends(&self) -> Vec<(u32, u32)> {
        self.channels.iter().map(|c| (c.from, c.to)).collect()
    }

    /// The channel each merged arrival left (`Simulation::merged_per_channel` counts
    /// them per channel): one entry per packet, not an array per channel, while the net
    /// is alive.
    fn merged_feeders(&self) -> Vec<u32> {
        let routes = &self.net.routes;
        self.net.merges.iter().flat_map(|m| m.packets()).map(|p| routes[p.route as usize + p.hop as usize]).collect()
    }

    /// Everything but the flow and link tables, the series and the dictionaries: the
    /// node, phase and interval tables (none of them reads the net).
    fn scalar_tables(&self, meta: Meta) -> Columns {
        let sim = self;
        let (mut phases, mut intervals) = super::periods(sim);
        let (nf, nc) = (sim.scenario.flows.len(), sim.channels.len());
        let coded = |p: &mut Vec<PhaseResult>| {
            let mut p = periods(p, &["name"]);
            p.flows.set("name", Column::Ref { dict: FLOW_NAMES, codes: row_codes(p.flows.rows, nf) });
            p.links.set("name", Column::Ref { dict: CHANNEL_NAMES, codes: row_codes(p.links.rows, nc) });
            p
        };
        Columns {
            meta,
            flows: Table::default(),
            links: Table::default(),
            nodes: node_columns(sim),
            phases: coded(&mut phases),
            intervals: coded(&mut intervals),
            series: SeriesColumns::default(),
            dicts: Vec::new(),
        }
    }
}

/// Frees the channels and what is left of a large simulation on a thread of its own (at
/// 10^5 flows, 4 x 10^5 channels' buffers: about 0.07 s of `free` and `munmap`), so the
/// columns reach the caller without waiting for it. Nothing reads them again, and
/// memory only goes down from here (the columns are complete). A small one, or one
/// whose thread cannot be started, is freed here.
fn free_later(parts: (Vec<Channel>, Simulation)) {
    const LARGE: usize = 1 << 14;
    if parts.0.len() < LARGE {
        return;
    }
    // If the thread cannot start, `spawn` drops the closure, and so the parts, here.
    let _ = std::thread::Builder::new().name("ccsim-free".into()).spawn(move || drop(parts));
}

/// Returns the allocator's free heap pages to the system (glibc `malloc_trim`; the
/// memory stays reusable). Elsewhere a no-op.
fn release_free_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::os::raw::c_int;
        }
        // SAFETY: glibc's malloc_trim takes no pointer and only releases free memory.
        unsafe {
            malloc_trim(0);
        }
    }
}

impl Simulation {
    /// `ideal_fct` of every flow while the routes exist (empty when no flow has a size).
    fn finite_flows(&self) -> Vec<Option<(u32, f64)>> {
        let any = self
            .scenario
            .flows
            .iter()
            .any(|f| matches!(&*f.spec, crate::scenario::FlowSpec::Window { sender, .. } if sender.size.is_some()));
        if !any {
            return Vec::new();
        }
        let v = self.flow_views();
        (0..self.scenario.flows.len())
            .map(|i| super::ideal_fct(&self.scenario, v.view(i), i, &self.channels, &self.net.routes))
            .collect()
    }
}

/// The flow table from the endpoints (`in_net`: `Simulation::in_network`).
/// `finite`: `Simulation::finite_flows`.
fn flow_columns(
    sc: &crate::scenario::Scenario,
    eps: crate::sim::Flows<'_>,
    now: SimTime,
    in_net: &[u64],
    finite: &[Option<(u32, f64)>],
) -> Table {
    let n = sc.flows.len();
    let mut t = chunked(
        n,
        &["name", "kind", "cc", "from", "to"],
        |i| flow_numbers(sc, eps.view(i), i, now, in_net[i], finite.get(i).copied().flatten()),
        FlowResult::write_columns,
    );
    let node = |f: fn(&crate::scenario::Flow) -> usize| Column::Ref {
        dict: NODE_NAMES,
        codes: sc.flows.iter().map(|x| f(x) as u32).collect(),
    };
    t.set("name", Column::Ref { dict: FLOW_NAMES, codes: (0..n as u32).collect() });
    t.set("kind", few_strs(n, sc.flows.iter().map(|f| Some(f.spec.kind()))));
    t.set("cc", few_strs(n, sc.flows.iter().enumerate().map(|(i, f)| flow_cc(eps.view(i), &f.spec))));
    t.set("from", node(|f| f.from));
    t.set("to", node(|f| f.to));
    t
}

/// The node table, names coded (no copy of a name).
fn node_columns(sim: &Simulation) -> Table {
    let n = sim.scenario.nodes.len();
    let mut t = chunked(n, &["name"], |i| node_numbers(sim, i), NodeResult::write_columns);
    t.set("name", Column::Ref { dict: NODE_NAMES, codes: (0..n as u32).collect() });
    t
}

/// The channel table (channel `i` belongs to link `i / 2`: `Simulation::channel_link`).
fn link_columns(sc: &crate::scenario::Scenario, chans: &[Channel], merged: &[u32], now: SimTime) -> Table {
    let n = chans.len();
    let mut t = chunked(
        n,
        &["name", "link", "from", "to", "qdisc"],
        |i| link_numbers(sc, &chans[i], merged[i] as usize, now),
        LinkResult::write_columns,
    );
    let node = |f: fn(&Channel) -> u32| Column::Ref { dict: NODE_NAMES, codes: chans.iter().map(f).collect() };
    t.set("name", Column::Ref { dict: CHANNEL_NAMES, codes: (0..n as u32).collect() });
    t.set("link", Column::Ref { dict: LINK_NAMES, codes: (0..n as u32).map(|i| i / 2).collect() });
    t.set("from", node(|c| c.from));
    t.set("to", node(|c| c.to));
    t.set("qdisc", few_strs(n, chans.iter().map(|c| Some(c.qdisc.name()))));
    t
}

impl Results {
    /// The results as columns, consuming the rows (each table's rows are freed once
    /// its columns are built).
    pub fn into_columns(mut self) -> Columns {
        let flows = table(&mut self.flows);
        drop(self.flows);
        let links = table(&mut self.links);
        drop(self.links);
        Columns {
            meta: self.meta,
            flows,
            links,
            nodes: table(&mut self.nodes),
            phases: periods(&mut self.phases, &[]),
            intervals: periods(&mut self.intervals, &[]),
            series: series(self.series),
            dicts: Vec::new(),
        }
    }
}

/// A row type of the results: a struct declared with `record!` in `results/mod.rs`.
pub(crate) trait Record: Sized {
    /// The columns of the rows `rows`, one per field in field order (the JSON's key
    /// order); strings are moved out of the rows.
    fn write_columns(w: &mut Writer, rows: &mut [Self]);
}

/// How a field of a row becomes columns: `write` adds the columns of field `name` of
/// every row (`get` picks the field out of a row).
pub(crate) trait ColumnValue: Sized {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self);
}

impl ColumnValue for String {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.str(name, rows.iter_mut().map(|r| Some(take(get(r)))));
    }
}

impl ColumnValue for Option<String> {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.str(name, rows.iter_mut().map(|r| get(r).take()));
    }
}

impl ColumnValue for u64 {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.u64(name, rows.iter_mut().map(|r| *get(r)));
    }
}

impl ColumnValue for u32 {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.u64(name, rows.iter_mut().map(|r| *get(r) as u64));
    }
}

impl ColumnValue for Option<u64> {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.opt_u64(name, rows.iter_mut().map(|r| *get(r)));
    }
}

impl ColumnValue for f64 {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.f64(name, rows.iter_mut().map(|r| *get(r)));
    }
}

impl ColumnValue for Option<f64> {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.opt_f64(name, rows.iter_mut().map(|r| *get(r)));
    }
}

impl ColumnValue for bool {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.bool(name, rows.iter_mut().map(|r| *get(r)));
    }
}

impl ColumnValue for Option<Vec<f64>> {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.list_f64(name, rows.iter_mut().map(|r| get(r).as_deref()));
    }
}

/// One column per drop reason, `name.<reason>`, in the order of `DropReason::ALL`.
impl ColumnValue for DropsByReason {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        for reason in DropReason::ALL {
            w.u64(&format!("{name}.{}", reason.name()), rows.iter_mut().map(|r| get(r)[reason]));
        }
    }
}

/// A channel's elements: JSON, sparse (rows with elements only).
impl ColumnValue for Vec<serde_json::Value> {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        w.json(
            name,
            serde_json::Value::Array(Vec::new()),
            rows.iter_mut().map(|r| serde_json::Value::Array(take(get(r)))),
        );
    }
}

/// A channel's rate changes: JSON, sparse (rows with changes only).
impl ColumnValue for Vec<RateChange> {
    fn write<R>(w: &mut Writer, name: &str, rows: &mut [R], get: fn(&mut R) -> &mut Self) {
        let empty = || serde_json::Value::Array(Vec::new());
        w.json(
            name,
            empty(),
            rows.iter_mut().map(|r| {
                let v = get(r);
                if v.is_empty() {
                    empty()
                } else {
                    serde_json::to_value(&*v).expect("rate history serialises")
                }
            }),
        );
    }
}

/// The table of the rows `rows` (strings moved out of them).
pub(crate) fn table<R: Record>(rows: &mut [R]) -> Table {
    let mut t = Table::new(rows.len());
    R::write_columns(&mut t.writer(), rows);
    t
}

/// The periods' columns (`later`: the columns of both tables the caller sets itself,
/// `name` when it codes the names into the shared dictionaries).
fn periods(p: &mut [PhaseResult], later: &[&str]) -> Periods {
    let name = p.iter_mut().map(|x| take(&mut x.name)).collect();
    let start_s = p.iter().map(|x| nan_if_not_finite(x.start_s)).collect();
    let end_s = p.iter().map(|x| nan_if_not_finite(x.end_s)).collect();
    let mut flows: Vec<PhaseFlow> = p.iter_mut().flat_map(|x| take(&mut x.flows)).collect();
    let mut f = Table::new(flows.len());
    PhaseFlow::write_columns(&mut f.writer_leaving(later), &mut flows);
    drop(flows);
    let mut links: Vec<PhaseLink> = p.iter_mut().flat_map(|x| take(&mut x.links)).collect();
    let mut l = Table::new(links.len());
    PhaseLink::write_columns(&mut l.writer_leaving(later), &mut links);
    Periods { name, start_s, end_s, flows: f, links: l }
}

fn series(s: Vec<Series>) -> SeriesColumns {
    let mut out = SeriesColumns { offsets: vec![0], ..Default::default() };
    let n: usize = s.iter().map(|x| x.t.len()).sum();
    out.sample_s = s.first().and_then(|x| x.sample_s);
    out.t.reserve(n);
    out.v.reserve(n);
    if out.sample_s.is_some() {
        out.min.reserve(n);
        out.max.reserve(n);
    }
    for x in s {
        debug_assert_eq!(x.t.len(), x.v.len());
        debug_assert_eq!(x.sample_s, out.sample_s);
        out.t.extend(x.t.iter().map(|&v| nan_if_not_finite(v)));
        out.v.extend(x.v.iter().map(|&v| nan_if_not_finite(v)));
        for (col, vals) in [(&mut out.min, &x.min), (&mut out.max, &x.max)] {
            if let Some(vals) = vals {
                debug_assert_eq!(vals.len(), x.t.len());
                col.extend(vals.iter().map(|&v| nan_if_not_finite(v)));
            }
        }
        out.offsets.push(out.t.len() as u64);
        out.name.push(x.name);
        out.entity.push(x.entity);
        out.metric.push(x.metric);
        out.unit.push(x.unit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    /// A dumbbell of `n` flows for `secs` simulated seconds.
    fn sim(n: u32, secs: f64) -> Simulation {
        let sc = crate::bench::dumbbell_with(
            n,
            10_000_000,
            crate::base::time::SimDuration::from_secs_f64(secs),
            crate::bench::qdisc_by_name("fcfs").unwrap(),
        )
        .unwrap();
        let mut s = Simulation::new(sc, Some(1));
        s.run();
        s
    }

    /// Each column as text, strings decoded (Debug text: NaN equals NaN there, and
    /// floats print exactly).
    fn decoded(t: &Table, dicts: &[Dict]) -> Vec<String> {
        let text = |n: &str, dict: Vec<&str>, codes: &[u32]| {
            let v: Vec<Option<&str>> = codes.iter().map(|&c| (c != u32::MAX).then(|| dict[c as usize])).collect();
            format!("{n} {v:?}")
        };
        t.columns
            .iter()
            .map(|(n, c)| match c {
                Column::Str { dict, codes } => text(n, dict.iter().map(String::as_str).collect(), codes),
                Column::Ref { dict, codes } => text(n, dicts[*dict].strings(), codes),
                c => format!("{n} {c:?}"),
            })
            .collect()
    }

    #[test]
    fn columns_built_in_chunks_equal_the_columns_of_the_rows() {
        // More flows than a chunk, so tables are appended across chunks.
        let mut s = sim(CHUNK as u32 + 5, 0.05);
        let direct = s.results_columns(0.0);
        let rows = s.results(0.0);
        assert_eq!(rows.flows.len(), CHUNK + 5);
        assert_eq!(direct.flows.rows, CHUNK + 5);
        assert_eq!(direct.links.rows, rows.links.len());
        let whole = rows.into_columns();
        // The dictionaries differ (shared names, one small dictionary per column), the
        // strings they encode do not.
        let (d, w) = (&direct.dicts, &whole.dicts);
        assert!(decoded(&direct.flows, d) == decoded(&whole.flows, w), "flow columns differ");
        assert!(decoded(&direct.links, d) == decoded(&whole.links, w), "link columns differ");
        assert!(decoded(&direct.nodes, d) == decoded(&whole.nodes, w), "node columns differ");
        assert_eq!(direct.meta, whole.meta);
        // Every channel's discipline is "fcfs": one dictionary entry.
        let Some(Column::Str { dict, codes }) = direct.links.column("qdisc") else { panic!() };
        assert_eq!(codes.len(), direct.links.rows);
        assert_eq!(dict, &["fcfs"]);
        // Names are codes into the shared dictionaries: from/to of flows and channels
        // are node ids, a channel's link is link i / 2.
        let Some(Column::Ref { dict: NODE_NAMES, codes }) = direct.flows.column("from") else { panic!() };
        assert_eq!(codes[7], s.scenario.flows[7].from as u32);
        let Some(Column::Ref { dict: LINK_NAMES, codes }) = direct.links.column("link") else { panic!() };
        assert_eq!(&codes[..5], &[0, 0, 1, 1, 2]);
        // Exactly sized: no column grew by doubling.
        for (n, c) in &direct.flows.columns {
            if let Column::U64(v) = c {
                assert_eq!(v.capacity(), v.len(), "column {n}");
            }
            if let Column::F64(v) = c {
                assert_eq!(v.capacity(), v.len(), "column {n}");
            }
        }
    }

    #[test]
    fn every_table_has_one_column_per_json_key_in_the_json_order() {
        let mut s = sim(2, 0.05);
        let r = s.results(0.0);
        let c = s.results_columns(0.0);
        // The JSON keys of a row, nested objects as `a.b`, in the order of the JSON text
        // (each row here is flat but for `drops_by_reason`, whose keys no other key
        // repeats).
        fn keys<T: Serialize>(row: &T) -> Vec<String> {
            let text = serde_json::to_string(row).unwrap();
            let serde_json::Value::Object(m) = serde_json::from_str(&text).unwrap() else { panic!() };
            let mut keys: Vec<(usize, String)> = m
                .into_iter()
                .flat_map(|(k, v)| match v {
                    serde_json::Value::Object(inner) => inner
                        .keys()
                        .map(|kk| (text.find(&format!("\"{kk}\":")).unwrap(), format!("{k}.{kk}")))
                        .collect(),
                    _ => vec![(text.find(&format!("\"{k}\":")).unwrap(), k)],
                })
                .collect();
            keys.sort();
            keys.into_iter().map(|(_, k)| k).collect()
        }
        let names = |t: &Table| t.columns.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&c.flows), keys(&r.flows[0]));
        assert_eq!(names(&c.links), keys(&r.links[0]));
        assert_eq!(names(&c.nodes), keys(&r.nodes[0]));
        // A channel's drops by reason: the drop-reason table's names, in its order.
        let drops: Vec<String> = names(&c.links).into_iter().filter(|n| n.starts_with("drops_by_reason.")).collect();
        let want: Vec<String> = DropReason::ALL.iter().map(|r| format!("drops_by_reason.{}", r.name())).collect();
        assert_eq!(drops, want);
        assert_eq!(drops[0], "drops_by_reason.overflow");
    }

    #[test]
    fn json_written_a_row_at_a_time_is_the_json_export() {
        // tiny.toml: phases, intervals, series, flows of every kind; and a dumbbell.
        let text = include_str!("../../../../tests/data/tiny.toml");
        let sc = crate::scenario::parse(text, "tiny.toml", &[]).unwrap();
        let mut a = Simulation::new(sc.clone(), None);
        a.run();
        let mut b = Simulation::new(sc, None);
        b.run();
        let mut streamed = Vec::new();
        a.write_results_json(&mut streamed, 1.25).unwrap();
        let whole = b.results(1.25).to_json();
        assert!(whole.contains("\"phases\":[{") && whole.contains("\"series\":[{"));
        assert!(String::from_utf8(streamed).unwrap() == whole);
        let mut s = sim(30, 0.1);
        let mut streamed = Vec::new();
        s.write_results_json(&mut streamed, 0.0).unwrap();
        assert!(String::from_utf8(streamed).unwrap() == s.results(0.0).to_json());
    }

    #[test]
    fn consuming_the_simulation_gives_the_same_columns() {
        // 40 flows: freed in place; 4100 flows (16 402 channels): freed on a thread.
        for (n, secs) in [(40, 0.2), (4100, 0.3)] {
            let mut s = sim(n, secs);
            assert_eq!(s.channels.len() >= 1 << 14, n == 4100);
            let kept = s.results_columns(0.5);
            let owned = s.into_results_columns(0.5);
            for (a, b) in [(&kept.flows, &owned.flows), (&kept.links, &owned.links), (&kept.nodes, &owned.nodes)] {
                assert!(decoded(a, &kept.dicts) == decoded(b, &owned.dicts));
            }
            assert_eq!(kept.meta, owned.meta);
            assert_eq!(kept.dicts, owned.dicts);
            assert_eq!(kept.series, owned.series);
            assert!(owned.delivered_pkts() > 0);
        }
    }

    #[test]
    fn channel_names_are_written_into_one_text_as_the_simulation_names_them() {
        let mut s = sim(3, 0.01);
        let c = s.results_columns(0.0);
        let Dict::Joined { count, text } = &c.dicts[CHANNEL_NAMES] else { panic!() };
        assert_eq!(*count, s.channels.len());
        let names: Vec<String> = (0..s.channels.len()).map(|i| s.channel_name(i)).collect();
        assert_eq!(text, &names.join("\0"));
        assert_eq!(names[0], "left->right");
        let links: Vec<&str> = c.dicts[LINK_NAMES].strings();
        assert_eq!(links[1], s.channel_link(2));
        assert_eq!(links[1], s.channel_link(3));
        assert_eq!(c.link_f64("right->left", "delay_s"), Some(s.channels[1].delay.as_secs_f64()));
    }

    #[test]
    fn dictionaries_join_strings_unless_one_holds_a_nul() {
        let d = Dict::of(3, ["a", "", "b c"].into_iter());
        assert_eq!(d, Dict::Joined { count: 3, text: "a\0\0b c".into() });
        assert_eq!(d.strings(), vec!["a", "", "b c"]);
        assert_eq!(Dict::of(0, [].into_iter()).strings(), Vec::<&str>::new());
        assert_eq!(Dict::of(1, [""].into_iter()).strings(), vec![""]);
        let l = Dict::of(2, ["a\0b", "c"].into_iter());
        assert_eq!(l, Dict::List(vec!["a\0b".into(), "c".into()]));
        assert_eq!(l.len(), 2);
        // Channel names from node names holding a NUL are listed too.
        let nodes = ["x\0", "y"];
        let ch = Dict::channel_names(&Dict::of(2, nodes.into_iter()), &[(0, 1), (1, 0)]);
        assert_eq!(ch, Dict::List(vec!["x\0->y".into(), "y->x\0".into()]));
        // A NUL in the last string, or a string that is only a NUL, is seen too.
        assert!(matches!(Dict::of(2, ["a", "b\0"].into_iter()), Dict::List(_)));
        assert!(matches!(Dict::of(1, ["\0"].into_iter()), Dict::List(_)));
        // Channel names from joined node names, the empty name and the last one included.
        let nodes = Dict::of(3, ["", "bb", "c"].into_iter());
        let ch = Dict::channel_names(&nodes, &[(1, 2), (2, 0), (0, 1), (2, 2)]);
        assert_eq!(ch, Dict::Joined { count: 4, text: "bb->c\0c->\0->bb\0c->c".into() });
        assert_eq!(Dict::channel_names(&nodes, &[]), Dict::Joined { count: 0, text: String::new() });
    }

    #[test]
    fn few_distinct_strings_share_one_dictionary_entry_each() {
        let c = few_strs(4, [Some("reno"), None, Some("vegas"), Some("reno")].into_iter());
        assert_eq!(c, Column::Str { dict: vec!["reno".into(), "vegas".into()], codes: vec![0, u32::MAX, 1, 0] });
    }

    fn table_with(rows: usize) -> Table {
        Table::new(rows)
    }

    #[test]
    fn delivered_and_link_values_read_from_the_columns_equal_the_rows() {
        let mut s = sim(3, 0.5);
        let c = s.results_columns(0.0);
        let r = s.results(0.0);
        assert!(r.delivered_pkts() > 0);
        assert_eq!(c.delivered_pkts(), r.delivered_pkts());
        let l = r.links.iter().find(|l| l.name == "left->right").unwrap();
        assert_eq!(c.link_f64("left->right", "utilization"), Some(l.utilization));
        assert_eq!(c.link_f64("no such channel", "utilization"), None);
        assert_eq!(c.link_f64("left->right", "no such key"), None);
    }

    #[test]
    fn strings_are_dictionary_encoded_in_order_of_first_appearance() {
        let mut t = table_with(5);
        t.writer()
            .str("k", [Some("b"), Some("a"), None, Some("b"), Some("c")].into_iter().map(|x| x.map(String::from)));
        assert_eq!(
            t.columns[0].1,
            Column::Str { dict: vec!["b".into(), "a".into(), "c".into()], codes: vec![0, 1, u32::MAX, 0, 2] }
        );
    }

    #[test]
    fn null_and_non_finite_floats_become_nan_and_absent_integers_a_mask() {
        let mut t = table_with(3);
        let mut w = t.writer();
        w.opt_f64("x", [Some(1.5), None, Some(f64::INFINITY)].into_iter());
        w.opt_u64("n", [Some(7), None, Some(0)].into_iter());
        let Column::F64(x) = &t.columns[0].1 else { panic!() };
        assert_eq!(x[0], 1.5);
        assert!(x[1].is_nan() && x[2].is_nan());
        assert_eq!(t.columns[1].1, Column::OptU64(vec![7, 0, 0], vec![1, 0, 1]));
    }

    #[test]
    fn json_columns_keep_only_rows_that_are_not_empty() {
        let mut t = table_with(3);
        let e = serde_json::json!([]);
        t.writer().json("e", e.clone(), [e.clone(), serde_json::json!([1]), e.clone()].into_iter());
        assert_eq!(t.columns[0].1, Column::Json { empty: e, rows: vec![(1, serde_json::json!([1]))] });
    }

    #[test]
    fn a_table_written_in_batches_is_the_table_written_at_once() {
        // Rows 0-1, then 2-4: strings get the second batch's entries after the first's,
        // JSON rows keep their row numbers, lists their offsets; a column left for later
        // is an empty placeholder.
        let strs = [Some("x"), None, Some("y"), Some("x"), None];
        let nums = [Some(1.0), None, Some(2.5), Some(f64::NAN), Some(4.0)];
        let lists: [Option<&[f64]>; 5] = [Some(&[1.0]), None, Some(&[]), Some(&[2.0, 3.0]), None];
        let e = serde_json::json!([]);
        let js = [e.clone(), serde_json::json!([1]), e.clone(), serde_json::json!({"a": 2}), e.clone()];
        let write = |w: &mut Writer, r: std::ops::Range<usize>| {
            w.str("s", strs[r.clone()].iter().map(|s| s.map(String::from)));
            w.opt_f64("f", nums[r.clone()].iter().copied());
            w.str("later", strs[r.clone()].iter().map(|s| s.map(String::from)));
            w.list_f64("l", lists[r.clone()].iter().copied());
            w.json("j", e.clone(), js[r].iter().cloned());
        };
        let mut whole = Table::new(5);
        write(&mut whole.writer(), 0..5);
        let mut batched = Table::new(0);
        for r in [0..2, 2..5] {
            let len = r.len();
            write(&mut batched.batch_writer(5, &["later"]), r);
            batched.rows += len;
        }
        assert_eq!(batched.rows, 5);
        let col = |t: &Table, k: usize| format!("{:?}", t.columns[k].1);
        for k in [1, 3, 4] {
            assert_eq!(batched.columns[k].0, whole.columns[k].0);
            assert_eq!(col(&batched, k), col(&whole, k), "column {}", whole.columns[k].0);
        }
        assert_eq!(batched.columns[2], ("later".to_string(), Column::Ref { dict: usize::MAX, codes: vec![] }));
        assert_eq!(
            batched.columns[4].1,
            Column::Json { empty: e, rows: vec![(1, serde_json::json!([1])), (3, serde_json::json!({"a": 2}))] }
        );
        let Column::ListF64 { offsets, values, valid } = &batched.columns[3].1 else { panic!() };
        assert_eq!(
            (offsets.as_slice(), values.as_slice(), valid.as_slice()),
            (&[0, 1, 1, 1, 3, 3][..], &[1.0, 2.0, 3.0][..], &[1, 0, 1, 1, 0][..])
        );
        // Strings: "x" of the second batch is a new entry (the recent values are per
        // batch), so the codes differ from the whole table's; the strings do not.
        let Column::Str { dict, codes } = &batched.columns[0].1 else { panic!() };
        assert_eq!(
            (dict.as_slice(), codes.as_slice()),
            (&["x".to_string(), "y".into(), "x".into()][..], &[0, u32::MAX, 1, 2, u32::MAX][..])
        );
    }
}
