//! `fuzzy` (and `match` with `fuzziness`): Lucene's `FuzzyQuery` over the shard's terms, its
//! similarity boosts, and its rewrite methods (the default blends the expansions' doc freqs).

use serde_json::Value;

use super::dsl::{perr, QueryContext};
use super::dsl_keyword;
use super::dsl_term::{term, visit_all, MAX_CLAUSE_COUNT};
use crate::engine::query::blended::{Blend, BlendedTerm};
use crate::engine::query::Query;
use crate::engine::schema::FieldKind;
use crate::error::OsResult;

/// Edits allowed by `fuzziness` for a term of `len` characters (`AUTO` = `AUTO:3,6`).
pub fn fuzzy_edits(fz: &str, len: usize) -> OsResult<u32> {
    let f = fz.trim();
    if let Some(rest) = f.strip_prefix("AUTO").or_else(|| f.strip_prefix("auto")) {
        let (lo, hi) = match rest.strip_prefix(':') {
            Some(r) => {
                let (a, b) =
                    r.split_once(',').ok_or_else(|| perr("failed to find low and high distance values".to_string()))?;
                (
                    a.trim().parse::<usize>().map_err(|_| perr(format!("failed to parse [{fz}] as fuzziness")))?,
                    b.trim().parse::<usize>().map_err(|_| perr(format!("failed to parse [{fz}] as fuzziness")))?,
                )
            }
            None => (3, 6),
        };
        return Ok(if len < lo {
            0
        } else if len < hi {
            1
        } else {
            2
        });
    }
    let n: f64 = f.parse().map_err(|_| perr(format!("failed to parse [{fz}] as fuzziness")))?;
    Ok((n as u32).min(2))
}

/// Damerau–Levenshtein (optimal string alignment when `transpositions`) distance, capped at
/// `max + 1`.
pub fn edit_distance(a: &[char], b: &[char], max: u32, transpositions: bool) -> u32 {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) as u32 > max {
        return max + 1;
    }
    let mut prev2 = vec![0u32; m + 1];
    let mut prev: Vec<u32> = (0..=m as u32).collect();
    let mut cur = vec![0u32; m + 1];
    for i in 1..=n {
        cur[0] = i as u32;
        let mut row_min = cur[0];
        for j in 1..=m {
            let cost = u32::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if transpositions && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return max + 1;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[m]
}

/// `fuzzy`: Lucene's `FuzzyQuery` with its default `TopTermsBlendedFreqScoringRewrite`. The
/// field's terms within the allowed edits (Damerau–Levenshtein with `transpositions`, the first
/// `prefix_length` characters exact; only the term itself when the prefix covers it) are
/// boosted by their similarity `1 - edits / min(len(term), len(value))` in code points (1 for
/// the value itself, `FuzzyTermsEnum`); the best `max_expansions` by (boost desc, term asc) are
/// kept (`TopTermsRewrite`), and scored as a disjunction whose terms all take the largest doc
/// freq among them (Lucene's `BlendedTermQuery`). Keyword values are normalized first.
#[allow(clippy::too_many_arguments)]
pub fn fuzzy(
    ctx: &QueryContext<'_>,
    field: &str,
    value: &str,
    fz: &str,
    prefix_len: usize,
    max_exp: usize,
    transpositions: bool,
    boost: f32,
) -> OsResult<Query> {
    if super::dsl_wildcard::is_wildcard(ctx, field) {
        return Err(super::dsl_wildcard::fuzzy_error(field));
    }
    if !matches!(ctx.mapping.field_type(field).map(|f| &f.kind), Some(FieldKind::Keyword(_) | FieldKind::Text(_))) {
        return term(ctx, field, &Value::String(value.into()), boost);
    }
    let value = dsl_keyword::normalize(ctx, field, value);
    let chars: Vec<char> = value.chars().collect();
    let edits = fuzzy_edits(fz, chars.len())?;
    let candidates = fuzzy_terms(ctx, field, &chars, edits, prefix_len, transpositions)?;
    let kept = top_terms(candidates, max_exp);
    if kept.is_empty() {
        return Ok(Query::MatchNone);
    }
    let terms = kept.into_iter().map(|(sim, t)| BlendedTerm { field: field.into(), term: t, boost: sim }).collect();
    Ok(Query::Blended { terms, blend: Blend::MaxDocFreq, boost })
}

/// A multi-term query's `rewrite` method (OpenSearch's `QueryParsers.parseRewriteMethod`).
#[derive(Debug, Clone, PartialEq)]
pub enum Rewrite {
    /// `constant_score`, `constant_score_boolean`: every term, one constant score.
    ConstantScore,
    /// `scoring_boolean`: every term, each scored with its own statistics and boost.
    ScoringBoolean,
    /// `top_terms_N`: the best N terms, each scored with its own statistics and boost.
    TopTerms(usize),
    /// `top_terms_boost_N`: the best N terms, each scoring its boost.
    TopTermsBoost(usize),
    /// `top_terms_blended_freqs_N` (the fuzzy default with `max_expansions`).
    TopTermsBlended(usize),
}

impl Rewrite {
    /// Parses a `rewrite` value; `max` is the query's `max_expansions` (for the default).
    pub fn parse(s: &str, max: usize) -> OsResult<Rewrite> {
        let n = |rest: &str| {
            rest.parse::<usize>()
                .map_err(|_| crate::error::OsError::illegal(format!("Failed to parse rewrite_method [{s}]")))
        };
        Ok(match s {
            "constant_score" | "constant_score_boolean" | "constant_score_blended" => Rewrite::ConstantScore,
            "scoring_boolean" => Rewrite::ScoringBoolean,
            _ => {
                if let Some(r) = s.strip_prefix("top_terms_blended_freqs_") {
                    Rewrite::TopTermsBlended(n(r)?)
                } else if let Some(r) = s.strip_prefix("top_terms_boost_") {
                    Rewrite::TopTermsBoost(n(r)?)
                } else if let Some(r) = s.strip_prefix("top_terms_") {
                    Rewrite::TopTerms(n(r)?)
                } else if s.is_empty() {
                    Rewrite::TopTermsBlended(max)
                } else {
                    return Err(crate::error::OsError::illegal(format!("Failed to parse rewrite_method [{s}]")));
                }
            }
        })
    }
}

/// `fuzzy` with an explicit `rewrite` method.
#[allow(clippy::too_many_arguments)]
pub fn fuzzy_rewritten(
    ctx: &QueryContext<'_>,
    field: &str,
    value: &str,
    fz: &str,
    prefix_len: usize,
    transpositions: bool,
    rewrite: &Rewrite,
    boost: f32,
) -> OsResult<Query> {
    if super::dsl_wildcard::is_wildcard(ctx, field) {
        return Err(super::dsl_wildcard::fuzzy_error(field));
    }
    if let Rewrite::TopTermsBlended(n) = rewrite {
        return fuzzy(ctx, field, value, fz, prefix_len, (*n).max(1), transpositions, boost);
    }
    if !matches!(ctx.mapping.field_type(field).map(|f| &f.kind), Some(FieldKind::Keyword(_) | FieldKind::Text(_))) {
        return term(ctx, field, &Value::String(value.into()), boost);
    }
    let value = dsl_keyword::normalize(ctx, field, value);
    let chars: Vec<char> = value.chars().collect();
    let edits = fuzzy_edits(fz, chars.len())?;
    let all = fuzzy_terms(ctx, field, &chars, edits, prefix_len, transpositions)?;
    if all.is_empty() {
        return Ok(Query::MatchNone);
    }
    let term_q = |sim: f32, t: Vec<u8>| Query::Term { field: field.into(), term: t, boost: sim };
    let should: Vec<Query> = match rewrite {
        Rewrite::ConstantScore => {
            return Ok(Query::Terms { field: field.into(), terms: all.into_iter().map(|x| x.1).collect(), boost })
        }
        Rewrite::ScoringBoolean => {
            if all.len() > MAX_CLAUSE_COUNT {
                return Err(crate::error::OsError::illegal(format!("maxClauseCount is set to {MAX_CLAUSE_COUNT}")));
            }
            all.into_iter().map(|(s, t)| term_q(s, t)).collect()
        }
        Rewrite::TopTerms(n) => top_terms(all, *n).into_iter().map(|(s, t)| term_q(s, t)).collect(),
        Rewrite::TopTermsBoost(n) => top_terms(all, *n)
            .into_iter()
            .map(|(s, t)| Query::ConstantScore {
                query: Box::new(Query::Term { field: field.into(), term: t, boost: 1.0 }),
                boost: s,
            })
            .collect(),
        Rewrite::TopTermsBlended(_) => vec![],
    };
    Ok(Query::Bool { must: vec![], should, must_not: vec![], filter: vec![], minimum_should_match: 0, boost })
}

/// The field's terms within `edits` of `chars` with their similarity boosts (`FuzzyTermsEnum`).
fn fuzzy_terms(
    ctx: &QueryContext<'_>,
    field: &str,
    chars: &[char],
    edits: u32,
    prefix_len: usize,
    transpositions: bool,
) -> OsResult<Vec<(f32, Vec<u8>)>> {
    let value: String = chars.iter().collect();
    if edits == 0 || prefix_len >= chars.len() {
        // Lucene's `SingleTermsEnum`: only the term itself.
        let mut found = false;
        visit_all(ctx, field, value.as_bytes(), &mut |t| {
            found |= t == value.as_bytes();
            false
        })?;
        return Ok(if found { vec![(1.0, value.into_bytes())] } else { vec![] });
    }
    let prefix: String = chars.iter().take(prefix_len).collect();
    let mut found: std::collections::BTreeMap<Vec<u8>, f32> = std::collections::BTreeMap::new();
    visit_all(ctx, field, prefix.as_bytes(), &mut |t| {
        if !t.starts_with(prefix.as_bytes()) {
            return false;
        }
        if let Ok(s) = std::str::from_utf8(t) {
            let tc: Vec<char> = s.chars().collect();
            let d = edit_distance(chars, &tc, edits, transpositions);
            if d <= edits && !found.contains_key(t) {
                let sim = if d == 0 { 1.0 } else { 1.0 - d as f32 / tc.len().min(chars.len()).max(1) as f32 };
                found.insert(t.to_vec(), sim);
            }
        }
        true
    })?;
    Ok(found.into_iter().map(|(t, s)| (s, t)).collect())
}

/// `TopTermsRewrite`: the `max` best terms by (boost desc, term asc), returned in term order.
fn top_terms(mut terms: Vec<(f32, Vec<u8>)>, max: usize) -> Vec<(f32, Vec<u8>)> {
    terms.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    terms.truncate(max.min(MAX_CLAUSE_COUNT));
    terms.sort_by(|a, b| a.1.cmp(&b.1));
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &str, b: &str) -> u32 {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut d = vec![vec![0u32; b.len() + 1]; a.len() + 1];
        for i in 0..=a.len() {
            d[i][0] = i as u32;
        }
        for j in 0..=b.len() {
            d[0][j] = j as u32;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let c = u32::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + c);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[a.len()][b.len()]
    }

    proptest::proptest! {
        #[test]
        fn edit_distance_matches_full_table(a in "[abc]{0,7}", b in "[abc]{0,7}") {
            let want = naive(&a, &b);
            let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let got = edit_distance(&ac, &bc, 2, true);
            proptest::prop_assert_eq!(got.min(3), want.min(3));
        }
    }

    #[test]
    fn auto_fuzziness() {
        assert_eq!(fuzzy_edits("AUTO", 2).unwrap(), 0);
        assert_eq!(fuzzy_edits("AUTO", 4).unwrap(), 1);
        assert_eq!(fuzzy_edits("AUTO", 6).unwrap(), 2);
        assert_eq!(fuzzy_edits("AUTO:1,2", 1).unwrap(), 1);
        assert_eq!(fuzzy_edits("1", 9).unwrap(), 1);
        assert!(fuzzy_edits("x", 9).is_err());
    }
}
