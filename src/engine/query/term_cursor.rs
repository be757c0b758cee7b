//! A term scorer read a block at a time: [`TermCursor`] holds the docs and freqs of the current
//! postings block in arrays ([`crate::engine::segment::Postings::move_and_read`]), so that the
//! conjunction and MaxScore loops step, advance and score with array operations and call the
//! postings (dynamically) only once per block.
//!
//! The buffer is a [`super::block_buf::BlockBuf`]; its invariant: `docs[i..n]` are the term's
//! docs not yet passed, all in one postings block, and the underlying postings sit on
//! `docs[n - 1]`; `n == 0` means exhausted. Block-max bounds asked for
//! from the cursor's doc on are asked of the postings from its real doc on, which lies in the
//! same block, so they cover the buffered docs.

use super::block_buf::BlockBuf;
use super::scorer::{Scorer, TermScorer};
use crate::engine::codec::bitpack::BLOCK;
use crate::engine::segment::DocId;
use crate::engine::Error;

/// A [`TermScorer`] with its current block buffered.
pub struct TermCursor<'a> {
    b: BlockBuf<TermScorer<'a>>,
}

impl<'a> TermCursor<'a> {
    /// A cursor on the first doc of `sc` (a freshly built term scorer).
    pub fn new(sc: TermScorer<'a>) -> Self {
        TermCursor { b: BlockBuf::new(sc) }
    }

    /// From now on, advances beyond the buffered block probe the postings and buffer only the
    /// doc reached ([`super::block_buf::BlockBuf`]'s `probing`): for a clause whose docs are
    /// sought far more sparsely than they lie.
    pub fn set_probing(&mut self) {
        self.b.probing = true;
        self.b.src.set_loose_bounds();
    }

    /// The current doc, [`crate::engine::segment::NO_MORE_DOCS`] when exhausted.
    #[inline]
    pub fn doc(&self) -> DocId {
        self.b.doc()
    }

    /// The next doc.
    #[inline]
    #[allow(
        clippy::should_implement_trait,
        reason = "a cursor like Scorer::next, not an Iterator: NO_MORE_DOCS ends it"
    )]
    pub fn next(&mut self) -> DocId {
        self.b.step()
    }

    /// The first doc `>= target` (no move when `target <= doc()`).
    #[inline]
    pub fn advance(&mut self, target: DocId) -> DocId {
        self.b.seek(target)
    }

    /// The score of the current doc.
    #[inline]
    pub fn score(&mut self) -> f32 {
        let i = self.b.i & (BLOCK - 1);
        self.b.src.score_of(self.b.docs[i], self.b.freqs[i])
    }

    /// The buffered docs from the current one on (empty when exhausted); index `k` of this
    /// slice is buffer index `buffer_start() + k`.
    #[inline]
    pub fn buffered(&self) -> &[DocId] {
        &self.b.docs[self.b.i.min(self.b.n)..self.b.n]
    }

    /// The buffer index of the current doc.
    #[inline]
    pub fn buffer_start(&self) -> usize {
        self.b.i
    }

    /// Adds to `acc[m]` the score of the buffered doc at buffer index `idx[m]` (batch scoring
    /// of a conjunction's matches; indices come from [`Self::buffered`]).
    #[inline]
    pub fn add_scores(&mut self, idx: &[u8], acc: &mut [f64]) {
        for (a, &k) in acc.iter_mut().zip(idx) {
            let k = k as usize & (BLOCK - 1);
            *a += self.b.src.score_of(self.b.docs[k], self.b.freqs[k]) as f64;
        }
    }

    /// Moves to the first doc after `upto`, which must not lie beyond the buffered block
    /// (`upto <= docs[n - 1]`); `from` is a buffer index known to hold a doc `<= upto` or to
    /// be the first beyond it (a hint; the current index is always safe).
    #[inline]
    pub fn jump_past(&mut self, upto: DocId, from: usize) {
        let mut j = from.max(self.b.i);
        while j < self.b.n && self.b.docs[j] <= upto {
            j += 1;
        }
        if j < self.b.n {
            self.b.i = j;
        } else if self.b.n > 0 {
            self.b.i = self.b.n - 1;
            self.next();
        }
    }

    /// MaxScore's essential-clause pass: from the current doc (`>= lo`) up to `hi` (exclusive,
    /// `hi - lo <= acc.len()`), adds each doc's score to `acc[doc - lo]`, stores it in
    /// `row[doc - lo]` when given, and sets bit `doc - lo` of `bits`, a buffered block at a
    /// time; leaves the cursor on its first doc `>= hi`. Returns whether any doc was seen.
    pub fn accumulate(
        &mut self,
        lo: DocId,
        hi: DocId,
        acc: &mut [f64],
        mut row: Option<&mut [f32]>,
        bits: &mut [u64],
    ) -> bool {
        let mut any = false;
        while self.b.i < self.b.n {
            let (i, n) = (self.b.i, self.b.n);
            let k = i + self.b.docs[i..n].partition_point(|&d| d < hi);
            for j in i..k {
                let d = self.b.docs[j];
                let off = d.wrapping_sub(lo) as usize;
                let sc = self.b.src.score_of(d, self.b.freqs[j]);
                acc[off] += sc as f64;
                if let Some(r) = row.as_deref_mut() {
                    r[off] = sc;
                }
                bits[off >> 6] |= 1u64 << (off & 63);
            }
            any |= k > i;
            if k < n {
                self.b.i = k;
                break;
            }
            self.b.i = n - 1;
            self.next();
        }
        any
    }

    /// The clause's cost (its doc freq).
    pub fn cost(&self) -> u64 {
        self.b.src.cost()
    }

    /// [`Scorer::shallow_advance`] for docs from `target` on (`target >= doc()`).
    pub fn shallow_advance(&mut self, target: DocId) -> DocId {
        let real = self.b.src.doc();
        self.b.src.shallow_advance(target.max(real))
    }

    /// Whether `target` lies beyond the buffered block (an `advance` to it would decode a new
    /// block).
    #[inline]
    pub fn beyond_buffer(&self, target: DocId) -> bool {
        self.b.n == 0 || self.b.docs[self.b.n - 1] < target
    }

    /// A bound of the clause's score of a doc `target >= doc()` (from the skip data and the
    /// impacts of the block holding it, without decoding the block's docs; see
    /// [`TermScorer::bound_at`]).
    pub fn block_bound_at(&mut self, target: DocId) -> f32 {
        let real = self.b.src.doc();
        self.b.src.bound_at(target.max(real))
    }

    /// An upper bound of every score of the clause in the segment.
    pub fn global_bound(&self) -> f32 {
        self.b.src.global_bound()
    }

    /// [`Scorer::max_score`] up to `up_to`.
    pub fn max_score(&mut self, up_to: DocId) -> f32 {
        self.b.src.max_score(up_to)
    }

    /// The error that ended iteration early, if any.
    pub fn take_error(&mut self) -> Option<Error> {
        self.b.src.take_error()
    }
}

impl std::fmt::Debug for TermCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TermCursor").field("doc", &self.doc()).finish_non_exhaustive()
    }
}
