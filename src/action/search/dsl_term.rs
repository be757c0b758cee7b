//! Term-level queries: `term`, `terms`, `range`, `exists`, `prefix`, `wildcard`, `regexp`,
//! `fuzzy`, `ids`, and the encoding of a user value for one mapped field (keywords as bytes,
//! numbers, dates and ips as points, booleans as `T`/`F`). Fuzzy matching is in
//! [`super::dsl_fuzzy`].

use serde_json::Value;

use super::date_math;
use super::dsl::{body, bool_of, f32_of, i64_of, perr, single_field, str_of, QueryContext};
use super::dsl_constant;
use super::dsl_fuzzy::{fuzzy, fuzzy_rewritten, Rewrite};
use super::dsl_keyword::{self, CaseInsensitive};
use super::dsl_wildcard;
use crate::clock::Zone;
use crate::engine::query::multi_term::parse_wildcard;
use crate::engine::query::{DvFilter, IntervalRelation, Query, RangeKind};
use crate::engine::schema::{date, ip, FieldKind, FieldType, NumberType};
use crate::engine::segment::points::sortable;
use crate::error::{ErrorKind, OsError, OsResult};

/// Most terms a `fuzzy` or `regexp` query visits per segment before giving up with an error.
pub const MAX_TERMS_VISITED: usize = 1_000_000;
/// Most terms a top-terms rewrite keeps (OpenSearch's `indices.query.bool.max_clause_count`).
pub const MAX_CLAUSE_COUNT: usize = 1024;
/// Most terms a `regexp` expands to (`index.max_terms_count`-like bound).
pub const MAX_REGEXP_TERMS: usize = 65_536;

/// Parses one term-level query.
pub fn parse(name: &str, v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    if name != "exists" {
        if let Some(q) = super::dsl_flat_object::rewrite(name, v, ctx) {
            return q;
        }
    }
    let m = body(name, v)?;
    match name {
        "exists" => {
            let mut field = None;
            let mut boost = 1.0;
            for (k, v) in m {
                match k.as_str() {
                    "field" => field = Some(str_of(name, k, v)?),
                    "boost" => boost = f32_of(name, k, v)?,
                    "_name" => {}
                    other => return Err(perr(format!("[exists] query does not support [{other}]"))),
                }
            }
            let f = field.ok_or_else(|| perr("[exists] must be provided with a [field]"))?;
            exists(ctx, &f, boost)
        }
        "terms" => {
            // `value_type: bitmap`: the one value is a base64 RoaringBitmap (see `bitmap`).
            let bitmap = match m.get("value_type") {
                None => false,
                Some(v) => match str_of(name, "value_type", v)?.as_str() {
                    "default" => false,
                    "bitmap" => true,
                    other => return Err(perr(format!("[terms] query does not support value_type [{other}]"))),
                },
            };
            let without: serde_json::Map<String, Value>;
            let m = if m.contains_key("value_type") {
                without = m.iter().filter(|(k, _)| *k != "value_type").map(|(k, v)| (k.clone(), v.clone())).collect();
                &without
            } else {
                m
            };
            let (field, vals, boost) = single_field(name, m)?;
            let field = ctx.mapping.resolve_alias(field);
            let Value::Array(vals) = vals else {
                return Err(perr(format!("[terms] query does not support [{field}]")));
            };
            if bitmap {
                let [Value::String(b64)] = &vals[..] else {
                    return Err(crate::error::OsError::illegal(
                        "[terms] query with value_type [bitmap] takes exactly one base64 encoded bitmap",
                    ));
                };
                // OpenSearch 3.3 filters integer fields only (long fields came in 3.6).
                let ft = ctx.mapping.field_type(field);
                if let Some(ft) =
                    ft.filter(|t| !matches!(t.kind, FieldKind::Number(crate::engine::schema::NumberType::Integer)))
                {
                    return Err(crate::error::OsError::illegal(format!(
                        "Field [{field}] of type [{}] does not support bitmap queries",
                        ft.type_name()
                    )));
                }
                let nums = super::bitmap::decode_base64(b64)
                    .map_err(|_| crate::error::OsError::illegal("Failed to deserialize the bitmap."))?;
                return terms(ctx, field, &nums.into_iter().map(Value::from).collect::<Vec<_>>(), boost);
            }
            terms(ctx, field, vals, boost)
        }
        _ => {
            let (field, spec, boost) = single_field(name, m)?;
            let field = ctx.mapping.resolve_alias(field);
            if let Some((ft, c)) = dsl_constant::of(ctx, field) {
                if name != "range" {
                    return constant_keyword(name, field, spec, boost, ft, c);
                }
            }
            match name {
                "term" => {
                    let (value, b) = value_and_boost(name, spec, "value")?;
                    if case_insensitive_of(name, spec)? && terms_field(ctx, field) {
                        let v = dsl_keyword::normalize(ctx, field, &text(&value)?);
                        return dsl_keyword::case_insensitive(
                            ctx,
                            field,
                            &CaseInsensitive::Term(v.chars().collect()),
                            boost * b,
                        );
                    }
                    term(ctx, field, &value, boost * b)
                }
                "range" => range(ctx, field, spec, boost),
                "prefix" => {
                    let (value, b) = value_and_boost(name, spec, "value")?;
                    if dsl_wildcard::is_wildcard(ctx, field) {
                        let s = dsl_wildcard::prefix_pattern(ctx, field, &str_of(name, "value", &value)?);
                        if case_insensitive_of(name, spec)? {
                            return dsl_keyword::case_insensitive(
                                ctx,
                                field,
                                &CaseInsensitive::Wildcard(parse_wildcard(&s)),
                                boost * b,
                            );
                        }
                        return Ok(Query::Wildcard { field: field.into(), pattern: s, boost: boost * b });
                    }
                    let s = dsl_keyword::normalize(ctx, field, &str_of(name, "value", &value)?);
                    if case_insensitive_of(name, spec)? && terms_field(ctx, field) {
                        return dsl_keyword::case_insensitive(
                            ctx,
                            field,
                            &CaseInsensitive::Prefix(s.chars().collect()),
                            boost * b,
                        );
                    }
                    Ok(on_terms_field(ctx, field, |f| Query::Prefix {
                        field: f.into(),
                        prefix: s.as_bytes().to_vec(),
                        boost: boost * b,
                    }))
                }
                "wildcard" => {
                    let key = if spec.get("wildcard").is_some() { "wildcard" } else { "value" };
                    let (value, b) = value_and_boost(name, spec, key)?;
                    let s = dsl_keyword::normalize_wildcard(ctx, field, &str_of(name, "value", &value)?);
                    if case_insensitive_of(name, spec)? && terms_field(ctx, field) {
                        return dsl_keyword::case_insensitive(
                            ctx,
                            field,
                            &CaseInsensitive::Wildcard(parse_wildcard(&s)),
                            boost * b,
                        );
                    }
                    Ok(on_terms_field(ctx, field, |f| Query::Wildcard {
                        field: f.into(),
                        pattern: s.clone(),
                        boost: boost * b,
                    }))
                }
                "regexp" => {
                    let (value, b) = value_and_boost(name, spec, "value")?;
                    regexp(ctx, field, &str_of(name, "value", &value)?, case_insensitive_of(name, spec)?, boost * b)
                }
                "fuzzy" => {
                    let (value, b) = value_and_boost(name, spec, "value")?;
                    let s = str_of(name, "value", &value)?;
                    let fz = spec
                        .get("fuzziness")
                        .map(|f| str_of(name, "fuzziness", f))
                        .transpose()?
                        .unwrap_or_else(|| "AUTO".into());
                    let prefix = spec
                        .get("prefix_length")
                        .map(|v| i64_of(name, "prefix_length", v))
                        .transpose()?
                        .unwrap_or(0)
                        .max(0) as usize;
                    let max = spec
                        .get("max_expansions")
                        .map(|v| i64_of(name, "max_expansions", v))
                        .transpose()?
                        .unwrap_or(50)
                        .max(1) as usize;
                    let tr = spec
                        .get("transpositions")
                        .map(|v| bool_of(name, "transpositions", v))
                        .transpose()?
                        .unwrap_or(true);
                    match spec.get("rewrite").map(|v| str_of(name, "rewrite", v)).transpose()? {
                        Some(r) => {
                            fuzzy_rewritten(ctx, field, &s, &fz, prefix, tr, &Rewrite::parse(&r, max)?, boost * b)
                        }
                        None => fuzzy(ctx, field, &s, &fz, prefix, max, tr, boost * b),
                    }
                }
                _ => Err(super::dsl::unknown_query(name)),
            }
        }
    }
}

/// A term-level query (not `range`) on a `constant_keyword` field.
fn constant_keyword(
    name: &str,
    field: &str,
    spec: &Value,
    boost: f32,
    ft: &FieldType,
    c: &crate::engine::schema::ConstantKeywordParams,
) -> OsResult<Query> {
    let key = if name == "wildcard" && spec.get("wildcard").is_some() { "wildcard" } else { "value" };
    let (value, b) = value_and_boost(name, spec, key)?;
    let (boost, ci) = (boost * b, case_insensitive_of(name, spec)?);
    let s = dsl_constant::text(&value)?;
    match name {
        "term" => dsl_constant::term(field, ft, c, &s, ci, boost),
        "prefix" => dsl_constant::prefix(field, ft, c, &s, ci, boost),
        "wildcard" => dsl_constant::wildcard(field, ft, c, &s, ci, boost),
        "regexp" => dsl_constant::regexp(field, ft, c, &s, ci, boost),
        "fuzzy" => {
            let fz = spec
                .get("fuzziness")
                .map(|f| str_of(name, "fuzziness", f))
                .transpose()?
                .unwrap_or_else(|| "AUTO".into());
            let prefix =
                spec.get("prefix_length").map(|v| i64_of(name, "prefix_length", v)).transpose()?.unwrap_or(0).max(0)
                    as usize;
            let tr =
                spec.get("transpositions").map(|v| bool_of(name, "transpositions", v)).transpose()?.unwrap_or(true);
            dsl_constant::fuzzy(field, ft, c, &s, &fz, prefix, tr, boost)
        }
        _ => Err(super::dsl::unknown_query(name)),
    }
}

/// `{"field": value}` or `{"field": {"value": v, "boost": b, ...}}`.
fn value_and_boost(name: &str, spec: &Value, key: &str) -> OsResult<(Value, f32)> {
    match spec {
        Value::Object(m) => {
            let mut value = None;
            let mut boost = 1.0;
            for (k, v) in m {
                match k.as_str() {
                    "boost" => boost = f32_of(name, k, v)?,
                    k2 if k2 == key || k2 == "value" || (name == "term" && k2 == "term") => value = Some(v.clone()),
                    "_name"
                    | "case_insensitive"
                    | "rewrite"
                    | "flags"
                    | "max_determinized_states"
                    | "fuzziness"
                    | "prefix_length"
                    | "max_expansions"
                    | "transpositions"
                    | "flags_value" => {}
                    other => return Err(perr(format!("[{name}] query does not support [{other}]"))),
                }
            }
            let v = value.ok_or_else(|| perr(format!("[{name}] query requires a value")))?;
            Ok((v, boost))
        }
        Value::Array(_) => Err(perr(format!("[{name}] query does not support array of values"))),
        other => Ok((other.clone(), 1.0)),
    }
}

/// The `case_insensitive` flag of a term-level query's object form (default false).
fn case_insensitive_of(name: &str, spec: &Value) -> OsResult<bool> {
    match spec.get("case_insensitive") {
        Some(v) => bool_of(name, "case_insensitive", v),
        None => Ok(false),
    }
}

/// Whether `field` is searched by its indexed terms (keyword, text, `_id`).
fn terms_field(ctx: &QueryContext<'_>, field: &str) -> bool {
    field == "_id"
        || field == "_ignored"
        || matches!(ctx.mapping.field_type(field).map(|f| &f.kind), Some(FieldKind::Keyword(_) | FieldKind::Text(_)))
}

/// Whether a field is one of the metadata fields queries understand.
fn is_meta(field: &str) -> bool {
    matches!(field, "_id" | "_index" | "_routing" | "_ignored")
}

/// A query over a field's indexed terms (keyword, text, `_id`), `match_none` otherwise.
fn on_terms_field(ctx: &QueryContext<'_>, field: &str, f: impl Fn(&str) -> Query) -> Query {
    match ctx.mapping.field_type(field) {
        Some(ft) if matches!(ft.kind, FieldKind::Keyword(_) | FieldKind::Text(_)) => f(field),
        None if field == "_id" || field == "_routing" || field == "_ignored" => f(field),
        _ => Query::MatchNone,
    }
}

/// `exists`: documents with a value (an object path means any of its leaf fields).
pub fn exists(ctx: &QueryContext<'_>, field: &str, boost: f32) -> OsResult<Query> {
    match field {
        // Every document has these (OpenSearch answers them with a match-all).
        "_id" | "_index" | "_seq_no" | "_version" | "_primary_term" => {
            return Ok(Query::ConstantScore { query: Box::new(Query::MatchAll { boost: 1.0 }), boost })
        }
        // Routed documents carry a `_routing` term.
        "_routing" => return Ok(Query::Prefix { field: field.into(), prefix: Vec::new(), boost }),
        "_source" => return Err(OsError::new(ErrorKind::QueryShard, "The _source field is not searchable").status(400)),
        _ => {}
    }
    Ok(exists_of(ctx, field, boost))
}

fn exists_of(ctx: &QueryContext<'_>, field: &str, boost: f32) -> Query {
    let field = ctx.mapping.resolve_alias(field);
    if let Some(q) = super::dsl_flat_object::exists(ctx, field, boost) {
        return q;
    }
    if let Some((ft, c)) = dsl_constant::of(ctx, field) {
        return dsl_constant::exists(field, ft, c, boost);
    }
    if ctx.mapping.field_type(field).is_some() || is_meta(field) {
        return Query::Exists { field: field.into(), boost };
    }
    if let Some(obj) = ctx.mapping.object(field) {
        let _ = obj;
        let prefix = format!("{field}.");
        let subs: Vec<Query> = ctx
            .mapping
            .leaf_fields()
            .into_iter()
            .filter(|(p, _)| p.starts_with(&prefix))
            .map(|(p, _)| Query::Exists { field: p, boost: 1.0 })
            .collect();
        if subs.is_empty() {
            return Query::MatchNone;
        }
        return Query::ConstantScore { query: Box::new(Query::or(subs)), boost };
    }
    Query::MatchNone
}

/// The text form of a JSON scalar.
fn text(v: &Value) -> OsResult<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(perr(format!("[term] query does not support value {other}"))),
    }
}

/// A point key for an exact value of a numeric, date, boolean or ip field: `Ok(None)` when the
/// value cannot occur (a fraction on an integer field).
fn point_key(field: &str, ft: &FieldType, v: &Value) -> OsResult<Option<Vec<u8>>> {
    let (lo, hi) = point_bounds(field, ft, Some(v), Some(v), true, true, None)?;
    match (lo, hi) {
        (Some(l), Some(h)) if l == h => Ok(Some(l)),
        (Some(l), Some(h)) if l > h => Ok(None),
        _ => Ok(None),
    }
}

fn num_of(field: &str, v: &Value) -> OsResult<f64> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| perr(format!("failed to parse number for [{field}]"))),
        Value::String(s) => s.trim().parse::<f64>().map_err(|_| perr(format!("For input string: \"{s}\"")).status(400)),
        Value::Bool(_) | Value::Null | Value::Array(_) | Value::Object(_) => {
            Err(perr(format!("failed to parse number [{v}] for [{field}]")))
        }
    }
}

/// The least (`lower`) or greatest integer a bound admits: exact for integers (JSON or
/// strings, any size up to i128), rounded toward the range for fractions.
fn int_bound(field: &str, v: &Value, lower: bool, inclusive: bool) -> OsResult<i128> {
    let exact = match v {
        Value::Number(n) => n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)),
        Value::String(s) => s.trim().parse::<i128>().ok(),
        _ => None,
    };
    if let Some(x) = exact {
        return Ok(match (lower, inclusive) {
            (true, true) | (false, true) => x,
            (true, false) => x.saturating_add(1),
            (false, false) => x.saturating_sub(1),
        });
    }
    let d = num_of(field, v)?;
    // `as` saturates (and maps NaN to 0, which a NaN bound cannot reach anyway).
    Ok(match (lower, inclusive) {
        (true, true) => d.ceil() as i128,
        (true, false) => d.floor() as i128 + 1,
        (false, true) => d.floor() as i128,
        (false, false) => d.ceil() as i128 - 1,
    })
}

/// Inclusive point bounds (`None` = open) of a range over a numeric/date/ip field.
fn point_bounds(
    field: &str,
    ft: &FieldType,
    lo: Option<&Value>,
    hi: Option<&Value>,
    inc_lo: bool,
    inc_hi: bool,
    dm: Option<(&str, &Zone, i64)>,
) -> OsResult<(Option<Vec<u8>>, Option<Vec<u8>>)> {
    // Integer bounds within the type's `[min, max]`; a range entirely outside it matches
    // nothing (an inverted pair of keys).
    let int_bounds =
        |min: i128, max: i128, encode: &dyn Fn(i128) -> Vec<u8>| -> OsResult<(Option<Vec<u8>>, Option<Vec<u8>>)> {
            let l = lo.map(|v| int_bound(field, v, true, inc_lo)).transpose()?;
            let h = hi.map(|v| int_bound(field, v, false, inc_hi)).transpose()?;
            if l.is_some_and(|l| l > max) || h.is_some_and(|h| h < min) || matches!((l, h), (Some(l), Some(h)) if l > h)
            {
                return Ok((Some(encode(max)), Some(encode(min))));
            }
            Ok((l.map(|l| encode(l.max(min))), h.map(|h| encode(h.min(max)))))
        };
    let long_key = |x: i128| sortable::encode_i64(x as i64).to_vec();
    Ok(match &ft.kind {
        FieldKind::Number(n) => match n {
            NumberType::Long => int_bounds(i64::MIN as i128, i64::MAX as i128, &long_key)?,
            NumberType::Integer => int_bounds(i32::MIN as i128, i32::MAX as i128, &long_key)?,
            NumberType::Short => int_bounds(i16::MIN as i128, i16::MAX as i128, &long_key)?,
            NumberType::Byte => int_bounds(i8::MIN as i128, i8::MAX as i128, &long_key)?,
            NumberType::UnsignedLong => int_bounds(0, u64::MAX as i128, &|x| sortable::encode_u64(x as u64).to_vec())?,
            NumberType::Double | NumberType::Float | NumberType::HalfFloat => {
                let lo = lo.map(|v| num_of(field, v)).transpose()?;
                let hi = hi.map(|v| num_of(field, v)).transpose()?;
                let round = |v: f64| if *n == NumberType::Double { v } else { v as f32 as f64 };
                let l = lo.map(|v| {
                    let k = sortable::encode_f64(round(v)).to_vec();
                    if inc_lo {
                        k
                    } else {
                        crate::engine::query::multi_term::key_successor(&k).unwrap_or(k)
                    }
                });
                let h = hi.map(|v| {
                    let k = sortable::encode_f64(round(v)).to_vec();
                    if inc_hi {
                        k
                    } else {
                        crate::engine::query::multi_term::key_predecessor(&k).unwrap_or(k)
                    }
                });
                (l, h)
            }
        },
        FieldKind::TokenCount { .. } => {
            return point_bounds(
                field,
                &FieldType::new(FieldKind::Number(NumberType::Integer)),
                lo,
                hi,
                inc_lo,
                inc_hi,
                dm,
            )
        }
        FieldKind::ScaledFloat { scaling_factor } => {
            let lo = lo.map(|v| num_of(field, v)).transpose()?.map(|v| v * scaling_factor);
            let hi = hi.map(|v| num_of(field, v)).transpose()?.map(|v| v * scaling_factor);
            let l = lo.map(|v| sortable::encode_i64(if inc_lo { v.ceil() } else { v.floor() + 1.0 } as i64).to_vec());
            let h = hi.map(|v| sortable::encode_i64(if inc_hi { v.floor() } else { v.ceil() - 1.0 } as i64).to_vec());
            (l, h)
        }
        FieldKind::Date { nanos, .. } => {
            let utc = Zone::utc();
            let (fmt, zone, now) = dm.unwrap_or((ft.date_format(), &utc, 0));
            let conv = |v: &Value, up: bool| -> OsResult<i64> {
                let s = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    other => return Err(perr(format!("failed to parse date field [{other}] with format [{fmt}]"))),
                };
                let ms = date_math::eval(&s, fmt, zone, now, up).map_err(|e| {
                    perr(format!("failed to parse date field [{s}] with format [{fmt}]: [{e}]")).status(400)
                })?;
                Ok(if *nanos { ms.saturating_mul(1_000_000) } else { ms })
            };
            // gt and lte round up; gte and lt round down.
            let l = lo.map(|v| conv(v, !inc_lo)).transpose()?;
            let h = hi.map(|v| conv(v, inc_hi)).transpose()?;
            let l = l.map(|x| sortable::encode_i64(if inc_lo { x } else { x.saturating_add(1) }).to_vec());
            let h = h.map(|x| sortable::encode_i64(if inc_hi { x } else { x.saturating_sub(1) }).to_vec());
            (l, h)
        }
        FieldKind::Ip => {
            let conv = |v: &Value| -> OsResult<u128> {
                let s = text(v)?;
                ip::parse_ip(&s).ok_or_else(|| perr(format!("'{s}' is not an IP string literal.")))
            };
            let l = lo.map(conv).transpose()?.map(|x| if inc_lo { x } else { x.saturating_add(1) });
            let h = hi.map(conv).transpose()?.map(|x| if inc_hi { x } else { x.saturating_sub(1) });
            (l.map(|x| sortable::encode_u128(x).to_vec()), h.map(|x| sortable::encode_u128(x).to_vec()))
        }
        _ => (None, None),
    })
}

/// A `term` query for one value of `field`, encoded for its type.
pub fn term(ctx: &QueryContext<'_>, field: &str, v: &Value, boost: f32) -> OsResult<Query> {
    if field == "_id" || field == "_routing" {
        return Ok(Query::Terms { field: field.into(), terms: vec![text(v)?.into_bytes()], boost });
    }
    if field == "_ignored" {
        // The names of fields whose values `ignore_malformed` dropped (a keyword field).
        return Ok(Query::Term { field: field.into(), term: text(v)?.into_bytes(), boost });
    }
    if field == "_index" {
        let name = text(v)?;
        return Ok(if crate::cluster::resolve::glob(&name, ctx.index) {
            Query::MatchAll { boost }
        } else {
            Query::MatchNone
        });
    }
    let Some(ft) = ctx.mapping.field_type(field) else { return Ok(Query::MatchNone) };
    Ok(match &ft.kind {
        FieldKind::Keyword(k) if k.wildcard => dsl_wildcard::term(ctx, field, &text(v)?, boost),
        FieldKind::ConstantKeyword(c) => return dsl_constant::term(field, ft, c, &text(v)?, false, boost),
        FieldKind::Text(_) => Query::Term { field: field.into(), term: text(v)?.into_bytes(), boost },
        FieldKind::Keyword(_) => {
            let t = Query::Term {
                field: field.into(),
                term: dsl_keyword::normalize(ctx, field, &text(v)?).into_bytes(),
                boost: 1.0,
            };
            // OpenSearch 3's `KeywordFieldType.termQuery`: constant score unless the mapping
            // sets `use_similarity` (then BM25).
            let bm25 = ft.extra.get("use_similarity").is_some_and(|u| u == &Value::Bool(true) || u == "true");
            if bm25 {
                t.with_boost(boost)
            } else {
                Query::ConstantScore { query: Box::new(t), boost }
            }
        }
        FieldKind::Boolean => {
            let b = match v {
                Value::Bool(b) => *b,
                Value::String(s) if s == "true" => true,
                Value::String(s) if s == "false" || s.is_empty() => false,
                other => {
                    return Err(perr(format!(
                        "Can't parse boolean value [{}], expected [true] or [false]",
                        text(other)?
                    )))
                }
            };
            Query::ConstantScore {
                query: Box::new(Query::Term {
                    field: field.into(),
                    term: if b { b"T".to_vec() } else { b"F".to_vec() },
                    boost: 1.0,
                }),
                boost,
            }
        }
        FieldKind::Ip if matches!(v, Value::String(s) if s.contains('/')) => {
            let s = text(v)?;
            let (addr, bits) = s.split_once('/').unwrap_or((&s, "128"));
            let a = ip::parse_ip(addr).ok_or_else(|| perr(format!("'{addr}' is not an IP string literal.")))?;
            let mut bits: u32 = bits.parse().map_err(|_| perr(format!("Expected [ip/prefix] but was [{s}]")))?;
            if !addr.contains(':') {
                bits += 96;
            }
            let bits = bits.min(128);
            let mask = if bits == 0 { 0 } else { u128::MAX << (128 - bits) };
            let lo = a & mask;
            let hi = lo | !mask;
            Query::Range {
                field: field.into(),
                lo: Some(sortable::encode_u128(lo).to_vec()),
                hi: Some(sortable::encode_u128(hi).to_vec()),
                include_lo: true,
                include_hi: true,
                kind: RangeKind::Points,
                boost,
            }
        }
        FieldKind::Binary => return Err(perr("Binary fields do not support searching".to_string())),
        FieldKind::Range { .. } if !ft.effective_doc_values() => {
            return Err(super::dsl_doc_values::not_searchable(field))
        }
        FieldKind::Range { kind, format } => {
            let element = kind.element(format.as_deref(), None);
            interval_query(
                field,
                &element,
                kind.width(),
                Some(v),
                Some(v),
                true,
                true,
                IntervalRelation::Intersects,
                None,
                boost,
            )?
        }
        _ => match point_key(field, ft, v)? {
            Some(k) => Query::Range {
                field: field.into(),
                lo: Some(k.clone()),
                hi: Some(k),
                include_lo: true,
                include_hi: true,
                kind: RangeKind::Points,
                boost,
            },
            None => Query::MatchNone,
        },
    })
}

fn terms(ctx: &QueryContext<'_>, field: &str, vals: &[Value], boost: f32) -> OsResult<Query> {
    let keyword_like = field == "_id"
        || field == "_routing"
        || field == "_ignored"
        || matches!(ctx.mapping.field_type(field).map(|f| &f.kind), Some(FieldKind::Keyword(_) | FieldKind::Text(_)));
    if let Some((ft, c)) = dsl_constant::of(ctx, field) {
        return dsl_constant::terms(field, ft, c, &vals.iter().map(text).collect::<OsResult<Vec<_>>>()?, boost);
    }
    if dsl_wildcard::is_wildcard(ctx, field) {
        return Ok(dsl_wildcard::terms(field, vals.iter().map(text).collect::<OsResult<Vec<_>>>()?, boost));
    }
    if keyword_like {
        let ts = vals
            .iter()
            .map(|v| text(v).map(|s| dsl_keyword::normalize(ctx, field, &s).into_bytes()))
            .collect::<OsResult<Vec<_>>>()?;
        if ts.is_empty() {
            return Ok(Query::MatchNone);
        }
        return Ok(Query::Terms { field: field.into(), terms: ts, boost });
    }
    let mut subs = Vec::new();
    for v in vals {
        let q = term(ctx, field, v, 1.0)?;
        if q != Query::MatchNone {
            subs.push(q);
        }
    }
    if subs.is_empty() {
        return Ok(Query::MatchNone);
    }
    Ok(Query::ConstantScore { query: Box::new(Query::or(subs)), boost })
}

fn range(ctx: &QueryContext<'_>, field: &str, spec: &Value, boost: f32) -> OsResult<Query> {
    let m = body("range", spec)?;
    let (mut lo, mut hi, mut inc_lo, mut inc_hi) = (None, None, true, true);
    let (mut format, mut tz, mut b) = (None, None, 1.0);
    let mut relation = IntervalRelation::Intersects;
    for (k, v) in m {
        let v = if v.is_null() { None } else { Some(v.clone()) };
        match k.as_str() {
            "gte" => (lo, inc_lo) = (v, true),
            "gt" => (lo, inc_lo) = (v, false),
            "lte" => (hi, inc_hi) = (v, true),
            "lt" => (hi, inc_hi) = (v, false),
            "from" => lo = v,
            "to" => hi = v,
            "include_lower" => inc_lo = v.map(|x| bool_of("range", k, &x)).transpose()?.unwrap_or(true),
            "include_upper" => inc_hi = v.map(|x| bool_of("range", k, &x)).transpose()?.unwrap_or(true),
            "format" => format = v.map(|x| str_of("range", k, &x)).transpose()?,
            "time_zone" => tz = v.map(|x| str_of("range", k, &x)).transpose()?,
            "boost" => b = v.map(|x| f32_of("range", k, &x)).transpose()?.unwrap_or(1.0),
            "relation" => {
                let r = v.map(|x| str_of("range", k, &x)).transpose()?.unwrap_or_default();
                relation = match r.to_ascii_lowercase().as_str() {
                    "intersects" => IntervalRelation::Intersects,
                    "within" => IntervalRelation::Within,
                    "contains" => IntervalRelation::Contains,
                    _ => return Err(perr(format!("[range] query does not support relation [{r}]"))),
                };
            }
            "_name" => {}
            other => return Err(perr(format!("[range] query does not support [{other}]"))),
        }
    }
    let boost = boost * b;
    let Some(ft) = ctx.mapping.field_type(field) else {
        return Ok(Query::MatchNone);
    };
    match &ft.kind {
        FieldKind::Keyword(k) if k.wildcard => Err(dsl_wildcard::range_error(field)),
        FieldKind::ConstantKeyword(c) => {
            let lo = lo.as_ref().map(text).transpose()?;
            let hi = hi.as_ref().map(text).transpose()?;
            dsl_constant::range(field, ft, c, lo.as_deref(), hi.as_deref(), inc_lo, inc_hi, boost)
        }
        FieldKind::Keyword(_) | FieldKind::Text(_) => {
            let lo = lo.as_ref().map(text).transpose()?.map(String::into_bytes);
            let hi = hi.as_ref().map(text).transpose()?.map(String::into_bytes);
            Ok(Query::Range {
                field: field.into(),
                lo,
                hi,
                include_lo: inc_lo,
                include_hi: inc_hi,
                kind: RangeKind::Terms,
                boost,
            })
        }
        FieldKind::Boolean | FieldKind::Binary => {
            Err(perr(format!("[range] queries on [{}] fields are not supported", ft.type_name())))
        }
        // Range fields are searched through their doc values only.
        FieldKind::Range { .. } if !ft.effective_doc_values() => Err(super::dsl_doc_values::not_searchable(field)),
        FieldKind::Range { kind, format: field_format } => {
            if let Some(f) = &format {
                date::validate_format(f).map_err(|e| perr(e).status(400))?;
            }
            let zone = tz
                .as_deref()
                .map(date_math::parse_time_zone)
                .transpose()
                .map_err(crate::error::OsError::illegal)?
                .unwrap_or_else(Zone::utc);
            let element = kind.element(field_format.as_deref(), None);
            let fmt = format.as_deref().unwrap_or(element.date_format());
            interval_query(
                field,
                &element,
                kind.width(),
                lo.as_ref(),
                hi.as_ref(),
                inc_lo,
                inc_hi,
                relation,
                Some((fmt, &zone, ctx.now_millis)),
                boost,
            )
        }
        _ => {
            if let Some(f) = &format {
                date::validate_format(f).map_err(|e| perr(e).status(400))?;
            }
            let zone = tz
                .as_deref()
                .map(date_math::parse_time_zone)
                .transpose()
                .map_err(crate::error::OsError::illegal)?
                .unwrap_or_else(Zone::utc);
            let fmt = format.as_deref().unwrap_or(ft.date_format());
            let (l, h) =
                point_bounds(field, ft, lo.as_ref(), hi.as_ref(), inc_lo, inc_hi, Some((fmt, &zone, ctx.now_millis)))?;
            if let (Some(a), Some(b)) = (&l, &h) {
                if a > b {
                    return Ok(Query::MatchNone);
                }
            }
            if l.is_none() && h.is_none() {
                return Ok(Query::Exists { field: field.into(), boost });
            }
            Ok(Query::Range {
                field: field.into(),
                lo: l,
                hi: h,
                include_lo: true,
                include_hi: true,
                kind: RangeKind::Points,
                boost,
            })
        }
    }
}

/// A query on a range field: documents with an interval related to `[lo, hi]` (bounds of the
/// element type; open bounds are the key space's ends) as `relation` says.
#[allow(clippy::too_many_arguments)]
fn interval_query(
    field: &str,
    element: &FieldType,
    width: usize,
    lo: Option<&Value>,
    hi: Option<&Value>,
    inc_lo: bool,
    inc_hi: bool,
    relation: IntervalRelation,
    dm: Option<(&str, &Zone, i64)>,
    boost: f32,
) -> OsResult<Query> {
    let (l, h) = point_bounds(field, element, lo, hi, inc_lo, inc_hi, dm)?;
    let l = l.unwrap_or_else(|| vec![0u8; width]);
    let h = h.unwrap_or_else(|| vec![0xFFu8; width]);
    if l > h {
        return Ok(Query::MatchNone);
    }
    Ok(Query::DocValues { field: field.into(), filter: DvFilter::Interval { lo: l, hi: h, relation }, boost })
}

/// `ids`: documents with these `_id`s.
pub fn ids(v: &Value) -> OsResult<Query> {
    let m = body("ids", v)?;
    let mut values = Vec::new();
    let mut boost = 1.0;
    for (k, v) in m {
        match k.as_str() {
            "values" => {
                let a = v.as_array().ok_or_else(|| perr("[ids] values must be an array"))?;
                for x in a {
                    values.push(text(x)?.into_bytes());
                }
            }
            "boost" => boost = f32_of("ids", k, v)?,
            "type" | "types" | "_name" => {}
            other => return Err(perr(format!("[ids] query does not support [{other}]"))),
        }
    }
    if values.is_empty() {
        return Ok(Query::MatchNone);
    }
    Ok(Query::Terms { field: "_id".into(), terms: values, boost })
}

/// Visits every term of `field` over the shard's segments (bounded).
pub(super) fn visit_all(
    ctx: &QueryContext<'_>,
    field: &str,
    from: &[u8],
    f: &mut dyn FnMut(&[u8]) -> bool,
) -> OsResult<()> {
    for seg in ctx.segments {
        let mut n = 0usize;
        let mut over = false;
        seg.visit_terms(field, from, &mut |t| {
            n += 1;
            if n > MAX_TERMS_VISITED {
                over = true;
                return false;
            }
            f(t)
        })?;
        if over {
            return Err(crate::error::OsError::illegal(format!(
                "query on [{field}] visits more than {MAX_TERMS_VISITED} terms"
            )));
        }
    }
    Ok(())
}

/// `regexp`: Lucene's regular expressions (anchored) over the field's terms; constant score.
/// Like OpenSearch's `StringFieldType.regexpQuery`, the pattern is never normalized by the
/// field's analyzer (on a `text` field `Foo.*` matches no lowercased term); `case_insensitive`
/// is Lucene's `ASCII_CASE_INSENSITIVE` match flag (here Unicode simple case folding).
pub fn regexp(
    ctx: &QueryContext<'_>,
    field: &str,
    pattern: &str,
    case_insensitive: bool,
    boost: f32,
) -> OsResult<Query> {
    super::limits::check_regex_length(pattern, ctx.max_regex_length)?;
    if !matches!(ctx.mapping.field_type(field).map(|f| &f.kind), Some(FieldKind::Keyword(_) | FieldKind::Text(_)))
        && field != "_id"
    {
        return Ok(Query::MatchNone);
    }
    let normalized;
    let pattern = if dsl_wildcard::is_wildcard(ctx, field) {
        normalized = dsl_wildcard::regexp_pattern(ctx, field, pattern);
        normalized.as_str()
    } else {
        pattern
    };
    let re = regex::bytes::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .case_insensitive(case_insensitive)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| crate::error::OsError::illegal(format!("failed to parse regexp [{pattern}]: {e}")))?;
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut too_many = false;
    visit_all(ctx, field, b"", &mut |t| {
        if re.is_match(t) {
            if out.len() >= MAX_REGEXP_TERMS {
                too_many = true;
                return false;
            }
            out.push(t.to_vec());
        }
        true
    })?;
    if too_many {
        return Err(crate::error::OsError::illegal(format!(
            "regexp [{pattern}] matches more than {MAX_REGEXP_TERMS} terms"
        )));
    }
    if out.is_empty() {
        return Ok(Query::MatchNone);
    }
    Ok(Query::Terms { field: field.into(), terms: out, boost })
}
