//! Recursive-descent parser for the Painless subset, with Painless's operator precedence
//! (multiplicative > additive > shift > relational/instanceof > equality > `&` > `^` > `|` > `&&` >
//! `||` > `?:` ternary > `?:` elvis > assignment). Locals are resolved to slots here, so an unknown
//! name is a compile error, as in Painless. Nesting is bounded by [`MAX_DEPTH`].

use super::arith::BinOp;
use super::ast::{CmpOp, Const, Decl, Expr, ExprKind, StaticClass, Stmt, Type};
use super::error::CompileError;
use super::lexer::{Tok, Token};

/// Deepest nesting of expressions and statements (each chained binary operator counts as one).
pub(crate) const MAX_DEPTH: usize = 64;

/// Binary operators by precedence, loosest first.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!=", "===", "!=="],
    &["<", "<=", ">", ">="],
    &["<<", ">>", ">>>"],
    &["+", "-"],
    &["*", "/", "%"],
];
/// `instanceof` binds like the relational operators.
const INSTANCEOF_LEVEL: usize = 6;

/// A parsed script: its statements, slot count and statement starts (for runtime errors).
#[derive(Debug)]
pub(crate) struct Program {
    pub stmts: Vec<Stmt>,
    /// Declared type of each local slot.
    pub slot_types: Vec<Type>,
    pub statement_starts: Vec<usize>,
}

pub(crate) fn parse(source: &str, tokens: Vec<Token>) -> Result<Program, CompileError> {
    let mut p = Parser { source, tokens, at: 0, scopes: vec![Vec::new()], slot_types: Vec::new(), loops: 0, depth: 0, starts: Vec::new() };
    let mut stmts = Vec::new();
    while p.peek() != &Tok::Eof {
        stmts.push(p.statement(true)?);
    }
    Ok(Program { stmts, slot_types: p.slot_types, statement_starts: p.starts })
}

struct Parser<'s> {
    source: &'s str,
    tokens: Vec<Token>,
    at: usize,
    /// Declared locals per block: name, slot, type.
    scopes: Vec<Vec<(String, usize, Type)>>,
    slot_types: Vec<Type>,
    loops: usize,
    depth: usize,
    starts: Vec<usize>,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Tok {
        self.tokens.get(self.at + n).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn pos(&self) -> usize {
        self.tokens.get(self.at).map_or(self.source.len(), |t| t.pos)
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens.get(self.at).cloned().unwrap_or(Token { tok: Tok::Eof, pos: self.source.len() });
        if self.at < self.tokens.len() {
            self.at += 1;
        }
        t
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }

    fn current_display(&self) -> String {
        let t = self.tokens.get(self.at).cloned().unwrap_or(Token { tok: Tok::Eof, pos: self.source.len() });
        t.display(self.source)
    }

    fn expected(&self, what: &str) -> CompileError {
        CompileError::new(self.pos(), format!("unexpected token [{}] was expecting one of [{what}].", self.current_display()))
    }

    fn invalid_here(&self) -> CompileError {
        if self.peek() == &Tok::Eof {
            CompileError::new(self.pos(), "unexpected end of script.".into())
        } else {
            CompileError::new(self.pos(), format!("invalid sequence of tokens near [{}].", self.current_display()))
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), CompileError> {
        if self.eat(p) { Ok(()) } else { Err(self.expected(&format!("'{p}'"))) }
    }

    fn enter(&mut self) -> Result<(), CompileError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CompileError::new(self.pos(), format!("script is nested too deeply (more than {MAX_DEPTH} levels).")));
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<(usize, Type)> {
        self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|(n, _, _)| n == name).map(|(_, s, t)| (*s, *t))
    }

    fn declare(&mut self, name: String, ty: Type, pos: usize) -> Result<usize, CompileError> {
        if name == "params" || name == "ctx" || self.lookup(&name).is_some() {
            return Err(CompileError::new(pos, format!("variable [{name}] is already defined")));
        }
        let slot = self.slot_types.len();
        self.slot_types.push(ty);
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name, slot, ty));
        }
        Ok(slot)
    }

    /// `Type name` starts a declaration when the first word is a type and the second a name.
    fn at_declaration(&self) -> Option<Type> {
        match (self.peek(), self.peek_at(1)) {
            (Tok::Ident(t), Tok::Ident(_)) if self.lookup(t).is_none() => Type::from_name(t),
            _ => None,
        }
    }

    /// Ends a statement: `;`, or nothing before `}` or the end of the script.
    fn end_statement(&mut self) -> Result<(), CompileError> {
        if self.eat(";") || self.is("}") || self.peek() == &Tok::Eof {
            Ok(())
        } else {
            Err(self.expected("';'"))
        }
    }

    fn statement(&mut self, top: bool) -> Result<Stmt, CompileError> {
        let _ = top;
        self.enter()?;
        let start = self.pos();
        self.starts.push(start);
        let stmt = self.statement_inner()?;
        self.depth -= 1;
        Ok(stmt)
    }

    fn statement_inner(&mut self) -> Result<Stmt, CompileError> {
        let pos = self.pos();
        if self.eat(";") {
            return Ok(Stmt::Empty);
        }
        if self.is("{") {
            return self.block();
        }
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "if" => {
                self.bump();
                self.expect("(")?;
                let cond = self.expression()?;
                self.expect(")")?;
                let then = self.sub_statement()?;
                let otherwise = if self.is_word("else") {
                    self.bump();
                    Some(Box::new(self.sub_statement()?))
                } else {
                    None
                };
                Ok(Stmt::If(cond, Box::new(then), otherwise))
            }
            "while" => {
                self.bump();
                self.expect("(")?;
                let cond = self.expression()?;
                self.expect(")")?;
                let body = self.loop_body()?;
                let cost = body.statement_count().max(1);
                Ok(Stmt::While { cond, body: Box::new(body), cost, pos })
            }
            "do" => {
                self.bump();
                let body = self.loop_body()?;
                if !self.is_word("while") {
                    return Err(self.expected("'while'"));
                }
                self.bump();
                self.expect("(")?;
                let cond = self.expression()?;
                self.expect(")")?;
                self.end_statement()?;
                let cost = body.statement_count().max(1);
                Ok(Stmt::DoWhile { body: Box::new(body), cond, cost, pos })
            }
            "for" => self.for_statement(pos),
            "break" | "continue" => {
                self.bump();
                if self.loops == 0 {
                    let what = if word == "break" { "Break" } else { "Continue" };
                    return Err(CompileError::new(pos, format!("{what} statement outside of a loop.")));
                }
                self.end_statement()?;
                Ok(if word == "break" { Stmt::Break } else { Stmt::Continue })
            }
            "return" => {
                self.bump();
                let value = if self.is(";") || self.is("}") || self.peek() == &Tok::Eof { None } else { Some(self.expression()?) };
                self.end_statement()?;
                Ok(Stmt::Return(value))
            }
            "try" | "throw" | "catch" => Err(CompileError::new(pos, format!("[{word}] is not supported by this Painless subset."))),
            _ => {
                if let Some(ty) = self.at_declaration() {
                    let decls = self.declaration(ty)?;
                    self.end_statement()?;
                    return Ok(Stmt::Decl(decls));
                }
                let e = self.expression()?;
                self.end_statement()?;
                Ok(Stmt::Expr(e))
            }
        }
    }

    /// The body of `if`/`else`/loops: a statement in its own scope.
    fn sub_statement(&mut self) -> Result<Stmt, CompileError> {
        self.scopes.push(Vec::new());
        let s = self.statement(false);
        self.scopes.pop();
        s
    }

    fn loop_body(&mut self) -> Result<Stmt, CompileError> {
        self.loops += 1;
        let body = if self.eat(";") { Ok(Stmt::Empty) } else { self.sub_statement() };
        self.loops -= 1;
        body
    }

    fn block(&mut self) -> Result<Stmt, CompileError> {
        self.expect("{")?;
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        while !self.is("}") {
            if self.peek() == &Tok::Eof {
                self.scopes.pop();
                return Err(self.expected("'}'"));
            }
            match self.statement(false) {
                Ok(s) => stmts.push(s),
                Err(e) => {
                    self.scopes.pop();
                    return Err(e);
                }
            }
        }
        self.bump();
        self.scopes.pop();
        Ok(Stmt::Block(stmts))
    }

    fn declaration(&mut self, ty: Type) -> Result<Vec<Decl>, CompileError> {
        self.bump(); // the type
        let mut decls = Vec::new();
        loop {
            let pos = self.pos();
            let name = match self.bump().tok {
                Tok::Ident(n) => n,
                _ => return Err(CompileError::new(pos, "invalid declaration: expected a variable name.".into())),
            };
            // The initializer cannot see the variable it declares.
            let init = if self.eat("=") { Some(self.expression()?) } else { None };
            let slot = self.declare(name, ty, pos)?;
            decls.push(Decl { slot, ty, init, pos });
            if !self.eat(",") {
                return Ok(decls);
            }
        }
    }

    fn for_statement(&mut self, pos: usize) -> Result<Stmt, CompileError> {
        self.bump();
        self.expect("(")?;
        self.scopes.push(Vec::new());
        let result = self.for_rest(pos);
        self.scopes.pop();
        result
    }

    fn for_rest(&mut self, pos: usize) -> Result<Stmt, CompileError> {
        // for (Type x : iterable) / for (x in iterable)
        let each = match (self.peek(), self.peek_at(1), self.peek_at(2)) {
            (Tok::Ident(t), Tok::Ident(_), Tok::Punct(":")) => Some(Type::from_name(t).ok_or_else(|| {
                CompileError::new(self.pos(), format!("cannot resolve type [{t}]"))
            })?),
            (Tok::Ident(_), Tok::Ident(w), _) if w == "in" => Some(Type::Def),
            _ => None,
        };
        if let Some(ty) = each {
            if !matches!(self.peek_at(1), Tok::Ident(w) if w == "in") {
                self.bump(); // the type
            }
            let name_pos = self.pos();
            let name = match self.bump().tok {
                Tok::Ident(n) => n,
                _ => return Err(CompileError::new(name_pos, "invalid declaration: expected a variable name.".into())),
            };
            self.bump(); // ':' or 'in'
            let iterable = self.expression()?;
            self.expect(")")?;
            let slot = self.declare(name, ty, name_pos)?;
            let body = self.loop_body()?;
            let cost = body.statement_count().max(1);
            return Ok(Stmt::ForEach { slot, ty, iterable, body: Box::new(body), cost, pos });
        }
        let init = if self.eat(";") {
            None
        } else {
            let s = if let Some(ty) = self.at_declaration() {
                Stmt::Decl(self.declaration(ty)?)
            } else {
                Stmt::Expr(self.expression()?)
            };
            self.expect(";")?;
            Some(Box::new(s))
        };
        let cond = if self.is(";") { None } else { Some(self.expression()?) };
        self.expect(";")?;
        let mut step = Vec::new();
        if !self.is(")") {
            loop {
                step.push(self.expression()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        let body = self.loop_body()?;
        let cost = body.statement_count().max(1);
        Ok(Stmt::For { init, cond, step, body: Box::new(body), cost, pos })
    }

    // ---- expressions ----

    fn expression(&mut self) -> Result<Expr, CompileError> {
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
                    e = Expr { kind: ExprKind::Call { target: Box::new(e), name, args, null_safe }, pos };
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
                    "ctx" => Ok(Expr { kind: ExprKind::Ctx, pos }),
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
                                    _ => return Err(CompileError::new(name_pos, format!("invalid static access on [{word}]."))),
                                };
                                if self.is("(") {
                                    let args = self.arguments()?;
                                    return Ok(Expr { kind: ExprKind::StaticCall { class, name, args }, pos: name_pos });
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
            return Err(CompileError::new(pos, format!("constructor [{}, <init>/{}] not found", if map { "java.util.HashMap" } else { "java.util.ArrayList" }, args.len())));
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

fn check_assignable(target: &Expr, pos: usize) -> Result<(), CompileError> {
    match &target.kind {
        ExprKind::Local(_) | ExprKind::Index { .. } => Ok(()),
        ExprKind::Field { null_safe: false, .. } => Ok(()),
        ExprKind::Params | ExprKind::Ctx => {
            Err(CompileError::new(pos, "invalid assignment: cannot assign a value to a read-only variable".into()))
        }
        _ => Err(CompileError::new(pos, "invalid assignment: cannot assign a value to this expression".into())),
    }
}
