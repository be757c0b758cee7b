//! Lucene's `Explanation`: a value, a description and the explanations it is computed from, as
//! OpenSearch's `explain` renders them.

/// An explanation's value: Lucene keeps the `Number` it was given, and OpenSearch prints longs
/// without a fraction (`"value": 3`) and floats with one (`"value": 1.0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ExplValue {
    /// A float (scores, idf, k1, ...).
    Float(f32),
    /// A count (n, N).
    Int(i64),
}

impl ExplValue {
    /// The value as a float.
    pub fn as_f32(&self) -> f32 {
        match *self {
            ExplValue::Float(f) => f,
            ExplValue::Int(i) => i as f32,
        }
    }
}

/// One node of an explanation tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// Whether the document matches (non-matching nodes explain why not).
    pub matched: bool,
    /// The value.
    pub value: ExplValue,
    /// What the value is.
    pub description: String,
    /// What it is computed from.
    pub details: Vec<Explanation>,
}

impl Explanation {
    /// A matching float node.
    pub fn float(value: f32, description: impl Into<String>, details: Vec<Explanation>) -> Explanation {
        Explanation { matched: true, value: ExplValue::Float(value), description: description.into(), details }
    }

    /// A matching integer node.
    pub fn int(value: i64, description: impl Into<String>) -> Explanation {
        Explanation { matched: true, value: ExplValue::Int(value), description: description.into(), details: vec![] }
    }

    /// A non-matching node (value 0).
    pub fn no_match(description: impl Into<String>, details: Vec<Explanation>) -> Explanation {
        Explanation { matched: false, value: ExplValue::Float(0.0), description: description.into(), details }
    }
}

use super::bm25::java_float;
use super::phrase::{PhraseScorer, PhraseTerm};
use super::scorer::Scorer;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Result;

impl Weight {
    /// How Lucene would display the query this weight came from.
    pub fn display(&self) -> String {
        match self {
            Weight::Term { display, .. }
            | Weight::Phrase { display, .. }
            | Weight::MultiPhrase { display, .. }
            | Weight::Intervals { display, .. }
            | Weight::Spans { display, .. }
            | Weight::CombinedField { display, .. }
            | Weight::DistanceFeature { display, .. }
            | Weight::Bool { display, .. }
            | Weight::Const { display, .. }
            | Weight::DocSet { display, .. }
            | Weight::DisMax { display, .. }
            | Weight::Boosting { display, .. }
            | Weight::FunctionScore { display, .. }
            | Weight::Verified { display, .. }
            | Weight::Join { display, .. } => display.clone(),
            Weight::MatchAll { .. } => "*:*".into(),
            Weight::Cached(c) => c.inner.display(),
            Weight::MatchNone => "MatchNoDocsQuery".into(),
        }
    }

    /// The score of `doc` in `seg` through a scorer (`None`: no match).
    fn scored(&self, seg: &dyn SegmentView, doc: DocId) -> Result<Option<f32>> {
        let Some(mut sc) = self.scorer(seg)? else { return Ok(None) };
        let d = sc.advance(doc);
        let r = if d == doc && d != NO_MORE_DOCS { Some(sc.score()) } else { None };
        match sc.take_error() {
            Some(e) => Err(e),
            None => Ok(r),
        }
    }

    /// Lucene's `Weight.explain` for `doc` of `seg`: the same tree and values as OpenSearch's
    /// `explain` (deleted documents are explained like live ones).
    pub fn explain(&self, seg: &dyn SegmentView, doc: DocId) -> Result<Explanation> {
        let weight_desc = |d: &str| format!("weight({d} in {doc}) [PerFieldSimilarity], result of:");
        Ok(match self {
            Weight::Term { field, term, sim, display, .. } => {
                let Some(mut p) = seg.postings(field, term, false)? else {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                };
                // `advance` needs a target beyond the current doc (the Postings contract).
                let first = p.next();
                let found = doc != NO_MORE_DOCS && (if first < doc { p.advance(doc) } else { first }) == doc;
                let freq = p.freq();
                if let Some(e) = p.take_error() {
                    return Err(e);
                }
                if !found {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                }
                let norm = seg.norms(field).and_then(|n| n.get(doc as usize).copied()).unwrap_or(1);
                let f = Explanation::float(freq as f32, "freq, occurrences of term within document", vec![]);
                let e = sim.explain(f, norm);
                Explanation::float(e.value.as_f32(), weight_desc(display), vec![e])
            }
            Weight::Phrase { field, terms, slop, sim, display, .. } => {
                let mut pts = Vec::with_capacity(terms.len());
                for (i, (t, _)) in terms.iter().enumerate() {
                    match seg.postings(field, t, true)? {
                        Some(postings) => pts.push(PhraseTerm::of(terms, i, postings)),
                        None => return Ok(Explanation::no_match("no matching term", vec![])),
                    }
                }
                let mut ps = PhraseScorer::new(pts, *slop, seg.norms(field), sim.clone(), None);
                let found = ps.advance(doc) == doc && doc != NO_MORE_DOCS;
                if let Some(e) = ps.take_error() {
                    return Err(e);
                }
                if !found {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                }
                let freq = ps.freq();
                let norm = seg.norms(field).and_then(|n| n.get(doc as usize).copied()).unwrap_or(1);
                let f = Explanation::float(freq, format!("phraseFreq={}", java_float(freq)), vec![]);
                let e = sim.explain(f, norm);
                Explanation::float(e.value.as_f32(), weight_desc(display), vec![e])
            }
            Weight::MultiPhrase { field, positions, slop, sim, display, .. } => {
                let Some(mut ps) = super::multi_phrase::scorer(seg, field, positions, *slop, sim, None)? else {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                };
                let found = ps.advance(doc) == doc && doc != NO_MORE_DOCS;
                if let Some(e) = ps.take_error() {
                    return Err(e);
                }
                if !found {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                }
                let freq = ps.freq();
                let norm = seg.norms(field).and_then(|n| n.get(doc as usize).copied()).unwrap_or(1);
                let f = Explanation::float(freq, format!("phraseFreq={}", java_float(freq)), vec![]);
                let e = sim.explain(f, norm);
                Explanation::float(e.value.as_f32(), weight_desc(display), vec![e])
            }
            Weight::Spans { query, sim, display } => {
                let Some(mut sc) = super::spans::scorer::SpanScorer::new(seg, query.clone(), sim.clone())? else {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                };
                let found = sc.advance(doc) == doc && doc != NO_MORE_DOCS;
                if let Some(e) = sc.take_error() {
                    return Err(e);
                }
                if !found {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                }
                let Some(bm) = &sim.sim else {
                    return Ok(Explanation::float(0.0, format!("match {display} in {doc} without score"), vec![]));
                };
                let freq = sc.freq();
                let f = Explanation::float(freq, format!("phraseFreq={}", java_float(freq)), vec![]);
                let e = bm.explain(f, sc.norm(doc));
                Explanation::float(e.value.as_f32(), weight_desc(display), vec![e])
            }
            Weight::DistanceFeature { field, origin, pivot, boost, .. } => {
                let Some(mut sc) =
                    super::distance_feature::DistanceFeatureScorer::new(seg, field, *origin, *pivot, *boost, None)
                else {
                    return Ok(Explanation::no_match(
                        format!("Document {doc} doesn't have a value for field {field}"),
                        vec![],
                    ));
                };
                if sc.advance(doc) != doc || doc == NO_MORE_DOCS {
                    return Ok(Explanation::no_match(
                        format!("Document {doc} doesn't have a value for field {field}"),
                        vec![],
                    ));
                }
                let dist = sc.distance();
                let score = super::distance_feature::score(*boost, *pivot, dist);
                Explanation::float(
                    score,
                    "Distance score, computed as weight * pivotDistance / (pivotDistance + abs(value - origin)) from:",
                    vec![
                        Explanation::float(*boost, "weight", vec![]),
                        Explanation::float(*pivot as f32, "pivotDistance", vec![]),
                        Explanation::float(dist as f32, "distance", vec![]),
                    ],
                )
            }
            Weight::CombinedField { fields, term, sim, display } => {
                let Some(mut sc) = super::combined_fields::CombinedFieldScorer::new(seg, fields, term, sim.clone())?
                else {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                };
                let found = sc.advance(doc) == doc && doc != NO_MORE_DOCS;
                if let Some(e) = sc.take_error() {
                    return Err(e);
                }
                if !found {
                    return Ok(Explanation::no_match("no matching term", vec![]));
                }
                sc.explain(display)
            }
            Weight::Intervals { source, boost, display, .. } => {
                let Some(mut sc) = super::intervals::scorer::IntervalScorer::new(seg, source, *boost, None)? else {
                    return Ok(Explanation::no_match("no matching intervals", vec![]));
                };
                let found = sc.advance(doc) == doc && doc != NO_MORE_DOCS;
                if let Some(e) = sc.take_error() {
                    return Err(e);
                }
                if !found {
                    return Ok(Explanation::no_match("no matching intervals", vec![]));
                }
                let freq = sc.freq();
                let score = super::intervals::scorer::saturation(*boost, freq);
                Explanation::float(
                    score,
                    "Saturation function on interval frequency, computed as w * S / (S + k) from:",
                    vec![
                        Explanation::float(*boost, "w, weight of this function", vec![]),
                        Explanation::float(
                            1.0,
                            "k, pivot feature value that would give a score contribution equal to w/2",
                            vec![],
                        ),
                        Explanation::float(
                            freq,
                            format!("S, the sloppy frequency of the interval query {display}"),
                            vec![],
                        ),
                    ],
                )
            }
            Weight::Bool { must, should, must_not, filter, msm, .. }
                if must_not.is_empty() && filter.is_empty() && must.len() + should.len() == 1 && *msm <= 1 =>
            {
                // Lucene rewrites a one-clause boolean query to its clause.
                return must.first().or(should.first()).expect("one clause").explain(seg, doc);
            }
            Weight::Bool { must, should, must_not, filter, msm, .. } => {
                let mut subs = Vec::new();
                let (mut fail, mut matched, mut should_matched) = (false, 0usize, 0usize);
                // OpenSearch adds clauses in this order: must, must_not, should, filter.
                let groups: [(&[Weight], char); 4] = [(must, '+'), (must_not, '-'), (should, ' '), (filter, '#')];
                for (ws, occur) in groups {
                    for w in ws {
                        let e = w.explain(seg, doc)?;
                        if e.matched {
                            match occur {
                                '+' | ' ' => subs.push(e),
                                '#' => subs.push(Explanation::float(
                                    0.0,
                                    "match on required clause, product of:",
                                    vec![Explanation::float(0.0, "# clause", vec![]), e],
                                )),
                                _ => {
                                    subs.push(Explanation::no_match(
                                        format!("match on prohibited clause ({})", w.display()),
                                        vec![e],
                                    ));
                                    fail = true;
                                }
                            }
                            if occur != '-' {
                                matched += 1;
                            }
                            if occur == ' ' {
                                should_matched += 1;
                            }
                        } else if occur == '+' || occur == '#' {
                            subs.push(Explanation::no_match(
                                format!("no match on required clause ({})", w.display()),
                                vec![e],
                            ));
                            fail = true;
                        }
                    }
                }
                let required_empty = must.is_empty() && filter.is_empty();
                let msm_eff = if required_empty { (*msm).max(1) } else { *msm };
                if fail {
                    Explanation::no_match("Failure to meet condition(s) of required/prohibited clause(s)", subs)
                } else if matched == 0 {
                    Explanation::no_match("No matching clauses", subs)
                } else if should_matched < msm_eff {
                    Explanation::no_match(format!("Failure to match minimum number of optional clauses: {msm}"), subs)
                } else {
                    let score = self.scored(seg, doc)?.unwrap_or(0.0);
                    Explanation::float(score, "sum of:", subs)
                }
            }
            Weight::Const { score, display, .. }
            | Weight::DocSet { score, display, .. }
            | Weight::Verified { score, display, .. } => match self.scored(seg, doc)? {
                Some(_) => Explanation::float(*score, const_desc(display, *score), vec![]),
                None => Explanation::no_match(format!("{display} doesn't match id {doc}"), vec![]),
            },
            Weight::MatchAll { score } => {
                if doc < seg.max_doc() {
                    Explanation::float(*score, const_desc("*:*", *score), vec![])
                } else {
                    Explanation::no_match(format!("*:* doesn't match id {doc}"), vec![])
                }
            }
            Weight::DisMax { subs, tie, .. } => super::dis_max::explain(subs, *tie, seg, doc)?,
            Weight::Boosting { .. } | Weight::FunctionScore { .. } => {
                let pos = match self {
                    Weight::Boosting { pos, .. } => &**pos,
                    Weight::FunctionScore { inner, .. } => &inner.sub,
                    _ => return Ok(Explanation::no_match("MatchNoDocsQuery", vec![])),
                };
                let sub = pos.explain(seg, doc)?;
                match self.scored(seg, doc)? {
                    Some(s) if sub.matched => {
                        Explanation::float(s, format!("weight({}), result of:", self.display()), vec![sub])
                    }
                    _ => sub,
                }
            }
            Weight::Join { inner, .. } => inner.explain(seg, doc)?,
            Weight::Cached(c) => c.inner.explain(seg, doc)?,
            Weight::MatchNone => Explanation::no_match("MatchNoDocsQuery", vec![]),
        })
    }
}

fn const_desc(display: &str, score: f32) -> String {
    if score == 1.0 {
        display.to_string()
    } else {
        format!("{display}^{}", java_float(score))
    }
}
