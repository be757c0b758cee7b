//! Mapping limits (`index.mapping.*.limit`), checked as OpenSearch's `MappingLookup.checkLimits`
//! does whenever a mapping changes (index creation, put mapping, dynamic updates), and the
//! per-document limits the document parser applies ([`DocLimits`]).

use super::mapping::{Mapper, Mapping, ObjectMapping};
use super::MappingError;

/// The limits of one index (OpenSearch's defaults in [`MappingLimits::default`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappingLimits {
    /// `index.mapping.total_fields.limit`: fields, multi-fields and objects.
    pub total_fields: u64,
    /// `index.mapping.depth.limit`: object nesting (the root is depth 1).
    pub depth: u64,
    /// `index.mapping.nested_fields.limit`: `nested` objects in the mapping.
    pub nested_fields: u64,
    /// `index.mapping.nested_objects.limit`: nested objects in one document.
    pub nested_objects: u64,
    /// `index.mapping.field_name_length.limit`: characters of a field's own name.
    pub field_name_length: u64,
    /// `index.mapping.total_fields.unmap_fields_beyond_limit`: new dynamic fields beyond the
    /// total-fields limit stay unmapped (kept in `_source` only) instead of failing the document.
    pub unmap_beyond_limit: bool,
}

impl Default for MappingLimits {
    fn default() -> Self {
        MappingLimits {
            total_fields: 1000,
            depth: 20,
            nested_fields: 50,
            nested_objects: 10_000,
            field_name_length: i64::MAX as u64,
            unmap_beyond_limit: false,
        }
    }
}

/// What the document parser enforces while parsing one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DocLimits {
    /// How many more fields dynamic mapping may add; new fields beyond it are left unmapped.
    /// `None`: no budget (the mapping check fails the document instead).
    pub field_budget: Option<u64>,
    /// Most `nested` objects in one document (`None`: unlimited).
    pub nested_objects: Option<u64>,
}

impl MappingLimits {
    /// The per-document limits for documents of `mapping`.
    pub fn doc_limits(&self, mapping: &Mapping) -> DocLimits {
        DocLimits {
            field_budget: self.unmap_beyond_limit.then(|| self.total_fields.saturating_sub(field_count(mapping))),
            nested_objects: Some(self.nested_objects),
        }
    }

    /// Checks `mapping` against the limits, with OpenSearch's messages.
    pub fn check(&self, mapping: &Mapping) -> Result<(), MappingError> {
        if field_count(mapping) > self.total_fields {
            return Err(MappingError::illegal(format!(
                "Limit of total fields [{}] has been exceeded",
                self.total_fields
            )));
        }
        let mut nested = 0u64;
        walk(&mapping.root, "", &mut |path, name, m| {
            if let Mapper::Object(o) = m {
                // `a.b` is at depth 3: the root is 1.
                let depth = path.matches('.').count() as u64 + 2;
                if depth > self.depth {
                    return Err(MappingError::illegal(format!(
                        "Limit of mapping depth [{}] has been exceeded due to object field [{path}]",
                        self.depth
                    )));
                }
                nested += u64::from(o.nested);
            }
            let too_long = |n: &str| n.chars().count() as u64 > self.field_name_length;
            let long = match m {
                Mapper::Field(f) => {
                    std::iter::once(name).chain(f.fields.keys().map(String::as_str)).find(|n| too_long(n))
                }
                Mapper::Object(_) => Some(name).filter(|n| too_long(n)),
            };
            if let Some(n) = long {
                return Err(MappingError::illegal(format!(
                    "Field name [{n}] is longer than the limit of [{}] characters",
                    self.field_name_length
                )));
            }
            Ok(())
        })?;
        if nested > self.nested_fields {
            return Err(MappingError::illegal(format!(
                "Limit of nested fields [{}] has been exceeded",
                self.nested_fields
            )));
        }
        Ok(())
    }
}

/// Calls `f(path, name, mapper)` for every mapper below `o`, parents first.
fn walk(
    o: &ObjectMapping,
    prefix: &str,
    f: &mut dyn FnMut(&str, &str, &Mapper) -> Result<(), MappingError>,
) -> Result<(), MappingError> {
    for (name, m) in &o.properties {
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
        f(&path, name, m)?;
        if let Mapper::Object(child) = m {
            walk(child, &path, f)?;
        }
    }
    Ok(())
}

/// How many fields a mapper counts for the total-fields limit: itself, its multi-fields and
/// (for an object) everything below it.
pub fn mapper_count(m: &Mapper) -> u64 {
    match m {
        Mapper::Field(f) => 1 + f.fields.len() as u64,
        Mapper::Object(o) => 1 + o.properties.values().map(mapper_count).sum::<u64>(),
    }
}

/// The fields, multi-fields and objects of a mapping (the root not counted).
pub fn field_count(mapping: &Mapping) -> u64 {
    mapping.root.properties.values().map(mapper_count).sum()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn m(v: serde_json::Value) -> Mapping {
        Mapping::from_json(&v).unwrap()
    }

    #[test]
    fn counts_fields_multi_fields_and_objects() {
        let map = m(
            json!({"properties": {"a": {"type": "text", "fields": {"k": {"type": "keyword"}}}, "o": {"properties": {"x": {"type": "long"}}}}}),
        );
        assert_eq!(field_count(&map), 4);
        let limits = MappingLimits { total_fields: 3, ..MappingLimits::default() };
        assert_eq!(limits.check(&map).unwrap_err().reason, "Limit of total fields [3] has been exceeded");
        assert!(MappingLimits { total_fields: 4, ..MappingLimits::default() }.check(&map).is_ok());
        assert_eq!(limits.doc_limits(&map).field_budget, None);
        let unmap = MappingLimits { total_fields: 6, unmap_beyond_limit: true, ..MappingLimits::default() };
        assert_eq!(unmap.doc_limits(&map).field_budget, Some(2));
    }

    #[test]
    fn dynamic_fields_beyond_the_budget_stay_unmapped() {
        let base = Mapping::new_dynamic();
        let limits = MappingLimits { total_fields: 3, unmap_beyond_limit: true, ..MappingLimits::default() };
        let src = br#"{"field1": "x", "field2": [1, 2], "unmap": "foo", "o": {"a": 1}}"#;
        let d = base.parse_limited("1", src, limits.doc_limits(&base)).unwrap();
        let u = d.mapping_update.expect("an update");
        assert_eq!(field_count(&u), 3);
        assert!(u.mapper("unmap").is_none() && u.mapper("o").is_none());
        assert!(d.fields.iter().all(|f| f.name != "unmap" && f.name != "o.a"));
        // Without the setting the whole update comes back (the mapping check then fails it).
        let d = base
            .parse_limited("1", src, MappingLimits { total_fields: 3, ..MappingLimits::default() }.doc_limits(&base))
            .unwrap();
        assert_eq!(field_count(&d.mapping_update.unwrap()), 7);
    }

    #[test]
    fn nested_objects_per_document_are_limited() {
        let map = m(json!({"properties": {"n": {"type": "nested"}}}));
        let limits = MappingLimits { nested_objects: 2, ..MappingLimits::default() };
        assert!(map.parse_limited("1", br#"{"n": [{"a": 1}, {"a": 2}]}"#, limits.doc_limits(&map)).is_ok());
        let e =
            map.parse_limited("1", br#"{"n": [{"a": 1}, {"a": 2}, {"a": 3}]}"#, limits.doc_limits(&map)).unwrap_err();
        assert!(
            e.reason.starts_with("The number of nested documents has exceeded the allowed limit of [2]."),
            "{}",
            e.reason
        );
    }

    #[test]
    fn depth_nested_and_name_length() {
        let deep = m(json!({"properties": {"a": {"properties": {"b": {"properties": {"c": {"type": "keyword"}}}}}}}));
        assert!(MappingLimits { depth: 3, ..MappingLimits::default() }.check(&deep).is_ok());
        assert_eq!(
            MappingLimits { depth: 2, ..MappingLimits::default() }.check(&deep).unwrap_err().reason,
            "Limit of mapping depth [2] has been exceeded due to object field [a.b]"
        );
        let nested = m(json!({"properties": {"n1": {"type": "nested"}, "n2": {"type": "nested"}}}));
        assert_eq!(
            MappingLimits { nested_fields: 1, ..MappingLimits::default() }.check(&nested).unwrap_err().reason,
            "Limit of nested fields [1] has been exceeded"
        );
        let long = m(json!({"properties": {"abcd": {"type": "text", "fields": {"toolong": {"type": "keyword"}}}}}));
        assert_eq!(
            MappingLimits { field_name_length: 5, ..MappingLimits::default() }.check(&long).unwrap_err().reason,
            "Field name [toolong] is longer than the limit of [5] characters"
        );
    }
}
