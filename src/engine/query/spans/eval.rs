//! A document's spans, computed from its leaves' positions as Lucene's `Spans` iterate them:
//! `TermSpans`, `SpanOrQuery`'s position queue, `NearSpansOrdered` (each later clause moved
//! forward only, as little as needed), `NearSpansUnordered` (a priority queue of the clauses
//! by start then end, Lucene's heap order kept because it decides which clause moves on a tie),
//! and the filters of `SpanNotQuery`, `SpanFirstQuery`, `SpanContainingQuery` and
//! `SpanWithinQuery`. The spans of a document are listed in Lucene's order.

use super::SpanQuery;

/// Lucene's `Spans.NO_MORE_POSITIONS`.
pub const NO_MORE: i32 = i32::MAX;

/// One span: `[start, end)` and its width (the slop it used; 0 for a term).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: i32,
    pub end: i32,
    pub width: i32,
}

/// The spans of `q` in a document whose leaves (numbered as [`SpanQuery::leaves`] lists them)
/// are at `positions`.
pub fn spans(q: &SpanQuery, positions: &[Vec<u32>]) -> Vec<Span> {
    let mut next = 0;
    eval(q, positions, &mut next)
}

/// Lucene's sloppy frequency of a document: `Σ 1 / (1 + width)`, accumulated in a float as
/// `SpanScorer` does (each step in double, stored back as float).
pub fn sloppy_freq(spans: &[Span]) -> f32 {
    let mut freq = 0f32;
    for s in spans {
        freq = (freq as f64 + 1.0 / (1.0 + s.width as f64)) as f32;
    }
    freq
}

fn skip(q: &SpanQuery, next: &mut usize) {
    let mut v = Vec::new();
    q.leaves(&mut v);
    *next += v.len();
}

fn eval(q: &SpanQuery, pos: &[Vec<u32>], next: &mut usize) -> Vec<Span> {
    match q {
        SpanQuery::Term { .. } => {
            let l = *next;
            *next += 1;
            pos.get(l).map_or_else(Vec::new, |p| p.iter().map(|&x| term_span(x)).collect())
        }
        SpanQuery::IndexPrefix { terms, .. } => {
            // The subfield holds the prefix once per token: positions of all the terms, merged.
            let mut all: Vec<u32> = Vec::new();
            for _ in terms {
                if let Some(p) = pos.get(*next) {
                    all.extend_from_slice(p);
                }
                *next += 1;
            }
            all.sort_unstable();
            all.into_iter().map(term_span).collect()
        }
        SpanQuery::Or(subs) => {
            let mut all: Vec<Span> = Vec::new();
            for s in subs {
                all.extend(eval(s, pos, next));
            }
            all.sort_by_key(|s| (s.start, s.end));
            all
        }
        SpanQuery::Near { clauses, slop, in_order } => {
            let mut subs: Vec<Cursor> = Vec::with_capacity(clauses.len());
            for c in clauses {
                subs.push(match c {
                    SpanQuery::Gap { width, .. } => Cursor::Gap { width: *width, pos: -1 },
                    other => Cursor::List { v: eval(other, pos, next), i: -1 },
                });
            }
            // A conjunction: every clause must have a span in the document.
            if subs.iter().any(|c| matches!(c, Cursor::List { v, .. } if v.is_empty()))
                || subs.iter().all(|c| matches!(c, Cursor::Gap { .. }))
            {
                return Vec::new();
            }
            if *in_order {
                near_ordered(subs, *slop)
            } else {
                near_unordered(subs, *slop)
            }
        }
        SpanQuery::Not { include, exclude, pre, post } => {
            let inc = eval(include, pos, next);
            let exc = eval(exclude, pos, next);
            if inc.is_empty() || exc.is_empty() {
                return inc;
            }
            let (pre, post) = (*pre as i64, *post as i64);
            let mut j = 0usize;
            let mut out = Vec::new();
            for c in inc {
                while j < exc.len() && exc[j].end as i64 <= c.start as i64 - pre {
                    j += 1;
                }
                let ex_start = exc.get(j).map_or(NO_MORE, |e| e.start) as i64;
                if ex_start - post >= c.end as i64 {
                    out.push(c);
                }
            }
            out
        }
        SpanQuery::First { inner, end } => {
            let mut out = Vec::new();
            for s in eval(inner, pos, next) {
                if s.start >= *end {
                    break;
                }
                if s.end <= *end {
                    out.push(s);
                }
            }
            out
        }
        SpanQuery::Containing { big, little } => {
            let b = eval(big, pos, next);
            let l = eval(little, pos, next);
            let mut out = Vec::new();
            if b.is_empty() || l.is_empty() {
                return out;
            }
            // `little` starts before its first span (start -1).
            let mut j: isize = -1;
            for s in b {
                while j < 0 || l[j as usize].start < s.start {
                    j += 1;
                    if j as usize >= l.len() {
                        return out;
                    }
                }
                if s.end >= l[j as usize].end {
                    out.push(s);
                }
            }
            out
        }
        SpanQuery::Within { big, little } => {
            let b = eval(big, pos, next);
            let l = eval(little, pos, next);
            let mut out = Vec::new();
            if b.is_empty() || l.is_empty() {
                return out;
            }
            // `big` starts before its first span (end -1).
            let mut k: isize = -1;
            for s in l {
                while k < 0 || b[k as usize].end < s.end {
                    k += 1;
                    if k as usize >= b.len() {
                        return out;
                    }
                }
                if b[k as usize].start <= s.start {
                    out.push(s);
                }
            }
            out
        }
        SpanQuery::Mask { inner, .. } => eval(inner, pos, next),
        SpanQuery::Gap { .. } | SpanQuery::NoMatch { .. } => {
            skip(q, next);
            Vec::new()
        }
    }
}

fn term_span(p: u32) -> Span {
    let s = p.min(NO_MORE as u32 - 1) as i32;
    Span { start: s, end: s + 1, width: 0 }
}

/// A clause of a near query being iterated.
#[derive(Debug)]
enum Cursor {
    /// A clause's spans; `i` is the current one (-1: before the first; `len`: exhausted).
    List { v: Vec<Span>, i: isize },
    /// `GapSpans`: any position, `width` long.
    Gap { width: i32, pos: i32 },
}

impl Cursor {
    fn start(&self) -> i32 {
        match self {
            Cursor::List { v, i } => {
                if *i < 0 {
                    -1
                } else {
                    v.get(*i as usize).map_or(NO_MORE, |s| s.start)
                }
            }
            Cursor::Gap { pos, .. } => *pos,
        }
    }
    fn end(&self) -> i32 {
        match self {
            Cursor::List { v, i } => {
                if *i < 0 {
                    -1
                } else {
                    v.get(*i as usize).map_or(NO_MORE, |s| s.end)
                }
            }
            Cursor::Gap { pos, width } => pos.saturating_add(*width),
        }
    }
    fn next_start(&mut self) -> i32 {
        match self {
            Cursor::List { v, i } => {
                if (*i as usize) < v.len() || *i < 0 {
                    *i += 1;
                }
            }
            Cursor::Gap { pos, .. } => *pos = pos.saturating_add(1),
        }
        self.start()
    }
    /// `NearSpansOrdered.advancePosition`.
    fn advance_to(&mut self, position: i32) -> i32 {
        match self {
            Cursor::Gap { pos, .. } => {
                *pos = position;
                position
            }
            Cursor::List { .. } => {
                while self.start() < position {
                    self.next_start();
                }
                self.start()
            }
        }
    }
    fn is_gap(&self) -> bool {
        matches!(self, Cursor::Gap { .. })
    }
}

/// `NearSpansOrdered`: for each span of the first clause, each later clause moved to its first
/// span starting at or after the previous clause's end; a match when the gaps sum to at most
/// `slop`. The first exhausted clause ends the document.
fn near_ordered(mut subs: Vec<Cursor>, slop: i32) -> Vec<Span> {
    let mut out = Vec::new();
    // A gap leading the clauses moves on forever: stop once past every listed span.
    let last_pos = subs
        .iter()
        .filter_map(|c| match c {
            Cursor::List { v, .. } => v.iter().map(|s| s.end).max(),
            Cursor::Gap { .. } => None,
        })
        .max()
        .unwrap_or(0);
    loop {
        let s0 = subs[0].next_start();
        if s0 == NO_MORE || (subs[0].is_gap() && s0 > last_pos) {
            return out;
        }
        let match_start = s0;
        let mut width: i64 = 0;
        for i in 1..subs.len() {
            let prev_end = subs[i - 1].end();
            if subs[i].advance_to(prev_end) == NO_MORE {
                return out;
            }
            width += subs[i].start() as i64 - prev_end as i64;
        }
        if width <= slop as i64 {
            let end = subs[subs.len() - 1].end();
            out.push(Span { start: match_start, end, width: width.clamp(i32::MIN as i64, i32::MAX as i64) as i32 });
        }
    }
}

/// `NearSpansUnordered`: the clauses in a priority queue by (start, end); the window from the
/// first clause's start to the furthest end matches when it holds at most `slop` positions
/// besides the clauses' own lengths; the first clause moves on after each window.
fn near_unordered(mut subs: Vec<Cursor>, slop: i32) -> Vec<Span> {
    let mut out = Vec::new();
    let less = |subs: &[Cursor], a: usize, b: usize| {
        let (sa, sb) = (subs[a].start(), subs[b].start());
        if sa != sb {
            sa < sb
        } else {
            subs[a].end() < subs[b].end()
        }
    };
    let mut heap: Vec<usize> = Vec::with_capacity(subs.len());
    let (mut total, mut max_end): (i64, i32) = (0, -1);
    for i in 0..subs.len() {
        subs[i].next_start();
        heap_add(&mut heap, i, &|a, b| less(&subs, a, b));
        max_end = max_end.max(subs[i].end());
        total += subs[i].end() as i64 - subs[i].start() as i64;
    }
    let at_match = |subs: &[Cursor], top: usize, max_end: i32, total: i64| {
        max_end as i64 - subs[top].start() as i64 - total <= slop as i64
    };
    loop {
        let top = heap[0];
        if at_match(&subs, top, max_end, total) {
            let start = subs[top].start();
            out.push(Span { start, end: max_end, width: max_end.saturating_sub(start) });
        }
        // nextPosition: the top clause moves on.
        let len = subs[top].end() as i64 - subs[top].start() as i64;
        if subs[top].next_start() == NO_MORE {
            return out;
        }
        total = total - len + (subs[top].end() as i64 - subs[top].start() as i64);
        max_end = max_end.max(subs[top].end());
        heap_update_top(&mut heap, &|a, b| less(&subs, a, b));
    }
}

/// Lucene's `PriorityQueue.add` (`upHeap`), 1-based positions.
fn heap_add(heap: &mut Vec<usize>, x: usize, less: &dyn Fn(usize, usize) -> bool) {
    heap.push(x);
    let mut i = heap.len();
    let node = heap[i - 1];
    let mut j = i >> 1;
    while j > 0 && less(node, heap[j - 1]) {
        heap[i - 1] = heap[j - 1];
        i = j;
        j >>= 1;
    }
    heap[i - 1] = node;
}

/// Lucene's `PriorityQueue.updateTop` (`downHeap` from the top).
fn heap_update_top(heap: &mut [usize], less: &dyn Fn(usize, usize) -> bool) {
    let size = heap.len();
    if size == 0 {
        return;
    }
    let mut i = 1;
    let node = heap[0];
    let mut j = i << 1;
    let mut k = j + 1;
    if k <= size && less(heap[k - 1], heap[j - 1]) {
        j = k;
    }
    while j <= size && less(heap[j - 1], node) {
        heap[i - 1] = heap[j - 1];
        i = j;
        j = i << 1;
        k = j + 1;
        if k <= size && less(heap[k - 1], heap[j - 1]) {
            j = k;
        }
    }
    heap[i - 1] = node;
}
