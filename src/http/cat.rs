//! CAT tables: one table type every `_cat/*` endpoint fills, rendered as OpenSearch's `RestTable`
//! does.
//!
//! - `h`: columns by name or alias, `*` patterns (matched against names and aliases); without `h`
//!   the columns marked default. A column with a `pri.` sibling is followed by it when `pri` is set.
//! - `s`: sort keys (names or aliases) with `:asc`/`:desc`; typed comparison (numbers as numbers,
//!   sizes as bytes), empty cells first; an unknown key is `unsupported_operation_exception`.
//! - `v`: a header line; `help`: the `name | aliases | description` listing; `ts=false` leaves
//!   out the `epoch` and `timestamp` columns of the tables that start with them.
//! - `format=json|yaml|cbor|smile`: an array of objects keyed by the requested names, every value a string
//!   (or null); otherwise text: cells padded to the column width, one space between columns,
//!   right-aligned columns padded on the left, the last left-aligned cell not padded.
//! - `bytes` (`b`,`kb`,`mb`,`gb`,`tb`,`pb`) and `time` (`nanos`,`micros`,`ms`,`s`,`m`,`h`,`d`)
//!   fix the unit of size and time cells; without them sizes print as `1.2kb` and times as `15ms`.

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::render::RestResponse;
use super::request::RestRequest;
use crate::cluster::resolve::glob;
use crate::error::{ErrorKind, OsError, OsResult};

/// One column's definition.
#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    /// Other names accepted by `h` and `s`, as `help` lists them.
    pub aliases: Vec<String>,
    /// Shown without `h`.
    pub default: bool,
    pub right: bool,
    pub desc: String,
    /// The `pri.` column shown beside this one when `pri` is set.
    pub sibling: Option<String>,
}

impl Column {
    /// A column from OpenSearch's attribute string (`alias:a,b;default:false;text-align:right;desc:...`).
    pub fn new(name: &str, attrs: &str) -> Column {
        let mut c = Column {
            name: name.to_string(),
            aliases: Vec::new(),
            default: true,
            right: false,
            desc: "not available".into(),
            sibling: None,
        };
        for part in attrs.split(';') {
            let Some((k, v)) = part.split_once(':') else { continue };
            match k {
                "alias" => c.aliases = v.split(',').map(str::to_string).collect(),
                "default" => c.default = v != "false",
                "text-align" => c.right = v == "right",
                "desc" => c.desc = v.to_string(),
                "sibling" => c.sibling = Some(format!("{v}.{name}")),
                _ => {}
            }
        }
        c
    }
}

/// A cell's typed value (decides how it sorts and renders).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Str(String),
    Int(i64),
    Bytes(u64),
    /// Milliseconds.
    Millis(u64),
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Str(s.to_string())
    }
}
impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Str(s)
    }
}

/// A table: columns and rows of cells (one per column, in column order).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

pub use crate::units::{human_bytes, human_millis};

/// How cells render for one request.
#[derive(Debug, Clone, Default)]
struct Units {
    bytes: Option<String>,
    time: Option<String>,
}

impl Units {
    fn render(&self, c: &Cell) -> Option<String> {
        Some(match c {
            Cell::Null => return None,
            Cell::Str(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Bytes(b) => match self.bytes.as_deref() {
                Some("b") => b.to_string(),
                Some("kb") => (b >> 10).to_string(),
                Some("mb") => (b >> 20).to_string(),
                Some("gb") => (b >> 30).to_string(),
                Some("tb") => (b >> 40).to_string(),
                Some("pb") => (b >> 50).to_string(),
                _ => human_bytes(*b),
            },
            Cell::Millis(ms) => match self.time.as_deref() {
                Some("nanos") => (ms.saturating_mul(1_000_000)).to_string(),
                Some("micros") => (ms.saturating_mul(1000)).to_string(),
                Some("ms") => ms.to_string(),
                Some("s") => (ms / 1000).to_string(),
                Some("m") => (ms / 60_000).to_string(),
                Some("h") => (ms / 3_600_000).to_string(),
                Some("d") => (ms / 86_400_000).to_string(),
                _ => human_millis(*ms),
            },
        })
    }
}

fn compare(a: &Cell, b: &Cell) -> Ordering {
    match (a, b) {
        (Cell::Null, Cell::Null) => Ordering::Equal,
        (Cell::Null, _) => Ordering::Less,
        (_, Cell::Null) => Ordering::Greater,
        (Cell::Int(x), Cell::Int(y)) => x.cmp(y),
        (Cell::Bytes(x), Cell::Bytes(y)) | (Cell::Millis(x), Cell::Millis(y)) => x.cmp(y),
        (Cell::Str(x), Cell::Str(y)) => x.cmp(y),
        (x, y) => Units::default().render(x).cmp(&Units::default().render(y)),
    }
}

impl Table {
    /// An empty table with these columns (`(name, attributes)` as [`Column::new`] reads them).
    pub fn with_columns(cols: &[(&str, &str)]) -> Table {
        Table { columns: cols.iter().map(|(n, a)| Column::new(n, a)).collect(), rows: Vec::new() }
    }

    fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .or_else(|| self.columns.iter().position(|c| c.aliases.iter().any(|a| a == name)))
    }

    /// The displayed columns: `(column index, display name)`.
    fn display(&self, req: &RestRequest) -> Vec<(usize, String)> {
        let pri = req.bool_param("pri", false).unwrap_or(false);
        // `ts=false` drops the `epoch` and `timestamp` columns of a timestamped table.
        let ts = req.bool_param("ts", true).unwrap_or(true);
        let mut out: Vec<(usize, String)> = Vec::new();
        let columns = &self.columns;
        let mut push = |out: &mut Vec<(usize, String)>, i: usize, d: String| {
            if !ts && matches!(columns[i].name.as_str(), "epoch" | "timestamp") {
                return;
            }
            if !out.iter().any(|(_, e)| *e == d) {
                out.push((i, d));
            }
        };
        let with_sibling = |out: &mut Vec<(usize, String)>,
                            i: usize,
                            d: String,
                            push: &mut dyn FnMut(&mut Vec<(usize, String)>, usize, String)| {
            push(out, i, d.clone());
            if pri {
                if let Some(s) = &self.columns[i].sibling {
                    if let Some(j) = self.column_index(s) {
                        push(out, j, format!("pri.{d}"));
                    }
                }
            }
        };
        match req.param("h") {
            Some(h) => {
                for want in h.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    if want.contains('*') {
                        for (i, c) in self.columns.iter().enumerate() {
                            if glob(want, &c.name) || c.aliases.iter().any(|a| glob(want, a)) {
                                with_sibling(&mut out, i, c.name.clone(), &mut push);
                            }
                        }
                    } else if let Some(i) = self.columns.iter().position(|c| c.name == want) {
                        with_sibling(&mut out, i, want.to_string(), &mut push);
                    } else if let Some(i) = self.columns.iter().position(|c| c.aliases.iter().any(|a| a == want)) {
                        with_sibling(&mut out, i, want.to_string(), &mut push);
                    }
                }
            }
            None => {
                for (i, c) in self.columns.iter().enumerate() {
                    if c.default {
                        with_sibling(&mut out, i, c.name.clone(), &mut push);
                    }
                }
            }
        }
        out
    }

    fn sort(&mut self, req: &RestRequest) -> OsResult<()> {
        let Some(s) = req.param("s") else { return Ok(()) };
        let mut keys: Vec<(usize, bool)> = Vec::new();
        for key in s.split(',').map(str::trim).filter(|k| !k.is_empty()) {
            let (name, desc) = match (key.strip_suffix(":desc"), key.strip_suffix(":asc")) {
                (Some(n), _) => (n, true),
                (_, Some(n)) => (n, false),
                _ => (key, false),
            };
            let Some(i) = self.column_index(name) else {
                return Err(OsError::new(
                    ErrorKind::UnsupportedOperation,
                    format!("Unable to sort by unknown sort key `{name}`"),
                )
                .status(500));
            };
            keys.push((i, desc));
        }
        self.rows.sort_by(|a, b| {
            for (i, desc) in &keys {
                let o = compare(&a[*i], &b[*i]);
                if o != Ordering::Equal {
                    return if *desc { o.reverse() } else { o };
                }
            }
            Ordering::Equal
        });
        Ok(())
    }

    /// Renders the table for `req` (`format`, `h`, `s`, `v`, `help`, `bytes`, `time`, `pri`).
    pub fn respond(mut self, req: &RestRequest) -> OsResult<RestResponse> {
        let units =
            Units { bytes: req.param("bytes").map(str::to_string), time: req.param("time").map(str::to_string) };
        req.bool_param("ts", true)?;
        if req.bool_param("help", false)? {
            return Ok(RestResponse::text(self.help()));
        }
        self.sort(req)?;
        let display = self.display(req);
        match req.param("format") {
            Some("json") | Some("yaml") | Some("cbor") | Some("smile") => {
                let rows: Vec<Value> = self
                    .rows
                    .iter()
                    .map(|r| {
                        let m: Map<String, Value> = display
                            .iter()
                            .map(|(i, d)| (d.clone(), units.render(&r[*i]).map_or(Value::Null, Value::String)))
                            .collect();
                        Value::Object(m)
                    })
                    .collect();
                Ok(RestResponse::ok(Value::Array(rows)))
            }
            None | Some("text") | Some("txt") => {
                Ok(RestResponse::text(self.text(&display, &units, req.bool_param("v", false)?)))
            }
            Some(other) => Err(OsError::illegal(format!("Unsupported format [{other}]"))),
        }
    }

    fn text(&self, display: &[(usize, String)], units: &Units, verbose: bool) -> String {
        let rendered: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| display.iter().map(|(i, _)| units.render(&r[*i]).unwrap_or_default()).collect())
            .collect();
        let mut width: Vec<usize> = display.iter().map(|(_, d)| if verbose { d.chars().count() } else { 0 }).collect();
        for r in &rendered {
            for (w, c) in width.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let last = cells.len().saturating_sub(1);
            for (k, cell) in cells.iter().enumerate() {
                let pad = width[k].saturating_sub(cell.chars().count());
                if self.columns[display[k].0].right && pad > 0 {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    if k != last {
                        out.extend(std::iter::repeat_n(' ', pad));
                    }
                }
                if k != last {
                    out.push(' ');
                }
            }
            out.push('\n');
        };
        if verbose {
            let header: Vec<String> = display.iter().map(|(_, d)| d.clone()).collect();
            line(&header, &mut out);
        }
        for r in &rendered {
            line(r, &mut out);
        }
        out
    }

    fn help(&self) -> String {
        let rows: Vec<[String; 3]> =
            self.columns.iter().map(|c| [c.name.clone(), c.aliases.join(","), c.desc.clone()]).collect();
        let mut w = [0usize; 3];
        for r in &rows {
            for k in 0..3 {
                w[k] = w[k].max(r[k].chars().count());
            }
        }
        let mut out = String::new();
        for r in &rows {
            for k in 0..3 {
                out.push_str(&r[k]);
                out.extend(std::iter::repeat_n(' ', w[k] - r[k].chars().count()));
                if k < 2 {
                    out.push_str(" | ");
                }
            }
            out.push('\n');
        }
        out
    }
}

pub mod aliases;
pub mod allocation;
pub mod fielddata;
pub mod health;
pub mod nodeattrs;
pub mod nodes;
pub mod pending_tasks;
pub mod plugins;
pub mod segments;
pub mod shards;
pub mod thread_pool;

#[cfg(test)]
mod tests;
