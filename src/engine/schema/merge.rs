//! Merging a mapping update into a mapping, with OpenSearch's put-mapping rules:
//!
//! - new fields and objects are added; existing multi-fields not named in the update are kept;
//! - a field's type never changes: "mapper [f] cannot be changed from type [long] to [text]";
//! - an object never becomes a field: "can't merge a non object mapping [f] with an object mapping";
//! - the update's definition of a field replaces the old one, but only updateable parameters may
//!   differ (`ignore_above`, `ignore_malformed`, `coerce`, `search_analyzer`, `norms` true→false);
//!   others fail with "Mapper for [f] conflicts with existing mapper:\n\tCannot update parameter
//!   [p] from [a] to [b]" (values compared after defaults, so restating a default is no change);
//! - an object never becomes nested or back ("cannot change object mapping from nested to
//!   non-nested"), and a nested object's `include_in_parent`/`include_in_root` never change
//!   (`mapper_exception`);
//! - geo_point takes the update's `ignore_malformed`, `ignore_z_value` and `null_value` only when
//!   given (OpenSearch's geometry `mergeOptions`).

use crate::error::ErrorKind;
use serde_json::Value;

use super::mapping::{Mapper, Mapping, ObjectMapping};
use super::types::{FieldKind, FieldType, TextIndexOptions};
use super::MappingError;

pub(super) fn merge_mappings(base: &Mapping, update: &Mapping) -> Result<Mapping, MappingError> {
    let mut out = base.clone();
    out.root = merge_objects("", &base.root, &update.root)?;
    out.date_detection = update.date_detection.or(base.date_detection);
    out.numeric_detection = update.numeric_detection.or(base.numeric_detection);
    if update.dynamic_date_formats.is_some() {
        out.dynamic_date_formats = update.dynamic_date_formats.clone();
    }
    if let Some(t) = &update.dynamic_templates {
        let base_t = base.dynamic_templates.as_deref().unwrap_or(&[]);
        out.dynamic_templates = Some(super::dynamic_templates::merge_templates(base_t, t));
    }
    if update.source.is_some() && update.source != base.source {
        if base.source.is_some() {
            return Err(MappingError::illegal(
                "Mapper for [_source] conflicts with existing mapper:\n\tCannot update parameter [_source] settings",
            ));
        }
        out.source = update.source.clone();
    }
    if let Some(r) = update.routing_required {
        if base.routing_required.unwrap_or(false) != r {
            return Err(MappingError::illegal(format!(
                "Mapper for [_routing] conflicts with existing mapper:\n\tCannot update parameter [required] from [{}] to [{r}]",
                base.routing_required.unwrap_or(false)
            )));
        }
    }
    if update.meta.is_some() {
        out.meta = update.meta.clone();
    }
    out.validate_aliases()?;
    Ok(out)
}

fn merge_objects(path: &str, base: &ObjectMapping, update: &ObjectMapping) -> Result<ObjectMapping, MappingError> {
    let mut out = base.clone();
    match (base.nested, update.nested) {
        (true, false) => return Err(MappingError::illegal("cannot change object mapping from nested to non-nested")),
        (false, true) => return Err(MappingError::illegal("cannot change object mapping from non-nested to nested")),
        _ => {}
    }
    for (param, a, b) in [
        ("include_in_parent", base.include_in_parent, update.include_in_parent),
        ("include_in_root", base.include_in_root, update.include_in_root),
    ] {
        if a.unwrap_or(false) != b.unwrap_or(false) {
            return Err(MappingError::new(
                ErrorKind::Mapper,
                format!("the [{param}] parameter can't be updated on a nested object mapping"),
            ));
        }
    }
    if update.dynamic.is_some() {
        out.dynamic = update.dynamic;
    }
    if let Some(e) = update.enabled {
        if e != base.enabled.unwrap_or(true) {
            let name = if path.is_empty() { "_doc" } else { path };
            return Err(MappingError::illegal(format!(
                "Mapper for [{name}] conflicts with existing mapper:\n\tCannot update parameter [enabled] from [{}] to [{e}]",
                base.enabled.unwrap_or(true)
            )));
        }
    }
    for (name, new) in &update.properties {
        let full = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
        let merged = match (base.properties.get(name), new) {
            (None, m) => m.clone(),
            (Some(Mapper::Object(a)), Mapper::Object(b)) => Mapper::Object(merge_objects(&full, a, b)?),
            (Some(Mapper::Object(_)), Mapper::Field(_)) => {
                return Err(MappingError::illegal(format!(
                    "can't merge a non object mapping [{full}] with an object mapping"
                )))
            }
            (Some(Mapper::Field(f)), Mapper::Object(_)) => {
                return Err(MappingError::illegal(format!(
                    "mapper [{full}] cannot be changed from type [{}] to [object]",
                    f.type_name()
                )))
            }
            (Some(Mapper::Field(a)), Mapper::Field(b)) => Mapper::Field(merge_fields(&full, a, b)?),
        };
        out.properties.insert(name.clone(), merged);
    }
    Ok(out)
}

/// Merges the definition `new` of field `path` into `old`.
pub(super) fn merge_fields(path: &str, old: &FieldType, new: &FieldType) -> Result<FieldType, MappingError> {
    if old.type_name() != new.type_name() {
        return Err(MappingError::illegal(format!(
            "mapper [{path}] cannot be changed from type [{}] to [{}]",
            old.type_name(),
            new.type_name()
        )));
    }
    let mut conflicts = Vec::new();
    let mut check = |param: &str, a: String, b: String| {
        if a != b {
            conflicts.push(format!("Cannot update parameter [{param}] from [{a}] to [{b}]"));
        }
    };
    check("index", old.effective_index().to_string(), new.effective_index().to_string());
    check("doc_values", old.effective_doc_values().to_string(), new.effective_doc_values().to_string());
    check("store", old.store.unwrap_or(false).to_string(), new.store.unwrap_or(false).to_string());
    let geo = matches!(old.kind, FieldKind::GeoPoint { .. });
    if !geo {
        // geo_point's null_value is updateable (OpenSearch: "TODO make this un-updateable").
        check("null_value", show(&old.null_value), show(&new.null_value));
    }
    match (&old.kind, &new.kind) {
        (FieldKind::Text(a), FieldKind::Text(b)) => {
            let an = |p: &Option<String>| p.clone().unwrap_or_else(|| "default".into());
            check("analyzer", an(&a.analyzer), an(&b.analyzer));
            let io = |o: Option<TextIndexOptions>| o.unwrap_or(TextIndexOptions::Positions).name().to_string();
            check("index_options", io(a.index_options), io(b.index_options));
            let gap = |g: Option<u32>| g.unwrap_or(100).to_string();
            check("position_increment_gap", gap(a.position_increment_gap), gap(b.position_increment_gap));
            // norms may only be disabled.
            if !a.norms.unwrap_or(true) && b.norms.unwrap_or(true) {
                check("norms", "false".into(), "true".into());
            }
        }
        (FieldKind::Keyword(a), FieldKind::Keyword(b)) => {
            let n = |p: &Option<String>| p.clone().unwrap_or_else(|| "null".into());
            check("normalizer", n(&a.normalizer), n(&b.normalizer));
        }
        (FieldKind::ScaledFloat { scaling_factor: a }, FieldKind::ScaledFloat { scaling_factor: b }) => {
            check("scaling_factor", a.to_string(), b.to_string());
        }
        (FieldKind::Date { .. }, FieldKind::Date { .. }) => {
            check("format", old.date_format().to_string(), new.date_format().to_string());
        }
        (FieldKind::ConstantKeyword(a), FieldKind::ConstantKeyword(b)) => {
            check("value", format!("{:?}", a.value), format!("{:?}", b.value));
            check("values", format!("{:?}", a.values), format!("{:?}", b.values));
        }
        _ => {}
    }
    if !conflicts.is_empty() {
        return Err(MappingError::illegal(format!(
            "Mapper for [{path}] conflicts with existing mapper:\n\t{}",
            conflicts.join("\n\t")
        )));
    }
    let mut out = new.clone();
    if let (FieldKind::GeoPoint { ignore_z_value: a }, FieldKind::GeoPoint { ignore_z_value: b }) =
        (&old.kind, &mut out.kind)
    {
        // Geometry mappers take only the options the update states (`mergeOptions`).
        *b = b.or(*a);
        out.ignore_malformed = new.ignore_malformed.or(old.ignore_malformed);
        out.null_value = new.null_value.clone().or_else(|| old.null_value.clone());
    }
    let mut fields = old.fields.clone();
    for (sub, nf) in &new.fields {
        let merged = match old.fields.get(sub) {
            Some(of) => merge_fields(&format!("{path}.{sub}"), of, nf)?,
            None => nf.clone(),
        };
        fields.insert(sub.clone(), merged);
    }
    out.fields = fields;
    Ok(out)
}

fn show(v: &Option<Value>) -> String {
    match v {
        None => "null".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}
