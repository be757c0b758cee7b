//! Recursive-descent parser for the Painless subset, with Painless's operator precedence
//! (multiplicative > additive > shift > relational/instanceof > equality > `&` > `^` > `|` > `&&` >
//! `||` > `?:` ternary > `?:` elvis > assignment). Locals are resolved to slots here, so an unknown
//! name is a compile error, as in Painless. Nesting is bounded by [`MAX_DEPTH`].

use super::ast::{Decl, Stmt, Type};
use super::error::CompileError;
use super::lexer::{Tok, Token};

mod expressions;

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
    /// Bit `i` set: the script reads `vars[i]`.
    pub used_vars: u32,
}

pub(crate) fn parse(source: &str, tokens: Vec<Token>) -> Result<Program, CompileError> {
    parse_with_context(source, tokens, "ctx")
}

/// Parses a script whose context variable is called `ctx_name` (`token` for analysis scripts).
pub(crate) fn parse_with_context(
    source: &str,
    tokens: Vec<Token>,
    ctx_name: &'static str,
) -> Result<Program, CompileError> {
    parse_with_vars(source, tokens, ctx_name, &[])
}

/// Parses a script with the context variable `ctx_name` and the read-only variables `vars`
/// (`doc`, `_score`, `_value`, `state`, ...): `vars[i]` parses as `ExprKind::Var(i)`.
pub(crate) fn parse_with_vars(
    source: &str,
    tokens: Vec<Token>,
    ctx_name: &'static str,
    vars: &'static [&'static str],
) -> Result<Program, CompileError> {
    let mut p = Parser {
        source,
        tokens,
        at: 0,
        scopes: vec![Vec::new()],
        slot_types: Vec::new(),
        loops: 0,
        depth: 0,
        starts: Vec::new(),
        ctx_name,
        vars,
        used_vars: 0,
    };
    let mut stmts = Vec::new();
    while p.peek() != &Tok::Eof {
        stmts.push(p.statement()?);
    }
    Ok(Program { stmts, slot_types: p.slot_types, statement_starts: p.starts, used_vars: p.used_vars })
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
    /// The name of the context variable (`ctx`, or `token` in analysis scripts).
    ctx_name: &'static str,
    /// The script context's read-only variables.
    vars: &'static [&'static str],
    used_vars: u32,
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
        CompileError::new(
            self.pos(),
            format!("unexpected token [{}] was expecting one of [{what}].", self.current_display()),
        )
    }

    fn invalid_here(&self) -> CompileError {
        if self.peek() == &Tok::Eof {
            CompileError::new(self.pos(), "unexpected end of script.".into())
        } else {
            CompileError::new(self.pos(), format!("invalid sequence of tokens near [{}].", self.current_display()))
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), CompileError> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{p}'")))
        }
    }

    fn enter(&mut self) -> Result<(), CompileError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CompileError::new(
                self.pos(),
                format!("script is nested too deeply (more than {MAX_DEPTH} levels)."),
            ));
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<(usize, Type)> {
        self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|(n, _, _)| n == name).map(|(_, s, t)| (*s, *t))
    }

    fn declare(&mut self, name: String, ty: Type, pos: usize) -> Result<usize, CompileError> {
        if name == "params"
            || name == self.ctx_name
            || self.vars.contains(&name.as_str())
            || self.lookup(&name).is_some()
        {
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

    fn statement(&mut self) -> Result<Stmt, CompileError> {
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
                let value = if self.is(";") || self.is("}") || self.peek() == &Tok::Eof {
                    None
                } else {
                    Some(self.expression()?)
                };
                self.end_statement()?;
                Ok(Stmt::Return(value))
            }
            "try" | "throw" | "catch" => {
                Err(CompileError::new(pos, format!("[{word}] is not supported by this Painless subset.")))
            }
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
        let s = self.statement();
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
            match self.statement() {
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
            (Tok::Ident(t), Tok::Ident(_), Tok::Punct(":")) => Some(
                Type::from_name(t)
                    .ok_or_else(|| CompileError::new(self.pos(), format!("cannot resolve type [{t}]")))?,
            ),
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
}
