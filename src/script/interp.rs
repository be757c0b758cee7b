//! The tree-walking interpreter: statements, expressions, assignment places and the loop budget.
//!
//! Every loop iteration takes its body's statement count (at least 1) from a budget of
//! [`MAX_LOOP_COUNTER`] per execution, as Painless's loop counter does; recursion is bounded by the
//! parser's nesting limit, so execution is bounded in time and stack.

use std::collections::BTreeMap;

use super::arith::{self, BinOp};
use super::ast::{CmpOp, Const, Expr, ExprKind, Stmt, Type};
use super::methods;
use super::value::Value;

/// Painless's default `max_loop_counter`.
pub(crate) const MAX_LOOP_COUNTER: u64 = 1_000_000;
/// Most elements one execution may visit in comparisons, copies and conversions (not a Painless
/// limit: it bounds the time of loops over big values, which the loop counter alone does not).
pub(crate) const MAX_WORK: u64 = 200_000_000;

/// A runtime failure at a byte offset, with OpenSearch's name for the Java exception.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RuntimeError {
    pub at: usize,
    pub kind: &'static str,
    pub reason: String,
}

pub(crate) fn fail<T>(at: usize, kind: &'static str, reason: String) -> Result<T, RuntimeError> {
    Err(RuntimeError { at, kind, reason })
}

/// How a statement finished.
#[derive(Debug)]
pub(crate) enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

/// Where an assignment writes.
enum Place {
    Local(usize),
    Map(super::value::MapRef, String),
    List(super::value::ListRef, usize),
}

pub(crate) struct Exec<'p> {
    pub locals: Vec<Value>,
    pub slot_types: &'p [Type],
    pub budget: u64,
    pub params: Value,
    pub ctx: Value,
    /// The context's read-only variables (`ExprKind::Var`); with `doc` set, variable 0 is `doc`.
    pub vars: Vec<Value>,
    pub doc: Option<&'p mut dyn super::doc::DocLookup>,
}

impl Exec<'_> {
    pub(crate) fn run(&mut self, stmts: &[Stmt]) -> Result<Flow, RuntimeError> {
        for s in stmts {
            match self.stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn check_work(at: usize) -> Result<(), RuntimeError> {
        if super::value::work_done() > MAX_WORK {
            return fail(
                at,
                "painless_error",
                format!("The script visited more than {MAX_WORK} values in comparisons, copies and conversions."),
            );
        }
        Ok(())
    }

    fn tick(&mut self, cost: u64, at: usize) -> Result<(), RuntimeError> {
        Self::check_work(at)?;
        self.budget = self.budget.saturating_sub(cost);
        if self.budget == 0 {
            return fail(
                at,
                "painless_error",
                "The maximum number of statements that can be executed in a loop has been reached.".into(),
            );
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Flow, RuntimeError> {
        match s {
            Stmt::Empty => Ok(Flow::Normal),
            Stmt::Expr(e) => {
                self.eval(e)?;
                Ok(Flow::Normal)
            }
            Stmt::Decl(decls) => {
                for d in decls {
                    let v = match &d.init {
                        Some(init) => {
                            let v = self.eval(init)?;
                            implicit_cast(d.ty, v, init.pos)?
                        }
                        None => default_value(d.ty),
                    };
                    self.set_local(d.slot, v);
                }
                Ok(Flow::Normal)
            }
            Stmt::If(cond, then, otherwise) => {
                if self.condition(cond)? {
                    self.stmt(then)
                } else if let Some(o) = otherwise {
                    self.stmt(o)
                } else {
                    Ok(Flow::Normal)
                }
            }
            Stmt::Block(stmts) => self.run(stmts),
            Stmt::Break => Ok(Flow::Break),
            Stmt::Continue => Ok(Flow::Continue),
            Stmt::Return(e) => Ok(Flow::Return(match e {
                Some(e) => self.eval(e)?,
                None => Value::Null,
            })),
            Stmt::While { cond, body, cost, pos } => loop {
                if !self.condition(cond)? {
                    return Ok(Flow::Normal);
                }
                self.tick(*cost, *pos)?;
                match self.stmt(body)? {
                    Flow::Break => return Ok(Flow::Normal),
                    r @ Flow::Return(_) => return Ok(r),
                    Flow::Normal | Flow::Continue => {}
                }
            },
            Stmt::DoWhile { body, cond, cost, pos } => loop {
                self.tick(*cost, *pos)?;
                match self.stmt(body)? {
                    Flow::Break => return Ok(Flow::Normal),
                    r @ Flow::Return(_) => return Ok(r),
                    Flow::Normal | Flow::Continue => {}
                }
                if !self.condition(cond)? {
                    return Ok(Flow::Normal);
                }
            },
            Stmt::For { init, cond, step, body, cost, pos } => {
                if let Some(init) = init {
                    self.stmt(init)?;
                }
                loop {
                    if let Some(cond) = cond {
                        if !self.condition(cond)? {
                            return Ok(Flow::Normal);
                        }
                    }
                    self.tick(*cost, *pos)?;
                    match self.stmt(body)? {
                        Flow::Break => return Ok(Flow::Normal),
                        r @ Flow::Return(_) => return Ok(r),
                        Flow::Normal | Flow::Continue => {}
                    }
                    for e in step {
                        self.eval(e)?;
                    }
                }
            }
            Stmt::ForEach { slot, ty, iterable, body, cost, pos } => {
                let items = match self.eval(iterable)? {
                    // Java iterates a live list; a snapshot avoids holding a borrow across the body.
                    Value::List(l) => {
                        super::value::add_work(l.borrow().len());
                        l.borrow().clone()
                    }
                    Value::Map(_) => {
                        return fail(
                            iterable.pos,
                            "illegal_argument_exception",
                            "Cannot iterate over [java.util.HashMap]".into(),
                        )
                    }
                    Value::Null => {
                        return fail(iterable.pos, "null_pointer_exception", "Cannot iterate over a null value".into())
                    }
                    other => {
                        return fail(
                            iterable.pos,
                            "illegal_argument_exception",
                            format!("Cannot iterate over [{}]", other.java_class()),
                        )
                    }
                };
                for item in items {
                    self.tick(*cost, *pos)?;
                    let item = implicit_cast(*ty, item, *pos)?;
                    self.set_local(*slot, item);
                    match self.stmt(body)? {
                        Flow::Break => return Ok(Flow::Normal),
                        r @ Flow::Return(_) => return Ok(r),
                        Flow::Normal | Flow::Continue => {}
                    }
                }
                Ok(Flow::Normal)
            }
        }
    }

    fn set_local(&mut self, slot: usize, v: Value) {
        if let Some(l) = self.locals.get_mut(slot) {
            *l = v;
        }
    }

    fn condition(&mut self, e: &Expr) -> Result<bool, RuntimeError> {
        match self.eval(e)? {
            Value::Bool(b) => Ok(b),
            Value::Null => {
                fail(e.pos, "null_pointer_exception", "Cannot cast null to a primitive type [boolean].".into())
            }
            other => {
                fail(e.pos, "class_cast_exception", format!("Cannot cast {} to java.lang.Boolean", other.java_class()))
            }
        }
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> Result<Value, RuntimeError> {
        let at = e.pos;
        let lift = |r: Result<Value, arith::ArithError>| r.or_else(|err| fail(at, err.kind, err.reason));
        match &e.kind {
            ExprKind::Const(c) => Ok(match c {
                Const::Null => Value::Null,
                Const::Bool(b) => Value::Bool(*b),
                Const::Int(i) => Value::Int(*i),
                Const::Long(l) => Value::Long(*l),
                Const::Float(f) => Value::Float(*f),
                Const::Double(d) => Value::Double(*d),
                Const::Str(s) => Value::str(s),
            }),
            ExprKind::Local(slot) => Ok(self.locals.get(*slot).cloned().unwrap_or(Value::Null)),
            ExprKind::Params => Ok(self.params.clone()),
            ExprKind::Ctx => Ok(self.ctx.clone()),
            ExprKind::Var(i) => self.var(*i, at),
            ExprKind::ListInit(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval(i)?);
                }
                Ok(Value::new_list(out))
            }
            ExprKind::MapInit(entries) => {
                let mut out = BTreeMap::new();
                for (k, v) in entries {
                    let k = self.eval(k)?.to_key();
                    let v = self.eval(v)?;
                    out.insert(k, v);
                }
                Ok(Value::new_map(out))
            }
            ExprKind::New { map, args } => {
                let arg = match args.first() {
                    Some(a) => Some(self.eval(a)?),
                    None => None,
                };
                methods::construct(*map, arg).or_else(|(kind, reason)| fail(at, kind, reason))
            }
            ExprKind::Field { target, name, null_safe } => {
                if let Some(v) = self.doc_field(target, name, at)? {
                    return Ok(v);
                }
                let t = self.eval(target)?;
                if *null_safe && matches!(t, Value::Null) {
                    return Ok(Value::Null);
                }
                methods::get_field(&t, name).or_else(|(kind, reason)| fail(at, kind, reason))
            }
            ExprKind::Index { target, index } => {
                if self.is_doc(target) {
                    let key = self.eval(index)?;
                    return self.doc_values(&key, at);
                }
                let t = self.eval(target)?;
                let i = self.eval(index)?;
                methods::get_index(&t, &i).or_else(|(kind, reason)| fail(at, kind, reason))
            }
            ExprKind::Call { target, name, args, null_safe } => {
                if let Some(v) = self.doc_call(target, name, args, at)? {
                    return Ok(v);
                }
                let t = self.eval(target)?;
                if *null_safe && matches!(t, Value::Null) {
                    return Ok(Value::Null);
                }
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let r = methods::call(&t, name, vals).or_else(|(kind, reason)| fail(at, kind, reason));
                Self::check_work(at)?;
                r
            }
            ExprKind::StaticCall { class, name, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                methods::call_static(*class, name, vals).or_else(|(kind, reason)| fail(at, kind, reason))
            }
            ExprKind::StaticField { class, name } => {
                methods::static_field(*class, name).or_else(|(kind, reason)| fail(at, kind, reason))
            }
            ExprKind::Neg(inner) => {
                let v = self.eval(inner)?;
                lift(arith::negate(&v))
            }
            ExprKind::Complement(inner) => {
                let v = self.eval(inner)?;
                lift(arith::complement(&v))
            }
            ExprKind::Not(inner) => Ok(Value::Bool(!self.condition(inner)?)),
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                let r = lift(arith::binary(*op, &x, &y));
                Self::check_work(at)?;
                r
            }
            ExprKind::Compare(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                let r = match op {
                    CmpOp::Eq => x.java_equals(&y),
                    CmpOp::Ne => !x.java_equals(&y),
                    CmpOp::Identical => x.java_identical(&y),
                    CmpOp::NotIdentical => !x.java_identical(&y),
                    CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => {
                        let symbol = match op {
                            CmpOp::Lt => "<",
                            CmpOp::Le => "<=",
                            CmpOp::Gt => ">",
                            _ => ">=",
                        };
                        let ord = arith::compare(&x, &y, symbol).or_else(|err| fail(at, err.kind, err.reason))?;
                        match (op, ord) {
                            (_, None) => false, // NaN compares false
                            (CmpOp::Lt, Some(o)) => o.is_lt(),
                            (CmpOp::Le, Some(o)) => o.is_le(),
                            (CmpOp::Gt, Some(o)) => o.is_gt(),
                            (_, Some(o)) => o.is_ge(),
                        }
                    }
                };
                Self::check_work(at)?;
                Ok(Value::Bool(r))
            }
            ExprKind::And(a, b) => Ok(Value::Bool(self.condition(a)? && self.condition(b)?)),
            ExprKind::Or(a, b) => Ok(Value::Bool(self.condition(a)? || self.condition(b)?)),
            ExprKind::Cond(c, a, b) => {
                if self.condition(c)? {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            ExprKind::Elvis(a, b) => match self.eval(a)? {
                Value::Null => self.eval(b),
                v => Ok(v),
            },
            ExprKind::Instanceof(inner, ty) => {
                let v = self.eval(inner)?;
                Ok(Value::Bool(instance_of(&v, *ty)))
            }
            ExprKind::Cast(ty, inner) => {
                let v = self.eval(inner)?;
                explicit_cast(*ty, v, at)
            }
            ExprKind::Assign { target, op, value } => {
                let place = self.place(target)?;
                let rhs = self.eval(value)?;
                let new = match op {
                    None => rhs,
                    Some(op) => {
                        let cur = self.read(&place, at)?;
                        let r = lift(arith::binary(*op, &cur, &rhs))?;
                        self.compound_result(&place, r, at)?
                    }
                };
                self.write(&place, new.clone(), at)?;
                Ok(new)
            }
            ExprKind::IncDec { target, delta, prefix } => {
                let place = self.place(target)?;
                let cur = self.read(&place, at)?;
                let op = if *delta > 0 { BinOp::Add } else { BinOp::Sub };
                let new = lift(arith::binary(op, &cur, &Value::Int(1)))?;
                let new = self.compound_result(&place, new, at)?;
                self.write(&place, new.clone(), at)?;
                Ok(if *prefix { new } else { cur })
            }
        }
    }

    /// Java's compound assignment casts the result back to a typed local's type.
    fn compound_result(&self, place: &Place, v: Value, at: usize) -> Result<Value, RuntimeError> {
        match place {
            Place::Local(slot) => match self.slot_types.get(*slot) {
                Some(ty) if !matches!(ty, Type::Def | Type::Object) => explicit_cast(*ty, v, at),
                _ => Ok(v),
            },
            _ => Ok(v),
        }
    }

    fn place(&mut self, target: &Expr) -> Result<Place, RuntimeError> {
        let at = target.pos;
        match &target.kind {
            ExprKind::Local(slot) => Ok(Place::Local(*slot)),
            ExprKind::Field { target: obj, name, .. } => match self.eval(obj)? {
                Value::Map(m) => Ok(Place::Map(m, name.clone())),
                Value::Null => fail(
                    at,
                    "null_pointer_exception",
                    format!("cannot access method/field [{name}] from a null def reference"),
                ),
                other => fail(
                    at,
                    "illegal_argument_exception",
                    format!("dynamic setter [{}, {name}] not found", other.java_class()),
                ),
            },
            ExprKind::Index { target: obj, index } => {
                let o = self.eval(obj)?;
                let i = self.eval(index)?;
                match o {
                    Value::Map(m) => Ok(Place::Map(m, i.to_key())),
                    Value::List(l) => {
                        let len = l.borrow().len();
                        let idx =
                            methods::list_index(&i, len, true).or_else(|(kind, reason)| fail(at, kind, reason))?;
                        Ok(Place::List(l, idx))
                    }
                    Value::Null => fail(at, "null_pointer_exception", "Cannot store to a null value".into()),
                    other => fail(
                        at,
                        "illegal_argument_exception",
                        format!("Attempting to address a non-array-like type [{}] as an array.", other.java_class()),
                    ),
                }
            }
            _ => fail(at, "illegal_argument_exception", "invalid assignment target".into()),
        }
    }

    fn read(&self, place: &Place, at: usize) -> Result<Value, RuntimeError> {
        Ok(match place {
            Place::Local(slot) => self.locals.get(*slot).cloned().unwrap_or(Value::Null),
            Place::Map(m, k) => m.borrow().get(k).cloned().unwrap_or(Value::Null),
            Place::List(l, i) => match l.borrow().get(*i) {
                Some(v) => v.clone(),
                None => {
                    return fail(
                        at,
                        "index_out_of_bounds_exception",
                        format!("Index {i} out of bounds for length {}", l.borrow().len()),
                    )
                }
            },
        })
    }

    fn write(&mut self, place: &Place, v: Value, at: usize) -> Result<(), RuntimeError> {
        match place {
            Place::Local(slot) => {
                let ty = self.slot_types.get(*slot).copied().unwrap_or(Type::Def);
                let v = implicit_cast(ty, v, at)?;
                self.set_local(*slot, v);
            }
            Place::Map(m, k) => {
                m.borrow_mut().insert(k.clone(), v);
            }
            Place::List(l, i) => {
                let mut list = l.borrow_mut();
                let len = list.len();
                match list.get_mut(*i) {
                    Some(slot) => *slot = v,
                    None => {
                        return fail(
                            at,
                            "index_out_of_bounds_exception",
                            format!("Index {i} out of bounds for length {len}"),
                        )
                    }
                }
            }
        }
        Ok(())
    }
}

pub(crate) fn default_value(ty: Type) -> Value {
    match ty {
        Type::Bool => Value::Bool(false),
        Type::Byte | Type::Short | Type::Char | Type::Int => Value::Int(0),
        Type::Long => Value::Long(0),
        Type::Float => Value::Float(0.0),
        Type::Double => Value::Double(0.0),
        _ => Value::Null,
    }
}

fn instance_of(v: &Value, ty: Type) -> bool {
    match ty {
        Type::Def | Type::Object => !matches!(v, Value::Null),
        Type::Bool => matches!(v, Value::Bool(_)),
        Type::Byte | Type::Short | Type::Char => false,
        Type::Int => matches!(v, Value::Int(_)),
        Type::Long => matches!(v, Value::Long(_)),
        Type::Float => matches!(v, Value::Float(_)),
        Type::Double => matches!(v, Value::Double(_)),
        Type::Str => matches!(v, Value::Str(_)),
        Type::List => matches!(v, Value::List(_)),
        Type::Map => matches!(v, Value::Map(_)),
    }
}

/// An assignment to a typed variable: widening only (`long l = 1` yes, `int i = 1L` no).
pub(crate) fn implicit_cast(ty: Type, v: Value, at: usize) -> Result<Value, RuntimeError> {
    let ok = match (ty, &v) {
        (Type::Def | Type::Object, _) => true,
        (Type::Str, Value::Str(_) | Value::Null) => true,
        (Type::List, Value::List(_) | Value::Null) => true,
        (Type::Map, Value::Map(_) | Value::Null) => true,
        (Type::Bool, Value::Bool(_)) => true,
        (Type::Int | Type::Byte | Type::Short | Type::Char, Value::Int(_)) => true,
        (Type::Long, Value::Int(_) | Value::Long(_)) => return Ok(Value::Long(int_value(&v))),
        (Type::Float, Value::Int(_) | Value::Long(_) | Value::Float(_)) => {
            return Ok(Value::Float(arith::as_f64(&v) as f32))
        }
        (Type::Double, Value::Int(_) | Value::Long(_) | Value::Double(_)) => {
            return Ok(Value::Double(arith::as_f64(&v)))
        }
        (Type::Double, Value::Float(f)) => return Ok(Value::Double(f64::from(*f))),
        _ => false,
    };
    if ok {
        return Ok(v);
    }
    if matches!(v, Value::Null) {
        return fail(
            at,
            "null_pointer_exception",
            format!("Cannot cast null to a primitive type [{}].", ty.java_name()),
        );
    }
    fail(at, "class_cast_exception", format!("Cannot cast {} to {}", v.java_class(), ty.java_name()))
}

fn int_value(v: &Value) -> i64 {
    match v {
        Value::Int(i) => i64::from(*i),
        Value::Long(l) => *l,
        _ => 0,
    }
}

/// `(type) value`: numeric narrowing and widening as Java does, reference types checked.
pub(crate) fn explicit_cast(ty: Type, v: Value, at: usize) -> Result<Value, RuntimeError> {
    let num = v.is_numeric();
    let out = match ty {
        Type::Def | Type::Object => v,
        Type::Int if num => Value::Int(to_i64_java(&v, true) as i32),
        Type::Long if num => Value::Long(to_i64_java(&v, false)),
        Type::Byte if num => Value::Int(i32::from(to_i64_java(&v, true) as i8)),
        Type::Short if num => Value::Int(i32::from(to_i64_java(&v, true) as i16)),
        Type::Char if num => Value::Int(i32::from(to_i64_java(&v, true) as u16)),
        Type::Char => match &v {
            Value::Str(s) if s.encode_utf16().count() == 1 => {
                Value::Int(i32::from(s.encode_utf16().next().unwrap_or(0)))
            }
            _ => return implicit_cast(ty, v, at),
        },
        Type::Float if num => Value::Float(match v {
            Value::Double(d) => d as f32,
            _ => arith::as_f64(&v) as f32,
        }),
        Type::Double if num => Value::Double(arith::as_f64(&v)),
        _ => return implicit_cast(ty, v, at),
    };
    Ok(out)
}

/// Java's `(int)`/`(long)` of any number: floats saturate and NaN is 0 (Rust's `as` agrees);
/// `(int)` of a long keeps the low 32 bits.
fn to_i64_java(v: &Value, to_int: bool) -> i64 {
    match v {
        Value::Int(i) => i64::from(*i),
        Value::Long(l) => *l,
        Value::Float(f) if to_int => i64::from(*f as i32),
        Value::Double(d) if to_int => i64::from(*d as i32),
        Value::Float(f) => *f as i64,
        Value::Double(d) => *d as i64,
        _ => 0,
    }
}
