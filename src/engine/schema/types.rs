//! Field types and their parameters: parsing one field definition of a mapping and printing it
//! back as `GET _mapping` does (parameters left at their defaults are omitted).
//!
//! Parameters are kept as configured (`Option`: `None` = not given) so that printing omits what
//! the user did not set; the `effective_*` accessors apply OpenSearch's defaults.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::MappingError;
use super::{date, geo};

/// The numeric field types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberType {
    Long,
    Integer,
    Short,
    Byte,
    Double,
    Float,
    HalfFloat,
    UnsignedLong,
}

impl NumberType {
    /// The mapping type name.
    pub fn name(self) -> &'static str {
        match self {
            NumberType::Long => "long",
            NumberType::Integer => "integer",
            NumberType::Short => "short",
            NumberType::Byte => "byte",
            NumberType::Double => "double",
            NumberType::Float => "float",
            NumberType::HalfFloat => "half_float",
            NumberType::UnsignedLong => "unsigned_long",
        }
    }
}

/// `index_options` of a text field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TextIndexOptions {
    Docs,
    Freqs,
    Positions,
    Offsets,
}

impl TextIndexOptions {
    fn parse(s: &str) -> Option<TextIndexOptions> {
        Some(match s {
            "docs" => TextIndexOptions::Docs,
            "freqs" => TextIndexOptions::Freqs,
            "positions" => TextIndexOptions::Positions,
            "offsets" => TextIndexOptions::Offsets,
            _ => return None,
        })
    }
    /// The mapping value.
    pub fn name(self) -> &'static str {
        match self {
            TextIndexOptions::Docs => "docs",
            TextIndexOptions::Freqs => "freqs",
            TextIndexOptions::Positions => "positions",
            TextIndexOptions::Offsets => "offsets",
        }
    }
}

/// Parameters of a `text` field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextParams {
    /// Default: the index default analyzer (`"default"`).
    pub analyzer: Option<String>,
    /// Default: `analyzer`.
    pub search_analyzer: Option<String>,
    /// Default: `positions`.
    pub index_options: Option<TextIndexOptions>,
    /// Default: true.
    pub norms: Option<bool>,
    /// Default: 100.
    pub position_increment_gap: Option<u32>,
    /// `match_only_text`: indexed docs-only without norms (constant-ish BM25 with freq 1);
    /// phrases are checked against the re-analyzed `_source`. `index_options` and `norms` stay
    /// `None` (only `docs` and `false` are accepted).
    pub match_only: bool,
}

/// Parameters of a `keyword` field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeywordParams {
    /// Strings longer than this (in UTF-16 code units, as Java counts) are not indexed.
    /// Default: 2147483647.
    pub ignore_above: Option<u32>,
    /// Name of a normalizer from the index's analysis settings. Default: none.
    pub normalizer: Option<String>,
    /// The `wildcard` type rather than `keyword`: indexed the same way (one term per value, the
    /// whole normalized value, and sorted-set doc values), but its queries are OpenSearch's
    /// `WildcardFieldType`'s (constant score, no fuzzy or range; see `dsl_wildcard.rs`), it
    /// takes fewer parameters and always prints `doc_values`.
    pub wildcard: bool,
}

/// What a field holds.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// `constant_keyword`: every document has one of a few values fixed by the mapping (see
    /// `constant.rs`).
    ConstantKeyword(super::constant::ConstantKeywordParams),
    /// `flat_object`: a JSON object indexed as keyword values (see `flat_object.rs`).
    FlatObject(super::flat_object::FlatObjectParams),
    /// `alias`: another name for the field at `path` (see `alias.rs`).
    Alias {
        path: String,
    },
    Text(TextParams),
    Keyword(KeywordParams),
    Number(NumberType),
    /// Stored as `round(value * scaling_factor)` in a long.
    ScaledFloat {
        scaling_factor: f64,
    },
    /// `date` (millis) or `date_nanos` (nanos). `format` default: [`date::DEFAULT_FORMAT`].
    Date {
        nanos: bool,
        format: Option<String>,
    },
    Boolean,
    Ip,
    Binary,
    /// A latitude/longitude point (see `geo.rs`). `ignore_z_value` default: true.
    GeoPoint {
        ignore_z_value: Option<bool>,
    },
    /// The number of tokens `analyzer` makes of a string, indexed as an integer. `analyzer` is
    /// required; `enable_position_increments` default true (the count is then the position after
    /// the last token, so removed stopwords count).
    TokenCount {
        analyzer: String,
        enable_position_increments: Option<bool>,
    },
    /// `integer_range`, ..., `ip_range` (see `range.rs`); `format`: `date_range` only.
    Range {
        kind: super::range::RangeType,
        format: Option<String>,
    },
}

/// A leaf field of a mapping: its kind, common parameters and multi-fields.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldType {
    pub kind: FieldKind,
    /// Default: true.
    pub index: Option<bool>,
    /// Default: true, except text (no doc values) and binary (false).
    pub doc_values: Option<bool>,
    /// Default: false.
    pub store: Option<bool>,
    /// The value indexed for a JSON `null`. Default: none (null is not indexed).
    pub null_value: Option<Value>,
    /// Numbers: accept strings and truncate fractions. Default: true.
    pub coerce: Option<bool>,
    /// Numbers, dates, ip: drop malformed values instead of rejecting the document. Default: false.
    pub ignore_malformed: Option<bool>,
    /// Multi-fields (`fields`): the same value indexed again as `name.sub`.
    pub fields: BTreeMap<String, FieldType>,
    /// `copy_to`: full paths of fields that also receive this field's values.
    pub copy_to: Vec<String>,
    /// Parameters OpenSearch accepts that Fathom keeps (and prints back) but does not act on
    /// (`boost`, `meta`, `similarity`, `eager_global_ordinals`, `locale`, ...; see [`EXTRA_PARAMS`]).
    pub extra: BTreeMap<String, Value>,
}

/// Accepted-but-not-interpreted parameters per type (besides those common to all: `boost`, `meta`).
pub const EXTRA_PARAMS: [(&str, &[&str]); 6] = [
    (
        "text",
        &[
            "search_quote_analyzer",
            "fielddata",
            "fielddata_frequency_filter",
            "eager_global_ordinals",
            "index_prefixes",
            "index_phrases",
            "term_vector",
            "similarity",
        ],
    ),
    (
        "match_only_text",
        &[
            "search_quote_analyzer",
            "fielddata",
            "fielddata_frequency_filter",
            "eager_global_ordinals",
            "term_vector",
            "similarity",
        ],
    ),
    (
        "keyword",
        &[
            "eager_global_ordinals",
            "split_queries_on_whitespace",
            "index_options",
            "norms",
            "similarity",
            "use_similarity",
        ],
    ),
    ("date", &["locale", "print_format"]),
    ("flat_object", &["similarity"]),
    ("date_nanos", &["locale", "print_format"]),
];

impl FieldType {
    /// A field of `kind` with every parameter at its default.
    pub fn new(kind: FieldKind) -> FieldType {
        FieldType {
            kind,
            index: None,
            doc_values: None,
            store: None,
            null_value: None,
            coerce: None,
            ignore_malformed: None,
            fields: BTreeMap::new(),
            copy_to: Vec::new(),
            extra: BTreeMap::new(),
        }
    }

    /// The mapping type name (`text`, `long`, `date_nanos`, ...).
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            FieldKind::Text(p) if p.match_only => "match_only_text",
            FieldKind::Text(_) => "text",
            FieldKind::Keyword(KeywordParams { wildcard: true, .. }) => "wildcard",
            FieldKind::Keyword(_) => "keyword",
            FieldKind::Number(n) => n.name(),
            FieldKind::ScaledFloat { .. } => "scaled_float",
            FieldKind::Date { nanos: false, .. } => "date",
            FieldKind::Date { nanos: true, .. } => "date_nanos",
            FieldKind::Boolean => "boolean",
            FieldKind::Ip => "ip",
            FieldKind::Binary => "binary",
            FieldKind::GeoPoint { .. } => "geo_point",
            FieldKind::ConstantKeyword(_) => "constant_keyword",
            FieldKind::Alias { .. } => "alias",
            FieldKind::FlatObject(_) => "flat_object",
            FieldKind::Range { kind, .. } => kind.type_name(),
            FieldKind::TokenCount { .. } => "token_count",
        }
    }

    /// Whether values go into the inverted/points index (binary never does).
    pub fn effective_index(&self) -> bool {
        !matches!(self.kind, FieldKind::Binary) && self.index.unwrap_or(true)
    }
    /// Whether values go into doc values.
    pub fn effective_doc_values(&self) -> bool {
        match self.kind {
            FieldKind::Text(_) => false,
            FieldKind::Binary => self.doc_values.unwrap_or(false),
            _ => self.doc_values.unwrap_or(true),
        }
    }
    /// `coerce`, default true.
    pub fn effective_coerce(&self) -> bool {
        self.coerce.unwrap_or(true)
    }
    /// `ignore_malformed`, default false.
    pub fn effective_ignore_malformed(&self) -> bool {
        self.ignore_malformed.unwrap_or(false)
    }
    /// The date format (dates only; others get the default).
    pub fn date_format(&self) -> &str {
        match &self.kind {
            FieldKind::Date { format: Some(f), .. } => f,
            FieldKind::Date { nanos: true, .. } => date::DEFAULT_NANOS_FORMAT,
            _ => date::DEFAULT_FORMAT,
        }
    }

    /// Parses the definition of field `name` (its simple name; used in messages).
    pub fn from_json(name: &str, def: &Map<String, Value>) -> Result<FieldType, MappingError> {
        let type_name = match def.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(other) => return Err(MappingError::parsing(format!("No type specified for field [{name}]: {other}"))),
            None => return Err(MappingError::parsing(format!("No type specified for field [{name}]"))),
        };
        let kind = match type_name {
            "text" => FieldKind::Text(TextParams::default()),
            "match_only_text" => FieldKind::Text(TextParams { match_only: true, ..TextParams::default() }),
            "keyword" => FieldKind::Keyword(KeywordParams::default()),
            "wildcard" => FieldKind::Keyword(KeywordParams { wildcard: true, ..KeywordParams::default() }),
            "long" => FieldKind::Number(NumberType::Long),
            "integer" => FieldKind::Number(NumberType::Integer),
            "short" => FieldKind::Number(NumberType::Short),
            "byte" => FieldKind::Number(NumberType::Byte),
            "double" => FieldKind::Number(NumberType::Double),
            "float" => FieldKind::Number(NumberType::Float),
            "half_float" => FieldKind::Number(NumberType::HalfFloat),
            "unsigned_long" => FieldKind::Number(NumberType::UnsignedLong),
            "scaled_float" => FieldKind::ScaledFloat { scaling_factor: f64::NAN },
            "date" => FieldKind::Date { nanos: false, format: None },
            "date_nanos" => FieldKind::Date { nanos: true, format: None },
            "boolean" => FieldKind::Boolean,
            "ip" => FieldKind::Ip,
            "binary" => FieldKind::Binary,
            "geo_point" => FieldKind::GeoPoint { ignore_z_value: None },
            "constant_keyword" => FieldKind::ConstantKeyword(Default::default()),
            "alias" => FieldKind::Alias { path: String::new() },
            "flat_object" => FieldKind::FlatObject(Default::default()),
            "token_count" => FieldKind::TokenCount { analyzer: String::new(), enable_position_increments: None },
            "integer_range" | "long_range" | "float_range" | "double_range" | "date_range" | "ip_range" => {
                FieldKind::Range {
                    kind: super::range::RangeType::from_type_name(type_name).unwrap_or(super::range::RangeType::Long),
                    format: None,
                }
            }
            other => {
                return Err(MappingError::parsing(format!("No handler for type [{other}] declared on field [{name}]")))
            }
        };
        let mut ft = FieldType::new(kind);
        let mut scaling_factor_seen = false;
        for (key, v) in def {
            if key == "type" {
                continue;
            }
            let extra = ["boost", "meta"].contains(&key.as_str())
                || EXTRA_PARAMS.iter().any(|(t, ps)| *t == type_name && ps.contains(&key.as_str()));
            if extra {
                ft.extra.insert(key.clone(), v.clone());
                continue;
            }
            let takes_copy_to = !matches!(
                ft.kind,
                FieldKind::Binary | FieldKind::FlatObject(_) | FieldKind::Alias { .. } | FieldKind::ConstantKeyword(_)
            );
            if key == "copy_to" && takes_copy_to {
                ft.copy_to = match v {
                    Value::String(s) => vec![s.clone()],
                    Value::Array(a) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
                    other => {
                        return Err(MappingError::parsing(format!(
                            "Expected a string or an array for [copy_to] on field [{name}]: {other}"
                        )))
                    }
                };
                continue;
            }
            if !param_allowed(&ft.kind, key) {
                return Err(MappingError::parsing(format!(
                    "unknown parameter [{key}] on mapper [{name}] of type [{type_name}]"
                )));
            }
            match key.as_str() {
                "index" => ft.index = Some(bool_param(name, key, v)?),
                "doc_values" => ft.doc_values = Some(bool_param(name, key, v)?),
                "store" => ft.store = Some(bool_param(name, key, v)?),
                "coerce" => ft.coerce = Some(bool_param(name, key, v)?),
                "ignore_malformed" => ft.ignore_malformed = Some(bool_param(name, key, v)?),
                "null_value" => ft.null_value = if v.is_null() { None } else { Some(v.clone()) },
                "fields" => ft.fields = parse_multi_fields(name, v)?,
                "scaling_factor" => {
                    let f = v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())).ok_or_else(|| {
                        MappingError::parsing(format!("Failed to parse [scaling_factor] of field [{name}]: {v}"))
                    })?;
                    if !f.is_finite() || f <= 0.0 {
                        return Err(MappingError::illegal(format!(
                            "[scaling_factor] must be a positive number, got [{f}]"
                        )));
                    }
                    ft.kind = FieldKind::ScaledFloat { scaling_factor: f };
                    scaling_factor_seen = true;
                }
                "format" => {
                    let f = str_param(name, key, v)?;
                    date::validate_format(&f).map_err(MappingError::illegal)?;
                    match &mut ft.kind {
                        FieldKind::Date { format, .. } | FieldKind::Range { format, .. } => *format = Some(f),
                        _ => {}
                    }
                }
                _ => parse_kind_param(&mut ft.kind, name, key, v)?,
            }
        }
        if let (FieldKind::GeoPoint { ignore_z_value }, Some(nv)) = (&ft.kind, &ft.null_value) {
            // Stored as OpenSearch prints it back: the parsed (and normalized) point.
            let p = geo::parse_null_value(nv, ignore_z_value.unwrap_or(true), ft.effective_ignore_malformed())?;
            ft.null_value = Some(p.to_json());
        }
        if let FieldKind::ConstantKeyword(c) = &ft.kind {
            c.validate(name)?;
        }
        if matches!(&ft.kind, FieldKind::Alias { path } if path.is_empty()) {
            return Err(MappingError::parsing(format!("The [path] property must be specified for field [{name}].")));
        }
        if matches!(&ft.kind, FieldKind::TokenCount { analyzer, .. } if analyzer.is_empty()) {
            return Err(MappingError::parsing(format!("Analyzer must be set for field [{name}] but wasn't.")));
        }
        if matches!(ft.kind, FieldKind::ScaledFloat { .. }) && !scaling_factor_seen {
            return Err(MappingError::parsing(format!("Field [{name}] misses required parameter [scaling_factor]")));
        }
        Ok(ft)
    }

    /// The definition as `GET _mapping` prints it.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!(self.type_name()));
        match &self.kind {
            FieldKind::Text(p) => {
                put(&mut m, "analyzer", p.analyzer.as_ref().map(|a| json!(a)));
                put(&mut m, "search_analyzer", p.search_analyzer.as_ref().map(|a| json!(a)));
                put(
                    &mut m,
                    "index_options",
                    p.index_options.filter(|o| *o != TextIndexOptions::Positions).map(|o| json!(o.name())),
                );
                put(&mut m, "norms", p.norms.filter(|n| !n).map(Value::from));
                put(&mut m, "position_increment_gap", p.position_increment_gap.filter(|g| *g != 100).map(Value::from));
            }
            FieldKind::Keyword(p) => {
                put(&mut m, "ignore_above", p.ignore_above.filter(|i| *i != i32::MAX as u32).map(Value::from));
                put(&mut m, "normalizer", p.normalizer.as_ref().map(|n| json!(n)));
            }
            FieldKind::ScaledFloat { scaling_factor } => {
                m.insert("scaling_factor".into(), json!(scaling_factor));
            }
            FieldKind::Date { format, nanos } => {
                let default = if *nanos { date::DEFAULT_NANOS_FORMAT } else { date::DEFAULT_FORMAT };
                put(&mut m, "format", format.as_ref().filter(|f| *f != default).map(|f| json!(f)));
            }
            FieldKind::Range { format, .. } => {
                put(&mut m, "format", format.as_ref().map(|f| json!(f)));
            }
            FieldKind::TokenCount { analyzer, enable_position_increments } => {
                m.insert("analyzer".into(), json!(analyzer));
                put(&mut m, "enable_position_increments", enable_position_increments.map(Value::from));
            }
            FieldKind::ConstantKeyword(c) => c.to_json(&mut m),
            FieldKind::Alias { path } => {
                m.insert("path".into(), json!(path));
            }
            FieldKind::FlatObject(p) => p.to_json(&mut m),
            FieldKind::GeoPoint { ignore_z_value } => {
                // Geometry mappers print these whenever they were given, defaults included.
                put(&mut m, "ignore_malformed", self.ignore_malformed.map(Value::from));
                put(&mut m, "ignore_z_value", ignore_z_value.map(Value::from));
            }
            _ => {}
        }
        put(&mut m, "index", self.index.filter(|i| !i).map(Value::from));
        let dv_default = !matches!(self.kind, FieldKind::Binary);
        if matches!(self.kind, FieldKind::Keyword(KeywordParams { wildcard: true, .. })) {
            // WildcardFieldMapper serializes `doc_values` always.
            put(&mut m, "doc_values", Some(Value::from(self.effective_doc_values())));
        } else {
            put(&mut m, "doc_values", self.doc_values.filter(|d| *d != dv_default).map(Value::from));
        }
        put(&mut m, "store", self.store.filter(|s| *s).map(Value::from));
        put(&mut m, "coerce", self.coerce.filter(|c| !c).map(Value::from));
        put(&mut m, "ignore_malformed", self.ignore_malformed.filter(|i| *i).map(Value::from));
        put(&mut m, "null_value", self.null_value.clone());
        match self.copy_to.as_slice() {
            [] => {}
            [one] => put(&mut m, "copy_to", Some(json!(one))),
            many => put(&mut m, "copy_to", Some(json!(many))),
        }
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        if !self.fields.is_empty() {
            let subs: Map<String, Value> = self.fields.iter().map(|(k, f)| (k.clone(), f.to_json())).collect();
            m.insert("fields".into(), Value::Object(subs));
        }
        Value::Object(m)
    }
}

fn put(m: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(key.into(), v);
    }
}

/// Which parameters each type accepts (besides `type`).
fn param_allowed(kind: &FieldKind, key: &str) -> bool {
    let common = ["index", "doc_values", "store", "fields", "null_value"];
    match kind {
        FieldKind::Text(p) if p.match_only => [
            "analyzer",
            "search_analyzer",
            "index_options",
            "norms",
            "position_increment_gap",
            "index",
            "store",
            "fields",
            "index_phrases",
            "index_prefixes",
        ]
        .contains(&key),
        FieldKind::Text(_) => [
            "analyzer",
            "search_analyzer",
            "index_options",
            "norms",
            "position_increment_gap",
            "index",
            "store",
            "fields",
        ]
        .contains(&key),
        FieldKind::Keyword(KeywordParams { wildcard: true, .. }) => {
            ["doc_values", "fields", "null_value", "ignore_above", "normalizer"].contains(&key)
        }
        FieldKind::Keyword(_) => common.contains(&key) || ["ignore_above", "normalizer"].contains(&key),
        FieldKind::Number(_) => common.contains(&key) || ["coerce", "ignore_malformed"].contains(&key),
        FieldKind::ScaledFloat { .. } => {
            common.contains(&key) || ["coerce", "ignore_malformed", "scaling_factor"].contains(&key)
        }
        FieldKind::Date { .. } => common.contains(&key) || ["format", "ignore_malformed"].contains(&key),
        FieldKind::Boolean => common.contains(&key),
        FieldKind::Ip => common.contains(&key) || key == "ignore_malformed",
        FieldKind::Binary => ["doc_values", "store"].contains(&key),
        FieldKind::GeoPoint { .. } => common.contains(&key) || ["ignore_malformed", "ignore_z_value"].contains(&key),
        FieldKind::ConstantKeyword(_) => ["value", "values", "index", "doc_values"].contains(&key),
        FieldKind::Alias { .. } => key == "path",
        FieldKind::FlatObject(_) => ["index", "doc_values", "ignore_above", "depth_limit", "normalizer"].contains(&key),
        FieldKind::TokenCount { .. } => {
            ["index", "doc_values", "store", "analyzer", "enable_position_increments"].contains(&key)
        }
        FieldKind::Range { kind, .. } => {
            ["index", "doc_values", "store", "coerce"].contains(&key)
                || (key == "format" && *kind == super::range::RangeType::Date)
        }
    }
}

fn parse_kind_param(kind: &mut FieldKind, name: &str, key: &str, v: &Value) -> Result<(), MappingError> {
    match kind {
        FieldKind::Text(p) if p.match_only => match key {
            "index_options" => {
                let s = str_param(name, key, v)?;
                if s != "docs" {
                    return Err(MappingError::parsing(format!(
                        "Unknown value [{s}] for field [index_options] - accepted values are [docs]"
                    )));
                }
            }
            "norms" => {
                if bool_param(name, key, v)? {
                    return Err(MappingError::parsing("Norms cannot be enabled on for match_only_text field"));
                }
            }
            "index_phrases" => {
                if bool_param(name, key, v)? {
                    return Err(MappingError::parsing(
                        "Index phrases cannot be enabled on for match_only_text field. Use text field instead",
                    ));
                }
            }
            "index_prefixes" => {
                if !v.is_null() {
                    return Err(MappingError::parsing(
                        "Index prefixes cannot be enabled on for match_only_text field. Use text field instead",
                    ));
                }
            }
            _ => {
                let mut plain = FieldKind::Text(p.clone());
                if let FieldKind::Text(t) = &mut plain {
                    t.match_only = false;
                }
                parse_kind_param(&mut plain, name, key, v)?;
                if let FieldKind::Text(t) = plain {
                    *p = TextParams { match_only: true, ..t };
                }
            }
        },
        FieldKind::Text(p) => match key {
            "analyzer" => p.analyzer = Some(str_param(name, key, v)?),
            "search_analyzer" => p.search_analyzer = Some(str_param(name, key, v)?),
            "norms" => p.norms = Some(bool_param(name, key, v)?),
            "position_increment_gap" => {
                let g = int_param(name, key, v)?;
                p.position_increment_gap = Some(u32::try_from(g).map_err(|_| {
                    MappingError::parsing(format!("[position_increment_gap] for field [{name}] cannot be negative"))
                })?);
            }
            "index_options" => {
                let s = str_param(name, key, v)?;
                p.index_options = Some(TextIndexOptions::parse(&s).ok_or_else(|| {
                    MappingError::parsing(format!(
                        "Unknown value [{s}] for field [index_options] - accepted values are [docs, freqs, positions, offsets]"
                    ))
                })?);
            }
            _ => {}
        },
        FieldKind::Keyword(p) => match key {
            "ignore_above" => {
                let i = int_param(name, key, v)?;
                p.ignore_above = Some(
                    u32::try_from(i)
                        .map_err(|_| MappingError::illegal(format!("[ignore_above] must be positive, got [{i}]")))?,
                );
            }
            "normalizer" => p.normalizer = Some(str_param(name, key, v)?),
            _ => {}
        },
        FieldKind::GeoPoint { ignore_z_value } if key == "ignore_z_value" => {
            *ignore_z_value = Some(bool_param(name, key, v)?);
        }
        FieldKind::ConstantKeyword(c) => c.parse_param(name, key, v)?,
        FieldKind::FlatObject(p) => p.parse_param(name, key, v)?,
        FieldKind::Alias { path } if key == "path" => {
            *path = str_param(name, key, v)?;
        }
        FieldKind::TokenCount { analyzer, enable_position_increments } => match key {
            "analyzer" => *analyzer = str_param(name, key, v)?,
            "enable_position_increments" => *enable_position_increments = Some(bool_param(name, key, v)?),
            _ => {}
        },
        _ => {}
    }
    Ok(())
}

fn parse_multi_fields(name: &str, v: &Value) -> Result<BTreeMap<String, FieldType>, MappingError> {
    let Value::Object(subs) = v else {
        return Err(MappingError::parsing(format!(
            "Expected map for property [fields] on field [{name}] but got a {v}"
        )));
    };
    let mut out = BTreeMap::new();
    for (sub, def) in subs {
        let Value::Object(def) = def else {
            return Err(MappingError::parsing(format!(
                "Expected map for property [fields] on field [{sub}] but got a {def}"
            )));
        };
        if sub.is_empty() {
            return Err(MappingError::illegal("field name cannot be an empty string"));
        }
        if sub.contains('.') {
            return Err(MappingError::parsing(format!(
                "Field name [{sub}] which is a multi field of [{name}] cannot contain '.'"
            )));
        }
        out.insert(sub.clone(), FieldType::from_json(sub, def)?);
    }
    Ok(out)
}

/// A boolean parameter: `true`/`false` or the strings "true"/"false".
pub(crate) fn bool_param(name: &str, key: &str, v: &Value) -> Result<bool, MappingError> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        other => {
            let shown = match other {
                Value::String(s) => s.clone(),
                o => o.to_string(),
            };
            Err(MappingError::parsing(format!("Failed to parse mapping [{key}] of field [{name}]")).caused_by(
                MappingError::illegal(format!(
                    "Failed to parse value [{shown}] as only [true] or [false] are allowed."
                )),
            ))
        }
    }
}

pub(crate) fn str_param(name: &str, key: &str, v: &Value) -> Result<String, MappingError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(MappingError::parsing(format!(
            "Wrong value for parameter [{key}] of field [{name}]: expected a string, got {other}"
        ))),
    }
}

fn int_param(name: &str, key: &str, v: &Value) -> Result<i64, MappingError> {
    v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())).ok_or_else(|| {
        MappingError::parsing(format!(
            "Failed to parse mapping [{key}] of field [{name}]: expected an integer, got {v}"
        ))
    })
}
