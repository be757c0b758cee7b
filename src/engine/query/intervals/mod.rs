//! Interval queries (Lucene's `org.apache.lucene.queries.intervals`, OpenSearch's `intervals`):
//! a tree of interval sources over the positions of one document, matched with Lucene's
//! minimal-interval iterators and scored by the sloppy frequency of the top source's intervals.
//!
//! [`Source`] is the tree; its constructors ([`or`], [`ordered`], [`unordered`], [`phrase`],
//! [`max_gaps`], [`containing`]...) rewrite exactly as Lucene's `Intervals` factory methods do
//! (flattening, repeated sub-sources, disjunctions pulled up above sources sensitive to internal
//! gaps), because those rewrites change which intervals match. [`iter`] holds the iterators,
//! [`scorer`] the per-segment scorer.

use std::fmt;

pub mod iter;
pub mod scorer;

#[cfg(test)]
mod tests;

/// Lucene's `IndexSearcher.getMaxClauseCount()` default, which bounds disjunction pull-ups.
pub const MAX_CLAUSE_COUNT: usize = 1024;

/// An interval source. Build with the functions of this module, not the variants directly.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The positions of a term (Lucene's `TermIntervalsSource`).
    Term { field: String, term: Vec<u8> },
    /// The disjunction of terms an automaton expanded to (`MultiTermIntervalsSource`): prefix,
    /// wildcard, regexp, fuzzy; `pattern` is how Lucene prints it.
    MultiTerm { field: String, terms: Vec<Vec<u8>>, pattern: String },
    /// Minimal intervals of any sub-source (sorted by display string, no two equal).
    Or(Vec<Source>),
    /// All sub-sources in order, not overlapping.
    Ordered(Vec<Source>),
    /// All sub-sources in any order (they may overlap).
    Unordered(Vec<Source>),
    /// Sub-sources adjacent, in order (a phrase).
    Block(Vec<Source>),
    /// Intervals of the source with at most this many gaps.
    MaxGaps(Box<Source>, i32),
    /// `n` consecutive intervals of the source, for a source repeated in an ordered or unordered
    /// list; the name is printed when it stands alone (`ORDERED`, `UNORDERED`).
    Repeat(Box<Source>, i32, Option<&'static str>),
    /// Intervals widened by `before` and `after` positions.
    Extend(Box<Source>, i32, i32),
    /// Intervals of the first containing an interval of the second.
    Containing(Box<Source>, Box<Source>),
    /// Intervals of the first contained by an interval of the second.
    ContainedBy(Box<Source>, Box<Source>),
    /// Intervals of the first containing no interval of the second.
    NotContaining(Box<Source>, Box<Source>),
    /// Intervals of the first contained by no interval of the second.
    NotContainedBy(Box<Source>, Box<Source>),
    /// Intervals of the first overlapping an interval of the second.
    Overlapping(Box<Source>, Box<Source>),
    /// Intervals of the first overlapping no interval of the second.
    NonOverlapping(Box<Source>, Box<Source>),
    /// The position just before (`true`) or just after each interval of the source.
    Offset(Box<Source>, bool),
    /// No interval (text that analyzed to no token).
    NoMatch,
}

/// Lucene's `Intervals.term`.
pub fn term(field: &str, term: &[u8]) -> Source {
    Source::Term { field: field.to_string(), term: term.to_vec() }
}

/// Lucene's `Intervals.or` (`DisjunctionIntervalsSource.create`, rewriting): nested
/// disjunctions flattened, equal sources kept once, one source left alone.
pub fn or(subs: Vec<Source>) -> Source {
    let mut flat: Vec<Source> = Vec::with_capacity(subs.len());
    for s in subs {
        let parts = match s {
            Source::Or(inner) => inner,
            other => vec![other],
        };
        for p in parts {
            if !flat.contains(&p) {
                flat.push(p);
            }
        }
    }
    match flat.len() {
        0 => Source::NoMatch,
        1 => flat.pop().unwrap_or(Source::NoMatch),
        _ => {
            flat.sort_by_cached_key(|s| s.to_string());
            Source::Or(flat)
        }
    }
}

/// Lucene's `Intervals.ordered` (`OrderedIntervalsSource.build`): nested ordered sources
/// flattened, runs of equal sources become one repeated source.
pub fn ordered(subs: Vec<Source>) -> Source {
    if subs.len() == 1 {
        return subs.into_iter().next().unwrap_or(Source::NoMatch);
    }
    let mut flat = Vec::with_capacity(subs.len());
    for s in subs {
        match s {
            Source::Ordered(inner) => flat.extend(inner),
            other => flat.push(other),
        }
    }
    let mut out: Vec<Source> = Vec::new();
    let mut run: Vec<Source> = Vec::new();
    for s in flat {
        if run.is_empty() || run[0] == s {
            run.push(s);
        } else {
            let n = run.len();
            out.push(repeat(run.swap_remove(0), n));
            run.clear();
            run.push(s);
        }
    }
    if !run.is_empty() {
        let n = run.len();
        out.push(repeat(run.swap_remove(0), n));
    }
    single_or(out, "ORDERED", Source::Ordered)
}

/// Lucene's `Intervals.unordered` (`UnorderedIntervalsSource.build`): nested unordered sources
/// flattened, equal sources counted (in order of first appearance) into repeated sources.
pub fn unordered(subs: Vec<Source>) -> Source {
    if subs.len() == 1 {
        return subs.into_iter().next().unwrap_or(Source::NoMatch);
    }
    let mut flat = Vec::with_capacity(subs.len());
    for s in subs {
        match s {
            Source::Unordered(inner) => flat.extend(inner),
            other => flat.push(other),
        }
    }
    let mut counts: Vec<(Source, usize)> = Vec::new();
    for s in flat {
        match counts.iter_mut().find(|(c, _)| *c == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    let out = counts.into_iter().map(|(s, n)| repeat(s, n)).collect();
    single_or(out, "UNORDERED", Source::Unordered)
}

fn repeat(s: Source, n: usize) -> Source {
    if n == 1 {
        s
    } else {
        Source::Repeat(Box::new(s), n.min(i32::MAX as usize) as i32, None)
    }
}

/// One source left: itself (a repeated source takes `name`); else `make(list)`.
fn single_or(mut out: Vec<Source>, name: &'static str, make: fn(Vec<Source>) -> Source) -> Source {
    if out.len() == 1 {
        return match out.pop().unwrap_or(Source::NoMatch) {
            Source::Repeat(s, n, _) => Source::Repeat(s, n, Some(name)),
            other => other,
        };
    }
    make(out)
}

/// Lucene's `Intervals.phrase` (`BlockIntervalsSource.build`): disjunctions pulled up, each
/// combination a block (nested blocks flattened).
pub fn phrase(subs: Vec<Source>) -> Result<Source, String> {
    if subs.len() == 1 {
        return Ok(subs.into_iter().next().unwrap_or(Source::NoMatch));
    }
    let combos = pull_up_list(&subs, &|list: Vec<Source>| {
        let mut flat = Vec::with_capacity(list.len());
        for s in list {
            match s {
                Source::Block(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        Source::Block(flat)
    })?;
    Ok(or(combos))
}

/// Lucene's `Intervals.maxgaps`: the filter applied under each pulled-up disjunct.
pub fn max_gaps(n: i32, s: Source) -> Result<Source, String> {
    Ok(or(s.pull_up()?.into_iter().map(|x| Source::MaxGaps(Box::new(x), n)).collect()))
}

/// Lucene's `Intervals.extend`.
pub fn extend(s: Source, before: i32, after: i32) -> Source {
    Source::Extend(Box::new(s), before, after)
}

/// Lucene's `Intervals.unorderedNoOverlaps`: either order.
pub fn unordered_no_overlaps(a: Source, b: Source) -> Source {
    or(vec![ordered(vec![a.clone(), b.clone()]), ordered(vec![b, a])])
}

/// Lucene's `Intervals.containing` (disjunctions of `big` pulled up).
pub fn containing(big: Source, small: Source) -> Result<Source, String> {
    Ok(or(pull_up_one(&big, &|s| Source::Containing(Box::new(s), Box::new(small.clone())))?))
}

/// Lucene's `Intervals.containedBy` (disjunctions of `big` pulled up).
pub fn contained_by(small: Source, big: Source) -> Result<Source, String> {
    Ok(or(pull_up_one(&big, &|s| Source::ContainedBy(Box::new(small.clone()), Box::new(s)))?))
}

/// Lucene's `Intervals.notContaining` (disjunctions of the minuend pulled up).
pub fn not_containing(minuend: Source, subtrahend: Source) -> Result<Source, String> {
    Ok(or(pull_up_one(&minuend, &|s| Source::NotContaining(Box::new(s), Box::new(subtrahend.clone())))?))
}

/// Lucene's `Intervals.notContainedBy` (disjunctions of the subtrahend pulled up).
pub fn not_contained_by(minuend: Source, subtrahend: Source) -> Result<Source, String> {
    Ok(or(pull_up_one(&subtrahend, &|s| Source::NotContainedBy(Box::new(minuend.clone()), Box::new(s)))?))
}

/// Lucene's `Intervals.overlapping`.
pub fn overlapping(source: Source, reference: Source) -> Source {
    Source::Overlapping(Box::new(source), Box::new(reference))
}

/// Lucene's `Intervals.nonOverlapping`.
pub fn non_overlapping(minuend: Source, subtrahend: Source) -> Source {
    Source::NonOverlapping(Box::new(minuend), Box::new(subtrahend))
}

/// Lucene's `Intervals.before`: contained by everything up to the position before a reference
/// interval.
pub fn before(source: Source, reference: Source) -> Result<Source, String> {
    contained_by(source, extend(Source::Offset(Box::new(reference), true), i32::MAX, 0))
}

/// Lucene's `Intervals.after`: contained by everything from the position after a reference
/// interval.
pub fn after(source: Source, reference: Source) -> Result<Source, String> {
    contained_by(source, extend(Source::Offset(Box::new(reference), false), 0, i32::MAX))
}

/// Lucene's `Disjunctions.pullUp(list, function)`: every combination of the sources'
/// disjuncts, each made into a source.
fn pull_up_list(sources: &[Source], make: &dyn Fn(Vec<Source>) -> Source) -> Result<Vec<Source>, String> {
    let mut rewritten: Vec<Vec<Source>> = vec![vec![]];
    for s in sources {
        let disjuncts = split_disjunctions(s)?;
        if disjuncts.len() == 1 {
            for l in rewritten.iter_mut() {
                l.push(disjuncts[0].clone());
            }
        } else {
            if rewritten.len() * disjuncts.len() > MAX_CLAUSE_COUNT {
                return Err("Too many disjunctions to expand".into());
            }
            let mut next = Vec::with_capacity(rewritten.len() * disjuncts.len());
            for d in &disjuncts {
                for l in &rewritten {
                    let mut l = l.clone();
                    l.push(d.clone());
                    next.push(l);
                }
            }
            rewritten = next;
        }
    }
    Ok(rewritten.into_iter().map(make).collect())
}

/// Lucene's `Disjunctions.pullUp(source, function)`.
fn pull_up_one(source: &Source, make: &dyn Fn(Source) -> Source) -> Result<Vec<Source>, String> {
    Ok(split_disjunctions(source)?.into_iter().map(make).collect())
}

/// Lucene's `Disjunctions.splitDisjunctions`: disjuncts of extent 1 stay one disjunction.
fn split_disjunctions(source: &Source) -> Result<Vec<Source>, String> {
    let (mut singles, mut others) = (Vec::new(), Vec::new());
    for d in source.pull_up()? {
        if d.min_extent() == 1 {
            singles.push(d);
        } else {
            others.push(d);
        }
    }
    let mut out = Vec::with_capacity(others.len() + 1);
    if !singles.is_empty() {
        out.push(or(singles));
    }
    out.extend(others);
    Ok(out)
}

impl Source {
    /// Lucene's `IntervalsSource.pullUpDisjunctions`.
    pub fn pull_up(&self) -> Result<Vec<Source>, String> {
        Ok(match self {
            Source::Or(subs) => subs.clone(),
            Source::Ordered(subs) => pull_up_list(subs, &Source::Ordered)?,
            Source::Unordered(subs) => pull_up_list(subs, &Source::Unordered)?,
            Source::Extend(s, b, a) => {
                let inner = s.pull_up()?;
                if inner.is_empty() {
                    return Ok(vec![self.clone()]);
                }
                let mut out: Vec<Source> = Vec::new();
                for x in inner {
                    let e = Source::Extend(Box::new(x), *b, *a);
                    if !out.contains(&e) {
                        out.push(e);
                    }
                }
                out
            }
            Source::Containing(big, small) => pull_up_one(big, &|s| Source::Containing(Box::new(s), small.clone()))?,
            Source::ContainedBy(small, big) => pull_up_one(big, &|s| Source::ContainedBy(small.clone(), Box::new(s)))?,
            Source::Overlapping(s, r) => pull_up_list(&[(**s).clone(), (**r).clone()], &|mut v: Vec<Source>| {
                let r = v.pop().unwrap_or(Source::NoMatch);
                let s = v.pop().unwrap_or(Source::NoMatch);
                Source::Overlapping(Box::new(s), Box::new(r))
            })?,
            _ => vec![self.clone()],
        })
    }

    /// Lucene's `IntervalsSource.minExtent`: the least width of an interval of the source.
    pub fn min_extent(&self) -> i32 {
        match self {
            Source::Term { .. } | Source::MultiTerm { .. } | Source::Offset(..) => 1,
            Source::NoMatch => 0,
            Source::Or(subs) => subs.iter().map(Source::min_extent).min().unwrap_or(i32::MAX),
            Source::Ordered(subs) | Source::Unordered(subs) | Source::Block(subs) => {
                subs.iter().fold(0i32, |a, s| a.wrapping_add(s.min_extent()))
            }
            Source::MaxGaps(s, _) | Source::Repeat(s, _, _) => s.min_extent(),
            Source::Extend(s, b, a) => {
                let m = b.wrapping_add(s.min_extent()).wrapping_add(*a);
                if m < 0 {
                    i32::MAX
                } else {
                    m
                }
            }
            Source::Containing(big, _) => big.min_extent(),
            Source::ContainedBy(small, _) => small.min_extent(),
            Source::NotContaining(m, _)
            | Source::NotContainedBy(m, _)
            | Source::NonOverlapping(m, _)
            | Source::Overlapping(m, _) => m.min_extent(),
        }
    }

    /// The leaf terms (`field`, term) of the source, for highlighting.
    pub fn terms(&self, out: &mut Vec<(String, Vec<u8>)>) {
        match self {
            Source::Term { field, term } => out.push((field.clone(), term.clone())),
            Source::MultiTerm { field, terms, .. } => out.extend(terms.iter().map(|t| (field.clone(), t.clone()))),
            Source::NoMatch => {}
            Source::Or(subs) | Source::Ordered(subs) | Source::Unordered(subs) | Source::Block(subs) => {
                subs.iter().for_each(|s| s.terms(out))
            }
            Source::MaxGaps(s, _) | Source::Repeat(s, _, _) | Source::Extend(s, _, _) | Source::Offset(s, _) => {
                s.terms(out)
            }
            Source::Containing(a, b)
            | Source::ContainedBy(a, b)
            | Source::NotContaining(a, b)
            | Source::NotContainedBy(a, b)
            | Source::Overlapping(a, b)
            | Source::NonOverlapping(a, b) => {
                a.terms(out);
                b.terms(out);
            }
        }
    }
}

/// Lucene's `toString` of the sources (explanations print it).
impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, name: &str, subs: &[Source]| -> fmt::Result {
            write!(f, "{name}(")?;
            for (i, s) in subs.iter().enumerate() {
                write!(f, "{}{s}", if i > 0 { "," } else { "" })?;
            }
            write!(f, ")")
        };
        match self {
            Source::Term { term, .. } => write!(f, "{}", String::from_utf8_lossy(term)),
            Source::MultiTerm { pattern, .. } => write!(f, "{pattern}"),
            Source::Or(subs) => list(f, "or", subs),
            Source::Ordered(subs) => list(f, "ORDERED", subs),
            Source::Unordered(subs) => list(f, "UNORDERED", subs),
            Source::Block(subs) => list(f, "BLOCK", subs),
            Source::MaxGaps(s, n) => write!(f, "MAXGAPS/{n}({s})"),
            Source::Repeat(s, n, name) => {
                let one = s.to_string();
                let body = vec![one; (*n).max(1) as usize].join(",");
                match name {
                    Some(nm) => write!(f, "{nm}({body})"),
                    None => write!(f, "{body}"),
                }
            }
            Source::Extend(s, b, a) => write!(f, "EXTEND({s},{b},{a})"),
            Source::Containing(a, b) => write!(f, "CONTAINING({a},{b})"),
            Source::ContainedBy(a, b) => write!(f, "CONTAINED_BY({a},{b})"),
            Source::NotContaining(a, b) => write!(f, "NOT_CONTAINING({a},{b})"),
            Source::NotContainedBy(a, b) => write!(f, "NOT_CONTAINED_BY({a},{b})"),
            Source::Overlapping(a, b) => write!(f, "OVERLAPPING({a},{b})"),
            Source::NonOverlapping(a, b) => write!(f, "NON_OVERLAPPING({a},{b})"),
            Source::Offset(s, true) => write!(f, "PRECEDING({s})"),
            Source::Offset(s, false) => write!(f, "FOLLOWING({s})"),
            Source::NoMatch => write!(f, "no_match"),
        }
    }
}
