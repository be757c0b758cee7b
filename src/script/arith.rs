//! Java arithmetic on `def` values: binary numeric promotion (int < long < float < double),
//! wrapping `int`/`long` overflow, integer division truncating toward zero, `/ by zero` only for
//! integers, `%` with the dividend's sign, shifts masked to 5 or 6 bits, `+` concatenating strings.

use super::value::{Value, MAX_STRING_BYTES};

/// An arithmetic failure, turned into a runtime `script_exception` by the interpreter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ArithError {
    /// OpenSearch's name for the Java exception (`arithmetic_exception`, `class_cast_exception`).
    pub kind: &'static str,
    pub reason: String,
}

fn err(kind: &'static str, reason: String) -> ArithError {
    ArithError { kind, reason }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    Ushr,
    BitAnd,
    BitOr,
    BitXor,
}

impl BinOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Ushr => ">>>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
        }
    }
}

/// The promoted numeric type of a binary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Int,
    Long,
    Float,
    Double,
}

fn rank(v: &Value) -> Option<Rank> {
    match v {
        Value::Int(_) => Some(Rank::Int),
        Value::Long(_) => Some(Rank::Long),
        Value::Float(_) => Some(Rank::Float),
        Value::Double(_) => Some(Rank::Double),
        _ => None,
    }
}

fn as_i64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => i64::from(*i),
        Value::Long(l) => *l,
        Value::Float(f) => *f as i64,
        Value::Double(d) => *d as i64,
        _ => 0,
    }
}

pub(crate) fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => f64::from(*i),
        Value::Long(l) => *l as f64,
        Value::Float(f) => f64::from(*f),
        Value::Double(d) => *d,
        _ => 0.0,
    }
}

fn as_f32(v: &Value) -> f32 {
    match v {
        Value::Int(i) => *i as f32,
        Value::Long(l) => *l as f32,
        Value::Float(f) => *f,
        Value::Double(d) => *d as f32,
        _ => 0.0,
    }
}

fn bad_operands(op: &str, a: &Value, b: &Value) -> ArithError {
    err(
        "class_cast_exception",
        format!("Cannot apply [{op}] operation to types [{}] and [{}].", a.java_class(), b.java_class()),
    )
}

/// A string result, refused past [`MAX_STRING_BYTES`] (where Java would exhaust its heap).
pub(crate) fn checked_string(s: String) -> Result<Value, ArithError> {
    if s.len() > MAX_STRING_BYTES {
        return Err(err("illegal_argument_exception", format!("string longer than [{MAX_STRING_BYTES}] bytes")));
    }
    Ok(Value::str(&s))
}

/// `a op b` with Java semantics.
pub(crate) fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Value, ArithError> {
    if op == BinOp::Add && (matches!(a, Value::Str(_)) || matches!(b, Value::Str(_))) {
        let mut s = a.java_string();
        s.push_str(&b.java_string());
        return checked_string(s);
    }
    if matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) {
        if let (Value::Bool(x), Value::Bool(y)) = (a, b) {
            return Ok(Value::Bool(match op {
                BinOp::BitAnd => x & y,
                BinOp::BitOr => x | y,
                _ => x ^ y,
            }));
        }
    }
    if matches!(a, Value::Null) || matches!(b, Value::Null) {
        return Err(err("null_pointer_exception", format!("Cannot apply [{}] operation to a null value", op.symbol())));
    }
    let (Some(ra), Some(rb)) = (rank(a), rank(b)) else {
        return Err(bad_operands(op.symbol(), a, b));
    };
    if matches!(op, BinOp::Shl | BinOp::Shr | BinOp::Ushr) {
        // Shifts promote each side alone; the result has the left side's type.
        if ra > Rank::Long || rb > Rank::Long {
            return Err(bad_operands(op.symbol(), a, b));
        }
        let dist = as_i64(b);
        return Ok(match a {
            Value::Int(x) => {
                let d = (dist & 0x1f) as u32;
                Value::Int(match op {
                    BinOp::Shl => x.wrapping_shl(d),
                    BinOp::Shr => x.wrapping_shr(d),
                    _ => ((*x as u32) >> d) as i32,
                })
            }
            _ => {
                let x = as_i64(a);
                let d = (dist & 0x3f) as u32;
                Value::Long(match op {
                    BinOp::Shl => x.wrapping_shl(d),
                    BinOp::Shr => x.wrapping_shr(d),
                    _ => ((x as u64) >> d) as i64,
                })
            }
        });
    }
    match ra.max(rb) {
        Rank::Int => {
            let (x, y) = (as_i64(a) as i32, as_i64(b) as i32);
            Ok(Value::Int(int_op(op, x, y, a, b)?))
        }
        Rank::Long => Ok(Value::Long(long_op(op, as_i64(a), as_i64(b), a, b)?)),
        Rank::Float => Ok(Value::Float(float_op(op, f64::from(as_f32(a)), f64::from(as_f32(b)), a, b)? as f32)),
        Rank::Double => Ok(Value::Double(float_op(op, as_f64(a), as_f64(b), a, b)?)),
    }
}

fn int_op(op: BinOp, x: i32, y: i32, a: &Value, b: &Value) -> Result<i32, ArithError> {
    Ok(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => {
            if y == 0 {
                return Err(err("arithmetic_exception", "/ by zero".into()));
            }
            x.wrapping_div(y)
        }
        BinOp::Rem => {
            if y == 0 {
                return Err(err("arithmetic_exception", "/ by zero".into()));
            }
            x.wrapping_rem(y)
        }
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        _ => return Err(bad_operands(op.symbol(), a, b)),
    })
}

fn long_op(op: BinOp, x: i64, y: i64, a: &Value, b: &Value) -> Result<i64, ArithError> {
    Ok(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => {
            if y == 0 {
                return Err(err("arithmetic_exception", "/ by zero".into()));
            }
            x.wrapping_div(y)
        }
        BinOp::Rem => {
            if y == 0 {
                return Err(err("arithmetic_exception", "/ by zero".into()));
            }
            x.wrapping_rem(y)
        }
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        _ => return Err(bad_operands(op.symbol(), a, b)),
    })
}

fn float_op(op: BinOp, x: f64, y: f64, a: &Value, b: &Value) -> Result<f64, ArithError> {
    Ok(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        // Java's % on doubles is fmod, like Rust's.
        BinOp::Rem => x % y,
        _ => return Err(bad_operands(op.symbol(), a, b)),
    })
}

/// Unary minus (`-Integer.MIN_VALUE` wraps, as in Java).
pub(crate) fn negate(v: &Value) -> Result<Value, ArithError> {
    Ok(match v {
        Value::Int(i) => Value::Int(i.wrapping_neg()),
        Value::Long(l) => Value::Long(l.wrapping_neg()),
        Value::Float(f) => Value::Float(-f),
        Value::Double(d) => Value::Double(-d),
        Value::Null => return Err(err("null_pointer_exception", "Cannot apply [-] operation to a null value".into())),
        other => {
            return Err(err(
                "class_cast_exception",
                format!("Cannot apply [-] operation to type [{}].", other.java_class()),
            ))
        }
    })
}

/// Bitwise complement `~`.
pub(crate) fn complement(v: &Value) -> Result<Value, ArithError> {
    match v {
        Value::Int(i) => Ok(Value::Int(!i)),
        Value::Long(l) => Ok(Value::Long(!l)),
        other => {
            Err(err("class_cast_exception", format!("Cannot apply [~] operation to type [{}].", other.java_class())))
        }
    }
}

/// `<`, `<=`, `>`, `>=` on numbers (after promotion).
pub(crate) fn compare(a: &Value, b: &Value, symbol: &str) -> Result<Option<std::cmp::Ordering>, ArithError> {
    if matches!(a, Value::Null) || matches!(b, Value::Null) {
        return Err(err("null_pointer_exception", format!("Cannot apply [{symbol}] operation to a null value")));
    }
    let (Some(ra), Some(rb)) = (rank(a), rank(b)) else {
        return Err(bad_operands(symbol, a, b));
    };
    if ra.max(rb) <= Rank::Long {
        Ok(Some(as_i64(a).cmp(&as_i64(b))))
    } else {
        Ok(as_f64(a).partial_cmp(&as_f64(b)))
    }
}

/// `==` between two numbers: compare after promotion (so `1 == 1L` and `1 == 1.0`).
pub(crate) fn numeric_eq(a: &Value, b: &Value) -> bool {
    match (rank(a), rank(b)) {
        (Some(ra), Some(rb)) if ra.max(rb) <= Rank::Long => as_i64(a) == as_i64(b),
        (Some(_), Some(_)) => as_f64(a) == as_f64(b),
        _ => false,
    }
}
