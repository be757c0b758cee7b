//! Interval iterators over one document's positions: Lucene's `IntervalIterator`s, ported step
//! by step (their minimization and their quirks decide which intervals match and the sloppy
//! frequency). A tree is reset for each document ([`Node::reset`]: children first, as Lucene's
//! iterators reset when their approximation lands on a document), then walked with
//! [`Node::next_interval`]. Before the first interval of a document `start`/`end` are -1; once
//! exhausted, [`NO_MORE`].
//!
//! Leaves whose term is absent from the document (or the segment) iterate no interval: for every
//! parent this is the same as Lucene's iterator not being on the document.

use super::Source;

/// Lucene's `IntervalIterator.NO_MORE_INTERVALS`.
pub const NO_MORE: i32 = i32::MAX;

/// The positions of each leaf in the current document.
#[derive(Debug, Default)]
pub struct Leaves {
    /// Positions by leaf index (empty: the term is not in the document).
    pub positions: Vec<Vec<u32>>,
}

/// Lucene's `PriorityQueue` (a binary heap, 1-based), over child indexes compared by `less`.
#[derive(Debug, Default, Clone)]
pub struct Heap {
    heap: Vec<usize>,
}

impl Heap {
    fn clear(&mut self) {
        self.heap.clear();
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
    fn top(&self) -> Option<usize> {
        self.heap.first().copied()
    }
    fn add(&mut self, x: usize, less: &dyn Fn(usize, usize) -> bool) {
        self.heap.push(x);
        // up-heap (positions 1-based as Lucene's)
        let mut i = self.heap.len();
        let node = self.heap[i - 1];
        let mut j = i >> 1;
        while j > 0 && less(node, self.heap[j - 1]) {
            self.heap[i - 1] = self.heap[j - 1];
            i = j;
            j >>= 1;
        }
        self.heap[i - 1] = node;
    }
    fn pop(&mut self, less: &dyn Fn(usize, usize) -> bool) -> Option<usize> {
        let size = self.heap.len();
        if size == 0 {
            return None;
        }
        let result = self.heap[0];
        let last = self.heap[size - 1];
        self.heap[0] = last;
        self.heap.pop();
        let size = self.heap.len();
        if size > 0 {
            let mut i = 1;
            let node = self.heap[0];
            let mut j = i << 1;
            let k = j + 1;
            if k <= size && less(self.heap[k - 1], self.heap[j - 1]) {
                j = k;
            }
            while j <= size && less(self.heap[j - 1], node) {
                self.heap[i - 1] = self.heap[j - 1];
                i = j;
                j = i << 1;
                let k = j + 1;
                if k <= size && less(self.heap[k - 1], self.heap[j - 1]) {
                    j = k;
                }
            }
            self.heap[i - 1] = node;
        }
        Some(result)
    }
}

/// Where a disjunction stands (empty: before its first interval).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cur {
    Empty,
    Exhausted,
    Sub(usize),
}

/// The filters of Lucene's `FilteringIntervalIterator`s (both sides must be on the document).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Filtering {
    Containing,
    ContainedBy,
    Overlapping,
}

/// The filters of Lucene's `RelativeIterator`s (the subtrahend may be absent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Relative {
    NotContaining,
    NotContainedBy,
    NonOverlapping,
}

/// An interval iterator.
#[derive(Debug, Clone)]
pub enum Node {
    /// A term's positions (`TermIntervalsSource`).
    Term { leaf: usize, next: usize, pos: i32 },
    /// No interval ever.
    Empty { started: bool },
    /// `DisjunctionIntervalIterator`.
    Disj { subs: Vec<Node>, queue: Heap, cur: Cur },
    /// `OrderedIntervalIterator` (`i`, the sub-iterator being placed, persists between calls).
    Ordered { subs: Vec<Node>, start: i32, end: i32, slop: i32, i: usize },
    /// `UnorderedIntervalIterator`.
    Unordered { subs: Vec<Node>, queue: Heap, start: i32, end: i32, slop: i32, queue_end: i32 },
    /// `BlockIntervalIterator`.
    Block { subs: Vec<Node>, start: i32, end: i32 },
    /// `IntervalFilter` keeping intervals with at most `max` gaps.
    MaxGaps { inner: Box<Node>, max: i32 },
    /// `DuplicateIntervalIterator` over `n` consecutive intervals.
    Repeat { inner: Box<Node>, n: usize, cache: Vec<i32>, base: usize, started: bool, exhausted: bool },
    /// `ExtendedIntervalIterator`.
    Extend { inner: Box<Node>, before: i32, after: i32, positioned: bool },
    /// `OffsetIntervalIterator`.
    Offset { inner: Box<Node>, before: bool },
    /// Containing, contained by, overlapping.
    Filtering { kind: Filtering, a: Box<Node>, b: Box<Node>, bpos: bool },
    /// Not containing, not contained by, not overlapping.
    Relative { kind: Relative, a: Box<Node>, b: Box<Node>, bpos: bool },
}

impl Heap {
    fn new() -> Self {
        Heap { heap: Vec::new() }
    }
}

/// Builds the iterator of `source`; `leaf` is called for each term leaf (field, term) and
/// returns its leaf index.
pub fn build(source: &Source, leaf: &mut dyn FnMut(&str, &[u8]) -> usize) -> Node {
    let b = |s: &Source, leaf: &mut dyn FnMut(&str, &[u8]) -> usize| Box::new(build(s, leaf));
    let many = |subs: &[Source], leaf: &mut dyn FnMut(&str, &[u8]) -> usize| {
        subs.iter().map(|s| build(s, leaf)).collect::<Vec<_>>()
    };
    match source {
        Source::Term { field, term } => Node::Term { leaf: leaf(field, term), next: 0, pos: -1 },
        Source::MultiTerm { field, terms, .. } => {
            let subs = terms.iter().map(|t| Node::Term { leaf: leaf(field, t), next: 0, pos: -1 }).collect();
            Node::Disj { subs, queue: Heap::new(), cur: Cur::Empty }
        }
        Source::NoMatch => Node::Empty { started: false },
        Source::Or(subs) => Node::Disj { subs: many(subs, leaf), queue: Heap::new(), cur: Cur::Empty },
        Source::Ordered(subs) => Node::Ordered { subs: many(subs, leaf), start: -1, end: -1, slop: -1, i: 1 },
        Source::Unordered(subs) => {
            Node::Unordered { subs: many(subs, leaf), queue: Heap::new(), start: -1, end: -1, slop: 0, queue_end: -1 }
        }
        Source::Block(subs) => Node::Block { subs: many(subs, leaf), start: -1, end: -1 },
        Source::MaxGaps(s, n) => Node::MaxGaps { inner: b(s, leaf), max: *n },
        Source::Repeat(s, n, _) => {
            let n = (*n).max(1) as usize;
            Node::Repeat { inner: b(s, leaf), n, cache: vec![-1; 2 * n], base: 0, started: false, exhausted: false }
        }
        Source::Extend(s, before, after) => {
            Node::Extend { inner: b(s, leaf), before: *before, after: *after, positioned: false }
        }
        Source::Offset(s, before) => Node::Offset { inner: b(s, leaf), before: *before },
        Source::Containing(x, y) => {
            Node::Filtering { kind: Filtering::Containing, a: b(x, leaf), b: b(y, leaf), bpos: false }
        }
        Source::ContainedBy(x, y) => {
            Node::Filtering { kind: Filtering::ContainedBy, a: b(x, leaf), b: b(y, leaf), bpos: false }
        }
        Source::Overlapping(x, y) => {
            Node::Filtering { kind: Filtering::Overlapping, a: b(x, leaf), b: b(y, leaf), bpos: false }
        }
        Source::NotContaining(x, y) => {
            Node::Relative { kind: Relative::NotContaining, a: b(x, leaf), b: b(y, leaf), bpos: false }
        }
        Source::NotContainedBy(x, y) => {
            Node::Relative { kind: Relative::NotContainedBy, a: b(x, leaf), b: b(y, leaf), bpos: false }
        }
        Source::NonOverlapping(x, y) => {
            Node::Relative { kind: Relative::NonOverlapping, a: b(x, leaf), b: b(y, leaf), bpos: false }
        }
    }
}

fn disj_less(subs: &[Node]) -> impl Fn(usize, usize) -> bool + '_ {
    move |a, b| {
        let (x, y) = (&subs[a], &subs[b]);
        x.end() < y.end() || (x.end() == y.end() && x.start() >= y.start())
    }
}

fn unordered_less(subs: &[Node]) -> impl Fn(usize, usize) -> bool + '_ {
    move |a, b| {
        let (x, y) = (&subs[a], &subs[b]);
        x.start() < y.start() || (x.start() == y.start() && x.end() >= y.end())
    }
}

impl Node {
    /// The current interval's start.
    pub fn start(&self) -> i32 {
        match self {
            Node::Term { pos, .. } => *pos,
            Node::Empty { started } => {
                if *started {
                    NO_MORE
                } else {
                    -1
                }
            }
            Node::Disj { subs, cur, .. } => match cur {
                Cur::Empty => -1,
                Cur::Exhausted => NO_MORE,
                Cur::Sub(i) => subs[*i].start(),
            },
            Node::Ordered { start, .. } | Node::Unordered { start, .. } | Node::Block { start, .. } => *start,
            Node::MaxGaps { inner, .. } => inner.start(),
            Node::Repeat { n, cache, base, exhausted, .. } => {
                if *exhausted {
                    NO_MORE
                } else {
                    cache[(base % n) * 2]
                }
            }
            Node::Extend { inner, before, positioned, .. } => {
                if !*positioned {
                    return -1;
                }
                let s = inner.start();
                if s == NO_MORE {
                    NO_MORE
                } else {
                    0.max(s.wrapping_sub(*before))
                }
            }
            Node::Offset { inner, before } => {
                if *before {
                    let pos = inner.start();
                    if pos == -1 {
                        -1
                    } else if pos == NO_MORE {
                        NO_MORE
                    } else {
                        0.max(pos - 1)
                    }
                } else {
                    let pos = inner.end().wrapping_add(1);
                    if pos == 0 {
                        -1
                    } else if pos < 0 {
                        NO_MORE
                    } else if pos == NO_MORE {
                        NO_MORE - 1
                    } else {
                        pos
                    }
                }
            }
            Node::Filtering { a, bpos, .. } => {
                if *bpos {
                    a.start()
                } else {
                    NO_MORE
                }
            }
            Node::Relative { a, .. } => a.start(),
        }
    }

    /// The current interval's end.
    pub fn end(&self) -> i32 {
        match self {
            Node::Term { pos, .. } => *pos,
            Node::Empty { .. } => self.start(),
            Node::Disj { subs, cur, .. } => match cur {
                Cur::Empty => -1,
                Cur::Exhausted => NO_MORE,
                Cur::Sub(i) => subs[*i].end(),
            },
            Node::Ordered { end, .. } | Node::Unordered { end, .. } | Node::Block { end, .. } => *end,
            Node::MaxGaps { inner, .. } => inner.end(),
            Node::Repeat { n, cache, base, exhausted, .. } => {
                if *exhausted {
                    NO_MORE
                } else {
                    cache[((base + n - 1) % n) * 2 + 1]
                }
            }
            Node::Extend { inner, after, positioned, .. } => {
                if !*positioned {
                    return -1;
                }
                let e = inner.end();
                if e == NO_MORE {
                    return NO_MORE;
                }
                let e = e.wrapping_add(*after);
                if e < 0 || e == NO_MORE {
                    NO_MORE - 1
                } else {
                    e
                }
            }
            Node::Offset { .. } => self.start(),
            Node::Filtering { a, bpos, .. } => {
                if *bpos {
                    a.end()
                } else {
                    NO_MORE
                }
            }
            Node::Relative { a, .. } => a.end(),
        }
    }

    /// Positions inside the interval not covered by its sub-intervals.
    pub fn gaps(&self) -> i32 {
        match self {
            Node::Term { .. } | Node::Empty { .. } | Node::Block { .. } | Node::Offset { .. } => 0,
            Node::Disj { subs, cur, .. } => match cur {
                Cur::Sub(i) => subs[*i].gaps(),
                _ => 0,
            },
            Node::Ordered { slop, .. } | Node::Unordered { slop, .. } => *slop,
            Node::MaxGaps { inner, .. } | Node::Extend { inner, .. } => inner.gaps(),
            Node::Repeat { .. } => self.span().wrapping_sub(self.width()),
            Node::Filtering { a, .. } | Node::Relative { a, .. } => a.gaps(),
        }
    }

    /// `end - start + 1` (Lucene's default `width`).
    fn span(&self) -> i32 {
        self.end().wrapping_sub(self.start()).wrapping_add(1)
    }

    /// Lucene's `width`: the span, except for repeats (the sum of their intervals' widths,
    /// computed as Lucene does: `start - end + 1` each).
    pub fn width(&self) -> i32 {
        match self {
            Node::Repeat { n, cache, base, .. } => {
                let mut w = 0i32;
                for i in 0..*n {
                    let p = (base + i) % n;
                    w = w.wrapping_add(cache[p * 2].wrapping_sub(cache[p * 2 + 1]).wrapping_add(1));
                }
                w
            }
            _ => self.span(),
        }
    }

    /// Positions the tree on a new document (children first).
    pub fn reset(&mut self, lv: &Leaves) {
        match self {
            Node::Term { leaf, next, pos } => {
                let _ = leaf;
                *next = 0;
                *pos = -1;
            }
            Node::Empty { started } => *started = false,
            Node::Disj { subs, queue, cur } => {
                queue.clear();
                for i in 0..subs.len() {
                    subs[i].reset(lv);
                    subs[i].next_interval(lv);
                    queue.add(i, &disj_less(subs));
                }
                *cur = Cur::Empty;
            }
            Node::Ordered { subs, start, end, slop, i } => {
                for s in subs.iter_mut() {
                    s.reset(lv);
                }
                subs[0].next_interval(lv);
                *i = 1;
                (*start, *end, *slop) = (-1, -1, -1);
            }
            Node::Unordered { subs, queue, start, end, queue_end, .. } => {
                for s in subs.iter_mut() {
                    s.reset(lv);
                }
                (*queue_end, *start, *end) = (-1, -1, -1);
                queue.clear();
                for i in 0..subs.len() {
                    if subs[i].next_interval(lv) == NO_MORE {
                        break;
                    }
                    queue.add(i, &unordered_less(subs));
                    *queue_end = (*queue_end).max(subs[i].end());
                }
            }
            Node::Block { subs, start, end } => {
                for s in subs.iter_mut() {
                    s.reset(lv);
                }
                (*start, *end) = (-1, -1);
            }
            Node::MaxGaps { inner, .. } | Node::Offset { inner, .. } => inner.reset(lv),
            Node::Repeat { inner, cache, started, exhausted, .. } => {
                inner.reset(lv);
                *started = false;
                *exhausted = false;
                cache.iter_mut().for_each(|c| *c = -1);
            }
            Node::Extend { inner, positioned, .. } => {
                inner.reset(lv);
                *positioned = false;
            }
            Node::Filtering { a, b, bpos, .. } => {
                a.reset(lv);
                b.reset(lv);
                *bpos = b.next_interval(lv) != NO_MORE;
            }
            Node::Relative { a, b, bpos, .. } => {
                a.reset(lv);
                b.reset(lv);
                *bpos = true;
            }
        }
    }

    /// Moves to the next interval; returns its start or [`NO_MORE`].
    pub fn next_interval(&mut self, lv: &Leaves) -> i32 {
        match self {
            Node::Term { leaf, next, pos } => {
                let ps = &lv.positions[*leaf];
                match ps.get(*next) {
                    Some(&p) => {
                        *next += 1;
                        *pos = p.min(NO_MORE as u32 - 1) as i32;
                    }
                    None => *pos = NO_MORE,
                }
                *pos
            }
            Node::Empty { started } => {
                *started = true;
                NO_MORE
            }
            Node::Disj { subs, queue, cur } => {
                if matches!(cur, Cur::Empty | Cur::Exhausted) {
                    if let Some(t) = queue.top() {
                        *cur = Cur::Sub(t);
                    }
                    return match cur {
                        Cur::Sub(i) => subs[*i].start(),
                        Cur::Empty => -1,
                        Cur::Exhausted => NO_MORE,
                    };
                }
                let Cur::Sub(c) = *cur else { return NO_MORE };
                let (start, end) = (subs[c].start(), subs[c].end());
                while let Some(t) = queue.top() {
                    let it = &subs[t];
                    let contains = start >= it.start() && start <= it.end() && end >= it.start() && end <= it.end();
                    if !contains {
                        break;
                    }
                    queue.pop(&disj_less(subs));
                    if subs[t].next_interval(lv) != NO_MORE {
                        queue.add(t, &disj_less(subs));
                    }
                }
                match queue.top() {
                    None => {
                        *cur = Cur::Exhausted;
                        NO_MORE
                    }
                    Some(t) => {
                        *cur = Cur::Sub(t);
                        subs[t].start()
                    }
                }
            }
            Node::Ordered { subs, start, end, slop, i } => ordered_next(subs, start, end, slop, i, lv),
            Node::Unordered { subs, queue, start, end, slop, queue_end } => {
                unordered_next(subs, queue, start, end, slop, queue_end, lv)
            }
            Node::Block { subs, start, end } => block_next(subs, start, end, lv),
            Node::MaxGaps { inner, max } => loop {
                let next = inner.next_interval(lv);
                if next == NO_MORE || inner.gaps() <= *max {
                    return next;
                }
            },
            Node::Repeat { inner, n, cache, base, started, exhausted } => {
                if *exhausted {
                    return NO_MORE;
                }
                let n = *n;
                let mut cache_next = |line: usize, cache: &mut Vec<i32>, exhausted: &mut bool| -> bool {
                    if inner.next_interval(lv) == NO_MORE {
                        *exhausted = true;
                        return false;
                    }
                    cache[line * 2] = inner.start();
                    cache[line * 2 + 1] = inner.end();
                    true
                };
                if !*started {
                    for i in 0..n {
                        if !cache_next(i, cache, exhausted) {
                            return NO_MORE;
                        }
                    }
                    *base = 0;
                    *started = true;
                } else {
                    let insert = (*base + n) % n;
                    *base = (*base + 1) % n;
                    if !cache_next(insert, cache, exhausted) {
                        return NO_MORE;
                    }
                }
                cache[(*base % n) * 2]
            }
            Node::Extend { inner, positioned, .. } => {
                *positioned = true;
                inner.next_interval(lv);
                self.start()
            }
            Node::Offset { inner, .. } => {
                inner.next_interval(lv);
                self.start()
            }
            Node::Filtering { kind, a, b, bpos } => filtering_next(*kind, a, b, bpos, lv),
            Node::Relative { kind, a, b, bpos } => relative_next(*kind, a, b, bpos, lv),
        }
    }
}

/// Lucene 10's ordered iterator: the index of the sub-iterator being placed carries over from
/// the previous call (earlier versions restarted at 1 and missed overlapping minimal intervals).
fn ordered_next(subs: &mut [Node], start: &mut i32, end: &mut i32, slop: &mut i32, i: &mut usize, lv: &Leaves) -> i32 {
    (*start, *end, *slop) = (NO_MORE, NO_MORE, NO_MORE);
    let n = subs.len();
    let mut last_start = i32::MAX;
    let mut minimizing = false;
    loop {
        loop {
            if subs[*i - 1].end() >= last_start {
                return *start;
            }
            if *i == n || (minimizing && subs[*i].start() > subs[*i - 1].end()) {
                break;
            }
            loop {
                if subs[*i].end() >= last_start || subs[*i].next_interval(lv) == NO_MORE {
                    return *start;
                }
                if subs[*i].start() > subs[*i - 1].end() {
                    break;
                }
            }
            *i += 1;
        }
        *start = subs[0].start();
        if *start == NO_MORE {
            *end = NO_MORE;
            return NO_MORE;
        }
        *end = subs[n - 1].end();
        *slop = end.wrapping_sub(*start).wrapping_add(1);
        for s in subs.iter() {
            *slop = slop.wrapping_sub(s.width());
        }
        last_start = subs[n - 1].start();
        *i = 1;
        if subs[0].next_interval(lv) == NO_MORE {
            return *start;
        }
        minimizing = true;
    }
}

#[allow(clippy::too_many_arguments)]
fn unordered_next(
    subs: &mut [Node],
    queue: &mut Heap,
    start: &mut i32,
    end: &mut i32,
    slop: &mut i32,
    queue_end: &mut i32,
    lv: &Leaves,
) -> i32 {
    let n = subs.len();
    while queue.len() == n && queue.top().map(|t| subs[t].start()) == Some(*start) {
        let popped = queue.pop(&unordered_less(subs));
        if let Some(t) = popped {
            if subs[t].next_interval(lv) != NO_MORE {
                queue.add(t, &unordered_less(subs));
                *queue_end = (*queue_end).max(subs[t].end());
            }
        }
    }
    if queue.len() < n {
        (*start, *end) = (NO_MORE, NO_MORE);
        return NO_MORE;
    }
    while let Some(top) = queue.top() {
        *start = subs[top].start();
        *end = *queue_end;
        *slop = end.wrapping_sub(*start).wrapping_add(1);
        for s in subs.iter() {
            *slop = slop.wrapping_sub(s.width());
        }
        if subs[top].end() == *end {
            return *start;
        }
        let popped = queue.pop(&unordered_less(subs));
        if let Some(t) = popped {
            if subs[t].next_interval(lv) != NO_MORE {
                queue.add(t, &unordered_less(subs));
                *queue_end = (*queue_end).max(subs[t].end());
            }
        }
        if !(queue.len() == n && *end == *queue_end) {
            break;
        }
    }
    *start
}

fn block_next(subs: &mut [Node], start: &mut i32, end: &mut i32, lv: &Leaves) -> i32 {
    let done = |start: &mut i32, end: &mut i32| {
        (*start, *end) = (NO_MORE, NO_MORE);
        NO_MORE
    };
    if subs[0].next_interval(lv) == NO_MORE {
        return done(start, end);
    }
    let mut i = 1;
    while i < subs.len() {
        while subs[i].start() <= subs[i - 1].end() {
            if subs[i].next_interval(lv) == NO_MORE {
                return done(start, end);
            }
        }
        if subs[i].start() == subs[i - 1].end().wrapping_add(1) {
            i += 1;
        } else {
            if subs[0].next_interval(lv) == NO_MORE {
                return done(start, end);
            }
            i = 1;
        }
    }
    *start = subs[0].start();
    *end = subs[subs.len() - 1].end();
    *start
}

fn filtering_next(kind: Filtering, a: &mut Node, b: &mut Node, bpos: &mut bool, lv: &Leaves) -> i32 {
    if !*bpos {
        return NO_MORE;
    }
    match kind {
        Filtering::Containing => {
            while a.next_interval(lv) != NO_MORE {
                while b.start() < a.start() && b.end() < a.end() {
                    if b.next_interval(lv) == NO_MORE {
                        return NO_MORE;
                    }
                }
                if a.start() <= b.start() && a.end() >= b.end() {
                    return a.start();
                }
            }
            NO_MORE
        }
        Filtering::ContainedBy => {
            while a.next_interval(lv) != NO_MORE {
                while b.end() < a.end() {
                    if b.next_interval(lv) == NO_MORE {
                        *bpos = false;
                        return NO_MORE;
                    }
                }
                if b.start() <= a.start() {
                    return a.start();
                }
            }
            *bpos = false;
            NO_MORE
        }
        Filtering::Overlapping => {
            while a.next_interval(lv) != NO_MORE {
                while b.end() < a.start() {
                    if b.next_interval(lv) == NO_MORE {
                        *bpos = false;
                        return NO_MORE;
                    }
                }
                if b.start() <= a.end() {
                    return a.start();
                }
            }
            *bpos = false;
            NO_MORE
        }
    }
}

fn relative_next(kind: Relative, a: &mut Node, b: &mut Node, bpos: &mut bool, lv: &Leaves) -> i32 {
    if !*bpos {
        return a.next_interval(lv);
    }
    match kind {
        Relative::NotContaining => {
            while a.next_interval(lv) != NO_MORE {
                while b.start() < a.start() && b.end() < a.end() {
                    if b.next_interval(lv) == NO_MORE {
                        *bpos = false;
                        return a.start();
                    }
                }
                if b.start() > a.end() {
                    return a.start();
                }
            }
            NO_MORE
        }
        Relative::NotContainedBy => {
            while a.next_interval(lv) != NO_MORE {
                while b.end() < a.end() {
                    if b.next_interval(lv) == NO_MORE {
                        return a.start();
                    }
                }
                if a.start() < b.start() {
                    return a.start();
                }
            }
            NO_MORE
        }
        Relative::NonOverlapping => {
            while a.next_interval(lv) != NO_MORE {
                while b.end() < a.start() {
                    if b.next_interval(lv) == NO_MORE {
                        *bpos = false;
                        return a.start();
                    }
                }
                if b.start() > a.end() {
                    return a.start();
                }
            }
            NO_MORE
        }
    }
}
