//! BM25 exactly as Lucene 10's `BM25Similarity` computes it (k1 1.2, b 0.75, float32 arithmetic
//! in Lucene's operation order, its idf, its norm decoding), so scores equal OpenSearch 3's, and
//! the explanation tree OpenSearch's `explain` shows.
//!
//! ```text
//! idf    = (float) ln(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5))      (double inside)
//! avgdl  = (float) (sumTotalTermFreq / (double) docCount)
//! cache[n] = 1f / (k1 * ((1 - b) + b * LENGTH_TABLE[n] / avgdl))             (float)
//! weight = boost * idf
//! score  = weight - weight / (1f + freq * cache[norm])                       (float)
//! ```
//! `docCount` and `docFreq` are summed over the searcher's segments, deleted documents included.
//! For a phrase, idf is the sum (in double, cast to float) of the float idfs of its terms.
//! OpenSearch 2.x's default `LegacyBM25Similarity` equals this with `boost * (k1 + 1)`.
//!
//! The explanation of a term query (boost 2, `explain` of doc 0 of "the quick brown fox", "the
//! lazy dog", "fox"), as OpenSearch renders it (`Int` values print without a fraction; the boost
//! node is absent at boost 1; `dl` says "(approximate)" for norm bytes above 39):
//!
//! ```text
//! 0.3547197  weight(body:fox in 0) [PerFieldSimilarity], result of:
//!   0.3547197  score(freq=1.0), computed as boost * idf * tf from:
//!     2.0        boost
//!     0.47000363 idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:
//!       2          n, number of documents containing term
//!       3          N, total number of documents with field
//!     0.37735844 tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:
//!       1.0        freq, occurrences of term within document
//!       1.2        k1, term saturation parameter
//!       0.75       b, length normalization parameter
//!       4.0        dl, length of field
//!       2.6666667  avgdl, average length of field
//! ```
//! A phrase has "phraseFreq=F" instead of the freq line and "idf, sum of:" over the terms' idf
//! nodes; a boolean query is "sum of:" its matching scoring clauses (filters appear as "match on
//! required clause, product of:" with value 0; see `Weight::explain`).

use std::sync::Arc;

use super::explain::Explanation;
use crate::engine::segment::smallfloat::LENGTH_TABLE;

/// Lucene's default term saturation.
pub const K1: f32 = 1.2;
/// Lucene's default length normalization.
pub const B: f32 = 0.75;

/// A BM25 scorer for one term (or phrase) of one field across a searcher's segments.
#[derive(Debug, Clone)]
pub struct Bm25 {
    /// Query boost.
    pub boost: f32,
    /// The idf (sum of idfs for a phrase).
    pub idf: f32,
    /// Average field length.
    pub avgdl: f32,
    /// `boost * idf`, and an upper bound of every score.
    pub weight: f32,
    doc_count: u64,
    doc_freqs: smallvec::SmallVec<[u64; 2]>,
    /// Shared, not copied: a query's terms mostly share their field's `avgdl`, and a 1 KB copy
    /// per term (and a scorer too big for the allocator's fast path) was set-up cost.
    cache: Arc<[f32; 256]>,
}

/// `1 / (k1 * (1 - b + b * dl / avgdl))` for each norm byte (Lucene's `BM25Scorer.cache`).
/// A pure function of `avgdl`; the last table is kept per thread, since the terms of a query
/// (and the queries that follow) mostly share their field's `avgdl`.
fn norm_cache(avgdl: f32) -> Arc<[f32; 256]> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<(u32, Arc<[f32; 256]>)>> = const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((bits, cache)) = last.as_ref() {
            if *bits == avgdl.to_bits() {
                return cache.clone();
            }
        }
        let mut cache = [0f32; 256];
        for (c, &len) in cache.iter_mut().zip(LENGTH_TABLE.iter()) {
            *c = 1.0 / (K1 * ((1.0 - B) + B * len as f32 / avgdl));
        }
        let cache = Arc::new(cache);
        *last = Some((avgdl.to_bits(), cache.clone()));
        cache
    })
}

/// Lucene's `BM25Similarity.idf`.
pub fn idf(doc_freq: u64, doc_count: u64) -> f32 {
    (1.0 + ((doc_count as i64 - doc_freq as i64) as f64 + 0.5) / (doc_freq as f64 + 0.5)).ln() as f32
}

impl Bm25 {
    /// The scorer of terms with `doc_freqs` (one for a term, several for a phrase) in a field
    /// with `doc_count` documents and `sum_total_term_freq` tokens.
    pub fn new(boost: f32, doc_count: u64, sum_total_term_freq: u64, doc_freqs: &[u64]) -> Bm25 {
        let idf = if doc_freqs.len() == 1 {
            idf(doc_freqs[0], doc_count)
        } else {
            doc_freqs.iter().map(|&df| idf(df, doc_count) as f64).sum::<f64>() as f32
        };
        let avgdl = (sum_total_term_freq as f64 / doc_count as f64) as f32;
        Bm25 {
            boost,
            idf,
            avgdl,
            weight: boost * idf,
            doc_count,
            doc_freqs: doc_freqs.iter().copied().collect(),
            cache: norm_cache(avgdl),
        }
    }

    /// The score of a document with `freq` occurrences and norm byte `norm` (1 without norms).
    #[inline]
    pub fn score(&self, freq: f32, norm: u8) -> f32 {
        self.weight - self.weight / (1.0 + freq * self.cache[norm as usize])
    }

    /// Lucene's explanation of `score(freq, norm)`; `freq` is the freq explanation
    /// ("freq, occurrences of term within document" or "phraseFreq=...").
    pub fn explain(&self, freq: Explanation, norm: u8) -> Explanation {
        let f = freq.value.as_f32();
        let mut subs = Vec::new();
        if self.boost != 1.0 {
            subs.push(Explanation::float(self.boost, "boost", vec![]));
        }
        subs.push(self.explain_idf());
        let dl = LENGTH_TABLE[norm as usize] as f32;
        let dl_desc = if norm > 39 { "dl, length of field (approximate)" } else { "dl, length of field" };
        let inv = 1.0 / (K1 * ((1.0 - B) + B * dl / self.avgdl));
        let tf = Explanation::float(
            1.0 - 1.0 / (1.0 + f * inv),
            "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
            vec![
                freq,
                Explanation::float(K1, "k1, term saturation parameter", vec![]),
                Explanation::float(B, "b, length normalization parameter", vec![]),
                Explanation::float(dl, dl_desc, vec![]),
                Explanation::float(self.avgdl, "avgdl, average length of field", vec![]),
            ],
        );
        subs.push(tf);
        Explanation::float(
            self.score(f, norm),
            format!("score(freq={}), computed as boost * idf * tf from:", java_float(f)),
            subs,
        )
    }

    fn explain_idf(&self) -> Explanation {
        let one = |df: u64| {
            Explanation::float(
                idf(df, self.doc_count),
                "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
                vec![
                    Explanation::int(df as i64, "n, number of documents containing term"),
                    Explanation::int(self.doc_count as i64, "N, total number of documents with field"),
                ],
            )
        };
        if self.doc_freqs.len() == 1 {
            one(self.doc_freqs[0])
        } else {
            Explanation::float(self.idf, "idf, sum of:", self.doc_freqs.iter().map(|&df| one(df)).collect())
        }
    }
}

/// Java's `Float.toString` for the values that appear in descriptions (freqs): integral values
/// print with `.0`.
pub fn java_float(f: f32) -> String {
    if f.fract() == 0.0 && f.abs() < 1e7 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}
