//! `highlight` (plain/unified basics): for each requested field, the source text re-analyzed and
//! the tokens that are query terms of that field (terms, phrase terms, prefixes) wrapped in
//! `pre_tags`/`post_tags`, cut into fragments of about `fragment_size` characters
//! (`number_of_fragments: 0` returns the whole value). `require_field_match: false` (the
//! default) highlights query terms of any field. A multi-field (`text.fvh`) highlights its
//! parent's source value; `matched_fields` adds the spans of other fields' query terms, found
//! with those fields' analyzers. Text longer than `index.highlight.max_analyzed_offset` fails
//! (plain always; unified when the field has no indexed offsets) unless the field sets
//! `max_analyzer_offset`, which then bounds the analyzed prefix.

use serde_json::{json, Map, Value};

use super::context::ShardContext;
use super::fetch::values_at;
use crate::engine::query::Query;
use crate::engine::schema::{FieldKind, FieldType, Mapper, Mapping, TextIndexOptions};
use crate::error::{OsError, OsResult};

/// Most fragments returned per field.
pub const MAX_FRAGMENTS: usize = 100;

/// (field, term, is_prefix) of the query's scoring leaves.
fn terms(q: &Query, out: &mut Vec<(String, Vec<u8>, bool)>, depth: usize) {
    if depth > 128 {
        return;
    }
    match q {
        Query::Term { field, term, .. } => out.push((field.clone(), term.clone(), false)),
        Query::Terms { field, terms, .. } => out.extend(terms.iter().map(|t| (field.clone(), t.clone(), false))),
        Query::Phrase { field, terms, .. } => out.extend(terms.iter().map(|t| (field.clone(), t.0.clone(), false))),
        Query::Prefix { field, prefix, .. } => out.push((field.clone(), prefix.clone(), true)),
        Query::Blended { terms, .. } => out.extend(terms.iter().map(|t| (t.field.clone(), t.term.clone(), false))),
        Query::MultiPhrase { field, positions, .. } => {
            out.extend(positions.iter().flat_map(|p| p.0.iter()).map(|t| (field.clone(), t.clone(), false)))
        }
        Query::Intervals { source, .. } => {
            let mut ts = Vec::new();
            source.terms(&mut ts);
            out.extend(ts.into_iter().map(|(f, t)| (f, t, false)));
        }
        Query::CombinedField { fields, term, .. } => {
            out.extend(fields.iter().map(|(f, _)| (f.clone(), term.clone(), false)))
        }
        Query::Bool { must, should, filter, .. } => {
            for c in must.iter().chain(should).chain(filter) {
                terms(c, out, depth + 1);
            }
        }
        Query::ConstantScore { query, .. } | Query::Verified { approx: query, .. } => terms(query, out, depth + 1),
        Query::DisMax { queries, .. } => {
            for c in queries {
                terms(c, out, depth + 1);
            }
        }
        _ => {}
    }
}

fn opt_usize(m: &Map<String, Value>, k: &str) -> Option<usize> {
    m.get(k).and_then(Value::as_u64).map(|v| v as usize)
}

fn tags(m: &Map<String, Value>, k: &str) -> Option<String> {
    m.get(k).and_then(|v| v.as_array()).and_then(|a| a.first()).and_then(Value::as_str).map(str::to_string)
}

/// The `_source` path holding a field's values: a multi-field's parent.
fn source_path(mapping: &Mapping, path: &str) -> String {
    let mut end = 0;
    for (i, c) in path.char_indices().chain(std::iter::once((path.len(), '.'))) {
        if c == '.' {
            end = i;
            if matches!(mapping.mapper(&path[..end]), Some(Mapper::Field(_))) {
                return path[..end].to_string();
            }
        }
    }
    path[..end].to_string()
}

/// The analyzer a field's text is re-analyzed with: `Some("")` for a keyword (the whole value is
/// one token), `None` for fields not highlighted.
fn analyzer_of(ft: &FieldType) -> Option<String> {
    match &ft.kind {
        FieldKind::Text(p) => {
            Some(p.search_analyzer.clone().or_else(|| p.analyzer.clone()).unwrap_or_else(|| "default".into()))
        }
        FieldKind::Keyword(_) => Some(String::new()),
        _ => None,
    }
}

/// OpenSearch's error for a highlighted text longer than `index.highlight.max_analyzed_offset`.
fn too_long(field: &str, id: &str, index: &str, max: usize, plain: bool) -> OsError {
    let advice = if plain {
        "For large texts, indexing with offsets or term vectors, and highlighting with unified or fvh highlighter is recommended!"
    } else {
        "For large texts, indexing with offsets or term vectors is recommended!"
    };
    OsError::illegal(format!(
        "The length of [{field}] field of [{id}] doc of [{index}] index has exceeded [{max}] - maximum allowed to be analyzed for highlighting. This maximum can be set by changing the [index.highlight.max_analyzed_offset] index level setting. {advice}"
    ))
}

/// The `highlight` object of one hit (`id`), `None` when nothing is highlighted.
pub fn highlight(spec: &Value, q: &Query, src: &Value, ctx: &ShardContext, id: &str) -> OsResult<Option<Value>> {
    let Some(top) = spec.as_object() else { return Ok(None) };
    let mut qt = Vec::new();
    terms(q, &mut qt, 0);
    let pre = tags(top, "pre_tags").unwrap_or_else(|| "<em>".into());
    let post = tags(top, "post_tags").unwrap_or_else(|| "</em>".into());
    let frag_size = opt_usize(top, "fragment_size").unwrap_or(100);
    let nfrag = opt_usize(top, "number_of_fragments").unwrap_or(5);
    let require = top.get("require_field_match").and_then(Value::as_bool).unwrap_or(true);
    let mut fields: Vec<(String, Map<String, Value>)> = Vec::new();
    match top.get("fields") {
        Some(Value::Object(m)) => {
            fields.extend(m.iter().map(|(k, v)| (k.clone(), v.as_object().cloned().unwrap_or_default())))
        }
        Some(Value::Array(a)) => {
            for x in a {
                if let Some(m) = x.as_object() {
                    fields.extend(m.iter().map(|(k, v)| (k.clone(), v.as_object().cloned().unwrap_or_default())));
                }
            }
        }
        _ => {}
    }
    let mut out = Map::new();
    for (pattern, opts) in fields {
        let paths: Vec<String> = if pattern.contains('*') {
            ctx.mapping
                .leaf_fields()
                .into_iter()
                .map(|(p, _)| p)
                .filter(|p| crate::cluster::resolve::glob(&pattern, p))
                .collect()
        } else {
            vec![pattern.clone()]
        };
        for path in paths {
            let Some(ft) = ctx.mapping.field_type(&path) else { continue };
            if analyzer_of(ft).is_none() {
                continue;
            }
            let pre = tags(&opts, "pre_tags").unwrap_or_else(|| pre.clone());
            let post = tags(&opts, "post_tags").unwrap_or_else(|| post.clone());
            let frag_size = opt_usize(&opts, "fragment_size").unwrap_or(frag_size);
            let nfrag = opt_usize(&opts, "number_of_fragments").unwrap_or(nfrag).min(MAX_FRAGMENTS);
            let require = opts.get("require_field_match").and_then(Value::as_bool).unwrap_or(require);
            let opt = |k: &str| opts.get(k).or_else(|| top.get(k));
            let ty = opt("type").and_then(Value::as_str).unwrap_or("unified");
            if !matches!(ty, "unified" | "plain" | "fvh") {
                return Err(OsError::illegal(format!("unknown highlighter type [{ty}] for the field [{path}]")));
            }
            let field_max = opt("max_analyzer_offset").and_then(Value::as_u64).map(|v| v as usize);
            // The field and its `matched_fields`, each with its query terms and analyzer.
            let mut sources: Vec<(String, String)> = Vec::new();
            let matched = opts
                .get("matched_fields")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>())
                .unwrap_or_default();
            for f in std::iter::once(path.as_str()).chain(matched) {
                if let Some(a) = ctx.mapping.field_type(f).and_then(analyzer_of) {
                    if !sources.iter().any(|s| s.0 == f) {
                        sources.push((f.to_string(), a));
                    }
                }
            }
            let wanted: Vec<Vec<(&[u8], bool)>> = sources
                .iter()
                .map(|(sf, _)| {
                    qt.iter().filter(|(f, _, _)| !require || f == sf).map(|(_, t, p)| (t.as_slice(), *p)).collect()
                })
                .collect();
            if wanted.iter().all(Vec::is_empty) {
                continue;
            }
            let mut vals = Vec::new();
            values_at(src, &source_path(&ctx.mapping, &path), &mut vals);
            let texts: Vec<&str> = vals.iter().filter_map(|v| v.as_str()).collect();
            // Unified analyzes the values joined (one separator between two) unless the field
            // has indexed offsets; plain analyzes each value; fvh reads term vectors.
            let max = ctx.limits.max_analyzed_offset;
            let analyzed = matches!(&ft.kind, FieldKind::Text(p) if p.index_options != Some(TextIndexOptions::Offsets));
            let joined: usize =
                texts.iter().map(|t| t.encode_utf16().count()).sum::<usize>() + texts.len().saturating_sub(1);
            if field_max.is_none() {
                if ty == "plain" {
                    if texts.iter().any(|t| t.encode_utf16().count() > max) {
                        return Err(too_long(&path, id, &ctx.index, max, true));
                    }
                } else if ty == "unified" && analyzed && joined > max {
                    return Err(too_long(&path, id, &ctx.index, max, false));
                }
            }
            let mut frags = Vec::new();
            let mut offset = 0usize;
            for text in texts {
                let mut spans: Vec<(usize, usize)> = Vec::new();
                for ((_, analyzer), wanted) in sources.iter().zip(&wanted) {
                    let is_hit = |t: &[u8]| wanted.iter().any(|(w, p)| if *p { t.starts_with(w) } else { t == *w });
                    if analyzer.is_empty() {
                        if is_hit(text.as_bytes()) {
                            spans.push((0, text.len()));
                        }
                    } else if let Some(a) = ctx.analyzers.get(analyzer) {
                        a.analyze(text, 0, &mut |t| {
                            // `max_analyzer_offset`: tokens past it (in the joined values) are not analyzed.
                            let within = field_max.is_none_or(|m| offset + text[..t.end].encode_utf16().count() <= m);
                            if within && is_hit(t.term.as_bytes()) && spans.len() < 10_000 {
                                spans.push((t.start, t.end));
                            }
                        });
                    }
                }
                offset += text.encode_utf16().count() + 1;
                spans.sort_unstable();
                spans.dedup();
                let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
                for s in spans {
                    match merged.last_mut() {
                        Some(l) if s.0 < l.1 => l.1 = l.1.max(s.1),
                        _ => merged.push(s),
                    }
                }
                let spans = merged;
                if spans.is_empty() {
                    continue;
                }
                frags.extend(fragments(text, &spans, &pre, &post, frag_size, nfrag));
                if nfrag > 0 && frags.len() >= nfrag {
                    frags.truncate(nfrag);
                    break;
                }
            }
            if !frags.is_empty() {
                out.insert(path, json!(frags));
            }
        }
    }
    Ok(if out.is_empty() { None } else { Some(Value::Object(out)) })
}

fn mark(text: &str, spans: &[(usize, usize)], from: usize, to: usize, pre: &str, post: &str) -> String {
    let mut s = String::new();
    let mut at = from;
    for &(a, b) in spans.iter().filter(|(a, b)| *a >= from && *b <= to) {
        s.push_str(text.get(at..a).unwrap_or(""));
        s.push_str(pre);
        s.push_str(text.get(a..b).unwrap_or(""));
        s.push_str(post);
        at = b;
    }
    s.push_str(text.get(at..to).unwrap_or(""));
    s
}

/// Fragments around the highlighted spans (`n == 0`: the whole text).
fn fragments(text: &str, spans: &[(usize, usize)], pre: &str, post: &str, size: usize, n: usize) -> Vec<String> {
    if n == 0 || text.chars().count() <= size {
        return vec![mark(text, spans, 0, text.len(), pre, post)];
    }
    let mut out = Vec::new();
    let mut covered = 0usize;
    for &(a, _) in spans {
        if a < covered {
            continue;
        }
        // Start at the word boundary before the span, end near `size` bytes later.
        let start = text[..a].rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let mut end = (start + size).min(text.len());
        while end < text.len() && !text.is_char_boundary(end) {
            end += 1;
        }
        if let Some(ws) = text[end..].find(char::is_whitespace) {
            if ws < 20 {
                end += ws;
            }
        }
        // Never cut a highlighted span.
        for &(sa, sb) in spans {
            if sa < end && sb > end {
                end = sb;
            }
        }
        out.push(mark(text, spans, start, end, pre, post));
        covered = end;
        if out.len() >= n {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_fragments() {
        let t = "the quick brown fox";
        assert_eq!(fragments(t, &[(4, 9)], "<em>", "</em>", 100, 5), vec!["the <em>quick</em> brown fox"]);
        let long = "aaa bbb ccc ddd eee fff ggg hhh";
        let f = fragments(long, &[(16, 19)], "<b>", "</b>", 8, 1);
        assert_eq!(f.len(), 1);
        assert!(f[0].starts_with("<b>eee</b>"));
    }
}
