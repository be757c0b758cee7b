//! An index's mapping limits from its settings (`index.mapping.*.limit`, see
//! [`crate::engine::schema::limits`]).

use super::settings::{get_bool, get_int, FlatSettings};
use crate::engine::schema::limits::MappingLimits;
use crate::engine::schema::Mapping;
use crate::error::{OsError, OsResult};

/// The limits `settings` set (OpenSearch's defaults for those not set).
pub fn mapping_limits(settings: &FlatSettings) -> OsResult<MappingLimits> {
    let d = MappingLimits::default();
    let int = |key: &str, default: u64| get_int(settings, key, default as i64, 0, i64::MAX).map(|v| v as u64);
    Ok(MappingLimits {
        total_fields: int("index.mapping.total_fields.limit", d.total_fields)?,
        depth: int("index.mapping.depth.limit", d.depth)?,
        nested_fields: int("index.mapping.nested_fields.limit", d.nested_fields)?,
        nested_objects: int("index.mapping.nested_objects.limit", d.nested_objects)?,
        field_name_length: get_int(settings, "index.mapping.field_name_length.limit", i64::MAX, 1, i64::MAX)? as u64,
        unmap_beyond_limit: get_bool(settings, "index.mapping.total_fields.unmap_fields_beyond_limit", false)?,
    })
}

/// Checks a mapping an index with `settings` would get.
pub fn check_mapping(settings: &FlatSettings, mapping: &Mapping) -> OsResult<()> {
    mapping_limits(settings)?.check(mapping).map_err(OsError::from)
}
