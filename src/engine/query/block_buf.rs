//! A postings source read a block at a time: [`BlockBuf`] holds the docs and freqs of the
//! current postings block in arrays (decoded straight into them,
//! [`crate::engine::segment::Postings::move_and_read`]), so that
//! stepping and advancing are array operations and the source is called (dynamically, for
//! postings) only once per block. Used by the scoring cursor ([`super::term_cursor::TermCursor`],
//! over a term scorer) and by conjunction counts (over bare postings).
//!
//! Invariant: `docs[i..n]` are the source's docs not yet passed, all in one postings block, and
//! the source sits on `docs[n - 1]`; `n == 0` means exhausted. In probing mode the buffer holds
//! one doc at a time.

use super::scorer::TermScorer;
use crate::engine::codec::bitpack::BLOCK;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};

/// What a [`BlockBuf`] reads: a doc iterator that can copy out the rest of its current block.
pub trait BlockSource {
    /// Moves to the first doc `>= target` for a buffer of one doc
    /// ([`crate::engine::segment::Postings::probe`]).
    fn probe(&mut self, target: DocId) -> DocId;
    /// The current doc's freq.
    fn freq(&self) -> u32;
    /// Copies the docs and freqs from the current doc to the end of its block; returns how many
    /// (0 when exhausted).
    fn fill(&mut self, docs: &mut [DocId; BLOCK], freqs: &mut [u32; BLOCK]) -> usize;
    /// Moves (to the first doc `>= target`, or to the next doc for `None`) and fills: returns
    /// `(start, n)` with the docs from the one reached to the end of its block in
    /// `docs[start..n]` ([`Postings::move_and_read`]).
    fn move_fill(
        &mut self,
        target: Option<DocId>,
        docs: &mut [DocId; BLOCK],
        freqs: &mut [u32; BLOCK],
    ) -> (usize, usize);
}

impl BlockSource for TermScorer<'_> {
    #[inline]
    fn probe(&mut self, target: DocId) -> DocId {
        TermScorer::probe(self, target)
    }
    #[inline]
    fn freq(&self) -> u32 {
        TermScorer::freq(self)
    }
    #[inline]
    fn fill(&mut self, docs: &mut [DocId; BLOCK], freqs: &mut [u32; BLOCK]) -> usize {
        self.read_block(docs, freqs)
    }
    #[inline]
    fn move_fill(
        &mut self,
        target: Option<DocId>,
        docs: &mut [DocId; BLOCK],
        freqs: &mut [u32; BLOCK],
    ) -> (usize, usize) {
        self.move_and_read(target, docs, freqs)
    }
}

impl BlockSource for Box<dyn Postings + '_> {
    #[inline]
    fn probe(&mut self, target: DocId) -> DocId {
        Postings::probe(&mut **self, target)
    }
    #[inline]
    fn freq(&self) -> u32 {
        Postings::freq(&**self)
    }
    #[inline]
    fn fill(&mut self, docs: &mut [DocId; BLOCK], freqs: &mut [u32; BLOCK]) -> usize {
        self.read_block(docs, freqs)
    }
    #[inline]
    fn move_fill(
        &mut self,
        target: Option<DocId>,
        docs: &mut [DocId; BLOCK],
        freqs: &mut [u32; BLOCK],
    ) -> (usize, usize) {
        Postings::move_and_read(&mut **self, target, docs, freqs)
    }
}

/// A [`BlockSource`] with its current block buffered (see the module docs).
pub struct BlockBuf<S> {
    pub(super) src: S,
    pub(super) docs: [DocId; BLOCK],
    pub(super) freqs: [u32; BLOCK],
    pub(super) i: usize,
    pub(super) n: usize,
    /// Seeks past the buffer probe the source ([`BlockSource::probe`]) and buffer only the doc
    /// reached: for a source far denser than the docs sought, where nearly every seek lands in
    /// a new block and decoding it whole would serve one lookup.
    pub(super) probing: bool,
}

impl<S: BlockSource> BlockBuf<S> {
    /// A buffer on the current doc of `src`, which must already sit on its first doc.
    pub fn new(mut src: S) -> Self {
        let mut docs = [0; BLOCK];
        let mut freqs = [0; BLOCK];
        let n = src.fill(&mut docs, &mut freqs);
        BlockBuf { src, docs, freqs, i: 0, n, probing: false }
    }

    /// The current doc, [`NO_MORE_DOCS`] when exhausted.
    #[inline]
    pub fn doc(&self) -> DocId {
        if self.i < self.n {
            self.docs[self.i]
        } else {
            NO_MORE_DOCS
        }
    }

    /// The next doc.
    #[inline]
    pub fn step(&mut self) -> DocId {
        self.i += 1;
        if self.i < self.n {
            return self.docs[self.i];
        }
        self.refill(None)
    }

    /// The first doc `>= target` (no move when `target <= doc()`).
    #[inline]
    pub fn seek(&mut self, target: DocId) -> DocId {
        if self.i < self.n && self.docs[self.n - 1] >= target {
            // Stops at n - 1 at the latest, since docs[n - 1] >= target.
            while self.docs[self.i] < target {
                self.i += 1;
            }
            return self.docs[self.i];
        }
        self.refill(Some(target))
    }

    /// Moves the source past the buffered block (to `target`, or to the next doc) and buffers
    /// the block it lands in.
    #[cold]
    fn refill(&mut self, target: Option<DocId>) -> DocId {
        if self.n == 0 {
            self.i = 0;
            return NO_MORE_DOCS;
        }
        // The source sits on docs[n - 1], below `target`: a forward move.
        if let (Some(t), true) = (target, self.probing) {
            let d = self.src.probe(t);
            self.i = 0;
            self.n = (d != NO_MORE_DOCS) as usize;
            self.docs[0] = d;
            self.freqs[0] = self.src.freq();
            return d;
        }
        let (i, n) = self.src.move_fill(target, &mut self.docs, &mut self.freqs);
        self.i = i;
        self.n = n;
        self.doc()
    }
}

impl<S> std::fmt::Debug for BlockBuf<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let doc = if self.i < self.n { self.docs[self.i] } else { NO_MORE_DOCS };
        f.debug_struct("BlockBuf")
            .field("doc", &doc)
            .field("buffered", &(self.n.saturating_sub(self.i)))
            .finish_non_exhaustive()
    }
}
