//! `query_string`, `simple_query_string` and the `q=` URL parameter: Lucene's classic query
//! syntax (terms, `field:value`, `"phrases"~slop`, `AND`/`OR`/`NOT`/`&&`/`||`/`!`, `+`/`-`,
//! parentheses, `*`/`?` wildcards, `[a TO b]`/`{a TO b}` and `>=x` ranges, `/regexp/`, `^boost`,
//! `term~2`).

use serde_json::{json, Value};

use super::dsl::{body, bool_of, boosted, dis_max, f32_of, i64_of, min_should_match, perr, str_of, QueryContext};
use super::dsl_term;
use super::dsl_text::{expand_fields, field_and_boost, match_field, MatchKind, MatchOptions};
use crate::engine::query::Query;
use crate::engine::schema::FieldKind;
use crate::error::OsResult;

/// Most clauses one query string may hold.
pub const MAX_CLAUSES: usize = 1024;

/// Options of a query string.
#[derive(Debug, Clone)]
pub struct QsOptions {
    /// Fields searched by bare terms (`default_field` or `fields`), with boosts.
    pub fields: Vec<(String, f32)>,
    /// `default_operator: AND`.
    pub and: bool,
    pub analyzer: Option<String>,
    pub lenient: bool,
    pub phrase_slop: u32,
    pub minimum_should_match: Option<String>,
    pub tie_breaker: f32,
    pub analyze_wildcard: bool,
    /// `simple_query_string` syntax (`|`, `+`, `-` only; never fails).
    pub simple: bool,
}

impl Default for QsOptions {
    fn default() -> Self {
        QsOptions {
            fields: vec![("*".into(), 1.0)],
            and: false,
            analyzer: None,
            lenient: false,
            phrase_slop: 0,
            minimum_should_match: None,
            tie_breaker: 0.0,
            analyze_wildcard: false,
            simple: false,
        }
    }
}

/// Parses the `query_string` / `simple_query_string` DSL bodies.
pub fn parse_dsl(name: &str, v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let m = body(name, v)?;
    let mut o = QsOptions { simple: name == "simple_query_string", ..QsOptions::default() };
    let mut query = None;
    let mut boost = 1.0;
    let mut fields: Vec<(String, f32)> = Vec::new();
    for (k, v) in m {
        match k.as_str() {
            "query" => query = Some(str_of(name, k, v)?),
            "default_field" => fields = vec![field_and_boost(&str_of(name, k, v)?)?],
            "fields" => {
                let a = v.as_array().ok_or_else(|| perr(format!("[{name}] query does not support [fields]")))?;
                for f in a {
                    fields.push(field_and_boost(&str_of(name, k, f)?)?);
                }
            }
            "default_operator" => o.and = str_of(name, k, v)?.eq_ignore_ascii_case("and"),
            "analyzer" => o.analyzer = Some(str_of(name, k, v)?),
            "lenient" => o.lenient = bool_of(name, k, v)?,
            "phrase_slop" => o.phrase_slop = i64_of(name, k, v)?.clamp(0, 1 << 20) as u32,
            "minimum_should_match" => o.minimum_should_match = Some(str_of(name, k, v)?),
            "tie_breaker" => o.tie_breaker = f32_of(name, k, v)?,
            "analyze_wildcard" => o.analyze_wildcard = bool_of(name, k, v)?,
            "boost" => boost = f32_of(name, k, v)?,
            "_name"
            | "flags"
            | "fuzziness"
            | "fuzzy_max_expansions"
            | "fuzzy_prefix_length"
            | "fuzzy_transpositions"
            | "auto_generate_synonyms_phrase_query"
            | "allow_leading_wildcard"
            | "enable_position_increments"
            | "max_determinized_states"
            | "quote_field_suffix"
            | "quote_analyzer"
            | "rewrite"
            | "time_zone"
            | "type"
            | "escape"
            | "fuzzy_rewrite" => {}
            other => return Err(perr(format!("[{name}] query does not support [{other}]"))),
        }
    }
    let q = query.ok_or_else(|| perr(format!("[{name}] must be provided with a [query]")))?;
    if !fields.is_empty() {
        o.fields = fields;
    }
    if o.simple {
        o.lenient = true;
    }
    Ok(boosted(parse_query_string(&q, ctx, &o)?, boost))
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Phrase(String),
    LParen,
    RParen,
    And,
    Or,
    Not,
    Plus,
    Minus,
    Colon,
    Caret(f32),
    Tilde(Option<f32>),
    Range {
        lo: String,
        hi: String,
        inc_lo: bool,
        inc_hi: bool,
    },
    /// `/regexp/` (`\/` is a slash inside it).
    Regex(String),
}

fn lex(s: &str, simple: bool) -> OsResult<Vec<Tok>> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let special = |c: char| c.is_whitespace() || "()\":^~".contains(c) || (c == '|' && simple);
    while i < cs.len() {
        if out.len() > MAX_CLAUSES * 4 {
            return Err(perr(format!("query string has more than {MAX_CLAUSES} clauses")));
        }
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        match c {
            '(' => out.push(Tok::LParen),
            ')' => out.push(Tok::RParen),
            ':' => out.push(Tok::Colon),
            '+' => out.push(if simple && matches!(out.last(), Some(Tok::Word(_) | Tok::Phrase(_) | Tok::RParen)) {
                Tok::And
            } else {
                Tok::Plus
            }),
            '-' => out.push(Tok::Minus),
            '!' if !simple => out.push(Tok::Not),
            '|' if simple => out.push(Tok::Or),
            '&' if !simple && cs.get(i + 1) == Some(&'&') => {
                out.push(Tok::And);
                i += 1;
            }
            '|' if !simple && cs.get(i + 1) == Some(&'|') => {
                out.push(Tok::Or);
                i += 1;
            }
            '"' => {
                let mut p = String::new();
                i += 1;
                while i < cs.len() && cs[i] != '"' {
                    if cs[i] == '\\' && i + 1 < cs.len() {
                        i += 1;
                    }
                    p.push(cs[i]);
                    i += 1;
                }
                if i >= cs.len() && !simple {
                    return Err(perr(format!("Cannot parse '{s}': Lexical error: unterminated phrase")));
                }
                out.push(Tok::Phrase(p));
            }
            '^' | '~' => {
                let mut j = i + 1;
                let mut num = String::new();
                while j < cs.len() && (cs[j].is_ascii_digit() || cs[j] == '.') {
                    num.push(cs[j]);
                    j += 1;
                }
                if c == '^' {
                    out.push(Tok::Caret(num.parse().map_err(|_| perr(format!("Cannot parse '{s}': bad boost")))?));
                } else {
                    out.push(Tok::Tilde(num.parse().ok()));
                }
                i = j;
                continue;
            }
            '/' if !simple => {
                let mut r = String::new();
                i += 1;
                while i < cs.len() && cs[i] != '/' {
                    if cs[i] == '\\' && cs.get(i + 1) == Some(&'/') {
                        i += 1;
                    }
                    r.push(cs[i]);
                    i += 1;
                }
                if i >= cs.len() {
                    return Err(perr(format!("Cannot parse '{s}': Lexical error: unterminated regular expression")));
                }
                out.push(Tok::Regex(r));
            }
            '[' | '{' if !simple => {
                let close = cs[i + 1..].iter().position(|&x| x == ']' || x == '}').map(|p| p + i + 1);
                let Some(end) = close else { return Err(perr(format!("Cannot parse '{s}': unterminated range"))) };
                let inner: String = cs[i + 1..end].iter().collect();
                let parts: Vec<&str> = inner.split(" TO ").collect();
                if parts.len() != 2 {
                    return Err(perr(format!("Cannot parse '{s}': range must be [a TO b]")));
                }
                out.push(Tok::Range {
                    lo: parts[0].trim().to_string(),
                    hi: parts[1].trim().to_string(),
                    inc_lo: c == '[',
                    inc_hi: cs[end] == ']',
                });
                i = end + 1;
                continue;
            }
            _ => {
                let mut w = String::new();
                while i < cs.len() && !special(cs[i]) {
                    if cs[i] == '\\' && i + 1 < cs.len() {
                        i += 1;
                    }
                    w.push(cs[i]);
                    i += 1;
                }
                match w.as_str() {
                    "AND" if !simple => out.push(Tok::And),
                    "OR" if !simple => out.push(Tok::Or),
                    "NOT" if !simple => out.push(Tok::Not),
                    _ => out.push(Tok::Word(w)),
                }
                continue;
            }
        }
        i += 1;
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq)]
enum Occur {
    Must,
    Should,
    MustNot,
}

struct Parser<'a, 'c> {
    toks: Vec<Tok>,
    pos: usize,
    ctx: &'a QueryContext<'c>,
    o: &'a QsOptions,
    depth: usize,
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    /// A sequence of clauses up to `)` or the end.
    fn query(&mut self, fields: &[(String, f32)]) -> OsResult<Query> {
        self.depth += 1;
        if self.depth > 32 {
            return Err(perr("query string nested too deeply"));
        }
        let mut clauses: Vec<(Occur, Query)> = Vec::new();
        let mut pending_conj: Option<bool> = None;
        while let Some(t) = self.peek().cloned() {
            match t {
                Tok::RParen => break,
                Tok::And => {
                    pending_conj = Some(true);
                    self.pos += 1;
                    if let Some(last) = clauses.last_mut() {
                        if last.0 == Occur::Should {
                            last.0 = Occur::Must;
                        }
                    }
                    continue;
                }
                Tok::Or => {
                    pending_conj = Some(false);
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let mut occ = match pending_conj {
                Some(true) => Occur::Must,
                Some(false) => Occur::Should,
                None if self.o.and => Occur::Must,
                None => Occur::Should,
            };
            if pending_conj == Some(false) && self.o.and {
                if let Some(last) = clauses.last_mut() {
                    if last.0 == Occur::Must {
                        last.0 = Occur::Should;
                    }
                }
            }
            match self.peek() {
                Some(Tok::Plus) => {
                    occ = Occur::Must;
                    self.pos += 1;
                }
                Some(Tok::Minus) | Some(Tok::Not) => {
                    occ = Occur::MustNot;
                    self.pos += 1;
                }
                _ => {}
            }
            pending_conj = None;
            let Some(q) = self.clause(fields)? else { continue };
            clauses.push((occ, q));
            if clauses.len() > MAX_CLAUSES {
                return Err(perr(format!("query string has more than {MAX_CLAUSES} clauses")));
            }
        }
        self.depth -= 1;
        if clauses.len() == 1 && clauses[0].0 != Occur::MustNot {
            return Ok(clauses.pop().map(|c| c.1).unwrap_or(Query::MatchNone));
        }
        let (mut must, mut should, mut must_not) = (vec![], vec![], vec![]);
        for (o, q) in clauses {
            match o {
                Occur::Must => must.push(q),
                Occur::Should => should.push(q),
                Occur::MustNot => must_not.push(q),
            }
        }
        if must.is_empty() && should.is_empty() && must_not.is_empty() {
            return Ok(Query::MatchNone);
        }
        if must.contains(&Query::MatchNone) {
            return Ok(Query::MatchNone);
        }
        should.retain(|q| *q != Query::MatchNone);
        must_not.retain(|q| *q != Query::MatchNone);
        if must.is_empty() && should.is_empty() {
            if must_not.is_empty() {
                return Ok(Query::MatchNone);
            }
            must.push(Query::MatchAll { boost: 1.0 });
        }
        let msm = match (&self.o.minimum_should_match, self.depth) {
            (Some(m), 0) => min_should_match(m, should.len())? as u32,
            _ => 0,
        };
        Ok(Query::Bool { must, should, must_not, filter: vec![], minimum_should_match: msm, boost: 1.0 })
    }

    /// One clause: `[field:](term|"phrase"|(query)|range)[^b][~n]`; `None` for an empty one.
    fn clause(&mut self, fields: &[(String, f32)]) -> OsResult<Option<Query>> {
        let Some(t) = self.peek().cloned() else { return Ok(None) };
        self.pos += 1;
        let mut fields = fields.to_vec();
        let mut t = t;
        if let (Tok::Word(w), Some(Tok::Colon)) = (&t, self.peek()) {
            fields = expand_fields(self.ctx, &[(w.clone(), 1.0)]);
            self.pos += 1;
            match self.peek().cloned() {
                Some(n) => {
                    t = n;
                    self.pos += 1;
                }
                None => return Err(perr(format!("Cannot parse query: missing value after [{w}:]"))),
            }
        }
        let q = match t {
            Tok::LParen => {
                let q = self.query(&fields)?;
                if self.peek() == Some(&Tok::RParen) {
                    self.pos += 1;
                }
                q
            }
            Tok::Word(w) => {
                let fuzzy = match self.peek() {
                    Some(Tok::Tilde(n)) => {
                        let n = *n;
                        self.pos += 1;
                        Some(n.unwrap_or(2.0))
                    }
                    _ => None,
                };
                self.per_field(&fields, |p, f, b| p.word(f, &w, fuzzy, b))?
            }
            Tok::Phrase(ph) => {
                let slop = match self.peek() {
                    Some(Tok::Tilde(n)) => {
                        let n = n.unwrap_or(0.0);
                        self.pos += 1;
                        n as u32
                    }
                    _ => self.o.phrase_slop,
                };
                self.per_field(&fields, |p, f, b| {
                    let mo = MatchOptions {
                        slop,
                        analyzer: p.o.analyzer.clone(),
                        lenient: p.o.lenient,
                        boost: b,
                        ..MatchOptions::default()
                    };
                    match_field(p.ctx, f, &Value::String(ph.clone()), MatchKind::Phrase, &mo)
                })?
            }
            Tok::Regex(r) => {
                // Too long a regexp fails the query even when other field errors are lenient.
                super::limits::check_regex_length(&r, self.ctx.max_regex_length)?;
                self.per_field(&fields, |p, f, b| {
                    // A text field's regexp is normalized like its wildcards (lowercased, as the
                    // analyzer's `normalize` does).
                    let text = matches!(p.ctx.mapping.field_type(f).map(|t| &t.kind), Some(FieldKind::Text(_)));
                    dsl_term::regexp(p.ctx, f, &if text { r.to_lowercase() } else { r.clone() }, false, b)
                })?
            }
            Tok::Range { lo, hi, inc_lo, inc_hi } => self.per_field(&fields, |p, f, b| {
                let mut spec = serde_json::Map::new();
                if lo != "*" {
                    spec.insert(if inc_lo { "gte" } else { "gt" }.into(), json!(lo));
                }
                if hi != "*" {
                    spec.insert(if inc_hi { "lte" } else { "lt" }.into(), json!(hi));
                }
                spec.insert("boost".into(), json!(b));
                dsl_term::parse("range", &json!({ f: Value::Object(spec) }), p.ctx)
            })?,
            Tok::And
            | Tok::Or
            | Tok::Not
            | Tok::Plus
            | Tok::Minus
            | Tok::Colon
            | Tok::RParen
            | Tok::Caret(_)
            | Tok::Tilde(_) => {
                if self.o.simple {
                    return Ok(None);
                }
                return Err(perr("Cannot parse query string: unexpected operator"));
            }
        };
        let q = match self.peek() {
            Some(Tok::Caret(b)) => {
                let b = *b;
                self.pos += 1;
                boosted(q, b)
            }
            _ => q,
        };
        Ok(Some(q))
    }

    fn per_field(
        &self,
        fields: &[(String, f32)],
        mut f: impl FnMut(&Self, &str, f32) -> OsResult<Query>,
    ) -> OsResult<Query> {
        let fields = expand_fields(self.ctx, fields);
        let mut qs = Vec::new();
        for (name, b) in &fields {
            match f(self, name, *b) {
                Ok(q) if q != Query::MatchNone => qs.push(q),
                Ok(_) => {}
                Err(_) if self.o.lenient || fields.len() > 1 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(dis_max(qs, self.o.tie_breaker))
    }

    fn word(&self, field: &str, w: &str, fuzzy: Option<f32>, boost: f32) -> OsResult<Query> {
        let kind = self.ctx.mapping.field_type(field).map(|f| &f.kind);
        if let Some(rest) = w
            .strip_prefix(">=")
            .or_else(|| w.strip_prefix("<="))
            .or_else(|| w.strip_prefix('>'))
            .or_else(|| w.strip_prefix('<'))
        {
            if !rest.is_empty() {
                let op = if w.starts_with(">=") {
                    "gte"
                } else if w.starts_with("<=") {
                    "lte"
                } else if w.starts_with('>') {
                    "gt"
                } else {
                    "lt"
                };
                return dsl_term::parse("range", &json!({ field: { op: rest, "boost": boost } }), self.ctx);
            }
        }
        if w == "*" {
            return dsl_term::exists(self.ctx, field, boost);
        }
        let is_text = matches!(kind, Some(FieldKind::Text(_)));
        if w.contains('*') || w.contains('?') {
            if !matches!(kind, Some(FieldKind::Text(_) | FieldKind::Keyword(_))) {
                return Ok(Query::MatchNone);
            }
            let pat = if is_text { w.to_lowercase() } else { w.to_string() };
            if let Some(p) = pat.strip_suffix('*').filter(|p| !p.contains('*') && !p.contains('?')) {
                return Ok(Query::Prefix { field: field.into(), prefix: p.as_bytes().to_vec(), boost });
            }
            return Ok(Query::Wildcard { field: field.into(), pattern: pat, boost });
        }
        let mo = MatchOptions {
            analyzer: self.o.analyzer.clone(),
            lenient: self.o.lenient,
            fuzziness: fuzzy.map(|n| format!("{}", (n as u32).min(2))),
            and: false,
            boost,
            ..MatchOptions::default()
        };
        match_field(self.ctx, field, &Value::String(w.to_string()), MatchKind::Bool, &mo)
    }
}

/// Parses a query string into a query.
pub fn parse_query_string(s: &str, ctx: &QueryContext<'_>, o: &QsOptions) -> OsResult<Query> {
    let toks = match lex(s, o.simple) {
        Ok(t) => t,
        Err(e) if o.simple => {
            let _ = e;
            vec![Tok::Word(s.to_string())]
        }
        Err(e) => return Err(e.with("query", s)),
    };
    let mut p = Parser { toks, pos: 0, ctx, o, depth: 0 };
    p.depth = 0;
    let fields = o.fields.clone();
    let mut q = p.query(&fields)?;
    let mut guard = 0;
    while p.pos < p.toks.len() && guard < MAX_CLAUSES {
        // A stray `)`: skip it and keep reading (Lucene reports an error; be strict unless simple).
        if !o.simple {
            return Err(perr(format!("Failed to parse query [{s}]")));
        }
        p.pos += 1;
        let more = p.query(&fields)?;
        q = Query::or(vec![q, more]);
        guard += 1;
    }
    Ok(q)
}
