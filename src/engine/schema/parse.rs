//! Walking a document's `_source` against a mapping and building its fields.
//!
//! Order of work per key (as OpenSearch's `DocumentParser`): metadata names are refused at the
//! root; dotted keys (`"a.b": 1`) are objects (`{"a": {"b": 1}}`); arrays apply each element to
//! the same field; an unmapped key is handled by the enclosing object's effective `dynamic`
//! (`true`: the type comes from `dynamic.rs` and is recorded in the mapping update, so later values
//! in the same document use it; `false`: ignored; `strict`: the document is rejected).
//!
//! Exceptions: a geo_point field takes its whole array value (`[lon, lat]` is one point, see
//! `geo.rs`); each `nested` object becomes its own [`NestedDoc`] (its values only there, plus
//! copies in the parent or root document with `include_in_parent` / `include_in_root`), listed
//! deeper objects first, the order in which the block is indexed before the root document.

use crate::error::ErrorKind;
use std::borrow::Cow;

use serde_json::{Map, Value};

use super::limits::DocLimits;
use super::mapping::{Dynamic, Mapper, Mapping, ObjectMapping, METADATA_FIELDS};
use super::types::{FieldKind, FieldType};
use super::values::{convert, Converted};
use super::{dynamic, geo};
use super::{FieldValue, IndexableField, MappingError, NestedDoc, ParsedDocument};

pub(super) struct DocParser<'a> {
    base: &'a Mapping,
    id: &'a str,
    update: Mapping,
    changed: bool,
    fields: Vec<IndexableField>,
    ignored: Vec<String>,
    /// Inside a `copy_to`: targets' own `copy_to` is not followed (as OpenSearch).
    copying: bool,
    limits: DocLimits,
    /// Fields dynamic mapping added so far (against `limits.field_budget`).
    added_fields: u64,
    /// `nested` objects parsed so far (against `limits.nested_objects`).
    nested_objects: u64,
    /// Finished nested documents, in block order.
    nested: Vec<NestedDoc>,
    /// The documents being filled around the current nested object (the root first); `fields`
    /// is the innermost one.
    outer: Vec<Vec<IndexableField>>,
    /// The nested paths of the documents being filled, innermost last (empty at the root).
    paths: Vec<String>,
}

/// Parses `source`: the streaming parse (`stream.rs`) when it covers the document, else the
/// tree walker. Both give the same result (`stream_tests.rs` checks it).
pub(super) fn parse_document(
    base: &Mapping,
    id: &str,
    source: &[u8],
    limits: DocLimits,
) -> Result<ParsedDocument, MappingError> {
    if let Some(doc) = super::stream::parse_document(base, id, source, limits) {
        return Ok(doc);
    }
    parse_tree(base, id, source, limits)
}

/// Parses `source` into a `serde_json::Value` and walks it.
pub(super) fn parse_tree(
    base: &Mapping,
    id: &str,
    source: &[u8],
    limits: DocLimits,
) -> Result<ParsedDocument, MappingError> {
    let doc: Value = serde_json::from_slice(source).map_err(|e| {
        MappingError::parsing("failed to parse").caused_by(MappingError::new(ErrorKind::JsonParse, e.to_string()))
    })?;
    let Value::Object(obj) = &doc else {
        return Err(MappingError::parsing("failed to parse")
            .caused_by(MappingError::illegal("Malformed content, must start with an object")));
    };
    let mut p = DocParser::new(base, id).with_limits(limits);
    if base.root.enabled.unwrap_or(true) {
        let dynamic = p.root_dynamic();
        for (k, v) in obj {
            p.parse_key("", dynamic, k, v)?;
        }
    }
    Ok(p.finish())
}

fn join(parent: &str, name: &str) -> String {
    joined(parent, name).into_owned()
}

/// `parent.name`, borrowing `name` at the root (no allocation for top-level fields).
fn joined<'n>(parent: &str, name: &'n str) -> Cow<'n, str> {
    if parent.is_empty() {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(format!("{parent}.{name}"))
    }
}

fn wrapped(cause: MappingError) -> MappingError {
    MappingError::parsing("failed to parse").caused_by(cause)
}

impl<'a> DocParser<'a> {
    /// A parser whose fields start with `_id`.
    pub(super) fn new(base: &'a Mapping, id: &'a str) -> DocParser<'a> {
        let mut p = DocParser {
            base,
            id,
            update: Mapping::default(),
            changed: false,
            // `_id` and the few fields of a typical document without regrowing.
            fields: Vec::with_capacity(8),
            ignored: Vec::new(),
            copying: false,
            limits: DocLimits::default(),
            added_fields: 0,
            nested_objects: 0,
            nested: Vec::new(),
            outer: Vec::new(),
            paths: Vec::new(),
        };
        p.fields.push(IndexableField {
            name: "_id".into(),
            value: FieldValue::Keyword(id.to_string()),
            index: true,
            doc_values: false,
        });
        p
    }

    /// The same parser under per-document limits.
    pub(super) fn with_limits(mut self, limits: DocLimits) -> DocParser<'a> {
        self.limits = limits;
        self
    }

    /// The document: its fields, then an `_ignored` entry per field dropped by `ignore_malformed`
    /// (indexed for `term`/`terms`, and in doc values for `exists` and for the hits' `_ignored`).
    pub(super) fn finish(mut self) -> ParsedDocument {
        for name in std::mem::take(&mut self.ignored) {
            self.fields.push(IndexableField {
                name: "_ignored".into(),
                value: FieldValue::Keyword(name),
                index: true,
                doc_values: true,
            });
        }
        ParsedDocument { fields: self.fields, mapping_update: self.changed.then_some(self.update), nested: self.nested }
    }

    pub(super) fn base(&self) -> &'a Mapping {
        self.base
    }

    /// The root object's effective `dynamic`.
    pub(super) fn root_dynamic(&self) -> Dynamic {
        self.base.root.dynamic.unwrap_or(Dynamic::True)
    }

    /// Whether this document added a mapper at `path` (dynamic mapping).
    pub(super) fn added(&self, path: &str) -> bool {
        self.update.mapper(path).is_some()
    }

    /// Pushes one converted value of field `name`.
    pub(super) fn push(&mut self, name: &str, ft: &FieldType, value: FieldValue) {
        // A binary value without doc values indexes nothing but its field name (`_field_names`).
        self.fields.push(IndexableField {
            name: name.to_string(),
            value,
            // constant_keyword and flat_object values keep postings when they have doc values (see
            // constant.rs, flat_object.rs).
            index: ft.effective_index()
                || (matches!(ft.kind, FieldKind::ConstantKeyword(_) | FieldKind::FlatObject(_))
                    && ft.effective_doc_values()),
            doc_values: ft.effective_doc_values(),
        });
    }

    pub(super) fn parse_key(
        &mut self,
        parent: &str,
        dynamic: Dynamic,
        key: &str,
        v: &Value,
    ) -> Result<(), MappingError> {
        if key.is_empty() {
            return Err(wrapped(MappingError::illegal("field name cannot be an empty string")));
        }
        if parent.is_empty() && METADATA_FIELDS.contains(&key) {
            return Err(MappingError::parsing(format!(
                "Field [{key}] is a metadata field and cannot be added inside a document. Use the index API request parameters."
            )));
        }
        if !key.contains('.') {
            return self.parse_path(parent, dynamic, key, std::slice::from_ref(&key), v);
        }
        if key.bytes().all(|b| b == b'.') {
            return Err(wrapped(MappingError::illegal("field name cannot contain only the character [.]")));
        }
        let parts: Vec<&str> = key.split('.').collect();
        if parts.first().is_some_and(|p| p.is_empty()) || parts.last().is_some_and(|p| p.is_empty()) {
            return Err(wrapped(MappingError::illegal(format!(
                "object field starting or ending with a [.] makes object resolution ambiguous: [{key}]"
            ))));
        }
        if parts.iter().any(|p| p.trim().is_empty()) {
            return Err(wrapped(MappingError::illegal(format!(
                "object field cannot contain only whitespace: ['{key}']"
            ))));
        }
        self.parse_path(parent, dynamic, key, &parts, v)
    }

    /// The mapper at `path`: the index mapping's, else one added by this document.
    fn lookup(&self, path: &str) -> Option<Cow<'a, Mapper>> {
        if let Some(m) = self.base.mapper(path) {
            return Some(Cow::Borrowed(m));
        }
        self.update.mapper(path).map(|m| Cow::Owned(m.clone()))
    }

    /// Parses `v` under the remaining `parts` of document key `key` (split at dots).
    fn parse_path(
        &mut self,
        parent: &str,
        dynamic: Dynamic,
        key: &str,
        parts: &[&str],
        v: &Value,
    ) -> Result<(), MappingError> {
        let Some((name, rest)) = parts.split_first() else { return Ok(()) };
        let full = joined(parent, name);
        let full = full.as_ref();
        if !rest.is_empty() {
            // A dotted key: `name` must be (or become) an object.
            return match self.lookup(full) {
                Some(m) => match m.as_ref() {
                    Mapper::Object(o) if !o.enabled.unwrap_or(true) => Ok(()),
                    // (A `copy_to` target is written into the document of its scope, chosen
                    // by `copy_to`, not into a new nested document.)
                    Mapper::Object(o) if o.nested && !self.copying => {
                        let inner = o.dynamic.unwrap_or(dynamic);
                        let (incl_parent, incl_root) = nested_includes(o);
                        self.in_nested(full, incl_parent, incl_root, |p| p.parse_path(full, inner, key, rest, v))
                    }
                    Mapper::Object(o) => self.parse_path(full, o.dynamic.unwrap_or(dynamic), key, rest, v),
                    Mapper::Field(f) => Err(MappingError::parsing(format!(
                        "Could not dynamically add mapping for field [{}]. Existing mapping for [{full}] must be of type object but found [{}].",
                        key,
                        f.type_name()
                    ))),
                },
                None => {
                    // The object a dotted key implies: a dynamic template for objects may map it.
                    let template = match dynamic {
                        Dynamic::True | Dynamic::StrictAllowTemplates | Dynamic::FalseAllowTemplates => self
                            .base
                            .dynamic_templates
                            .as_deref()
                            .and_then(|ts| super::dynamic_templates::find(ts, full, name, "object"))
                            .map(|t| t.build(name, "object"))
                            .transpose()?
                            .filter(|m| matches!(m, Mapper::Object(_))),
                        _ => None,
                    };
                    match (template, dynamic) {
                        (Some(m), _) => {
                            let inner = match &m {
                                Mapper::Object(o) => o.dynamic.unwrap_or(dynamic),
                                Mapper::Field(_) => dynamic,
                            };
                            if !self.add_to_update(full, m) {
                                return Ok(());
                            }
                            self.parse_path(full, inner, key, rest, v)
                        }
                        (None, Dynamic::True) => {
                            if !self.add_to_update(full, Mapper::Object(ObjectMapping::default())) {
                                return Ok(());
                            }
                            self.parse_path(full, dynamic, key, rest, v)
                        }
                        (None, Dynamic::False | Dynamic::FalseAllowTemplates) => Ok(()),
                        (None, Dynamic::Strict | Dynamic::StrictAllowTemplates) => Err(strict(dynamic, name, parent)),
                    }
                }
            };
        }
        if let Value::Array(items) = v {
            // A geo_point reads the whole array itself: `[lon, lat]` is one point.
            let geo = match self.lookup(full) {
                Some(m) => matches!(m.as_ref(), Mapper::Field(f) if matches!(f.kind, FieldKind::GeoPoint { .. })),
                None => false,
            };
            if !geo {
                for item in items {
                    self.parse_path(parent, dynamic, key, parts, item)?;
                }
                return Ok(());
            }
        }
        let mapper = match self.lookup(full) {
            Some(m) => m,
            None => {
                if v.is_null() {
                    return Ok(());
                }
                match dynamic {
                    Dynamic::False => return Ok(()),
                    Dynamic::Strict => return Err(strict(dynamic, name, parent)),
                    _ => {}
                }
                let Some(m) = dynamic::infer_at(self.base, full, name, parent, v, dynamic)? else { return Ok(()) };
                if !self.add_to_update(full, m.clone()) {
                    // Beyond the total-fields limit with `unmap_fields_beyond_limit`: kept in
                    // `_source` only.
                    return Ok(());
                }
                Cow::Owned(m)
            }
        };
        match mapper.as_ref() {
            Mapper::Object(o) => match v {
                Value::Object(map) => {
                    if o.nested {
                        self.nested_objects += 1;
                        if let Some(limit) = self.limits.nested_objects.filter(|l| self.nested_objects > *l) {
                            return Err(MappingError::parsing(format!(
                                "The number of nested documents has exceeded the allowed limit of [{limit}]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting."
                            )));
                        }
                    }
                    if o.nested {
                        let inner = o.dynamic.unwrap_or(dynamic);
                        let enabled = o.enabled.unwrap_or(true);
                        let (incl_parent, incl_root) = nested_includes(o);
                        return self.in_nested(full, incl_parent, incl_root, |p| {
                            if enabled {
                                p.parse_object(full, inner, map)?;
                            }
                            Ok(())
                        });
                    }
                    if o.enabled.unwrap_or(true) {
                        self.parse_object(full, o.dynamic.unwrap_or(dynamic), map)?;
                    }
                    Ok(())
                }
                Value::Null => Ok(()),
                _ if !o.enabled.unwrap_or(true) => Ok(()),
                _ => Err(MappingError::parsing(format!(
                    "object mapping for [{full}] tried to parse field [{name}] as object, but found a concrete value"
                ))),
            },
            Mapper::Field(f) if matches!(f.kind, FieldKind::GeoPoint { .. }) => {
                self.emit_geo(full, name, f, v)?;
                self.copy_to(f, v)
            }
            Mapper::Field(f) => {
                self.emit(full, f, v)?;
                for (sub, sf) in &f.fields {
                    self.emit(&format!("{full}.{sub}"), sf, v)?;
                }
                self.copy_to(f, v)
            }
        }
    }

    /// Follows `copy_to` of field `f` with value `v` (not from inside another `copy_to`).
    fn copy_to(&mut self, f: &FieldType, v: &Value) -> Result<(), MappingError> {
        if self.copying || v.is_null() {
            return Ok(());
        }
        self.copying = true;
        let root_dynamic = self.base.root.dynamic.unwrap_or(Dynamic::True);
        for target in &f.copy_to {
            let parts: Vec<&str> = target.split('.').collect();
            // The value goes to the innermost document being filled whose nested path holds the
            // target (the root's when none does), as OpenSearch's `parseCopyFields`.
            let level = self
                .paths
                .iter()
                .rposition(|p| target.starts_with(p.as_str()) && target.as_bytes().get(p.len()) == Some(&b'.'))
                .map_or(0, |i| i + 1);
            let swapped = level < self.paths.len();
            if swapped {
                std::mem::swap(&mut self.fields, &mut self.outer[level]);
            }
            let r = self.parse_path("", root_dynamic, target, &parts, v);
            if swapped {
                std::mem::swap(&mut self.fields, &mut self.outer[level]);
            }
            if r.is_err() {
                self.copying = false;
                return r;
            }
        }
        self.copying = false;
        Ok(())
    }

    /// Indexes a geo_point field value (one point, or an array of points) and its multi-fields
    /// (which receive the geohash, or `[h1,h2,...]` for several points). A malformed value drops
    /// the whole field value when `ignore_malformed` is set. `simple` is the field's own name.
    fn emit_geo(&mut self, name: &str, simple: &str, ft: &FieldType, v: &Value) -> Result<(), MappingError> {
        let FieldKind::GeoPoint { ignore_z_value } = ft.kind else { return Ok(()) };
        let ignore_z = ignore_z_value.unwrap_or(true);
        let ignore_malformed = ft.effective_ignore_malformed();
        let v = match (v, &ft.null_value) {
            (Value::Null, None) => return Ok(()),
            (Value::Null, Some(nv)) => nv,
            (v, _) => v,
        };
        let parsed = geo::parse_field_value(v, simple, ignore_z, ignore_malformed)
            .and_then(|points| points.into_iter().map(|p| geo::doc_value(p).map(|dv| (p, dv))).collect());
        let points: Vec<(geo::GeoPoint, i64)> = match parsed {
            Ok(p) => p,
            Err(_) if ignore_malformed => {
                if !self.ignored.iter().any(|n| n == name) {
                    self.ignored.push(name.to_string());
                }
                return Ok(());
            }
            Err(cause) => {
                return Err(MappingError::parsing(format!("failed to parse field [{name}] of type [geo_point]"))
                    .caused_by(cause))
            }
        };
        // Without doc values only the field name is indexed (`_field_names`, for `exists`).
        let dv = ft.effective_doc_values();
        for (_, v) in points.iter().take(if dv { usize::MAX } else { 1 }) {
            self.fields.push(IndexableField {
                name: name.to_string(),
                value: FieldValue::Long(*v),
                index: false,
                doc_values: dv,
            });
        }
        if !ft.fields.is_empty() && !points.is_empty() {
            let hashes: Vec<String> = points.iter().map(|(p, _)| geo::geohash_encode(*p)).collect();
            let joined = if hashes.len() == 1 { hashes.join(",") } else { format!("[{}]", hashes.join(",")) };
            let value = Value::String(joined);
            for (sub, sf) in &ft.fields {
                self.emit(&format!("{name}.{sub}"), sf, &value)?;
            }
        }
        Ok(())
    }

    /// Runs `f` with a new nested document for the object at `path` as the one being filled,
    /// then records it (after any deeper ones `f` finished) and copies its values up as
    /// `include_in_parent` / `include_in_root` ask (OpenSearch's `DocumentParser.nestedContext`).
    fn in_nested(
        &mut self,
        path: &str,
        include_in_parent: bool,
        include_in_root: bool,
        f: impl FnOnce(&mut Self) -> Result<(), MappingError>,
    ) -> Result<(), MappingError> {
        let parent = std::mem::take(&mut self.fields);
        self.outer.push(parent);
        self.paths.push(path.to_string());
        let r = f(self);
        self.paths.pop();
        let own = std::mem::replace(&mut self.fields, self.outer.pop().unwrap_or_default());
        r?;
        if include_in_parent {
            self.fields.extend(own.iter().cloned());
        }
        let parent_is_root = self.outer.is_empty();
        if include_in_root && !(include_in_parent && parent_is_root) {
            match self.outer.first_mut() {
                Some(root) => root.extend(own.iter().cloned()),
                None => self.fields.extend(own.iter().cloned()),
            }
        }
        self.nested.push(NestedDoc { path: path.to_string(), fields: own });
        Ok(())
    }

    fn parse_object(&mut self, path: &str, dynamic: Dynamic, map: &Map<String, Value>) -> Result<(), MappingError> {
        for (k, v) in map {
            self.parse_key(path, dynamic, k, v)?;
        }
        Ok(())
    }

    /// Indexes one value (never an array) of field `name`.
    pub(super) fn emit(&mut self, name: &str, ft: &FieldType, v: &Value) -> Result<(), MappingError> {
        if let FieldKind::FlatObject(p) = &ft.kind {
            if v.is_null() {
                return Ok(());
            }
            for (field, value) in p.flatten(name, v)? {
                self.push(&field, ft, value);
            }
            return Ok(());
        }
        let converted = match &ft.kind {
            FieldKind::Alias { .. } => {
                return Err(wrapped(MappingError::illegal(format!("Cannot write to a field alias [{name}]."))))
            }
            FieldKind::ConstantKeyword(c) => c.convert(name, v),
            _ if v.is_null() => Ok(Converted::Null),
            _ => convert(ft, v),
        };
        let converted = match converted {
            Ok(Converted::Null) => match &ft.null_value {
                Some(nv) => convert(ft, nv),
                None => return Ok(()),
            },
            other => other,
        };
        let value = match converted {
            Ok(Converted::Value(value)) => value,
            Ok(Converted::Null | Converted::Skip) => return Ok(()),
            Err(cause) => {
                let may_ignore = matches!(
                    ft.kind,
                    FieldKind::Number(_)
                        | FieldKind::ScaledFloat { .. }
                        | FieldKind::Date { .. }
                        | FieldKind::Ip
                        | FieldKind::GeoPoint { .. }
                );
                if may_ignore && ft.effective_ignore_malformed() && !v.is_object() {
                    if !self.ignored.iter().any(|n| n == name) {
                        self.ignored.push(name.to_string());
                    }
                    return Ok(());
                }
                return Err(MappingError::parsing(format!(
                    "failed to parse field [{name}] of type [{}] in document with id '{}'. Preview of field's value: '{}'",
                    ft.type_name(),
                    self.id,
                    preview(v)
                ))
                .caused_by(cause));
            }
        };
        self.push(name, ft, value);
        Ok(())
    }

    /// Records a new mapper at `path` in the mapping update, creating its parent objects (with the
    /// index mapping's `dynamic`/`enabled` for objects that already exist there).
    /// Returns false (and adds nothing) when the mapper would go beyond the dynamic field budget.
    fn add_to_update(&mut self, path: &str, m: Mapper) -> bool {
        if let Some(budget) = self.limits.field_budget {
            let n = super::limits::mapper_count(&m);
            if self.added_fields + n > budget {
                return false;
            }
            self.added_fields += n;
        }
        self.changed = true;
        let parts: Vec<&str> = path.split('.').collect();
        let Some((leaf, parents)) = parts.split_last() else { return true };
        let mut obj = &mut self.update.root;
        let mut prefix = String::new();
        for p in parents {
            prefix = join(&prefix, p);
            let template = match self.base.object(&prefix) {
                Some(o) => o.empty_like(),
                None => ObjectMapping::default(),
            };
            let entry = obj.properties.entry((*p).to_string()).or_insert(Mapper::Object(template));
            obj = match entry {
                Mapper::Object(o) => o,
                // Unreachable: parents of a new mapper are objects; leave the update unchanged.
                Mapper::Field(_) => return true,
            };
        }
        obj.properties.insert((*leaf).to_string(), m);
        true
    }
}

/// A nested object's `include_in_parent` and `include_in_root`.
fn nested_includes(o: &ObjectMapping) -> (bool, bool) {
    (o.include_in_parent.unwrap_or(false), o.include_in_root.unwrap_or(false))
}

fn strict(dynamic: Dynamic, name: &str, parent: &str) -> MappingError {
    dynamic::strict_error(dynamic, name, parent)
}

/// The value as OpenSearch previews it in "failed to parse field" messages (Java's toString).
fn preview(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(m) => {
            let inner: Vec<String> = m.iter().map(|(k, v)| format!("{k}={}", preview(v))).collect();
            format!("{{{}}}", inner.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(preview).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}
