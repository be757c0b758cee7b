//! Term-level queries on fields mapped `index: false` with doc values: OpenSearch 3 answers them
//! from the doc values (slowly: every document's values are tested), so the leaf queries the DSL
//! builds for such a field (term, terms, prefix, wildcard, range) are rewritten into
//! [`Query::DocValues`] with the same meaning. A field with neither index nor doc values cannot
//! be searched (OpenSearch's `failIfNotIndexedAndNoDocValues`).

use crate::engine::query::multi_term::{key_predecessor, key_successor, parse_wildcard};
use crate::engine::query::{BytesMatch, DvFilter, Query, RangeKind};
use crate::engine::schema::{FieldKind, FieldType, Mapping};
use crate::engine::segment::points::sortable;
use crate::error::{ErrorKind, OsError, OsResult};

/// How a field is searched.
enum Access {
    /// Through its index (postings or points): the query stays as it is.
    Indexed,
    /// Through its doc values: sorted-set terms (`bytes`) or a numeric column.
    DocValues { bytes: bool, boolean: bool },
    /// Neither: the query cannot run.
    None,
}

fn access(ft: &FieldType) -> Access {
    let searchable_kind = matches!(
        ft.kind,
        FieldKind::Keyword(_)
            | FieldKind::Number(_)
            | FieldKind::ScaledFloat { .. }
            | FieldKind::Date { .. }
            | FieldKind::Boolean
            | FieldKind::Ip
            | FieldKind::TokenCount { .. }
    );
    if ft.effective_index() || !searchable_kind {
        return Access::Indexed;
    }
    if !ft.effective_doc_values() {
        return Access::None;
    }
    Access::DocValues {
        bytes: matches!(ft.kind, FieldKind::Keyword(_) | FieldKind::Ip),
        boolean: matches!(ft.kind, FieldKind::Boolean),
    }
}

/// OpenSearch's error for a field that is neither indexed nor has doc values.
pub fn not_searchable(field: &str) -> OsError {
    let reason = format!("Cannot search on field [{field}] since it is not indexed nor has doc values.");
    OsError::new(ErrorKind::QueryShard, format!("failed to create query: {reason}"))
        .status(400)
        .caused_by(OsError::illegal(reason))
}

/// Rewrites the leaves of `q` on doc-values-only fields of `mapping`. `strict`: a leaf on a field
/// that is neither indexed nor has doc values is an error (else it is left to match nothing).
pub fn rewrite(q: Query, mapping: &Mapping, strict: bool) -> OsResult<Query> {
    let all = |qs: Vec<Query>| qs.into_iter().map(|c| rewrite(c, mapping, strict)).collect::<OsResult<Vec<_>>>();
    Ok(match q {
        Query::Bool { must, should, must_not, filter, minimum_should_match, boost } => Query::Bool {
            must: all(must)?,
            should: all(should)?,
            must_not: all(must_not)?,
            filter: all(filter)?,
            minimum_should_match,
            boost,
        },
        Query::ConstantScore { query, boost } => {
            Query::ConstantScore { query: Box::new(rewrite(*query, mapping, strict)?), boost }
        }
        Query::DisMax { queries, tie_breaker, boost } => Query::DisMax { queries: all(queries)?, tie_breaker, boost },
        Query::Term { ref field, .. }
        | Query::Terms { ref field, .. }
        | Query::Prefix { ref field, .. }
        | Query::Wildcard { ref field, .. }
        | Query::Range { ref field, .. } => {
            let Some(ft) = mapping.field_type(field) else { return Ok(q) };
            match access(ft) {
                Access::Indexed => q,
                Access::None if strict => return Err(not_searchable(field)),
                Access::None => q,
                Access::DocValues { bytes, boolean } => leaf(q, bytes, boolean),
            }
        }
        other => other,
    })
}

/// One leaf on a doc-values-only field.
fn leaf(q: Query, bytes: bool, boolean: bool) -> Query {
    // Booleans are indexed as `T`/`F` and kept as 1/0 in doc values.
    let bool_value = |t: &[u8]| -> Option<i64> {
        match t {
            b"T" => Some(1),
            b"F" => Some(0),
            _ => None,
        }
    };
    let (field, filter, boost) = match q {
        Query::Term { field, term, boost } if boolean => {
            (field, DvFilter::Numeric(bool_value(&term).map(|v| (v, v)).into_iter().collect()), boost)
        }
        Query::Terms { field, terms, boost } if boolean => {
            (field, DvFilter::Numeric(terms.iter().filter_map(|t| bool_value(t)).map(|v| (v, v)).collect()), boost)
        }
        Query::Term { field, term, boost } => (field, DvFilter::Bytes(vec![BytesMatch::Exact(term)]), boost),
        Query::Terms { field, terms, boost } => {
            (field, DvFilter::Bytes(terms.into_iter().map(BytesMatch::Exact).collect()), boost)
        }
        Query::Prefix { field, prefix, boost } => (field, DvFilter::Bytes(vec![BytesMatch::Prefix(prefix)]), boost),
        Query::Wildcard { field, pattern, boost } => {
            (field, DvFilter::Bytes(vec![BytesMatch::Wildcard(parse_wildcard(&pattern))]), boost)
        }
        Query::Range { field, lo, hi, include_lo, include_hi, kind, boost } if bytes || kind == RangeKind::Terms => {
            (field, DvFilter::Bytes(vec![BytesMatch::Range { lo, hi, include_lo, include_hi }]), boost)
        }
        Query::Range { field, lo, hi, include_lo, include_hi, boost, .. } => {
            // Point keys of numeric fields are the column's values, sign-flipped big-endian.
            let lo = match lo {
                None => Some(i64::MIN),
                Some(k) if include_lo => Some(sortable::decode_i64(&k)),
                Some(k) => key_successor(&k).map(|k| sortable::decode_i64(&k)),
            };
            let hi = match hi {
                None => Some(i64::MAX),
                Some(k) if include_hi => Some(sortable::decode_i64(&k)),
                Some(k) => key_predecessor(&k).map(|k| sortable::decode_i64(&k)),
            };
            let ranges = match (lo, hi) {
                (Some(l), Some(h)) if l <= h => vec![(l, h)],
                _ => vec![],
            };
            (field, DvFilter::Numeric(ranges), boost)
        }
        other => return other,
    };
    Query::DocValues { field, filter, boost }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn mapping() -> Mapping {
        Mapping::from_json(&json!({"properties": {
            "k": {"type": "keyword", "index": false},
            "n": {"type": "long", "index": false},
            "b": {"type": "boolean", "index": false},
            "i": {"type": "ip", "index": false},
            "none": {"type": "long", "index": false, "doc_values": false},
            "both": {"type": "long"}
        }}))
        .unwrap()
    }

    fn range(field: &str, lo: i64, hi: i64, il: bool, ih: bool) -> Query {
        let k = |v: i64| Some(sortable::encode_i64(v).to_vec());
        Query::Range {
            field: field.into(),
            lo: k(lo),
            hi: k(hi),
            include_lo: il,
            include_hi: ih,
            kind: RangeKind::Points,
            boost: 2.0,
        }
    }

    #[test]
    fn leaves_on_doc_values_only_fields_read_doc_values() {
        let m = mapping();
        let r = |q| rewrite(q, &m, true).unwrap();
        assert_eq!(
            r(Query::term("k", "x")),
            Query::DocValues {
                field: "k".into(),
                filter: DvFilter::Bytes(vec![BytesMatch::Exact(b"x".to_vec())]),
                boost: 1.0
            }
        );
        assert_eq!(
            r(range("n", 3, 9, false, true)),
            Query::DocValues { field: "n".into(), filter: DvFilter::Numeric(vec![(4, 9)]), boost: 2.0 }
        );
        assert_eq!(
            r(range("n", 3, 4, false, false)),
            Query::DocValues { field: "n".into(), filter: DvFilter::Numeric(vec![]), boost: 2.0 }
        );
        assert_eq!(
            r(Query::term("b", "T")),
            Query::DocValues { field: "b".into(), filter: DvFilter::Numeric(vec![(1, 1)]), boost: 1.0 }
        );
        // Indexed fields and unmapped ones are left alone, inside compounds too.
        let q = Query::or(vec![range("both", 1, 2, true, true), Query::term("nope", "x")]);
        assert_eq!(r(q.clone()), q);
        let nested = r(Query::ConstantScore { query: Box::new(Query::or(vec![Query::term("k", "x")])), boost: 1.0 });
        assert!(
            matches!(nested, Query::ConstantScore { query, .. } if matches!(&*query, Query::Bool { should, .. } if matches!(should[0], Query::DocValues { .. })))
        );
    }

    #[test]
    fn ip_ranges_compare_keys() {
        let m = mapping();
        let k = |v: u128| Some(sortable::encode_u128(v).to_vec());
        let q = Query::Range {
            field: "i".into(),
            lo: k(1),
            hi: k(5),
            include_lo: true,
            include_hi: true,
            kind: RangeKind::Points,
            boost: 1.0,
        };
        assert_eq!(
            rewrite(q, &m, true).unwrap(),
            Query::DocValues {
                field: "i".into(),
                filter: DvFilter::Bytes(vec![BytesMatch::Range {
                    lo: k(1),
                    hi: k(5),
                    include_lo: true,
                    include_hi: true
                }]),
                boost: 1.0
            }
        );
    }

    #[test]
    fn fields_without_index_or_doc_values_cannot_be_searched() {
        let m = mapping();
        let e = rewrite(Query::term("none", "1"), &m, true).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::QueryShard);
        assert!(e.reason.contains("Cannot search on field [none] since it is not indexed nor has doc values."));
        assert_eq!(rewrite(Query::term("none", "1"), &m, false).unwrap(), Query::term("none", "1"));
    }
}
