//! schema/: "which fields does this JSON document have, and of which types".
//!
//! A [`Mapping`] is an index's root object mapper as OpenSearch 3.3 keeps it: field types with
//! their parameters, objects with `dynamic`/`enabled`, multi-fields, and the root settings
//! (`date_detection`, `numeric_detection`, `dynamic_date_formats`, `_source`, `_routing`).
//! [`Mapping::parse`] turns a document's `_source` into [`IndexableField`]s following the mapping
//! exactly as OpenSearch does (coercion, range checks, `null_value`, `ignore_above`,
//! `ignore_malformed`, dynamic mapping); new dynamic fields come back as a mapping update that the
//! caller merges with [`Mapping::merge`] (as OpenSearch's put-mapping does).
//!
//! Not for: analysis (text values carry their analyzer's name; keyword values carry the raw string
//! and the normalizer name is in the [`FieldType`]); storing `_source`.
//!
//! | file | holds |
//! |---|---|
//! | `types.rs` | field types and their parameters; parsing and printing one field definition |
//! | `mapping.rs` | the root/object mappers, `from_json`, `to_json`, lookups |
//! | `merge.rs` | merging mappings (put-mapping and dynamic updates) and its conflict rules |
//! | `limits.rs` | `index.mapping.*.limit` checks and the per-document limits |
//! | `values.rs` | converting one JSON value to the indexed value of one field type |
//! | `parse.rs` | walking a document and building its fields |
//! | `stream.rs` | the same without a `Value` tree of the document, for the common cases |
//! | `dynamic.rs` | the type a new field gets from its first value |
//! | `alias.rs` | `alias` fields: resolving them and checking their targets |
//! | `flat_object.rs` | `flat_object`: flattening an object to keys, values and `path=value` |
//! | `constant.rs` | `constant_keyword`: its values, and the checks and ordinals of documents |
//! | `dynamic_templates.rs` | `dynamic_templates`: parsing, matching, building the new field |
//! | `date.rs`, `ip.rs` | date formats and IP addresses |
//! | `geo.rs` | geo_point value forms, validation, Lucene's lat/lon encoding, geohashes |
//! | `range.rs` | range field types: their values and indexed form |
//!
//! `nested` objects become their own documents ([`NestedDoc`], indexed as a block before the
//! root document, as Lucene's block join); geo_point values get doc values only (no points index
//! yet: geo_distance, geo_bounding_box and geo_polygon test every document's doc values).

mod alias;
mod constant;
pub mod date;
mod dynamic;
pub mod dynamic_templates;
pub mod flat_object;
pub mod geo;
pub mod ip;
pub mod limits;
mod mapping;
mod merge;
mod parse;
pub mod range;
mod stream;
mod types;
mod values;

#[cfg(test)]
mod nested_tests;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

use crate::error::ErrorKind;
use std::fmt;

pub use constant::ConstantKeywordParams;
pub use mapping::{Dynamic, Mapper, Mapping, ObjectMapping};
pub use types::{FieldKind, FieldType, KeywordParams, NumberType, TextIndexOptions, TextParams};

/// The fields of one parsed document.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDocument {
    /// Every value to index, in the order keys are visited (the document's key order, a repeated
    /// key at its first place with its last value; array elements in order); `_id` first, `_ignored` entries for values
    /// dropped by `ignore_malformed`.
    pub fields: Vec<IndexableField>,
    /// Fields this document introduced through dynamic mapping (a mapping holding only them and
    /// their parent objects); `None` if none. Merge it into the index mapping before indexing.
    pub mapping_update: Option<Mapping>,
    /// The document's `nested` objects, each its own hidden document, in block order: deeper
    /// objects before the object holding them, objects in document order (the root document,
    /// `fields`, comes after all of them).
    pub nested: Vec<NestedDoc>,
}

/// One `nested` object of a document, indexed as its own (hidden) document.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NestedDoc {
    /// The nested object's full path (`user`, `user.address`).
    pub path: String,
    /// Its values (full dotted names); those of deeper nested objects are in their own docs.
    pub fields: Vec<IndexableField>,
}

/// One value of one field.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexableField {
    /// Full dotted path (`user.name`, `title.keyword`).
    pub name: String,
    pub value: FieldValue,
    /// Goes into the inverted index (text, keyword, boolean) or the points index (numbers, dates, ip).
    pub index: bool,
    /// Goes into doc values (sorted-set for keyword/ip/boolean, sorted-numeric for numbers/dates,
    /// binary for binary).
    pub doc_values: bool,
}

/// The indexed form of a value.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// Analyzed text. `analyzer` is the index-time analyzer name; `"default"` means the index's
    /// default analyzer (`index.analysis.analyzer.default`, else `standard`).
    Text {
        text: String,
        analyzer: String,
        /// Term frequencies are indexed (false: `index_options: docs`, every freq is 1).
        freqs: bool,
        positions: bool,
        offsets: bool,
        norms: bool,
        position_increment_gap: u32,
    },
    /// One term; doc values sorted-set.
    Keyword(String),
    /// long/integer/short/byte, date (epoch millis), date_nanos (epoch nanos), scaled_float (scaled).
    Long(i64),
    /// double/float/half_float, already rounded to the type's precision.
    Double(f64),
    UnsignedLong(u64),
    Bool(bool),
    /// IPv4 as IPv4-mapped IPv6.
    Ip(u128),
    Binary(Vec<u8>),
    /// A `token_count` field's text: the builder analyzes it with `analyzer` and indexes the
    /// count as a long (points and numeric doc values).
    TokenCount {
        text: String,
        analyzer: String,
        position_increments: bool,
    },
    /// A range field's interval: its inclusive bounds' sortable keys `lo ++ hi` (see
    /// `range.rs`); a sorted-set doc value.
    Range(Vec<u8>),
}

/// An error as OpenSearch reports it: `{"type": kind, "reason": reason, "caused_by": ...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingError {
    /// `mapper_parsing_exception`, `illegal_argument_exception`, `strict_dynamic_mapping_exception`, ...
    pub kind: ErrorKind,
    pub reason: String,
    /// The underlying error (OpenSearch's `caused_by`), e.g. `number_format_exception` under a
    /// `mapper_parsing_exception` "failed to parse field [...]".
    pub caused_by: Option<Box<MappingError>>,
}

impl MappingError {
    /// An error without a cause.
    pub fn new(kind: ErrorKind, reason: impl Into<String>) -> MappingError {
        MappingError { kind, reason: reason.into(), caused_by: None }
    }
    /// `mapper_parsing_exception`.
    pub fn parsing(reason: impl Into<String>) -> MappingError {
        MappingError::new(ErrorKind::MapperParsing, reason)
    }
    /// `illegal_argument_exception`.
    pub fn illegal(reason: impl Into<String>) -> MappingError {
        MappingError::new(ErrorKind::IllegalArgument, reason)
    }
    /// Adds a cause.
    pub fn caused_by(mut self, cause: MappingError) -> MappingError {
        self.caused_by = Some(Box::new(cause));
        self
    }
    /// The innermost cause (OpenSearch's `root_cause`).
    pub fn root_cause(&self) -> &MappingError {
        let mut e = self;
        while let Some(c) = &e.caused_by {
            e = c;
        }
        e
    }
    /// As OpenSearch's error body shows it (without `root_cause`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({"type": self.kind, "reason": self.reason});
        if let (Some(c), Some(obj)) = (&self.caused_by, v.as_object_mut()) {
            obj.insert("caused_by".into(), c.to_json());
        }
        v
    }
}

impl fmt::Display for MappingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.reason)?;
        if let Some(c) = &self.caused_by {
            write!(f, " (caused by {c})")?;
        }
        Ok(())
    }
}

impl std::error::Error for MappingError {}
