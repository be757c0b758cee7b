//! Field access, brace access, constructors and the whitelisted methods of the subset: the parts
//! of `java.util.List`, `java.util.Map`, `java.lang.String`, `Number`, `Math`, `Integer`, `Long`,
//! `Double`, `String` and `Boolean` that update scripts use. Methods are found by name and
//! arity, as Painless's `def` dispatch does; an unknown one is Painless's
//! `dynamic method [class, name/arity] not found`.
//!
//! Strings index in UTF-16 code units, like Java's.

use std::collections::BTreeMap;

use super::arith::{as_f64, checked_string};
use super::ast::StaticClass;
use super::value::{Value, MAX_LIST_LEN};

/// A Java exception: OpenSearch's type name and the message.
pub(crate) type JavaError = (&'static str, String);

fn npe<T>(name: &str) -> Result<T, JavaError> {
    Err(("null_pointer_exception", format!("cannot access method/field [{name}] from a null def reference")))
}

fn no_method<T>(target: &Value, name: &str, arity: usize) -> Result<T, JavaError> {
    Err(("illegal_argument_exception", format!("dynamic method [{}, {name}/{arity}] not found", target.java_class())))
}

fn cast_error<T>(v: &Value, to: &str) -> Result<T, JavaError> {
    match v {
        Value::Null => Err(("null_pointer_exception", format!("Cannot cast null to a primitive type [{to}]."))),
        _ => Err(("class_cast_exception", format!("Cannot cast {} to {to}", v.java_class()))),
    }
}

fn int_arg(v: &Value) -> Result<i64, JavaError> {
    match v {
        Value::Int(i) => Ok(i64::from(*i)),
        other => cast_error(other, "int"),
    }
}

fn str_arg(v: &Value) -> Result<&str, JavaError> {
    match v {
        Value::Str(s) => Ok(s),
        Value::Null => {
            Err(("null_pointer_exception", "Cannot invoke \"String.length()\" because \"str\" is null".into()))
        }
        other => cast_error(other, "java.lang.String"),
    }
}

/// A string result, refused past the string size limit.
fn string_result(s: String) -> Result<Value, JavaError> {
    checked_string(s).map_err(|e| (e.kind, e.reason))
}

fn check_list_room(len: usize, adding: usize) -> Result<(), JavaError> {
    if len.saturating_add(adding) > MAX_LIST_LEN {
        return Err(("illegal_argument_exception", format!("list longer than [{MAX_LIST_LEN}] elements")));
    }
    Ok(())
}

fn out_of_bounds<T>(index: i64, len: usize) -> Result<T, JavaError> {
    Err(("index_out_of_bounds_exception", format!("Index {index} out of bounds for length {len}")))
}

/// Resolves a list index; `negative` allows Painless's `list[-1]` (brace access only).
pub(crate) fn list_index(index: &Value, len: usize, negative: bool) -> Result<usize, JavaError> {
    let i = match index {
        Value::Int(i) => i64::from(*i),
        Value::Long(l) => *l,
        other => return cast_error(other, "int"),
    };
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let resolved = if negative && i < 0 { i + len_i } else { i };
    if resolved < 0 || resolved >= len_i {
        return out_of_bounds(i, len);
    }
    usize::try_from(resolved).or_else(|_| out_of_bounds(i, len))
}

/// `new ArrayList()`, `new ArrayList(collection)`, `new HashMap()`, `new HashMap(map)`.
pub(crate) fn construct(map: bool, arg: Option<Value>) -> Result<Value, JavaError> {
    match (map, arg) {
        (false, None) => Ok(Value::new_list(Vec::new())),
        (true, None) => Ok(Value::new_map(BTreeMap::new())),
        (false, Some(Value::List(l))) => Ok(Value::new_list(l.borrow().clone())),
        (true, Some(Value::Map(m))) => Ok(Value::new_map(m.borrow().clone())),
        // An initial capacity.
        (false, Some(Value::Int(_))) => Ok(Value::new_list(Vec::new())),
        (true, Some(Value::Int(_))) => Ok(Value::new_map(BTreeMap::new())),
        (_, Some(Value::Null)) => Err(("null_pointer_exception", "Cannot copy a null collection".into())),
        (m, Some(other)) => cast_error(&other, if m { "java.util.Map" } else { "java.util.Collection" }),
    }
}

/// `target.name` without a call: a map's entry (null when absent).
pub(crate) fn get_field(target: &Value, name: &str) -> Result<Value, JavaError> {
    match target {
        Value::Map(m) => Ok(m.borrow().get(name).cloned().unwrap_or(Value::Null)),
        Value::Null => npe(name),
        Value::List(l) if name == "empty" => Ok(Value::Bool(l.borrow().is_empty())),
        Value::Str(s) if name == "empty" => Ok(Value::Bool(s.is_empty())),
        Value::Date(ms, ns) => super::date::get_field(*ms, *ns, name),
        other => {
            Err(("illegal_argument_exception", format!("dynamic getter [{}, {name}] not found", other.java_class())))
        }
    }
}

/// `target[index]`.
pub(crate) fn get_index(target: &Value, index: &Value) -> Result<Value, JavaError> {
    match target {
        Value::Map(m) => Ok(m.borrow().get(&index.to_key()).cloned().unwrap_or(Value::Null)),
        Value::List(l) => {
            let list = l.borrow();
            let i = list_index(index, list.len(), true)?;
            Ok(list.get(i).cloned().unwrap_or(Value::Null))
        }
        Value::Null => Err(("null_pointer_exception", "Cannot load from a null value".into())),
        other => Err((
            "illegal_argument_exception",
            format!("Attempting to address a non-array-like type [{}] as an array.", other.java_class()),
        )),
    }
}

/// `target.name(args)`.
pub(crate) fn call(target: &Value, name: &str, args: Vec<Value>) -> Result<Value, JavaError> {
    let arity = args.len();
    // Object's methods, on everything but null.
    match (name, arity, target) {
        (_, _, Value::Null) => return npe(name),
        ("toString", 0, _) => return string_result(target.java_string()),
        ("equals", 1, _) => return Ok(Value::Bool(target.java_equals(&args[0]))),
        _ => {}
    }
    match target {
        Value::List(_) => call_list(target, name, args),
        Value::Map(_) => call_map(target, name, args),
        Value::Str(s) => call_string(target, s, name, args),
        Value::Int(_) | Value::Long(_) | Value::Float(_) | Value::Double(_) => call_number(target, name, args),
        Value::Bool(b) if name == "booleanValue" && arity == 0 => Ok(Value::Bool(*b)),
        Value::Date(ms, ns) => super::date::call(*ms, *ns, name, &args),
        _ => no_method(target, name, arity),
    }
}

fn call_list(target: &Value, name: &str, args: Vec<Value>) -> Result<Value, JavaError> {
    let Value::List(l) = target else { return no_method(target, name, args.len()) };
    let arity = args.len();
    let mut args = args.into_iter();
    let mut arg = || args.next().unwrap_or(Value::Null);
    match (name, arity) {
        ("add", 1) => {
            check_list_room(l.borrow().len(), 1)?;
            l.borrow_mut().push(arg());
            Ok(Value::Bool(true))
        }
        ("add", 2) => {
            let i = int_arg(&arg())?;
            let v = arg();
            check_list_room(l.borrow().len(), 1)?;
            let mut list = l.borrow_mut();
            if i < 0 || i > list.len() as i64 {
                return out_of_bounds(i, list.len());
            }
            list.insert(i as usize, v);
            Ok(Value::Null)
        }
        ("addAll", 1) => match arg() {
            Value::List(other) => {
                check_list_room(l.borrow().len(), other.borrow().len())?;
                let items = other.borrow().clone();
                super::value::add_work(items.len());
                let changed = !items.is_empty();
                l.borrow_mut().extend(items);
                Ok(Value::Bool(changed))
            }
            other => cast_error(&other, "java.util.Collection"),
        },
        ("get", 1) => {
            let list = l.borrow();
            let i = list_index(&arg(), list.len(), false)?;
            Ok(list.get(i).cloned().unwrap_or(Value::Null))
        }
        ("set", 2) => {
            let idx = arg();
            let v = arg();
            let mut list = l.borrow_mut();
            let i = list_index(&idx, list.len(), false)?;
            Ok(list.get_mut(i).map(|slot| std::mem::replace(slot, v)).unwrap_or(Value::Null))
        }
        ("remove", 1) => {
            let idx = arg();
            int_arg(&idx)?;
            let mut list = l.borrow_mut();
            let i = list_index(&idx, list.len(), false)?;
            Ok(list.remove(i))
        }
        ("size", 0) => Ok(Value::Int(l.borrow().len().min(i32::MAX as usize) as i32)),
        ("isEmpty", 0) => Ok(Value::Bool(l.borrow().is_empty())),
        ("contains", 1) => {
            let x = arg();
            Ok(Value::Bool(l.borrow().iter().any(|v| v.java_equals(&x))))
        }
        ("indexOf", 1) => {
            let x = arg();
            Ok(Value::Int(l.borrow().iter().position(|v| v.java_equals(&x)).map_or(-1, |i| i as i32)))
        }
        ("lastIndexOf", 1) => {
            let x = arg();
            Ok(Value::Int(l.borrow().iter().rposition(|v| v.java_equals(&x)).map_or(-1, |i| i as i32)))
        }
        ("clear", 0) => {
            l.borrow_mut().clear();
            Ok(Value::Null)
        }
        ("join", 1) => {
            let sep = arg();
            let sep = str_arg(&sep)?.to_string();
            join(&l.borrow(), &sep)
        }
        ("sum", 0) => Ok(Value::Double(l.borrow().iter().map(as_f64).sum())),
        _ => no_method(target, name, arity),
    }
}

/// `String.join`: stops building once the result is over the string size limit.
fn join(items: &[Value], sep: &str) -> Result<Value, JavaError> {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(&item.java_string());
        if out.len() > super::value::MAX_STRING_BYTES {
            break;
        }
    }
    string_result(out)
}

fn call_map(target: &Value, name: &str, args: Vec<Value>) -> Result<Value, JavaError> {
    let Value::Map(m) = target else { return no_method(target, name, args.len()) };
    let arity = args.len();
    let mut args = args.into_iter();
    let mut arg = || args.next().unwrap_or(Value::Null);
    match (name, arity) {
        ("get", 1) => Ok(m.borrow().get(&arg().to_key()).cloned().unwrap_or(Value::Null)),
        ("getOrDefault", 2) => {
            let k = arg().to_key();
            let d = arg();
            Ok(m.borrow().get(&k).cloned().unwrap_or(d))
        }
        ("put", 2) => {
            let k = arg().to_key();
            let v = arg();
            Ok(m.borrow_mut().insert(k, v).unwrap_or(Value::Null))
        }
        ("putIfAbsent", 2) => {
            let k = arg().to_key();
            let v = arg();
            let mut map = m.borrow_mut();
            match map.get(&k) {
                Some(existing) if !matches!(existing, Value::Null) => Ok(existing.clone()),
                _ => {
                    map.insert(k, v);
                    Ok(Value::Null)
                }
            }
        }
        ("putAll", 1) => match arg() {
            Value::Map(other) => {
                let entries = other.borrow().clone();
                m.borrow_mut().extend(entries);
                Ok(Value::Null)
            }
            other => cast_error(&other, "java.util.Map"),
        },
        ("remove", 1) => Ok(m.borrow_mut().remove(&arg().to_key()).unwrap_or(Value::Null)),
        ("containsKey", 1) => Ok(Value::Bool(m.borrow().contains_key(&arg().to_key()))),
        ("containsValue", 1) => {
            let x = arg();
            Ok(Value::Bool(m.borrow().values().any(|v| v.java_equals(&x))))
        }
        ("keySet", 0) => Ok(Value::new_list(m.borrow().keys().map(|k| Value::str(k)).collect())),
        ("values", 0) => Ok(Value::new_list(m.borrow().values().cloned().collect())),
        ("size", 0) => Ok(Value::Int(m.borrow().len().min(i32::MAX as usize) as i32)),
        ("isEmpty", 0) => Ok(Value::Bool(m.borrow().is_empty())),
        ("clear", 0) => {
            m.borrow_mut().clear();
            Ok(Value::Null)
        }
        _ => no_method(target, name, arity),
    }
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn find_utf16(hay: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(from.min(hay.len()));
    }
    (from..=hay.len().checked_sub(needle.len())?).find(|&i| hay[i..i + needle.len()] == *needle)
}

fn call_string(target: &Value, s: &str, name: &str, args: Vec<Value>) -> Result<Value, JavaError> {
    let arity = args.len();
    // String methods are linear in the string: count it towards the execution's work.
    super::value::add_work(s.len() / 8 + 1);
    let a = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
    match (name, arity) {
        ("length", 0) => Ok(Value::Int(s.encode_utf16().count().min(i32::MAX as usize) as i32)),
        ("isEmpty", 0) => Ok(Value::Bool(s.is_empty())),
        ("contains", 1) => Ok(Value::Bool(s.contains(str_arg(&a(0))?))),
        ("startsWith", 1) => Ok(Value::Bool(s.starts_with(str_arg(&a(0))?))),
        ("endsWith", 1) => Ok(Value::Bool(s.ends_with(str_arg(&a(0))?))),
        ("equalsIgnoreCase", 1) => Ok(Value::Bool(match a(0) {
            Value::Str(o) => o.to_lowercase() == s.to_lowercase(),
            _ => false,
        })),
        ("indexOf", 1 | 2) => {
            let needle = utf16(str_arg(&a(0))?);
            let from = if arity == 2 { int_arg(&a(1))?.max(0) as usize } else { 0 };
            Ok(Value::Int(find_utf16(&utf16(s), &needle, from).map_or(-1, |i| i as i32)))
        }
        ("lastIndexOf", 1) => {
            let hay = utf16(s);
            let needle = utf16(str_arg(&a(0))?);
            let last = (0..=hay.len().saturating_sub(needle.len()))
                .rev()
                .find(|&i| i + needle.len() <= hay.len() && hay[i..i + needle.len()] == *needle);
            Ok(Value::Int(last.map_or(-1, |i| i as i32)))
        }
        ("substring", 1 | 2) => {
            let units = utf16(s);
            let begin = int_arg(&a(0))?;
            let end = if arity == 2 { int_arg(&a(1))? } else { units.len() as i64 };
            if begin < 0 || end > units.len() as i64 || begin > end {
                return Err((
                    "string_index_out_of_bounds_exception",
                    format!("begin {begin}, end {end}, length {}", units.len()),
                ));
            }
            Ok(Value::str(&String::from_utf16_lossy(&units[begin as usize..end as usize])))
        }
        ("charAt", 1) => {
            let units = utf16(s);
            let i = int_arg(&a(0))?;
            match usize::try_from(i).ok().and_then(|i| units.get(i)) {
                Some(u) => Ok(Value::str(&String::from_utf16_lossy(&[*u]))),
                None => Err(("string_index_out_of_bounds_exception", format!("index {i}, length {}", units.len()))),
            }
        }
        ("sha1", 0) => Ok(Value::str(&super::digest::sha1_hex(s.as_bytes()))),
        ("sha256", 0) => Ok(Value::str(&super::digest::sha256_hex(s.as_bytes()))),
        ("toLowerCase", 0) => Ok(Value::str(&s.to_lowercase())),
        ("toUpperCase", 0) => Ok(Value::str(&s.to_uppercase())),
        ("trim", 0) => Ok(Value::str(s.trim_matches(|c: char| c <= ' '))),
        ("concat", 1) => string_result(format!("{s}{}", str_arg(&a(0))?)),
        ("replace", 2) => {
            let from = a(0);
            let to = a(1);
            let (from, to) = (str_arg(&from)?, str_arg(&to)?);
            // Size the result before building it: each match grows it by `to.len() - from.len()`.
            let matches = if from.is_empty() { s.chars().count() + 1 } else { s.matches(from).count() };
            let size = (s.len() - matches.saturating_mul(from.len()).min(s.len()))
                .saturating_add(matches.saturating_mul(to.len()));
            if size > super::value::MAX_STRING_BYTES {
                return Err((
                    "illegal_argument_exception",
                    format!("string longer than [{}] bytes", super::value::MAX_STRING_BYTES),
                ));
            }
            string_result(s.replace(from, to))
        }
        ("compareTo", 1) => {
            let o = a(0);
            let (x, y) = (utf16(s), utf16(str_arg(&o)?));
            let diff = x.iter().zip(y.iter()).find(|(p, q)| p != q).map(|(p, q)| i32::from(*p) - i32::from(*q));
            Ok(Value::Int(diff.unwrap_or(x.len() as i32 - y.len() as i32)))
        }
        ("splitOnToken", 1) => {
            let tok = a(0);
            let tok = str_arg(&tok)?;
            if tok.is_empty() {
                return Err(("illegal_argument_exception", "Cannot split on an empty token".into()));
            }
            Ok(Value::new_list(s.split(tok).map(Value::str).collect()))
        }
        _ => no_method(target, name, arity),
    }
}

fn call_number(target: &Value, name: &str, args: Vec<Value>) -> Result<Value, JavaError> {
    let d = as_f64(target);
    let whole = match target {
        Value::Int(i) => i64::from(*i),
        Value::Long(l) => *l,
        Value::Float(f) => *f as i64,
        _ => d as i64,
    };
    match (name, args.len()) {
        ("intValue", 0) => Ok(Value::Int(match target {
            Value::Float(f) => *f as i32,
            Value::Double(x) => *x as i32,
            _ => whole as i32,
        })),
        ("longValue", 0) => Ok(Value::Long(whole)),
        ("doubleValue", 0) => Ok(Value::Double(d)),
        ("floatValue", 0) => Ok(Value::Float(d as f32)),
        ("compareTo", 1) => {
            let o = as_f64(&args[0]);
            Ok(Value::Int(match d.partial_cmp(&o) {
                Some(std::cmp::Ordering::Less) => -1,
                Some(std::cmp::Ordering::Greater) => 1,
                _ => 0,
            }))
        }
        _ => no_method(target, name, args.len()),
    }
}

fn num_arg(v: &Value) -> Result<f64, JavaError> {
    if v.is_numeric() {
        Ok(as_f64(v))
    } else {
        cast_error(v, "double")
    }
}

fn parse_number<T: std::str::FromStr>(v: &Value) -> Result<T, JavaError> {
    let s = str_arg(v)?;
    s.parse::<T>().map_err(|_| ("number_format_exception", format!("For input string: \"{s}\"")))
}

/// `Math.max(a, b)`, `Integer.parseInt(s)`, `String.valueOf(x)`, ...
pub(crate) fn call_static(class: StaticClass, name: &str, args: Vec<Value>) -> Result<Value, JavaError> {
    let a = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
    let unknown = || -> Result<Value, JavaError> {
        let c = match class {
            StaticClass::Math => "java.lang.Math",
            StaticClass::Integer => "java.lang.Integer",
            StaticClass::Long => "java.lang.Long",
            StaticClass::Double => "java.lang.Double",
            StaticClass::String => "java.lang.String",
            StaticClass::Boolean => "java.lang.Boolean",
        };
        Err(("illegal_argument_exception", format!("unknown static method [{c}, {name}/{}]", args.len())))
    };
    match (class, name, args.len()) {
        (StaticClass::Math, "max", 2) => Ok(Value::Double(num_arg(&a(0))?.max(num_arg(&a(1))?))),
        (StaticClass::Math, "min", 2) => Ok(Value::Double(num_arg(&a(0))?.min(num_arg(&a(1))?))),
        (StaticClass::Math, "abs", 1) => Ok(Value::Double(num_arg(&a(0))?.abs())),
        (StaticClass::Math, "floor", 1) => Ok(Value::Double(num_arg(&a(0))?.floor())),
        (StaticClass::Math, "ceil", 1) => Ok(Value::Double(num_arg(&a(0))?.ceil())),
        (StaticClass::Math, "sqrt", 1) => Ok(Value::Double(num_arg(&a(0))?.sqrt())),
        (StaticClass::Math, "log", 1) => Ok(Value::Double(num_arg(&a(0))?.ln())),
        (StaticClass::Math, "log10", 1) => Ok(Value::Double(num_arg(&a(0))?.log10())),
        (StaticClass::Math, "exp", 1) => Ok(Value::Double(num_arg(&a(0))?.exp())),
        (StaticClass::Math, "pow", 2) => Ok(Value::Double(num_arg(&a(0))?.powf(num_arg(&a(1))?))),
        // Java's Math.round(double): floor(x + 0.5), saturating, NaN is 0.
        (StaticClass::Math, "round", 1) => Ok(Value::Long((num_arg(&a(0))? + 0.5).floor() as i64)),
        (StaticClass::Integer | StaticClass::Long, "max" | "min", 2) => {
            let (x, y) = (a(0), a(1));
            let pick = |p: i64, q: i64| if name == "max" { p.max(q) } else { p.min(q) };
            if class == StaticClass::Integer {
                Ok(Value::Int(pick(int_arg(&x)?, int_arg(&y)?) as i32))
            } else {
                let l = |v: &Value| match v {
                    Value::Int(i) => Ok(i64::from(*i)),
                    Value::Long(l) => Ok(*l),
                    other => cast_error(other, "long"),
                };
                Ok(Value::Long(pick(l(&x)?, l(&y)?)))
            }
        }
        (StaticClass::Integer, "parseInt", 1) => Ok(Value::Int(parse_number::<i32>(&a(0))?)),
        (StaticClass::Long, "parseLong", 1) => Ok(Value::Long(parse_number::<i64>(&a(0))?)),
        (StaticClass::Double, "parseDouble", 1) => Ok(Value::Double(parse_number::<f64>(&a(0))?)),
        (
            StaticClass::Integer | StaticClass::Long | StaticClass::Double | StaticClass::String,
            "toString" | "valueOf",
            1,
        ) if class == StaticClass::String || name == "toString" => string_result(a(0).java_string()),
        (StaticClass::Boolean, "parseBoolean", 1) => {
            Ok(Value::Bool(matches!(a(0), Value::Str(s) if s.eq_ignore_ascii_case("true"))))
        }
        (StaticClass::String, "join", 2) => {
            let sep = a(0);
            let sep = str_arg(&sep)?.to_string();
            match a(1) {
                Value::List(l) => join(&l.borrow(), &sep),
                other => cast_error(&other, "java.lang.Iterable"),
            }
        }
        _ => unknown(),
    }
}

/// `Integer.MAX_VALUE`, `Math.PI`, ...
pub(crate) fn static_field(class: StaticClass, name: &str) -> Result<Value, JavaError> {
    Ok(match (class, name) {
        (StaticClass::Integer, "MAX_VALUE") => Value::Int(i32::MAX),
        (StaticClass::Integer, "MIN_VALUE") => Value::Int(i32::MIN),
        (StaticClass::Long, "MAX_VALUE") => Value::Long(i64::MAX),
        (StaticClass::Long, "MIN_VALUE") => Value::Long(i64::MIN),
        (StaticClass::Double, "MAX_VALUE") => Value::Double(f64::MAX),
        (StaticClass::Double, "MIN_VALUE") => Value::Double(f64::from_bits(1)),
        (StaticClass::Double, "POSITIVE_INFINITY") => Value::Double(f64::INFINITY),
        (StaticClass::Double, "NEGATIVE_INFINITY") => Value::Double(f64::NEG_INFINITY),
        (StaticClass::Double, "NaN") => Value::Double(f64::NAN),
        (StaticClass::Math, "PI") => Value::Double(std::f64::consts::PI),
        (StaticClass::Math, "E") => Value::Double(std::f64::consts::E),
        (StaticClass::Boolean, "TRUE") => Value::Bool(true),
        (StaticClass::Boolean, "FALSE") => Value::Bool(false),
        _ => return Err(("illegal_argument_exception", format!("unknown static field [{name}]"))),
    })
}
