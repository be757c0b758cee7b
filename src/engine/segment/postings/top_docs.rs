//! A term's *top docs* (`.doc` version 3, `format/postings.md`, "TopDocs"): for every term with 2+
//! blocks, the [`TOP_DOCS`] docs that score best for the term alone under BM25 with the
//! segment's own average field length, with their freqs. A top-k search scores them with the
//! query's real weights before it starts: `k` distinct live docs that score at least `s` each
//! mean the k-th best hit scores at least `s`, so blocks below `s` are skipped from the first one
//! on instead of after the heap has filled with whatever came first (threshold priming). Which
//! docs are stored only decides how good that floor is, never whether it is right: any real doc
//! of the term, scored exactly as the search scores it, gives a valid floor.
//!
//! The list changes which docs a search returns, so it carries its own CRC32 and is checked on
//! every read: a damaged list is an error, never a wrong floor.

use crate::engine::codec::{put_vu64, ByteReader};
use crate::engine::segment::smallfloat::LENGTH_TABLE;
use crate::engine::segment::DocId;

/// Top docs stored per term (terms with more than one 128-doc block).
pub const TOP_DOCS: usize = 16;

/// BM25's defaults, used only to choose which docs to store.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// Chooses a term's top docs (see the module docs) for one field.
pub(crate) struct TopSelector {
    /// `k1 * (1 - b + b * len(norm) / avgdl)` for each norm byte.
    kn: [f32; 256],
    /// The best so far: (key, doc, freq), best first.
    best: Vec<(f32, DocId, u32)>,
}

impl TopSelector {
    /// A selector for a field whose docs average `avgdl` in length (`None`: the field has no
    /// norms, so freq alone decides).
    pub(crate) fn new(avgdl: Option<f32>) -> TopSelector {
        let mut kn = [K1; 256];
        if let Some(avg) = avgdl.filter(|a| *a > 0.0) {
            for (k, &len) in kn.iter_mut().zip(LENGTH_TABLE.iter()) {
                *k = K1 * ((1.0 - B) + B * len as f32 / avg);
            }
        }
        TopSelector { kn, best: Vec::with_capacity(TOP_DOCS + 1) }
    }

    /// The top docs of the term with `docs` (increasing) and norm bytes `norms` (one per doc),
    /// `freq(i)` the freq of `docs[i]`, into `out` in increasing doc order. Ties go to the lower
    /// doc.
    pub(crate) fn select(
        &mut self,
        docs: &[DocId],
        freq: impl Fn(usize) -> u32,
        norms: &[u8],
        out: &mut Vec<(DocId, u32)>,
    ) {
        self.best.clear();
        let mut worst = f32::NEG_INFINITY;
        for (i, (&d, &nb)) in docs.iter().zip(norms).enumerate() {
            let f = freq(i).max(1) as f32;
            let key = f / (f + self.kn[nb as usize]);
            if self.best.len() == TOP_DOCS && key <= worst {
                continue;
            }
            // Docs come in increasing order: an equal key stays behind the earlier doc.
            let at = self.best.partition_point(|b| b.0 >= key);
            self.best.insert(at, (key, d, f as u32));
            self.best.truncate(TOP_DOCS);
            if self.best.len() == TOP_DOCS {
                worst = self.best[TOP_DOCS - 1].0;
            }
        }
        out.clear();
        out.extend(self.best.iter().map(|b| (b.1, b.2)));
        out.sort_unstable_by_key(|p| p.0);
    }
}

/// `TopDocs --> NumTop u8, (DocDelta vu32, FreqMinus1 vu32)^NumTop, Crc u32`: docs increasing,
/// the first delta is the doc itself, later ones `doc - previous - 1`; the CRC32 covers the bytes
/// from `NumTop` to the last freq.
pub(crate) fn encode(list: &[(DocId, u32)], out: &mut Vec<u8>) {
    let start = out.len();
    out.push(list.len() as u8);
    let mut prev: Option<DocId> = None;
    for &(d, f) in list {
        put_vu64(out, prev.map_or(d, |p| d - p - 1) as u64);
        put_vu64(out, f.max(1) as u64 - 1);
        prev = Some(d);
    }
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// Decodes a `TopDocs` list at the start of `bytes` into `out` (increasing docs, each below
/// `max_doc`, freqs at most `max_freq`); returns its length in bytes.
pub(crate) fn decode(bytes: &[u8], max_doc: u32, max_freq: u32, out: &mut Vec<(DocId, u32)>) -> Result<usize, String> {
    out.clear();
    let mut r = ByteReader::new(bytes);
    let fail = |out: &mut Vec<(DocId, u32)>, e: crate::engine::Error| {
        out.clear();
        e.to_string()
    };
    let n = r.u8().map_err(|e| fail(out, e))? as usize;
    if n > TOP_DOCS {
        return Err(format!("{n} top docs (at most {TOP_DOCS})"));
    }
    let mut prev: Option<u64> = None;
    for _ in 0..n {
        let delta = r.vu64().map_err(|e| fail(out, e))?;
        let f = r.vu64().map_err(|e| fail(out, e))?.saturating_add(1);
        let d = match prev {
            None => delta,
            Some(p) => p.saturating_add(delta).saturating_add(1),
        };
        if d >= max_doc as u64 {
            out.clear();
            return Err(format!("top doc {d} >= max_doc {max_doc}"));
        }
        if f > max_freq as u64 {
            out.clear();
            return Err(format!("top doc {d} has freq {f} above the term's max {max_freq}"));
        }
        out.push((d as DocId, f as u32));
        prev = Some(d);
    }
    let body = r.pos();
    let crc = r.u32().map_err(|e| fail(out, e))?;
    let actual = crc32fast::hash(&bytes[..body]);
    if crc != actual {
        out.clear();
        return Err(format!("top docs checksum mismatch: stored {crc:#010x}, computed {actual:#010x}"));
    }
    Ok(r.pos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key(f: u32, norm: u8, avg: f32) -> f32 {
        let f = f as f32;
        f / (f + K1 * ((1.0 - B) + B * LENGTH_TABLE[norm as usize] as f32 / avg))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// The selection equals sorting every doc by (key desc, doc asc) and keeping 16; the
        /// encoding round-trips.
        #[test]
        fn selects_the_best_and_round_trips(
            raw in proptest::collection::btree_map(0u32..100_000, (1u32..40, 1u8..=255), 1..400),
            avg in 1f32..300.0,
        ) {
            let docs: Vec<DocId> = raw.keys().copied().collect();
            let fr: Vec<u32> = raw.values().map(|v| v.0).collect();
            let mut sel = TopSelector::new(Some(avg));
            let mut out = Vec::new();
            let norms: Vec<u8> = raw.values().map(|v| v.1).collect();
            sel.select(&docs, |i| fr[i], &norms, &mut out);
            let mut model: Vec<(f32, DocId, u32)> = raw.iter().map(|(&d, &(f, n))| (key(f, n, avg), d, f)).collect();
            model.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            model.truncate(TOP_DOCS);
            let mut want: Vec<(DocId, u32)> = model.iter().map(|m| (m.1, m.2)).collect();
            want.sort_unstable();
            prop_assert_eq!(&out, &want);
            let mut bytes = Vec::new();
            encode(&out, &mut bytes);
            bytes.extend_from_slice(b"next");
            let mut back = Vec::new();
            let len = decode(&bytes, 100_000, 40, &mut back).expect("decodes");
            prop_assert_eq!(len, bytes.len() - 4);
            prop_assert_eq!(back, out);
        }
    }

    #[test]
    fn damage_is_an_error() {
        let list: Vec<(DocId, u32)> = (0..16).map(|i| (i * 7 + 3, i % 5 + 1)).collect();
        let mut bytes = Vec::new();
        encode(&list, &mut bytes);
        let mut out = Vec::new();
        assert!(decode(&bytes, 1000, 5, &mut out).is_ok());
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                // Any flipped bit is caught (by a range check or by the CRC).
                assert!(decode(&b, 1000, 5, &mut out).is_err(), "byte {i} bit {bit}");
                assert!(out.is_empty(), "a failed decode leaves nothing behind");
            }
        }
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], 1000, 5, &mut out).is_err(), "cut at {cut}");
        }
        assert!(decode(&bytes, 100, 5, &mut out).is_err(), "doc beyond max_doc");
        assert!(decode(&bytes, 1000, 4, &mut out).is_err(), "freq above the max");
    }

    #[test]
    fn without_norms_the_highest_freqs_win_and_ties_keep_the_first_docs() {
        let docs: Vec<DocId> = (0..100).collect();
        let mut sel = TopSelector::new(None);
        let mut out = Vec::new();
        sel.select(&docs, |i| if i % 10 == 0 { 3 } else { 1 }, &[1; 100], &mut out);
        let want: Vec<(DocId, u32)> = (0..10)
            .map(|i| (i * 10, 3))
            .chain((1..7).map(|i| (i, 1)))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(out, want);
    }
}
