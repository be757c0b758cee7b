//! The root object mapper and object mappers: parsing a mapping definition, printing it as
//! `GET _mapping` does, and finding a field by its dotted path.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::dynamic_templates::{parse_templates, DynamicTemplate};
use super::types::{bool_param, FieldType};
use super::{MappingError, ParsedDocument};

/// OpenSearch's `dynamic` setting of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dynamic {
    /// Add new fields to the mapping (the default).
    True,
    /// Ignore new fields (they stay in `_source` only).
    False,
    /// Reject documents with new fields (`strict_dynamic_mapping_exception`).
    Strict,
    /// As `Strict` unless a dynamic template matches.
    StrictAllowTemplates,
    /// As `False` unless a dynamic template matches.
    FalseAllowTemplates,
}

impl Dynamic {
    fn parse(v: &Value) -> Result<Dynamic, MappingError> {
        Ok(match v {
            Value::Bool(true) => Dynamic::True,
            Value::Bool(false) => Dynamic::False,
            Value::String(s) => match s.to_ascii_lowercase().as_str() {
                "true" => Dynamic::True,
                "false" => Dynamic::False,
                "strict" => Dynamic::Strict,
                "strict_allow_templates" => Dynamic::StrictAllowTemplates,
                "false_allow_templates" => Dynamic::FalseAllowTemplates,
                _ => return Err(MappingError::parsing(format!("Could not convert [dynamic] to boolean: [{s}]"))),
            },
            other => return Err(MappingError::parsing(format!("Could not convert [dynamic] to boolean: [{other}]"))),
        })
    }
    /// The value `GET _mapping` prints (always a string, as OpenSearch does).
    pub fn name(self) -> &'static str {
        match self {
            Dynamic::True => "true",
            Dynamic::False => "false",
            Dynamic::Strict => "strict",
            Dynamic::StrictAllowTemplates => "strict_allow_templates",
            Dynamic::FalseAllowTemplates => "false_allow_templates",
        }
    }
}

/// An object: named children, `dynamic` (inherited from the parent when unset) and `enabled`
/// (false: the object's content is kept in `_source` but not parsed or indexed).
///
/// `nested` objects (`"type": "nested"`) are kept, printed and merged as OpenSearch does; each
/// nested object of a document is indexed as its own document (see `parse.rs`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectMapping {
    pub dynamic: Option<Dynamic>,
    /// Default: true.
    pub enabled: Option<bool>,
    /// `"type": "nested"`.
    pub nested: bool,
    /// Nested only: also index the values in the parent document. Default: false.
    pub include_in_parent: Option<bool>,
    /// Nested only: also index the values in the root document. Default: false.
    pub include_in_root: Option<bool>,
    pub properties: BTreeMap<String, Mapper>,
}

impl ObjectMapping {
    /// The same kind of object (`dynamic`, `enabled`, nested flags) without its properties: the
    /// parent of a mapping update must restate them.
    pub fn empty_like(&self) -> ObjectMapping {
        ObjectMapping {
            dynamic: self.dynamic,
            enabled: self.enabled,
            nested: self.nested,
            include_in_parent: self.include_in_parent,
            include_in_root: self.include_in_root,
            properties: BTreeMap::new(),
        }
    }

    /// The type name: `nested` or `object`.
    pub fn type_name(&self) -> &'static str {
        if self.nested {
            "nested"
        } else {
            "object"
        }
    }
}

/// A child of an object.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapper {
    Object(ObjectMapping),
    Field(FieldType),
}

/// An index mapping: the root object mapper and the root-only settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mapping {
    pub root: ObjectMapping,
    /// Default: true.
    pub date_detection: Option<bool>,
    /// Default: false.
    pub numeric_detection: Option<bool>,
    /// Default: `["strict_date_optional_time", "yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis"]`
    /// (as OpenSearch applies them; its docs list the second as `yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z`).
    pub dynamic_date_formats: Option<Vec<String>>,
    /// `_source` settings, kept verbatim (`{"enabled": false}`, `includes`, `excludes`).
    pub source: Option<Value>,
    /// `_routing.required`.
    pub routing_required: Option<bool>,
    /// `_meta`, kept verbatim.
    pub meta: Option<Value>,
    /// `dynamic_templates`, in order (see `dynamic_templates.rs`).
    pub dynamic_templates: Option<Vec<DynamicTemplate>>,
}

/// Names OpenSearch reserves for metadata fields; a document may not contain them at its root.
pub const METADATA_FIELDS: [&str; 10] = [
    "_id",
    "_routing",
    "_source",
    "_seq_no",
    "_primary_term",
    "_version",
    "_index",
    "_ignored",
    "_field_names",
    "_doc_count",
];

impl Mapping {
    /// An empty mapping with `dynamic: true`.
    pub fn new_dynamic() -> Mapping {
        Mapping::default()
    }

    /// Parses `{"properties": {...}, "dynamic": ..., ...}` (the body of `mappings` or of
    /// `PUT _mapping`).
    pub fn from_json(v: &Value) -> Result<Mapping, MappingError> {
        let Value::Object(m) = v else {
            return Err(MappingError::parsing(format!("Expected a mapping object, got {v}")));
        };
        // A single `_doc` key is the legacy type wrapper, accepted as OpenSearch does.
        if let (1, Some(inner @ Value::Object(_))) = (m.len(), m.get("_doc")) {
            return Mapping::from_json(inner);
        }
        let mut out = Mapping::default();
        let mut rest = Map::new();
        for (k, val) in m {
            match k.as_str() {
                "date_detection" => out.date_detection = Some(bool_param("_doc", k, val)?),
                "numeric_detection" => out.numeric_detection = Some(bool_param("_doc", k, val)?),
                "dynamic_date_formats" => {
                    let list: Vec<String> = match val {
                        Value::String(s) => vec![s.clone()],
                        Value::Array(a) => a.iter().map(|x| x.as_str().unwrap_or_default().to_string()).collect(),
                        _ => return Err(MappingError::parsing("Dynamic date formats should be a string or an array")),
                    };
                    for f in &list {
                        super::date::validate_format(f).map_err(MappingError::illegal)?;
                    }
                    out.dynamic_date_formats = Some(list);
                }
                "dynamic_templates" => out.dynamic_templates = Some(parse_templates(val)?),
                "_source" => out.source = Some(val.clone()),
                "_meta" => out.meta = Some(val.clone()),
                "_routing" => {
                    let req = val.get("required").map(|r| bool_param("_routing", "required", r)).transpose()?;
                    out.routing_required = req;
                }
                _ => {
                    rest.insert(k.clone(), val.clone());
                }
            }
        }
        out.root = parse_object("_doc", &rest, true)?;
        Ok(out)
    }

    /// The mapping as `GET _mapping` shows it.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(d) = self.root.dynamic {
            m.insert("dynamic".into(), json!(d.name()));
        }
        if let Some(false) = self.root.enabled {
            m.insert("enabled".into(), json!(false));
        }
        if let Some(s) = &self.meta {
            m.insert("_meta".into(), s.clone());
        }
        if let Some(r) = self.routing_required {
            m.insert("_routing".into(), json!({"required": r}));
        }
        if let Some(s) = &self.source {
            m.insert("_source".into(), s.clone());
        }
        if let Some(false) = self.date_detection {
            m.insert("date_detection".into(), json!(false));
        }
        if let Some(f) = &self.dynamic_date_formats {
            m.insert("dynamic_date_formats".into(), json!(f));
        }
        if let Some(t) = &self.dynamic_templates {
            m.insert("dynamic_templates".into(), Value::Array(t.iter().map(DynamicTemplate::to_json).collect()));
        }
        if let Some(true) = self.numeric_detection {
            m.insert("numeric_detection".into(), json!(true));
        }
        if !self.root.properties.is_empty() {
            m.insert("properties".into(), properties_json(&self.root.properties));
        }
        Value::Object(m)
    }

    /// The leaf field at a dotted path, including multi-fields (`title.keyword`).
    pub fn field_type(&self, path: &str) -> Option<&FieldType> {
        let mut obj = &self.root;
        let parts: Vec<&str> = path.split('.').collect();
        let mut i = 0;
        while i < parts.len() {
            match obj.properties.get(*parts.get(i)?)? {
                Mapper::Object(o) => obj = o,
                Mapper::Field(f) => {
                    if let (super::FieldKind::FlatObject(p), [sub]) = (&f.kind, parts.get(i + 1..)?) {
                        if *sub == super::flat_object::VALUE_SUFFIX || *sub == super::flat_object::VALUE_AND_PATH_SUFFIX
                        {
                            return Some(&p.keyword);
                        }
                    }
                    let mut f = f;
                    for sub in parts.get(i + 1..)? {
                        f = f.fields.get(*sub)?;
                    }
                    return Some(f);
                }
            }
            i += 1;
        }
        None
    }

    /// The mapper (object or field, not multi-field) at a dotted path.
    pub fn mapper(&self, path: &str) -> Option<&Mapper> {
        let mut obj = &self.root;
        let mut parts = path.split('.').peekable();
        while let Some(p) = parts.next() {
            let m = obj.properties.get(p)?;
            if parts.peek().is_none() {
                return Some(m);
            }
            match m {
                Mapper::Object(o) => obj = o,
                Mapper::Field(_) => return None,
            }
        }
        None
    }

    /// The object at a dotted path (`""` = root).
    pub fn object(&self, path: &str) -> Option<&ObjectMapping> {
        if path.is_empty() {
            return Some(&self.root);
        }
        match self.mapper(path)? {
            Mapper::Object(o) => Some(o),
            Mapper::Field(_) => None,
        }
    }

    /// Every leaf field and multi-field with its full path, in path order.
    pub fn leaf_fields(&self) -> Vec<(String, &FieldType)> {
        fn walk<'a>(prefix: &str, o: &'a ObjectMapping, out: &mut Vec<(String, &'a FieldType)>) {
            for (k, m) in &o.properties {
                let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                match m {
                    Mapper::Object(o) => walk(&path, o, out),
                    Mapper::Field(f) => {
                        out.push((path.clone(), f));
                        for (s, sf) in &f.fields {
                            out.push((format!("{path}.{s}"), sf));
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk("", &self.root, &mut out);
        out
    }

    /// Parses a document's `_source` (see `parse.rs`).
    pub fn parse(&self, id: &str, source: &[u8]) -> Result<ParsedDocument, MappingError> {
        super::parse::parse_document(self, id, source, super::limits::DocLimits::default())
    }

    /// [`Mapping::parse`] under an index's per-document limits (dynamic field budget, nested
    /// objects).
    pub fn parse_limited(
        &self,
        id: &str,
        source: &[u8],
        limits: super::limits::DocLimits,
    ) -> Result<ParsedDocument, MappingError> {
        super::parse::parse_document(self, id, source, limits)
    }

    /// Merges `update` into this mapping (put-mapping rules; see `merge.rs`).
    pub fn merge(&self, update: &Mapping) -> Result<Mapping, MappingError> {
        super::merge::merge_mappings(self, update)
    }
}

pub(super) fn properties_json(props: &BTreeMap<String, Mapper>) -> Value {
    let mut m = Map::new();
    for (k, mapper) in props {
        m.insert(k.clone(), mapper_json(mapper));
    }
    Value::Object(m)
}

fn mapper_json(mapper: &Mapper) -> Value {
    match mapper {
        Mapper::Field(f) => f.to_json(),
        Mapper::Object(o) => {
            let mut m = Map::new();
            if o.nested {
                m.insert("type".into(), json!("nested"));
                if let Some(true) = o.include_in_parent {
                    m.insert("include_in_parent".into(), json!(true));
                }
                if let Some(true) = o.include_in_root {
                    m.insert("include_in_root".into(), json!(true));
                }
            } else if o.properties.is_empty() {
                // OpenSearch prints the type of an object only when it has no properties.
                m.insert("type".into(), json!("object"));
            }
            if let Some(d) = o.dynamic {
                m.insert("dynamic".into(), json!(d.name()));
            }
            if let Some(false) = o.enabled {
                m.insert("enabled".into(), json!(false));
            }
            if !o.properties.is_empty() {
                m.insert("properties".into(), properties_json(&o.properties));
            }
            Value::Object(m)
        }
    }
}

/// Parses an object definition (`root`: the mapping root, where `type` is not allowed).
fn parse_object(name: &str, def: &Map<String, Value>, root: bool) -> Result<ObjectMapping, MappingError> {
    let mut o = ObjectMapping::default();
    let mut unknown = Vec::new();
    let (mut in_parent, mut in_root) = (None, None);
    for (k, v) in def {
        match k.as_str() {
            "dynamic" => o.dynamic = Some(Dynamic::parse(v)?),
            // Accepted on any object, kept only on nested ones (as OpenSearch).
            "include_in_parent" if !root => in_parent = Some(bool_param(name, k, v)?),
            "include_in_root" if !root => in_root = Some(bool_param(name, k, v)?),
            "enabled" => o.enabled = Some(bool_param(name, k, v)?),
            "properties" => {
                let Value::Object(props) = v else {
                    return Err(MappingError::parsing(format!(
                        "Expected map for property [properties] on field [{name}] but got a {v}"
                    )));
                };
                for (child, cdef) in props {
                    insert_property(&mut o, child, cdef)?;
                }
            }
            "type" if !root && v == "object" => {}
            "type" if !root && v == "nested" => o.nested = true,
            _ if root => unknown.push(format!("{k} : {v}")),
            _ => {
                return Err(MappingError::parsing(format!(
                    "unknown parameter [{k}] on mapper [{name}] of type [object]"
                )))
            }
        }
    }
    if !unknown.is_empty() {
        return Err(MappingError::parsing(format!(
            "Root mapping definition has unsupported parameters:  [{}]",
            unknown.join("] [")
        )));
    }
    if o.nested {
        o.include_in_parent = in_parent;
        o.include_in_root = in_root;
    }
    Ok(o)
}

/// The mapper a definition describes: an object (no `type`, or `object`/`nested`) or a field.
pub(super) fn mapper_from_def(name: &str, d: &Map<String, Value>) -> Result<Mapper, MappingError> {
    let is_object = match d.get("type") {
        None => true,
        Some(t) => t == "object" || t == "nested",
    };
    Ok(if is_object {
        if d.get("type").is_none()
            && !d.contains_key("properties")
            && d.keys().any(|k| k != "dynamic" && k != "enabled")
        {
            return Err(MappingError::parsing(format!("No type specified for field [{name}]")));
        }
        Mapper::Object(parse_object(name, d, false)?)
    } else {
        Mapper::Field(FieldType::from_json(name, d)?)
    })
}

/// Adds the definition of `name` (dotted names become nested objects, as OpenSearch does).
fn insert_property(o: &mut ObjectMapping, name: &str, def: &Value) -> Result<(), MappingError> {
    if name.is_empty() {
        return Err(MappingError::illegal("name cannot be empty string"));
    }
    let Value::Object(d) = def else {
        return Err(MappingError::parsing(format!(
            "Expected map for property [fields] on field [{name}] but got a {def}"
        )));
    };
    if let Some((head, tail)) = name.split_once('.') {
        if head.is_empty() || tail.is_empty() {
            return Err(MappingError::illegal(format!("name cannot be empty string [{name}]")));
        }
        let entry = o.properties.entry(head.to_string()).or_insert_with(|| Mapper::Object(ObjectMapping::default()));
        return match entry {
            Mapper::Object(child) => insert_property(child, tail, def),
            Mapper::Field(_) => {
                Err(MappingError::illegal(format!("Field [{head}] is defined both as an object and a field")))
            }
        };
    }
    let mapper = mapper_from_def(name, d)?;
    match (o.properties.get_mut(name), mapper) {
        (Some(Mapper::Object(existing)), Mapper::Object(new)) => {
            existing.dynamic = new.dynamic.or(existing.dynamic);
            existing.enabled = new.enabled.or(existing.enabled);
            existing.nested |= new.nested;
            existing.include_in_parent = new.include_in_parent.or(existing.include_in_parent);
            existing.include_in_root = new.include_in_root.or(existing.include_in_root);
            existing.properties.extend(new.properties);
        }
        (Some(_), _) => return Err(MappingError::illegal(format!("Field [{name}] is defined more than once"))),
        (None, m) => {
            o.properties.insert(name.to_string(), m);
        }
    }
    Ok(())
}
