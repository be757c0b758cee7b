//! The `_analyze` API without HTTP: parses the request body, picks the analyzer as OpenSearch's
//! `TransportAnalyzeAction` does, and returns the response body.
//!
//! Resolution: a `tokenizer` (with `filter`/`char_filter`) builds a transient analyzer; `filter`
//! or `char_filter` alone build a transient normalizer (keyword tokenizer, normalizing filters
//! only); else `analyzer` (the index's, or a global one without index), `normalizer` (needs the
//! index), the `field`'s analyzer (needs the index; an unmapped field falls back), the index's
//! `default`, or `standard`.
//!
//! A text array is analyzed as a multi-valued field: each value continues at the last position
//! plus the end increment plus the analyzer's position increment gap (100 for index analyzers,
//! 0 for global built-ins and transient analyzers, as in OpenSearch), offsets at the previous
//! end plus the offset gap (1).

use crate::error::ErrorKind;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::builtin_analyzers::builtin_analyzer;
use super::chain::{ChainTrace, CustomAnalyzer, Named, TokenFilter};
use super::components::{self, Limits};
use super::error::AnalysisError;
use super::index_analysis::{builtin_char_filter, builtin_filter, builtin_tokenizer, chain_aware, IndexAnalysis};
use super::offsets::{utf16_len, Utf16Offsets};
use super::params::Params;
use super::token_stream::TokenState;
use super::{Analyzer, Token};

/// How a mapped field is analyzed, as the mapping says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldAnalysis {
    /// A text field: the name of its index analyzer and its `position_increment_gap` (None: the
    /// analyzer's).
    Text {
        /// The index analyzer's name.
        analyzer: String,
        /// The mapping's `position_increment_gap`, which replaces the analyzer's.
        position_increment_gap: Option<u32>,
    },
    /// A keyword field and its normalizer, if any.
    Keyword {
        /// The `normalizer` of the mapping.
        normalizer: Option<String>,
    },
    /// Any other field type: not analyzable.
    NotTokenized,
}

struct Request<'a> {
    texts: Vec<&'a str>,
    analyzer: Option<&'a str>,
    normalizer: Option<&'a str>,
    field: Option<&'a str>,
    tokenizer: Option<&'a Value>,
    filters: Vec<&'a Value>,
    char_filters: Vec<&'a Value>,
    explain: bool,
    attributes: Vec<String>,
}

fn parse_request(body: &Value) -> Result<Request<'_>, AnalysisError> {
    let obj = Params::new(body);
    let text_of = |v: &'static str| -> Result<Option<&str>, AnalysisError> {
        match obj.get(v) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(AnalysisError {
                kind: ErrorKind::XContentParse,
                reason: format!("[analyze_request] {v} must be a string"),
            }),
        }
    };
    let texts = match obj.get("text") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str().ok_or_else(|| AnalysisError {
                    kind: ErrorKind::XContentParse,
                    reason: "[analyze_request] text doesn't support values of this type".to_owned(),
                })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(AnalysisError {
                kind: ErrorKind::XContentParse,
                reason: "[analyze_request] text doesn't support values of type: VALUE_NUMBER".to_owned(),
            })
        }
    };
    let list = |key: &str| -> Vec<&Value> {
        match obj.get(key) {
            Some(Value::Array(items)) => items.iter().collect(),
            Some(Value::Null) | None => Vec::new(),
            Some(single) => vec![single],
        }
    };
    let mut filters = list("filter");
    filters.extend(list("token_filter"));
    let explain = Params::new(body).bool("explain", false)?;
    Ok(Request {
        texts,
        analyzer: text_of("analyzer")?,
        normalizer: text_of("normalizer")?,
        field: text_of("field")?,
        tokenizer: obj.get("tokenizer").filter(|v| !v.is_null()),
        filters,
        char_filters: list("char_filter"),
        explain,
        attributes: list("attributes").iter().filter_map(|v| v.as_str()).map(str::to_lowercase).collect(),
    })
}

fn validate(request: &Request<'_>, has_index: bool) -> Result<(), AnalysisError> {
    let mut errors: Vec<&str> = Vec::new();
    if request.texts.is_empty() {
        errors.push("text is missing");
    }
    if !has_index && request.normalizer.is_some() {
        errors.push("index is required if normalizer is specified");
    }
    if request.normalizer.is_some() && (request.tokenizer.is_some() || request.analyzer.is_some()) {
        errors.push("tokenizer/analyze should be null if normalizer is specified");
    }
    let extra = request.tokenizer.is_some() || !request.filters.is_empty() || !request.char_filters.is_empty();
    if request.analyzer.is_some() && extra {
        errors.push("cannot define extra components on a named analyzer");
    }
    if request.normalizer.is_some() && extra {
        errors.push("cannot define extra components on a named normalizer");
    }
    if request.field.is_some() && extra {
        errors.push("cannot define extra components on a field-specific analyzer");
    }
    if errors.is_empty() {
        return Ok(());
    }
    let listed: String = errors.iter().enumerate().map(|(i, e)| format!("{}: {e};", i + 1)).collect();
    Err(AnalysisError { kind: ErrorKind::ActionRequestValidation, reason: format!("Validation Failed: {listed}") })
}

/// A name or an inline definition, resolved like `AnalysisRegistry.getComponentFactory`.
fn component<T: ?Sized>(
    spec: &Value,
    what: &str,
    index: Option<&IndexAnalysis>,
    by_type: impl Fn(&str, Params<'_>) -> Result<Option<Arc<T>>, AnalysisError>,
    by_name: impl Fn(&str) -> Result<Option<Named<T>>, AnalysisError>,
) -> Result<Named<T>, AnalysisError> {
    match spec {
        Value::String(name) => match by_name(name)? {
            Some(found) => Ok(found),
            None if index.is_some() => {
                Err(AnalysisError::illegal_argument(format!("failed to find {what} under [{name}]")))
            }
            None => Err(AnalysisError::illegal_argument(format!("failed to find global {what} under [{name}]"))),
        },
        Value::Object(definition) => {
            let Some(kind) = definition.get("type").and_then(Value::as_str) else {
                return Err(AnalysisError::illegal_argument(format!(
                    "Missing [type] setting for anonymous {what}: {spec}"
                )));
            };
            match by_type(kind, Params::new(spec))? {
                Some(built) => Ok(Named::new(format!("__anonymous__{kind}"), built)),
                None => Err(AnalysisError::illegal_argument(format!("failed to find global {what} under [{kind}]"))),
            }
        }
        other => Err(AnalysisError::illegal_argument(format!("failed to find global {what} under [{other}]"))),
    }
}

fn transient_analyzer(
    request: &Request<'_>,
    index: Option<&IndexAnalysis>,
) -> Result<Option<CustomAnalyzer>, AnalysisError> {
    let limits = index.map_or_else(Limits::default, IndexAnalysis::limits);
    let normalizer = request.tokenizer.is_none();
    if normalizer && request.filters.is_empty() && request.char_filters.is_empty() {
        return Ok(None);
    }
    let keyword = Value::String("keyword".to_owned());
    let tokenizer = component(
        request.tokenizer.unwrap_or(&keyword),
        "tokenizer",
        index,
        |kind, params| components::tokenizer(kind, params, limits),
        |name| index.map_or_else(|| builtin_tokenizer(name, limits), |i| i.tokenizer(name)),
    )?;
    let mut char_filters = Vec::new();
    for spec in &request.char_filters {
        char_filters.push(component(spec, "char_filter", index, components::char_filter, |name| {
            index.map_or_else(|| builtin_char_filter(name), |i| i.char_filter(name))
        })?);
    }
    let mut filters: Vec<Named<dyn TokenFilter>> = Vec::new();
    for spec in &request.filters {
        let mut filter = component(
            spec,
            "filter",
            index,
            |kind, params| components::token_filter(kind, params, limits),
            |name| index.map_or_else(|| builtin_filter(name, limits), |i| i.filter(name)),
        )?;
        let lookup = |name: &str| match index {
            Some(i) => i.resolved_filter(name, 1),
            None => Ok(builtin_filter(name, limits)?.map(|f| f.component)),
        };
        if let Some(resolved) = filter.component.resolve(&filter.name, &lookup)? {
            filter.component = resolved;
        }
        if normalizer && !filter.component.normalizing() {
            return Err(AnalysisError::illegal_argument(format!(
                "Custom normalizer may not use filter [{}]",
                filter.name
            )));
        }
        filters.push(filter);
    }
    let mut analyzer = chain_aware(CustomAnalyzer::new(char_filters, tokenizer, filters))?;
    analyzer.position_increment_gap = 0;
    Ok(Some(analyzer))
}

/// The named analyzer of a request without tokenizer or filters, and the name `explain` shows.
fn named_analyzer(
    request: &Request<'_>,
    index: Option<&IndexAnalysis>,
    field_analysis: &dyn Fn(&str) -> Option<FieldAnalysis>,
) -> Result<(Arc<dyn Analyzer>, String), AnalysisError> {
    if let Some(name) = request.analyzer {
        return match index {
            None => builtin_analyzer(name, 0)
                .map(|a| (a, name.to_owned()))
                .ok_or_else(|| AnalysisError::illegal_argument(format!("failed to find global analyzer [{name}]"))),
            Some(index) => index
                .analyzer(name)
                .map(|a| (a, name.to_owned()))
                .ok_or_else(|| AnalysisError::illegal_argument(format!("failed to find analyzer [{name}]"))),
        };
    }
    if let Some(name) = request.normalizer {
        let Some(index) = index else {
            return Err(AnalysisError::illegal_argument("analysis based on a normalizer requires an index"));
        };
        return index
            .normalizer(name)
            .map(|a| (a, name.to_owned()))
            .ok_or_else(|| AnalysisError::illegal_argument(format!("failed to find normalizer under [{name}]")));
    }
    if let Some(field) = request.field {
        let Some(index) = index else {
            return Err(AnalysisError::illegal_argument("analysis based on a specific field requires an index"));
        };
        match field_analysis(field) {
            Some(FieldAnalysis::Text { analyzer: name, position_increment_gap }) => {
                if let Some(found) = index.analyzer(&name) {
                    return Ok(match position_increment_gap {
                        Some(gap) => (Arc::new(WithGap { analyzer: found, gap }), name),
                        None => (found, name),
                    });
                }
                return Err(AnalysisError::illegal_argument(format!("failed to find analyzer [{name}]")));
            }
            Some(FieldAnalysis::Keyword { normalizer: Some(name) }) => {
                if let Some(found) = index.normalizer(&name) {
                    return Ok((found, name));
                }
                return Err(AnalysisError::illegal_argument(format!("failed to find normalizer under [{name}]")));
            }
            Some(FieldAnalysis::Keyword { normalizer: None }) => {
                if let Some(found) = index.analyzer("keyword") {
                    return Ok((found, "keyword".to_owned()));
                }
            }
            Some(FieldAnalysis::NotTokenized) => {
                return Err(AnalysisError::illegal_argument(format!(
                    "Can't process field [{field}], Analysis requests are only supported on tokenized fields"
                )));
            }
            None => {}
        }
    }
    match index {
        Some(index) => index
            .analyzer("default")
            .map(|a| (a, "default".to_owned()))
            .ok_or_else(|| AnalysisError::illegal_argument("no default analyzer configured")),
        None => builtin_analyzer("standard", 0)
            .map(|a| (a, "standard".to_owned()))
            .ok_or_else(|| AnalysisError::illegal_argument("failed to find global analyzer [standard]")),
    }
}

/// An analyzer with a field's `position_increment_gap` (OpenSearch wraps the field's analyzer
/// in a `NamedAnalyzer` with the mapping's gap).
#[derive(Debug)]
struct WithGap {
    analyzer: Arc<dyn Analyzer>,
    gap: u32,
}

impl Analyzer for WithGap {
    fn analyze(&self, text: &str, first_position: u32, sink: &mut dyn FnMut(&Token<'_>)) -> super::AnalyzeEnd {
        self.analyzer.analyze(text, first_position, sink)
    }
    fn position_increment_gap(&self) -> u32 {
        self.gap
    }
    fn as_chain(&self) -> Option<&CustomAnalyzer> {
        self.analyzer.as_chain()
    }
}

/// Runs `_analyze`: `request` is the body, `index` the target index's analysis (None for
/// `/_analyze`), `field_analysis` the mapping of a field, `max_token_count` the index's
/// `index.analyze.max_token_count` (10000 by default). Returns the response body.
pub fn analyze(
    request: &Value,
    index: Option<&IndexAnalysis>,
    field_analysis: &dyn Fn(&str) -> Option<FieldAnalysis>,
    max_token_count: usize,
) -> Result<Value, AnalysisError> {
    let request_parsed = parse_request(request)?;
    let request = &request_parsed;
    validate(request, index.is_some())?;
    let (analyzer, name): (Arc<dyn Analyzer>, String) = match transient_analyzer(request, index)? {
        Some(custom) => (Arc::new(custom), "__custom__".to_owned()),
        None => named_analyzer(request, index, field_analysis)?,
    };
    let gap = analyzer.position_increment_gap();
    let offset_gap = analyzer.as_chain().map_or(1, |c| c.offset_gap);
    if !request.explain {
        let mut list = TokenList::new(max_token_count, None);
        for text in &request.texts {
            let (states, positions, end) = collect_tokens(analyzer.as_ref(), text);
            list.add_positioned(text, &states, &positions, end.next_position, gap, offset_gap, false)?;
        }
        return Ok(json!({ "tokens": list.tokens }));
    }
    let chain = analyzer.as_chain().filter(|c| c.builtin.is_none());
    let Some(chain) = chain else {
        let mut list = TokenList::new(max_token_count, Some(&request.attributes));
        let keyword = analyzer.as_chain().is_some_and(|c| c.uses_keyword_attribute(c.filters.len()));
        for text in &request.texts {
            if let Some(builtin_chain) = analyzer.as_chain() {
                let (tokens, end_increment) = builtin_chain.run(text, None);
                list.add(text, &tokens, end_increment, gap, offset_gap, keyword)?;
                continue;
            }
            let (states, positions, end) = collect_tokens(analyzer.as_ref(), text);
            list.add_positioned(text, &states, &positions, end.next_position, gap, offset_gap, keyword)?;
        }
        return Ok(
            json!({ "detail": { "custom_analyzer": false, "analyzer": { "name": name, "tokens": list.tokens } } }),
        );
    };
    let stages = chain.filters.len() + 1;
    let mut lists: Vec<TokenList> =
        (0..stages).map(|_| TokenList::new(max_token_count, Some(&request.attributes))).collect();
    let mut filtered: Vec<Vec<String>> = vec![Vec::new(); chain.char_filters.len()];
    for text in &request.texts {
        let mut trace = ChainTrace::default();
        chain.run(text, Some(&mut trace));
        for (i, filtered_text) in trace.filtered_texts.into_iter().enumerate() {
            if let Some(slot) = filtered.get_mut(i) {
                slot.push(filtered_text);
            }
        }
        for (stage, (tokens, end_increment)) in trace.stages.iter().enumerate() {
            let keyword = chain.uses_keyword_attribute(stage);
            if let Some(list) = lists.get_mut(stage) {
                list.add(text, tokens, *end_increment, gap, offset_gap, keyword)?;
            }
        }
    }
    let mut lists = lists.into_iter();
    let tokenizer_tokens = lists.next().map(|l| l.tokens).unwrap_or_default();
    let charfilters: Vec<Value> = chain
        .char_filters
        .iter()
        .zip(filtered)
        .map(|(c, texts)| json!({ "name": c.name, "filtered_text": texts }))
        .collect();
    let tokenfilters: Vec<Value> =
        chain.filters.iter().zip(lists).map(|(f, l)| json!({ "name": f.name, "tokens": l.tokens })).collect();
    Ok(json!({
        "detail": {
            "custom_analyzer": true,
            "charfilters": charfilters,
            "tokenizer": { "name": chain.tokenizer.name, "tokens": tokenizer_tokens },
            "tokenfilters": tokenfilters,
        }
    }))
}

/// Runs `analyzer` over `text` from position 0: tokens, their positions, where it ended.
fn collect_tokens(analyzer: &dyn Analyzer, text: &str) -> (Vec<TokenState>, Vec<u32>, super::AnalyzeEnd) {
    let mut states = Vec::new();
    let mut positions = Vec::new();
    let end = analyzer.analyze(text, 0, &mut |t: &Token<'_>| {
        let mut state = TokenState::new(t.term, t.start, t.end, t.token_type);
        state.position_length = t.position_length;
        states.push(state);
        positions.push(t.position);
    });
    (states, positions, end)
}

/// Tokens of one list of the response, continuing positions and offsets across text values and
/// counting against `index.analyze.max_token_count`.
struct TokenList<'r> {
    tokens: Vec<Value>,
    last_position: i64,
    last_offset: usize,
    max_token_count: usize,
    /// Some for `explain` (with the requested attribute names, empty for all).
    attributes: Option<&'r [String]>,
}

impl<'r> TokenList<'r> {
    fn new(max_token_count: usize, attributes: Option<&'r Vec<String>>) -> Self {
        TokenList {
            tokens: Vec::new(),
            last_position: -1,
            last_offset: 0,
            max_token_count,
            attributes: attributes.map(Vec::as_slice),
        }
    }

    /// Adds the tokens of a chain stage (positions from increments).
    fn add(
        &mut self,
        text: &str,
        tokens: &[TokenState],
        end_increment: u32,
        gap: u32,
        offset_gap: u32,
        keyword: bool,
    ) -> Result<(), AnalysisError> {
        let mut position = self.last_position;
        let mut positions = Vec::with_capacity(tokens.len());
        for token in tokens {
            position += i64::from(token.position_increment);
            positions.push(position);
        }
        self.push(text, tokens, &positions, keyword)?;
        self.last_position = position + i64::from(end_increment) + i64::from(gap);
        self.finish_value(text, offset_gap);
        Ok(())
    }

    /// Adds tokens an analyzer positioned from 0, `next_position` being where it ended.
    #[allow(clippy::too_many_arguments)]
    fn add_positioned(
        &mut self,
        text: &str,
        tokens: &[TokenState],
        positions: &[u32],
        next_position: u32,
        gap: u32,
        offset_gap: u32,
        keyword: bool,
    ) -> Result<(), AnalysisError> {
        let base = self.last_position + 1;
        let absolute: Vec<i64> = positions.iter().map(|p| base + i64::from(*p)).collect();
        self.push(text, tokens, &absolute, keyword)?;
        self.last_position = base + i64::from(next_position) - 1 + i64::from(gap);
        self.finish_value(text, offset_gap);
        Ok(())
    }

    fn finish_value(&mut self, text: &str, offset_gap: u32) {
        self.last_offset += utf16_len(text) + offset_gap as usize;
    }

    fn push(
        &mut self,
        text: &str,
        tokens: &[TokenState],
        positions: &[i64],
        keyword: bool,
    ) -> Result<(), AnalysisError> {
        let mut offsets = Utf16Offsets::new(text);
        for (token, position) in tokens.iter().zip(positions) {
            if self.tokens.len() >= self.max_token_count {
                return Err(AnalysisError::illegal_state(format!(
                    "The number of tokens produced by calling _analyze has exceeded the allowed maximum of [{}]. This limit can be set by changing the [index.analyze.max_token_count] index level setting.",
                    self.max_token_count
                )));
            }
            let start = self.last_offset + offsets.to_utf16(token.start);
            let end = self.last_offset + offsets.to_utf16(token.end);
            let mut object = Map::new();
            object.insert("token".into(), json!(token.term));
            object.insert("start_offset".into(), json!(start));
            object.insert("end_offset".into(), json!(end));
            object.insert("type".into(), json!(token.token_type));
            object.insert("position".into(), json!(position));
            if token.position_length > 1 {
                object.insert("positionLength".into(), json!(token.position_length));
            }
            if let Some(wanted) = self.attributes {
                let bytes: Vec<String> = token.term.bytes().map(|b| format!("{b:x}")).collect();
                let mut attributes = vec![
                    ("bytes", json!(format!("[{}]", bytes.join(" ")))),
                    ("positionLength", json!(token.position_length.max(1))),
                    ("termFrequency", json!(token.term_frequency.max(1))),
                ];
                if keyword {
                    attributes.push(("keyword", json!(token.keyword)));
                }
                for (key, value) in attributes {
                    if wanted.is_empty() || wanted.iter().any(|w| w == &key.to_lowercase()) {
                        object.insert(key.into(), value);
                    }
                }
            }
            self.tokens.push(Value::Object(object));
        }
        Ok(())
    }
}
