//! `alias` fields (OpenSearch's `FieldAliasMapper`): another name for a concrete field, given by
//! its full `path`. An alias holds no values (documents may not write to it); queries and
//! field_caps resolve it to its target ([`Mapping::resolve_alias`]).

use super::{FieldKind, Mapper, Mapping, MappingError, ObjectMapping};

impl Mapping {
    /// The concrete field `path` names: the target of an alias, else `path` itself.
    pub fn resolve_alias<'a>(&'a self, path: &'a str) -> &'a str {
        match self.field_type(path).map(|f| &f.kind) {
            Some(FieldKind::Alias { path: target }) => target,
            _ => path,
        }
    }

    /// Every alias must name an existing field that is not an alias, not itself, in the same
    /// nested scope (OpenSearch's messages).
    pub fn validate_aliases(&self) -> Result<(), MappingError> {
        fn walk(m: &Mapping, prefix: &str, nested: Option<&str>, o: &ObjectMapping) -> Result<(), MappingError> {
            for (k, mapper) in &o.properties {
                let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                match mapper {
                    Mapper::Object(inner) => {
                        let scope = if inner.type_name() == "nested" { Some(name.as_str()) } else { nested };
                        walk(m, &name, scope, inner)?;
                    }
                    Mapper::Field(f) => {
                        let FieldKind::Alias { path } = &f.kind else { continue };
                        let invalid = |why: &str| {
                            MappingError::parsing(format!(
                                "Invalid [path] value [{path}] for field alias [{name}]: {why}"
                            ))
                        };
                        if *path == name {
                            return Err(invalid("an alias cannot refer to itself."));
                        }
                        match m.field_type(path).map(|t| &t.kind) {
                            None => return Err(invalid("an alias must refer to an existing field in the mappings.")),
                            Some(FieldKind::Alias { .. }) => {
                                return Err(invalid("an alias cannot refer to another alias."))
                            }
                            Some(_) => {}
                        }
                        let target_scope = nested_scope(m, path);
                        if target_scope.as_deref() != nested {
                            let alias_part = match nested {
                                None => "The alias is not nested".to_string(),
                                Some(s) => format!("The alias's nested scope is [{s}]"),
                            };
                            let target_part = match &target_scope {
                                None => "the target is not nested.".to_string(),
                                Some(s) => format!("the target's nested scope is [{s}]."),
                            };
                            return Err(MappingError::illegal(format!(
                                "Invalid [path] value [{path}] for field alias [{name}]: an alias must have the same nested scope as its target. {alias_part}, but {target_part}"
                            )));
                        }
                    }
                }
            }
            Ok(())
        }
        walk(self, "", None, &self.root)
    }
}

/// The innermost `nested` object containing `path`, if any.
fn nested_scope(m: &Mapping, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut scope = None;
    for i in 1..parts.len() {
        let prefix = parts[..i].join(".");
        if m.object(&prefix).is_some_and(|o| o.type_name() == "nested") {
            scope = Some(prefix);
        }
    }
    scope
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::engine::schema::Mapping;

    fn m(v: serde_json::Value) -> Mapping {
        Mapping::from_json(&json!({ "properties": v })).unwrap()
    }

    #[test]
    fn parses_prints_and_resolves() {
        let map = m(
            json!({"test": {"type": "text"}, "a": {"type": "alias", "path": "test"}, "o": {"properties": {"k": {"type": "keyword"}}}}),
        );
        assert_eq!(map.to_json()["properties"]["a"], json!({"type": "alias", "path": "test"}));
        assert_eq!(map.resolve_alias("a"), "test");
        assert_eq!(map.resolve_alias("test"), "test");
        assert_eq!(map.resolve_alias("nope"), "nope");
        map.validate_aliases().unwrap();
        let e = Mapping::from_json(&json!({"properties": {"a": {"type": "alias"}}})).unwrap_err();
        assert_eq!(e.reason, "The [path] property must be specified for field [a].");
        let e = Mapping::from_json(&json!({"properties": {"a": {"type": "alias", "path": "x", "store": true}}}))
            .unwrap_err();
        assert!(e.reason.contains("unknown parameter [store]"), "{e}");
    }

    #[test]
    fn invalid_targets_are_rejected() {
        for (props, why) in [
            (json!({"a": {"type": "alias", "path": "a"}}), "an alias cannot refer to itself."),
            (json!({"a": {"type": "alias", "path": "x"}}), "an alias must refer to an existing field in the mappings."),
            (json!({"x": {"type": "long"}, "b": {"type": "alias", "path": "x"}, "a": {"type": "alias", "path": "b"}}), "an alias cannot refer to another alias."),
            (json!({"o": {"properties": {}}, "a": {"type": "alias", "path": "o"}}), "an alias must refer to an existing field in the mappings."),
            (json!({"n": {"type": "nested", "properties": {"x": {"type": "long"}}}, "a": {"type": "alias", "path": "n.x"}}), "an alias must have the same nested scope as its target. The alias is not nested, but the target's nested scope is [n]."),
        ] {
            let e = m(props).validate_aliases().unwrap_err();
            assert!(e.reason.ends_with(why), "{} / {why}", e.reason);
        }
    }

    #[test]
    fn documents_cannot_write_to_an_alias() {
        let map = m(json!({"test": {"type": "text"}, "a": {"type": "alias", "path": "test"}}));
        let e = map.parse("1", br#"{"a": "x"}"#).unwrap_err();
        assert_eq!(e.root_cause().reason, "Cannot write to a field alias [a].");
        assert_eq!(e.reason, "failed to parse");
        assert!(map.parse("1", br#"{"test": "x"}"#).is_ok());
    }
}
