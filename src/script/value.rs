//! Runtime values of the Painless subset: Java's boxed types as `def` sees them.
//!
//! Lists and maps are shared references (`Rc<RefCell<..>>`) because Painless has Java's reference
//! semantics: `def t = ctx._source.tags; t.add(1)` changes the document. Values live only for one
//! execution; the compiled script never holds them, so `Script` stays `Send + Sync`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value as Json;

/// A shared, mutable `java.util.ArrayList`.
pub(crate) type ListRef = Rc<RefCell<Vec<Value>>>;
/// A shared, mutable `java.util.HashMap` with string keys (JSON objects only have string keys).
pub(crate) type MapRef = Rc<RefCell<BTreeMap<String, Value>>>;

/// Deepest nesting converted, compared or printed before giving up (also stops reference cycles).
pub(crate) const MAX_VALUE_DEPTH: usize = 512;
/// Most values visited converting one result to JSON (lists can share sublists, so a small
/// script can build a value whose tree is exponentially large).
pub(crate) const MAX_JSON_NODES: usize = 10_000_000;
/// Longest string a script may build (Java would run out of heap instead).
pub(crate) const MAX_STRING_BYTES: usize = 32 * 1024 * 1024;
/// Most elements a list may hold.
pub(crate) const MAX_LIST_LEN: usize = 10_000_000;
/// Most element comparisons one `==` may make.
const MAX_EQUALS_STEPS: usize = 10_000_000;

thread_local! {
    /// Elements visited by the running script's comparisons, copies and conversions: the
    /// interpreter bounds it (see `interp::MAX_WORK`) so a loop of cheap-looking statements over
    /// big values cannot run for hours. Reset at the start of each execution.
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

pub(crate) fn add_work(n: usize) {
    WORK.with(|w| w.set(w.get().saturating_add(n as u64)));
}

pub(crate) fn work_done() -> u64 {
    WORK.with(std::cell::Cell::get)
}

pub(crate) fn reset_work() {
    WORK.with(|w| w.set(0));
}

#[derive(Debug, Clone)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Str(Rc<str>),
    List(ListRef),
    Map(MapRef),
    /// A date (`doc['date'].value`): epoch millis and the nanoseconds within the milli, UTC.
    Date(i64, u32),
}

impl Value {
    pub(crate) fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    pub(crate) fn new_list(items: Vec<Value>) -> Value {
        add_work(items.len());
        Value::List(Rc::new(RefCell::new(items)))
    }

    pub(crate) fn new_map(map: BTreeMap<String, Value>) -> Value {
        add_work(map.len());
        Value::Map(Rc::new(RefCell::new(map)))
    }

    /// Java's class name, for error messages (`Cannot cast java.lang.String to ...`).
    pub(crate) fn java_class(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "java.lang.Boolean",
            Value::Int(_) => "java.lang.Integer",
            Value::Long(_) => "java.lang.Long",
            Value::Float(_) => "java.lang.Float",
            Value::Double(_) => "java.lang.Double",
            Value::Str(_) => "java.lang.String",
            Value::List(_) => "java.util.ArrayList",
            Value::Map(_) => "java.util.HashMap",
            Value::Date(..) => super::date::CLASS,
        }
    }

    pub(crate) fn is_numeric(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Long(_) | Value::Float(_) | Value::Double(_))
    }

    /// Converts a JSON value the way Jackson hands numbers to a script: integers that fit an
    /// `int` are `Integer`, other integers `Long`, everything else `Double`.
    pub(crate) fn from_json(json: &Json) -> Value {
        match json {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => {
                if let Some(i) = n.as_i64() {
                    match i32::try_from(i) {
                        Ok(small) => Value::Int(small),
                        Err(_) => Value::Long(i),
                    }
                } else {
                    Value::Double(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Json::String(s) => Value::str(s),
            Json::Array(items) => Value::new_list(items.iter().map(Value::from_json).collect()),
            Json::Object(map) => Value::new_map(map_from_json(map)),
        }
    }

    /// Back to JSON. Fails (with the Java-ish reason) only on nesting deeper than
    /// [`MAX_VALUE_DEPTH`], which includes a list or map that contains itself.
    pub(crate) fn to_json(&self) -> Result<Json, String> {
        let mut nodes = 0;
        self.to_json_at(0, &mut nodes)
    }

    fn to_json_at(&self, depth: usize, nodes: &mut usize) -> Result<Json, String> {
        if depth > MAX_VALUE_DEPTH {
            return Err(format!(
                "value nested deeper than {MAX_VALUE_DEPTH} levels (a list or map containing itself?)"
            ));
        }
        *nodes += 1;
        add_work(1);
        if *nodes > MAX_JSON_NODES {
            return Err(format!("value has more than {MAX_JSON_NODES} elements"));
        }
        Ok(match self {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Long(l) => Json::from(*l),
            // Jackson writes a float with Float.toString, so 0.1f is 0.1, not 0.10000000149.
            Value::Float(f) => float_json(format!("{f}").parse::<f64>().unwrap_or(f64::NAN)),
            Value::Double(d) => float_json(*d),
            Value::Str(s) => Json::String(s.to_string()),
            Value::Date(ms, ns) => Json::String(super::date::to_string(*ms, *ns)),
            Value::List(list) => {
                let list = list.try_borrow().map_err(|_| "list is being modified".to_string())?;
                let mut out = Vec::with_capacity(list.len());
                for item in list.iter() {
                    out.push(item.to_json_at(depth + 1, nodes)?);
                }
                Json::Array(out)
            }
            Value::Map(map) => {
                let map = map.try_borrow().map_err(|_| "map is being modified".to_string())?;
                let mut out = serde_json::Map::new();
                for (k, v) in map.iter() {
                    out.insert(k.clone(), v.to_json_at(depth + 1, nodes)?);
                }
                Json::Object(out)
            }
        })
    }

    /// Java's `String.valueOf(value)`: what string concatenation shows.
    pub(crate) fn java_string(&self) -> String {
        let mut out = String::new();
        self.write_java_string(&mut out, 0);
        out
    }

    /// Stops (with `...`) past [`MAX_STRING_BYTES`]; callers that keep the string check its length.
    fn write_java_string(&self, out: &mut String, depth: usize) {
        if depth > MAX_VALUE_DEPTH || out.len() > MAX_STRING_BYTES {
            out.push_str("...");
            return;
        }
        add_work(1);
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Long(l) => out.push_str(&l.to_string()),
            Value::Float(f) => out.push_str(&java_double_string(f64::from(*f), Some(*f))),
            Value::Double(d) => out.push_str(&java_double_string(*d, None)),
            Value::Str(s) => out.push_str(s),
            Value::Date(ms, ns) => out.push_str(&super::date::to_string(*ms, *ns)),
            Value::List(list) => match list.try_borrow() {
                Ok(list) => {
                    out.push('[');
                    for (i, item) in list.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        item.write_java_string(out, depth + 1);
                    }
                    out.push(']');
                }
                Err(_) => out.push_str("(this Collection)"),
            },
            Value::Map(map) => match map.try_borrow() {
                Ok(map) => {
                    out.push('{');
                    for (i, (k, v)) in map.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(k);
                        out.push('=');
                        v.write_java_string(out, depth + 1);
                    }
                    out.push('}');
                }
                Err(_) => out.push_str("(this Map)"),
            },
        }
    }

    /// `def ==`: numbers compare by value after promotion, everything else by `equals`.
    pub(crate) fn java_equals(&self, other: &Value) -> bool {
        let mut steps = 0;
        self.equals_at(other, 0, &mut steps)
    }

    /// Gives up (unequal) past [`MAX_VALUE_DEPTH`] or [`MAX_EQUALS_STEPS`].
    fn equals_at(&self, other: &Value, depth: usize, steps: &mut usize) -> bool {
        *steps += 1;
        add_work(1);
        if depth > MAX_VALUE_DEPTH || *steps > MAX_EQUALS_STEPS {
            return false;
        }
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Date(a, x), Value::Date(b, y)) => a == b && x == y,
            (a, b) if a.is_numeric() && b.is_numeric() => super::arith::numeric_eq(a, b),
            (Value::List(a), Value::List(b)) => {
                if Rc::ptr_eq(a, b) {
                    return true;
                }
                let (Ok(a), Ok(b)) = (a.try_borrow(), b.try_borrow()) else { return false };
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.equals_at(y, depth + 1, steps))
            }
            (Value::Map(a), Value::Map(b)) => {
                if Rc::ptr_eq(a, b) {
                    return true;
                }
                let (Ok(a), Ok(b)) = (a.try_borrow(), b.try_borrow()) else { return false };
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v.equals_at(w, depth + 1, steps)))
            }
            _ => false,
        }
    }

    /// `===`: identity for lists and maps, value equality for the immutable boxes.
    pub(crate) fn java_identical(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::List(a), Value::List(b)) => Rc::ptr_eq(a, b),
            (Value::Map(a), Value::Map(b)) => Rc::ptr_eq(a, b),
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Long(a), Value::Long(b)) => a == b,
            (Value::Double(a), Value::Double(b)) => a.to_bits() == b.to_bits(),
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (a, b) if a.is_numeric() || b.is_numeric() => false,
            (a, b) => a.java_equals(b),
        }
    }

    /// A map key: JSON keys are strings, so other keys become their Java string.
    pub(crate) fn to_key(&self) -> String {
        match self {
            Value::Str(s) => s.to_string(),
            other => other.java_string(),
        }
    }
}

pub(crate) fn map_from_json(map: &serde_json::Map<String, Json>) -> BTreeMap<String, Value> {
    map.iter().map(|(k, v)| (k.clone(), Value::from_json(v))).collect()
}

fn float_json(d: f64) -> Json {
    serde_json::Number::from_f64(d).map(Json::Number).unwrap_or(Json::Null)
}

/// Java's `Double.toString` (and `Float.toString` when `as_float` is given): plain decimals in
/// [1e-3, 1e7), computerized scientific notation (`1.0E10`) outside, always with a fraction digit.
pub(crate) fn java_double_string(d: f64, as_float: Option<f32>) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    let abs = d.abs();
    if (1e-3..1e7).contains(&abs) {
        let s = match as_float {
            Some(f) => format!("{f}"),
            None => format!("{d}"),
        };
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let s = match as_float {
            Some(f) => format!("{f:e}"),
            None => format!("{d:e}"),
        };
        // Rust: 1.5e-5 / 1e20; Java: 1.5E-5 / 1.0E20.
        let (mantissa, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
        let mantissa = if mantissa.contains('.') { mantissa.to_string() } else { format!("{mantissa}.0") };
        format!("{mantissa}E{exp}")
    }
}
