//! Expressions: assignment, elvis, ternary, binary operators by precedence climbing, unary
//! operators and casts, postfix access (`.`, `?.`, `[]`, calls, `++`/`--`), primaries.

use super::{Parser, INSTANCEOF_LEVEL, LEVELS};
use crate::script::arith::BinOp;
use crate::script::ast::{CmpOp, Const, Expr, ExprKind, StaticClass, Type};
use crate::script::error::CompileError;
use crate::script::lexer::Tok;

impl Parser<'_> {
    pub(super) fn expression(&mut self) -> Result<Expr, CompileError> {
        self.enter()?;
        let e = self.assignment();
        self.depth -= 1;
        e
    }

    fn assignment(&mut self) -> Result<Expr, CompileError> {
        let lhs = self.elvis()?;
        let op = match self.peek() {
            Tok::Punct("=") => None,
            Tok::Punct(p) => match compound_op(p) {
                Some(op) => Some(op),
                None => return Ok(lhs),
            },
            _ => return Ok(lhs),
        };
        let pos = self.pos();
        self.bump();
        check_assignable(&lhs, pos)?;
        let value = self.expression()?;
        Ok(Expr { kind: ExprKind::Assign { target: Box::new(lhs), op, value: Box::new(value) }, pos })
    }

    fn elvis(&mut self) -> Result<Expr, CompileError> {
        let lhs = self.ternary()?;
        if self.is("?:") {
            let pos = self.pos();
            self.bump();
            self.enter()?;
            let rhs = self.elvis()?;
            self.depth -= 1;
            return Ok(Expr { kind: ExprKind::Elvis(Box::new(lhs), Box::new(rhs)), pos });
        }
        Ok(lhs)
    }

    fn ternary(&mut self) -> Result<Expr, CompileError> {
        let cond = self.binary(0)?;
        if self.is("?") {
            let pos = self.pos();
            self.bump();
            let a = self.expression()?;
            self.expect(":")?;
            self.enter()?;
            let b = self.ternary()?;
            self.depth -= 1;
            return Ok(Expr { kind: ExprKind::Cond(Box::new(cond), Box::new(a), Box::new(b)), pos });
        }
        Ok(cond)
    }

    /// Left-associative binary operators by precedence climbing: `min` is the loosest level
    /// (index into [`LEVELS`]) this call may consume. One frame per precedence step keeps the
    /// stack shallow.
    fn binary(&mut self, min: usize) -> Result<Expr, CompileError> {
        let mut lhs = self.unary()?;
        let entered = self.depth;
        let result = loop {
            if self.is("=~") || self.is("==~") {
                break Err(CompileError::new(
                    self.pos(),
                    "Regexes are disabled. Set [script.painless.regex.enabled] to [true] in opensearch.yaml to allow them. \
                     Be careful though, regexes break out of Painless's protection against deep recursion and long loops."
                        .into(),
                ));
            }
            let (op, level) = match self.peek() {
                Tok::Punct(p) => match LEVELS.iter().position(|l| l.contains(p)) {
                    Some(level) if level >= min => (*p, level),
                    _ => break Ok(lhs),
                },
                Tok::Ident(w) if w == "instanceof" && INSTANCEOF_LEVEL >= min => ("instanceof", INSTANCEOF_LEVEL),
                _ => break Ok(lhs),
            };
            let pos = self.pos();
            self.bump();
            if let Err(e) = self.enter() {
                break Err(e);
            }
            if op == "instanceof" {
                let ty = match self.bump().tok {
                    Tok::Ident(t) => Type::from_name(&t),
                    _ => None,
                };
                match ty {
                    Some(ty) => lhs = Expr { kind: ExprKind::Instanceof(Box::new(lhs), ty), pos },
                    None => break Err(CompileError::new(pos, "invalid instanceof: unknown type.".into())),
                }
                continue;
            }
            let rhs = match self.binary(level + 1) {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            let (l, r) = (Box::new(lhs), Box::new(rhs));
            let kind = match op {
                "||" => ExprKind::Or(l, r),
                "&&" => ExprKind::And(l, r),
                "==" => ExprKind::Compare(CmpOp::Eq, l, r),
                "!=" => ExprKind::Compare(CmpOp::Ne, l, r),
                "===" => ExprKind::Compare(CmpOp::Identical, l, r),
                "!==" => ExprKind::Compare(CmpOp::NotIdentical, l, r),
                "<" => ExprKind::Compare(CmpOp::Lt, l, r),
                "<=" => ExprKind::Compare(CmpOp::Le, l, r),
                ">" => ExprKind::Compare(CmpOp::Gt, l, r),
                ">=" => ExprKind::Compare(CmpOp::Ge, l, r),
                other => match binop(other) {
                    Some(b) => ExprKind::Binary(b, l, r),
                    None => break Err(CompileError::new(pos, format!("unexpected operator [{other}]"))),
                },
            };
            lhs = Expr { kind, pos };
        };
        self.depth = entered;
        result
    }

    fn unary(&mut self) -> Result<Expr, CompileError> {
        self.enter()?;
        let e = self.unary_inner();
        self.depth -= 1;
        e
    }

    fn unary_inner(&mut self) -> Result<Expr, CompileError> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Punct("!") => {
                self.bump();
                Ok(Expr { kind: ExprKind::Not(Box::new(self.unary()?)), pos })
            }
            Tok::Punct("~") => {
                self.bump();
                Ok(Expr { kind: ExprKind::Complement(Box::new(self.unary()?)), pos })
            }
            Tok::Punct("+") => {
                self.bump();
                self.unary()
            }
            Tok::Punct("-") => {
                self.bump();
                // Fold `-literal` so that -2147483648 and Long.MIN_VALUE literals are valid.
                match self.peek().clone() {
                    Tok::IntMin => {
                        self.bump();
                        return self.postfix(Expr { kind: ExprKind::Const(Const::Int(i32::MIN)), pos });
                    }
                    Tok::LongMin => {
                        self.bump();
                        return self.postfix(Expr { kind: ExprKind::Const(Const::Long(i64::MIN)), pos });
                    }
                    _ => {}
                }
                Ok(Expr { kind: ExprKind::Neg(Box::new(self.unary()?)), pos })
            }
            Tok::Punct(p @ ("++" | "--")) => {
                self.bump();
                let target = self.unary()?;
                check_assignable(&target, pos)?;
                let delta = if p == "++" { 1 } else { -1 };
                Ok(Expr { kind: ExprKind::IncDec { target: Box::new(target), delta, prefix: true }, pos })
            }
            Tok::Punct("(") => {
                // A cast: `(int) x`, `(String) y`.
                if let (Tok::Ident(t), Tok::Punct(")")) = (self.peek_at(1), self.peek_at(2)) {
                    if let (Some(ty), None) = (Type::from_name(t), self.lookup(t)) {
                        self.at += 3;
                        let inner = self.unary()?;
                        return Ok(Expr { kind: ExprKind::Cast(ty, Box::new(inner)), pos });
                    }
                }
                let p = self.primary()?;
                self.postfix(p)
            }
            _ => {
                let p = self.primary()?;
                self.postfix(p)
            }
        }
    }

    fn postfix(&mut self, mut e: Expr) -> Result<Expr, CompileError> {
        let entered = self.depth;
        let result = loop {
            if let Err(err) = self.enter() {
                break Err(err);
            }
            let pos = self.pos();
            let null_safe = self.is("?.");
            if self.is(".") || null_safe {
                self.bump();
                let name = match self.bump().tok {
                    Tok::Ident(n) => n,
                    // `list.0`-style numeric shortcuts are not Painless; say so at the token.
                    _ => {
                        self.at -= 1;
                        break Err(self.invalid_here());
                    }
                };
                if self.is("(") {
                    let args = match self.arguments() {
                        Ok(a) => a,
                        Err(err) => break Err(err),
                    };
                    // The getters of an analysis script's `token` read its fields.
                    let getter = match (&e.kind, args.is_empty()) {
                        (ExprKind::Ctx, true) if self.ctx_name == "token" => token_getter(&name),
                        _ => None,
                    };
                    e = match getter {
                        Some(field) => {
                            Expr { kind: ExprKind::Field { target: Box::new(e), name: field.into(), null_safe }, pos }
                        }
                        None => Expr { kind: ExprKind::Call { target: Box::new(e), name, args, null_safe }, pos },
                    };
                } else {
                    e = Expr { kind: ExprKind::Field { target: Box::new(e), name, null_safe }, pos };
                }
            } else if self.is("[") {
                self.bump();
                let index = match self.expression() {
                    Ok(i) => i,
                    Err(err) => break Err(err),
                };
                if let Err(err) = self.expect("]") {
                    break Err(err);
                }
                e = Expr { kind: ExprKind::Index { target: Box::new(e), index: Box::new(index) }, pos };
            } else if self.is("++") || self.is("--") {
                let delta = if self.is("++") { 1 } else { -1 };
                if let Err(err) = check_assignable(&e, pos) {
                    break Err(err);
                }
                self.bump();
                e = Expr { kind: ExprKind::IncDec { target: Box::new(e), delta, prefix: false }, pos };
            } else {
                break Ok(e);
            }
        };
        self.depth = entered;
        result
    }

    fn arguments(&mut self) -> Result<Vec<Expr>, CompileError> {
        self.expect("(")?;
        let mut args = Vec::new();
        if self.eat(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expression()?);
            if self.eat(")") {
                return Ok(args);
            }
            if !self.eat(",") {
                return Err(self.expected("')', ','"));
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, CompileError> {
        let pos = self.pos();
        let konst = |c: Const| Ok(Expr { kind: ExprKind::Const(c), pos });
        match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                konst(Const::Int(v))
            }
            Tok::Long(v) => {
                self.bump();
                konst(Const::Long(v))
            }
            Tok::Float(v) => {
                self.bump();
                konst(Const::Float(v))
            }
            Tok::Double(v) => {
                self.bump();
                konst(Const::Double(v))
            }
            Tok::IntMin => Err(CompileError::new(pos, "Invalid int constant [2147483648].".into())),
            Tok::LongMin => Err(CompileError::new(pos, "Invalid long constant [9223372036854775808L].".into())),
            Tok::Str(s) => {
                self.bump();
                konst(Const::Str(s))
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.expression()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("[") => self.collection_init(),
            Tok::Ident(word) => {
                self.bump();
                match word.as_str() {
                    "true" => konst(Const::Bool(true)),
                    "false" => konst(Const::Bool(false)),
                    "null" => konst(Const::Null),
                    "params" => Ok(Expr { kind: ExprKind::Params, pos }),
                    w if w == self.ctx_name => Ok(Expr { kind: ExprKind::Ctx, pos }),
                    w if self.vars.contains(&w) && self.lookup(w).is_none() => {
                        let i = self.vars.iter().position(|v| *v == w).unwrap_or(0);
                        self.used_vars |= 1 << i;
                        Ok(Expr { kind: ExprKind::Var(i as u8), pos })
                    }
                    "new" => self.new_expression(pos),
                    _ => {
                        if let Some((slot, _)) = self.lookup(&word) {
                            return Ok(Expr { kind: ExprKind::Local(slot), pos });
                        }
                        if let Some(class) = StaticClass::from_name(&word) {
                            if self.eat(".") {
                                let name_pos = self.pos();
                                let name = match self.bump().tok {
                                    Tok::Ident(n) => n,
                                    _ => {
                                        return Err(CompileError::new(
                                            name_pos,
                                            format!("invalid static access on [{word}]."),
                                        ))
                                    }
                                };
                                if self.is("(") {
                                    let args = self.arguments()?;
                                    return Ok(Expr {
                                        kind: ExprKind::StaticCall { class, name, args },
                                        pos: name_pos,
                                    });
                                }
                                return Ok(Expr { kind: ExprKind::StaticField { class, name }, pos: name_pos });
                            }
                        }
                        Err(CompileError::new(pos, format!("cannot resolve symbol [{word}]")))
                    }
                }
            }
            _ => Err(self.invalid_here()),
        }
    }

    fn new_expression(&mut self, pos: usize) -> Result<Expr, CompileError> {
        let type_pos = self.pos();
        let map = match self.bump().tok {
            Tok::Ident(t) => match t.as_str() {
                "ArrayList" | "LinkedList" => false,
                "HashMap" | "LinkedHashMap" | "TreeMap" => true,
                other => return Err(CompileError::new(type_pos, format!("cannot resolve type [{other}]"))),
            },
            _ => return Err(CompileError::new(type_pos, "invalid new: expected a type.".into())),
        };
        let args = self.arguments()?;
        if args.len() > 1 {
            return Err(CompileError::new(
                pos,
                format!(
                    "constructor [{}, <init>/{}] not found",
                    if map { "java.util.HashMap" } else { "java.util.ArrayList" },
                    args.len()
                ),
            ));
        }
        Ok(Expr { kind: ExprKind::New { map, args }, pos })
    }

    /// `[]`, `[1, 2]`, `[:]`, `['a': 1, 'b': 2]`.
    fn collection_init(&mut self) -> Result<Expr, CompileError> {
        let pos = self.pos();
        self.bump();
        if self.eat("]") {
            return Ok(Expr { kind: ExprKind::ListInit(Vec::new()), pos });
        }
        if self.is(":") && matches!(self.peek_at(1), Tok::Punct("]")) {
            self.at += 2;
            return Ok(Expr { kind: ExprKind::MapInit(Vec::new()), pos });
        }
        let first = self.expression()?;
        if self.eat(":") {
            let value = self.expression()?;
            let mut entries = vec![(first, value)];
            while self.eat(",") {
                let k = self.expression()?;
                self.expect(":")?;
                let v = self.expression()?;
                entries.push((k, v));
            }
            self.expect("]")?;
            return Ok(Expr { kind: ExprKind::MapInit(entries), pos });
        }
        let mut items = vec![first];
        while self.eat(",") {
            items.push(self.expression()?);
        }
        self.expect("]")?;
        Ok(Expr { kind: ExprKind::ListInit(items), pos })
    }
}

fn compound_op(p: &str) -> Option<BinOp> {
    let op = p.strip_suffix('=')?;
    if op.is_empty() || matches!(op, "=" | "!" | "<" | ">" | "==" | "!=") {
        return None;
    }
    binop(op)
}

fn binop(p: &str) -> Option<BinOp> {
    Some(match p {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        ">>>" => BinOp::Ushr,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        _ => return None,
    })
}

/// The field behind a getter of Painless's `AnalysisPredicateScript.Token`.
fn token_getter(name: &str) -> Option<&'static str> {
    Some(match name {
        "getTerm" => "term",
        "getPosition" => "position",
        "getPositionIncrement" => "positionIncrement",
        "getPositionLength" => "positionLength",
        "getStartOffset" => "startOffset",
        "getEndOffset" => "endOffset",
        "getType" => "type",
        "isKeyword" => "keyword",
        _ => return None,
    })
}

fn check_assignable(target: &Expr, pos: usize) -> Result<(), CompileError> {
    match &target.kind {
        ExprKind::Local(_) | ExprKind::Index { .. } => Ok(()),
        ExprKind::Field { null_safe: false, .. } => Ok(()),
        ExprKind::Params | ExprKind::Ctx | ExprKind::Var(_) => {
            Err(CompileError::new(pos, "invalid assignment: cannot assign a value to a read-only variable".into()))
        }
        _ => Err(CompileError::new(pos, "invalid assignment: cannot assign a value to this expression".into())),
    }
}
