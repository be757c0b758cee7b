//! segment/: "here is a segment: its terms, postings, norms, doc values, stored source, points and
//! live docs".
//!
//! A segment is immutable and made of one file per component, named `{segment}.{ext}` (segment
//! names are `_` followed by a base-36 counter: `_0`, `_1`, ... `_a`). Every file carries the
//! common header (with the segment's 16-byte id) and footer; `format/` has a page per extension.
//!
//! | component | ext | module |
//! |---|---|---|
//! | segment info (doc count, files, checksums) | `si` | [`info`] |
//! | field infos | `fnm` | [`field_infos`] |
//! | term dictionary + its index | `tim` | [`postings`] |
//! | postings: docs (gaps or offsets), freqs, skip data with block-max impacts | `doc` | [`postings`] |
//! | positions (and offsets) | `pos` | [`postings`] |
//! | norms (Lucene's one-byte length encoding) | `nvd` | [`norms`] |
//! | doc values (numeric, sorted, sorted-set, binary) | `dvd` | [`doc_values`] |
//! | stored fields (`_id`, `_source`, `_routing`) in zstd blocks | `fdt` | [`stored`] |
//! | points: sorted blocks with min/max for numeric, date and ip ranges | `pts` | [`points`] |
//! | live docs (deletes), one file per generation | `{segment}_{gen}.liv` | [`live_docs`] |
//!
//! Every component has a writer that accumulates in memory or streams, a serializer that writes
//! the file, a reader that opens it without reading it all (mmap), and a merge that writes the
//! component of a merged segment from the readers of its sources and their [`DocMap`]s.

pub mod doc_values;
pub mod field_infos;
pub mod info;
pub mod live_docs;
pub mod nested;
pub mod norms;
pub mod points;
pub mod postings;
pub mod reader;
pub mod smallfloat;
pub mod stored;

pub use field_infos::{DocValuesKind, FieldInfo, FieldInfos, IndexOptions};

/// A document's number within one segment, from 0 to `max_doc - 1`.
pub type DocId = u32;

/// Returned by iterators when they are exhausted (Lucene's `NO_MORE_DOCS`).
pub const NO_MORE_DOCS: DocId = u32::MAX;

/// A postings list being iterated: the documents containing one term, in increasing order.
///
/// Starts *before* the first document (`doc()` is meaningless until `next`/`advance`).
/// Corrupt bytes never panic: the iterator ends (returns [`NO_MORE_DOCS`]) and keeps the error,
/// which the caller must collect with [`Postings::take_error`] once it is done, so a damaged
/// block yields an error, never a silently shorter result.
pub trait Postings: Send {
    /// The current document, or [`NO_MORE_DOCS`].
    fn doc(&self) -> DocId;
    /// Moves to the next document and returns it.
    fn next(&mut self) -> DocId;
    /// Moves to the first document `>= target` and returns it (`target` > current doc).
    fn advance(&mut self, target: DocId) -> DocId;
    /// [`advance`](Self::advance) for a caller that, until its next `probe`, asks only for
    /// [`doc`](Self::doc) and [`freq`](Self::freq): an iterator may then answer without decoding
    /// the whole block that holds `target` (a conjunction probing a term far commoner than its
    /// lead lands in a new block on nearly every move). Every other method still works after a
    /// probe (it decodes the block first). A probe checks what it reads (the block's last doc
    /// against the skip data, the order of the offsets around the doc it returns), not every
    /// doc of the block as decoding does; damage elsewhere in the block is left to the file's
    /// checksum (`check_integrity`) and to the next decode. The default is `advance`.
    fn probe(&mut self, target: DocId) -> DocId {
        self.advance(target)
    }
    /// The term's frequency in the current document (1 when frequencies are not indexed).
    fn freq(&self) -> u32;
    /// Fills `out` with the positions of the term in the current document (empty when positions
    /// are not indexed). Call at most once per document.
    fn positions(&mut self, out: &mut Vec<u32>);
    /// An upper bound of the number of documents left: the term's doc freq.
    fn cost(&self) -> u64;
    /// Block-max support: moves the skip data (not the iterator) so that it covers `target`, and
    /// returns the last document of the block holding `target` ([`NO_MORE_DOCS`] past the end).
    fn shallow_advance(&mut self, target: DocId) -> DocId;
    /// For the block that `shallow_advance` last reached: the largest freq and the smallest norm
    /// byte (shortest field length) of any document in it. Together they bound the BM25 score of
    /// every document of the block. Without norms, the norm byte is 1 (length 1).
    fn block_max(&self) -> (u32, u8);
    /// For the block that `shallow_advance` last reached: its *competitive impacts*, the
    /// (freq, norm byte) pairs of its documents that no other document of the block dominates
    /// (higher or equal freq with a shorter or equal field length), appended to `out` after
    /// clearing it. BM25 is increasing in freq and decreasing in length, so the block's best
    /// score is the best score over these pairs: a tight bound, unlike `block_max` whose freq
    /// and norm may come from different documents. The default is the loose `block_max` pair.
    fn block_impacts(&self, out: &mut Vec<(u32, u8)>) {
        out.clear();
        out.push(self.block_max());
    }
    /// Real docs of the term with their freqs, in increasing doc order, chosen to score well
    /// for it alone: a term of more than one block gives its stored top docs
    /// (`format/postings.md`, "TopDocs", up to [`postings::TOP_DOCS`]), a term of one block
    /// all of its docs (at most 128). A top-k search scores them first to start with a minimum
    /// competitive score ([`crate::engine::query::floor`]). Empty when none are known (the
    /// default). A damaged list ends the iteration with an error, as damaged blocks do.
    fn top_docs(&mut self, out: &mut Vec<(DocId, u32)>) {
        out.clear();
    }
    /// Batch iteration: copies the current document and the following ones of the same block
    /// (at least one, at most [`crate::engine::codec::bitpack::BLOCK`]) into `docs`, their freqs
    /// into `freqs`, leaves the iterator on the last one copied and returns how many; 0 when the
    /// iterator is exhausted or not yet positioned (call `next` first). Scorers then loop over
    /// arrays instead of making two dynamic calls per document. The default copies one document.
    fn read_block(
        &mut self,
        docs: &mut [DocId; crate::engine::codec::bitpack::BLOCK],
        freqs: &mut [u32; crate::engine::codec::bitpack::BLOCK],
    ) -> usize {
        let d = self.doc();
        if d == NO_MORE_DOCS {
            return 0;
        }
        docs[0] = d;
        freqs[0] = self.freq();
        1
    }
    /// A move (`advance(target)`, or `next()` for `None`) and then [`Self::read_block`] in one
    /// call, so an iterator can decode a new block straight into `docs`/`freqs` instead of into
    /// its own buffer and then copying. Returns `(start, n)`: `docs[start..n]` are the doc
    /// reached and the rest of its block (`freqs` alike), and the iterator is left on
    /// `docs[n - 1]`; `(0, 0)` when exhausted. The default moves, then copies.
    fn move_and_read(
        &mut self,
        target: Option<DocId>,
        docs: &mut [DocId; crate::engine::codec::bitpack::BLOCK],
        freqs: &mut [u32; crate::engine::codec::bitpack::BLOCK],
    ) -> (usize, usize) {
        let d = match target {
            Some(t) => self.advance(t),
            None => self.next(),
        };
        if d == NO_MORE_DOCS {
            return (0, 0);
        }
        (0, self.read_block(docs, freqs))
    }
    /// The error that ended iteration early, if any (then `doc()` is [`NO_MORE_DOCS`]).
    fn take_error(&mut self) -> Option<crate::engine::Error>;
}

/// A segment's identity: its name (`_3`) and its random 16-byte id written in every file header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SegmentId {
    /// `_` plus a base-36 counter.
    pub name: String,
    /// Random bytes, checked in every file header so a file is never read as another segment's.
    pub id: [u8; 16],
}

impl SegmentId {
    /// The name of this segment's file with extension `ext`.
    pub fn file(&self, ext: &str) -> String {
        format!("{}.{}", self.name, ext)
    }
}

/// The name of segment number `n`: `_` followed by `n` in base 36.
pub fn segment_name(n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut n = n;
    let mut s = Vec::new();
    loop {
        s.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.push(b'_');
    s.reverse();
    String::from_utf8(s).expect("ASCII digits")
}

/// For merges: where each document of a source segment goes in the merged segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocMap {
    /// `new_ids[old]` is the new doc id, or [`NO_MORE_DOCS`] if the document was deleted.
    pub new_ids: Vec<DocId>,
}

impl DocMap {
    /// The new id of `old`, or `None` when it is deleted (or out of range).
    #[inline]
    pub fn get(&self, old: DocId) -> Option<DocId> {
        match self.new_ids.get(old as usize) {
            Some(&d) if d != NO_MORE_DOCS => Some(d),
            _ => None,
        }
    }

    /// Builds the maps for `sources` (each a max_doc and a liveness test) merged in order; returns
    /// the maps and the merged max_doc.
    pub fn concatenate<F: Fn(usize, DocId) -> bool>(max_docs: &[u32], is_live: F) -> (Vec<DocMap>, u32) {
        let mut next = 0u32;
        let mut maps = Vec::with_capacity(max_docs.len());
        for (s, &max_doc) in max_docs.iter().enumerate() {
            let mut new_ids = Vec::with_capacity(max_doc as usize);
            for d in 0..max_doc {
                if is_live(s, d) {
                    new_ids.push(next);
                    next += 1;
                } else {
                    new_ids.push(NO_MORE_DOCS);
                }
            }
            maps.push(DocMap { new_ids });
        }
        (maps, next)
    }
}

/// Generates a random 16-byte id (segment ids, translog and history uuids) from the clock, the
/// process id and a counter, mixed by SplitMix64. Unique, not secret.
pub fn random_id() -> [u8; 16] {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = crate::clock::now_nanos();
    let c = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut x = nanos ^ ((std::process::id() as u64) << 32) ^ c.wrapping_mul(0xA24B_AED4_963E_E407);
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&next().to_le_bytes());
    id[8..].copy_from_slice(&next().to_le_bytes());
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_names_are_base36() {
        assert_eq!(segment_name(0), "_0");
        assert_eq!(segment_name(35), "_z");
        assert_eq!(segment_name(36), "_10");
    }

    #[test]
    fn doc_maps_skip_deleted() {
        let (maps, n) = DocMap::concatenate(&[3, 2], |s, d| !(s == 0 && d == 1));
        assert_eq!(n, 4);
        assert_eq!(maps[0].get(1), None);
        assert_eq!(maps[0].get(2), Some(1));
        assert_eq!(maps[1].get(0), Some(2));
        assert_ne!(random_id(), random_id());
    }
}
