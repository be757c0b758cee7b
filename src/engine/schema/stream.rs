//! The fast path of `parse.rs`: the top-level object of `_source` read as a stream of keys
//! (serde `MapAccess`), each key looked up in the mapping as it comes, so that no
//! `serde_json::Value` tree of the whole document is built.
//!
//! Per top-level key (the tree walker's order is the document's key order, as here):
//! - a mapped field (not geo_point, no `copy_to`; multi-fields allowed) with a scalar or an array
//!   value: strings are borrowed from the input (copied once, into the field value, when they have
//!   no escapes) and converted by `values::convert_str`; other scalars become a small `Value` and
//!   go through the tree walker's `emit`;
//! - an unmapped key under a root `dynamic: false`: the value is checked (as `Value` would check
//!   it: UTF-8, numbers, nesting depth) and dropped, nothing allocated;
//! - anything else (objects, dotted or metadata keys, dynamic mapping, copy_to, geo_point): that
//!   key's value is read into a `Value` and handed to the tree walker's `parse_key`.
//!
//! The streaming parse declines the document (`None`; the caller then runs the tree walker on
//! the whole source) on any error — so that a JSON syntax error later in the document still wins
//! over a mapping error, as when the tree is built first — on a repeated top-level key (the tree's
//! `IndexMap` keeps the first position and the last value), and when the root is `enabled: false`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer as _, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::limits::DocLimits;
use super::mapping::{Dynamic, Mapper, Mapping, METADATA_FIELDS};
use super::parse::DocParser;
use super::types::{FieldKind, FieldType};
use super::values::{convert_str, Converted};
use super::ParsedDocument;

/// The parsed document, or `None` when the tree walker must parse it (see the module doc).
pub(super) fn parse_document(base: &Mapping, id: &str, source: &[u8], limits: DocLimits) -> Option<ParsedDocument> {
    if !base.root.enabled.unwrap_or(true) {
        return None;
    }
    let mut p = DocParser::new(base, id).with_limits(limits);
    let mut de = serde_json::Deserializer::from_slice(source);
    (&mut de).deserialize_any(Root { p: &mut p }).ok()?;
    de.end().ok()?;
    Some(p.finish())
}

/// The error that makes the caller fall back to the tree walker (its text is never shown).
fn decline<E: serde::de::Error>() -> E {
    E::custom("streaming parse declined")
}

/// What to do with one top-level key's value.
enum Plan<'m> {
    /// Unmapped under `dynamic: false`: validate and drop.
    Drop,
    /// A mapped scalar field: stream its values.
    Field(&'m FieldType),
    /// Read a `Value` and let the tree walker handle the key.
    Tree,
}

fn plan<'m>(p: &DocParser<'m>, key: &str) -> Plan<'m> {
    if key.is_empty() || key.contains('.') || (key.starts_with('_') && METADATA_FIELDS.contains(&key)) {
        return Plan::Tree;
    }
    // A key without dots: its mapper is the root's property (`Mapping::mapper` without the split).
    match p.base().root.properties.get(key) {
        Some(Mapper::Field(f)) if f.copy_to.is_empty() && !matches!(f.kind, FieldKind::GeoPoint { .. }) => {
            Plan::Field(f)
        }
        Some(_) => Plan::Tree,
        None if p.added(key) => Plan::Tree,
        None => match p.root_dynamic() {
            // (`false_allow_templates` keeps a key a dynamic template may map.)
            Dynamic::False => Plan::Drop,
            _ => Plan::Tree,
        },
    }
}

/// The top-level object.
struct Root<'p, 'a> {
    p: &'p mut DocParser<'a>,
}

impl<'de> Visitor<'de> for Root<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys: Vec<Cow<'de, str>> = Vec::with_capacity(map.size_hint().unwrap_or(16).min(64));
        while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
            match plan(self.p, &key) {
                Plan::Drop => {
                    map.next_value::<Skip>()?;
                }
                Plan::Field(f) => {
                    let item = map.next_value::<Item<'de>>()?;
                    self.p.emit_item(&key, f, item).map_err(|_| decline::<A::Error>())?;
                }
                Plan::Tree => {
                    let v = map.next_value::<Value>()?;
                    let dynamic = self.p.root_dynamic();
                    self.p.parse_key("", dynamic, &key, &v).map_err(|_| decline::<A::Error>())?;
                }
            }
            keys.push(key);
        }
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(decline());
        }
        Ok(())
    }
}

impl DocParser<'_> {
    /// Indexes `item` as a value of top-level field `name` of type `f` (as `parse_path` would).
    fn emit_item(&mut self, name: &str, f: &FieldType, item: Item<'_>) -> Result<(), super::MappingError> {
        match item {
            Item::Str(s) => {
                if f.fields.is_empty() {
                    return self.emit_str(name, f, s);
                }
                self.emit_str(name, f, s.clone())?;
                for (sub, sf) in &f.fields {
                    self.emit_str(&format!("{name}.{sub}"), sf, s.clone())?;
                }
                Ok(())
            }
            Item::Other(v) => {
                self.emit(name, f, &v)?;
                for (sub, sf) in &f.fields {
                    self.emit(&format!("{name}.{sub}"), sf, &v)?;
                }
                Ok(())
            }
            Item::Arr(items) => {
                for item in items {
                    self.emit_item(name, f, item)?;
                }
                Ok(())
            }
        }
    }

    /// `emit` of a string value without building a `Value` when `convert_str` covers it.
    fn emit_str(&mut self, name: &str, ft: &FieldType, s: Cow<'_, str>) -> Result<(), super::MappingError> {
        match convert_str(ft, s) {
            Ok(Converted::Value(value)) => {
                self.push(name, ft, value);
                Ok(())
            }
            Ok(Converted::Null | Converted::Skip) => Ok(()),
            Err(s) => self.emit(name, ft, &Value::String(s.into_owned())),
        }
    }
}

/// A string borrowed from the input when it has no escapes.
struct Str<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

/// One value of a mapped field: strings borrowed, arrays element by element, other scalars (and
/// objects, which are errors for a scalar field) as the `Value` the tree would hold.
enum Item<'de> {
    Str(Cow<'de, str>),
    Arr(Vec<Item<'de>>),
    Other(Value),
}

impl<'de> Deserialize<'de> for Item<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Item<'de>, E> {
        Ok(Item::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Item<'de>, E> {
        Ok(Item::Str(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Item<'de>, E> {
        Ok(Item::Str(Cow::Owned(s)))
    }
    // Numbers, booleans and null as `serde_json::Value`'s own visitor builds them.
    fn visit_bool<E>(self, b: bool) -> Result<Item<'de>, E> {
        Ok(Item::Other(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Item<'de>, E> {
        Ok(Item::Other(Value::Number(n.into())))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Item<'de>, E> {
        Ok(Item::Other(Value::Number(n.into())))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Item<'de>, E> {
        Ok(Item::Other(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)))
    }
    fn visit_unit<E>(self) -> Result<Item<'de>, E> {
        Ok(Item::Other(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Item<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Item<'de>>()? {
            items.push(item);
        }
        Ok(Item::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Item<'de>, A::Error> {
        Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Item::Other)
    }
}

/// A value read and checked as `Value` would be (strings' UTF-8 and escapes, numbers, nesting
/// depth), then dropped; nothing is allocated.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(Skip)
    }
}
