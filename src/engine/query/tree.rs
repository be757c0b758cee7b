//! The typed query tree that the engine executes (the DSL parser builds it in a later issue).

use std::fmt;

/// A query. Boosts multiply down the tree like Lucene's `BoostQuery`.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    /// Documents containing `term` in `field`, scored by BM25.
    Term { field: String, term: Vec<u8>, boost: f32 },
    /// Documents containing any of `terms`; constant score `boost` (Lucene's `TermInSetQuery`).
    Terms { field: String, terms: Vec<Vec<u8>>, boost: f32 },
    /// Lucene's `BooleanQuery`: the score is the sum of the matching `must` and `should` clauses.
    /// `filter` and `must_not` do not score. With no `must`/`filter`, at least
    /// `max(minimum_should_match, 1)` `should` clauses must match. A query with only `must_not`
    /// matches nothing (as in Lucene; the DSL layer adds `MatchAll` like OpenSearch does).
    Bool {
        must: Vec<Query>,
        should: Vec<Query>,
        must_not: Vec<Query>,
        filter: Vec<Query>,
        minimum_should_match: u32,
        boost: f32,
    },
    /// Terms at relative positions (`(term, position)`), at most `slop` moves apart.
    Phrase { field: String, terms: Vec<(Vec<u8>, u32)>, slop: u32, boost: f32 },
    /// Terms starting with `prefix`; constant score `boost`.
    Prefix { field: String, prefix: Vec<u8>, boost: f32 },
    /// Terms matching `pattern` (`*` any sequence, `?` one character, `\` escapes); constant score.
    Wildcard { field: String, pattern: String, boost: f32 },
    /// Values between `lo` and `hi` (`None`: unbounded); constant score `boost`.
    Range {
        field: String,
        lo: Option<Vec<u8>>,
        hi: Option<Vec<u8>>,
        include_lo: bool,
        include_hi: bool,
        kind: RangeKind,
        boost: f32,
    },
    /// Documents with any value in `field`; constant score `boost`.
    Exists { field: String, boost: f32 },
    /// Documents whose doc values of `field` pass `filter` (fields that are not indexed);
    /// constant score `boost`.
    DocValues { field: String, filter: super::doc_values_query::DvFilter, boost: f32 },
    /// Every live document; constant score `boost`.
    MatchAll { boost: f32 },
    /// The documents of `query`, all scored `boost`.
    ConstantScore { query: Box<Query>, boost: f32 },
    /// Lucene's `DisjunctionMaxQuery`: any clause matches; the score is the best clause's plus
    /// `tie_breaker` times the others' (see [`super::dis_max`]).
    DisMax { queries: Vec<Query>, tie_breaker: f32, boost: f32 },
    /// Lucene's `FunctionScoreQuery.boostByQuery`: the matches of `positive`, their scores
    /// multiplied by `negative_boost` where `negative` matches too (OpenSearch's `boosting`).
    Boosting { positive: Box<Query>, negative: Box<Query>, negative_boost: f32, boost: f32 },
    /// OpenSearch's `function_score` (see [`super::function_score`]); `boost` scales the query's
    /// score before the functions combine with it.
    FunctionScore { spec: Box<super::function_score::FunctionScore>, boost: f32 },
    /// Terms scored with statistics shared among them (see [`super::blended`]): OpenSearch's
    /// `BlendedTermQuery` for `multi_match` `cross_fields`, Lucene's for fuzzy expansions.
    Blended { terms: Vec<super::blended::BlendedTerm>, blend: super::blended::Blend, boost: f32 },
    /// Lucene's `MultiPhraseQuery`: at each relative position any of its terms (`(terms,
    /// position)`), at most `slop` moves apart; scored as one phrase over the idfs of every term.
    MultiPhrase { field: String, positions: Vec<(Vec<Vec<u8>>, u32)>, slop: u32, boost: f32 },
    /// The matches of `approx` that `check` confirms one by one (two-phase; see
    /// [`super::verified`]), all scored `boost`.
    Verified { approx: Box<Query>, check: super::verified::CheckRef, boost: f32 },
    /// Lucene's `IntervalQuery`: documents with intervals of `source` (see [`super::intervals`]).
    Intervals { field: String, source: Box<super::intervals::Source>, boost: f32 },
    /// Lucene's `LongDistanceFeatureQuery` / `LatLonPointDistanceFeatureQuery`: documents with
    /// a value in `field`, scored by their distance to `origin` (see [`super::distance_feature`]).
    DistanceFeature { field: String, origin: super::distance_feature::Origin, pivot: f64, boost: f32 },
    /// Lucene's `CombinedFieldQuery` (BM25F over weighted fields sorted by name; see
    /// [`super::combined_fields`]).
    CombinedField { fields: Vec<(String, f32)>, term: Vec<u8>, boost: f32 },
    /// Lucene's span queries (see [`super::spans`]).
    Spans { query: Box<super::spans::SpanQuery>, boost: f32 },
    /// Lucene's `ToParentBlockJoinQuery` (OpenSearch's `nested`; see [`super::block_join`]).
    Nested { join: Box<super::block_join::Join>, boost: f32 },
    /// No document.
    MatchNone,
}

/// Where a range query looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeKind {
    /// Points: fixed-width sortable big-endian keys (numbers, dates, ips). Both bounds, when
    /// present, have the field's width; an absent bound is all `0x00` or all `0xFF`.
    Points,
    /// Indexed terms in byte order (keyword ranges).
    Terms,
}

impl Query {
    /// A term query with boost 1.
    pub fn term(field: &str, term: &str) -> Query {
        Query::Term { field: field.to_string(), term: term.as_bytes().to_vec(), boost: 1.0 }
    }

    /// A bool query of `should` clauses.
    pub fn or(should: Vec<Query>) -> Query {
        Query::Bool { must: vec![], should, must_not: vec![], filter: vec![], minimum_should_match: 0, boost: 1.0 }
    }

    /// A bool query of `must` clauses.
    pub fn and(must: Vec<Query>) -> Query {
        Query::Bool { must, should: vec![], must_not: vec![], filter: vec![], minimum_should_match: 0, boost: 1.0 }
    }
}

/// Lucene's `Query.toString()` for the forms that appear in explanations.
impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        match self {
            Query::Term { field, term, .. } => write!(f, "{field}:{}", s(term)),
            Query::Terms { field, terms, .. } => {
                write!(f, "{field}:(")?;
                for (i, t) in terms.iter().enumerate() {
                    write!(f, "{}{}", if i > 0 { " " } else { "" }, s(t))?;
                }
                write!(f, ")")
            }
            Query::Phrase { field, terms, slop, .. } => {
                // Lucene prints every position up to the last, `?` for holes, `|` for stacked terms.
                write!(f, "{field}:\"")?;
                let max = terms.iter().map(|t| t.1).max().map_or(0, |m| m as usize + 1);
                let mut pieces: Vec<Option<String>> = vec![None; max.min(terms.len() + 1024)];
                for (t, p) in terms {
                    if let Some(piece) = pieces.get_mut(*p as usize) {
                        match piece {
                            Some(x) => *x = format!("{x}|{}", s(t)),
                            None => *piece = Some(s(t)),
                        }
                    }
                }
                for (i, p) in pieces.iter().enumerate() {
                    write!(f, "{}{}", if i > 0 { " " } else { "" }, p.as_deref().unwrap_or("?"))?;
                }
                write!(f, "\"")?;
                if *slop > 0 {
                    write!(f, "~{slop}")?;
                }
                Ok(())
            }
            Query::Prefix { field, prefix, .. } => write!(f, "{field}:{}*", s(prefix)),
            Query::Wildcard { field, pattern, .. } => write!(f, "{field}:{pattern}"),
            Query::Range { field, lo, hi, include_lo, include_hi, .. } => write!(
                f,
                "{field}:{}{} TO {}{}",
                if *include_lo { '[' } else { '{' },
                lo.as_deref().map(s).unwrap_or_else(|| "*".into()),
                hi.as_deref().map(s).unwrap_or_else(|| "*".into()),
                if *include_hi { ']' } else { '}' }
            ),
            Query::Exists { field, .. } => write!(f, "FieldExistsQuery [field={field}]"),
            Query::DocValues { field, filter, .. } => write!(f, "{field}:{filter}"),
            Query::MatchAll { .. } => write!(f, "*:*"),
            Query::ConstantScore { query, .. } => write!(f, "ConstantScore({query})"),
            Query::MatchNone => write!(f, "MatchNoDocsQuery"),
            Query::Blended { terms, .. } => super::blended::fmt_blended(terms, f),
            Query::MultiPhrase { field, positions, slop, .. } => super::multi_phrase::fmt_multi_phrase(field, positions, *slop, f),
            Query::Verified { approx, check, .. } => {
                write!(f, "SourceFieldMatchQuery (delegate query: [ {approx} ], filter query: [{}])", check.0.describe())
            }
            Query::Intervals { field, source, .. } => write!(f, "{field}:{source}"),
            Query::Spans { query, .. } => write!(f, "{query}"),
            Query::Nested { join, .. } => write!(f, "{join}"),
            Query::CombinedField { fields, term, .. } => super::combined_fields::fmt_combined(fields, term, f),
            Query::DistanceFeature { field, origin, pivot, .. } => match origin {
                super::distance_feature::Origin::Long(o) => write!(f, "LongDistanceFeatureQuery(field={field},origin={o},pivotDistance={})", *pivot as i64),
                super::distance_feature::Origin::Geo { lat, lon } => write!(
                    f,
                    "LatLonPointDistanceFeatureQuery(field={field},originLat={lat:?},originLon={lon:?},pivotDistance={pivot:?})"
                ),
            },
            Query::Boosting { positive, negative, negative_boost, .. } => {
                write!(f, "FunctionScoreQuery({positive}, scored by boost(queryboost({negative})^{}))", super::bm25::java_float(*negative_boost))
            }
            Query::FunctionScore { spec, .. } => write!(f, "function score ({}, functions: [...])", spec.query),
            Query::DisMax { queries, tie_breaker, .. } => {
                write!(f, "(")?;
                for (i, q) in queries.iter().enumerate() {
                    write!(f, "{}{q}", if i > 0 { " | " } else { "" })?;
                }
                write!(f, ")")?;
                if *tie_breaker != 0.0 {
                    write!(f, "~{}", super::bm25::java_float(*tie_breaker))?;
                }
                Ok(())
            }
            Query::Bool { must, should, must_not, filter, minimum_should_match, .. } => {
                // OpenSearch adds clauses in this order; nested booleans are parenthesized.
                let msm = *minimum_should_match;
                if msm > 0 {
                    write!(f, "(")?;
                }
                let mut first = true;
                for (p, qs) in [("+", must), ("-", must_not), ("", should), ("#", filter)] {
                    for q in qs {
                        write!(f, "{}{p}", if first { "" } else { " " })?;
                        match q {
                            Query::Bool { .. } => write!(f, "({q})")?,
                            _ => write!(f, "{q}")?,
                        }
                        first = false;
                    }
                }
                if msm > 0 {
                    write!(f, ")~{msm}")?;
                }
                Ok(())
            }
        }
    }
}

impl Query {
    /// The query's own boost (1 for `MatchNone`).
    pub fn boost(&self) -> f32 {
        match self {
            Query::Term { boost, .. }
            | Query::Terms { boost, .. }
            | Query::Bool { boost, .. }
            | Query::Phrase { boost, .. }
            | Query::Prefix { boost, .. }
            | Query::Wildcard { boost, .. }
            | Query::Range { boost, .. }
            | Query::Exists { boost, .. }
            | Query::DocValues { boost, .. }
            | Query::MatchAll { boost }
            | Query::ConstantScore { boost, .. }
            | Query::DisMax { boost, .. }
            | Query::Boosting { boost, .. }
            | Query::FunctionScore { boost, .. }
            | Query::Blended { boost, .. }
            | Query::MultiPhrase { boost, .. }
            | Query::Verified { boost, .. }
            | Query::Intervals { boost, .. }
            | Query::Spans { boost, .. }
            | Query::DistanceFeature { boost, .. }
            | Query::CombinedField { boost, .. }
            | Query::Nested { boost, .. } => *boost,
            Query::MatchNone => 1.0,
        }
    }

    /// The same query with boost `b`.
    pub fn with_boost(&self, b: f32) -> Query {
        let mut q = self.clone();
        match &mut q {
            Query::Term { boost, .. }
            | Query::Terms { boost, .. }
            | Query::Bool { boost, .. }
            | Query::Phrase { boost, .. }
            | Query::Prefix { boost, .. }
            | Query::Wildcard { boost, .. }
            | Query::Range { boost, .. }
            | Query::Exists { boost, .. }
            | Query::DocValues { boost, .. }
            | Query::MatchAll { boost }
            | Query::ConstantScore { boost, .. }
            | Query::DisMax { boost, .. }
            | Query::Boosting { boost, .. }
            | Query::FunctionScore { boost, .. }
            | Query::Blended { boost, .. }
            | Query::MultiPhrase { boost, .. }
            | Query::Verified { boost, .. }
            | Query::Intervals { boost, .. }
            | Query::Spans { boost, .. }
            | Query::DistanceFeature { boost, .. }
            | Query::CombinedField { boost, .. }
            | Query::Nested { boost, .. } => *boost = b,
            Query::MatchNone => {}
        }
        q
    }
}

/// Lucene's `BooleanQuery.rewrite` deduplication of `should` (when `minimum_should_match <= 1`)
/// and `must` clauses: equal clauses (ignoring boost) become one clause whose boost is the sum
/// (in double, cast to float) of theirs, which changes the score's float rounding.
pub fn dedupe_clauses(clauses: &[Query]) -> std::borrow::Cow<'_, [Query]> {
    // Most clause lists have no duplicate: found without cloning a clause (equal boosts compare
    // as they are; only clauses with different boosts are compared without them).
    let same =
        |a: &Query, b: &Query| if a.boost() == b.boost() { a == b } else { a.with_boost(1.0) == b.with_boost(1.0) };
    if !clauses.iter().enumerate().any(|(i, a)| clauses[..i].iter().any(|b| same(a, b))) {
        return std::borrow::Cow::Borrowed(clauses);
    }
    let mut out: Vec<(Query, f64)> = Vec::with_capacity(clauses.len());
    for c in clauses {
        let bare = c.with_boost(1.0);
        match out.iter_mut().find(|(q, _)| *q == bare) {
            Some((_, b)) => *b += c.boost() as f64,
            None => out.push((bare, c.boost() as f64)),
        }
    }
    std::borrow::Cow::Owned(out.into_iter().map(|(q, b)| q.with_boost(b as f32)).collect())
}
