//! Tokens of the Painless subset, with byte offsets into the source.
//!
//! Strings follow Painless: `'…'` or `"…"`, where a backslash may only escape the quote or
//! another backslash. Comments are `//` and `/* */`. Regex literals are not lexed (regexes are
//! disabled); `=~` and `==~` are tokens so the parser can say so.

use super::error::CompileError;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    /// `2147483648` / `9223372036854775808L`: valid only right after a unary minus.
    IntMin,
    LongMin,
    Str(String),
    /// Punctuation and operators, as written (`+=`, `?.`, `>>>=`, ...).
    Punct(&'static str),
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    /// Byte offset of the token's first character.
    pub pos: usize,
}

impl Token {
    /// How ANTLR shows a token in Painless's messages (`'<EOF>'`, `'foo'`).
    pub(crate) fn display(&self, source: &str) -> String {
        match &self.tok {
            Tok::Eof => "'<EOF>'".to_string(),
            Tok::Punct(p) => format!("'{p}'"),
            _ => {
                let rest = source.get(self.pos..).unwrap_or("");
                let end = token_end(rest);
                format!("'{}'", &rest[..end])
            }
        }
    }
}

/// Length in bytes of the word-like token at the start of `rest` (for error display only).
fn token_end(rest: &str) -> usize {
    let mut chars = rest.char_indices();
    match chars.next() {
        Some((_, q @ ('\'' | '"'))) => {
            let mut escaped = false;
            for (i, c) in chars {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    return i + c.len_utf8();
                }
            }
            rest.len()
        }
        Some(_) => rest
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '.'))
            .map_or(rest.len(), |(i, _)| i.max(1)),
        None => 0,
    }
}

/// Operators, longest first so that `>>>=` wins over `>>`.
const PUNCTS: &[&str] = &[
    ">>>=", "===", "!==", ">>>", "<<=", ">>=", "==~", "?.", "?:", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "=~", "->", "::", "{", "}", "[", "]", "(", ")", ".", ",",
    ";", "?", ":", "!", "~", "*", "/", "%", "+", "-", "<", ">", "=", "&", "|", "^",
];

pub(crate) fn lex(source: &str) -> Result<Vec<Token>, CompileError> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if source[i..].starts_with("//") {
            i = source[i..].find('\n').map_or(bytes.len(), |n| i + n + 1);
            continue;
        }
        if source[i..].starts_with("/*") {
            match source[i + 2..].find("*/") {
                Some(n) => i = i + 2 + n + 2,
                None => return Err(unexpected_char(source, i)),
            }
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token { tok: Tok::Ident(source[start..i].to_string()), pos: start });
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let (tok, end) = lex_number(source, start)?;
            out.push(Token { tok, pos: start });
            i = end;
            continue;
        }
        if c == b'\'' || c == b'"' {
            let (s, end) = lex_string(source, start)?;
            out.push(Token { tok: Tok::Str(s), pos: start });
            i = end;
            continue;
        }
        match PUNCTS.iter().find(|p| source[i..].starts_with(**p)) {
            Some(p) => {
                out.push(Token { tok: Tok::Punct(p), pos: start });
                i += p.len();
            }
            None => return Err(unexpected_char(source, i)),
        }
    }
    out.push(Token { tok: Tok::Eof, pos: source.len() });
    Ok(out)
}

fn unexpected_char(source: &str, at: usize) -> CompileError {
    let shown = source[at..].chars().next().map(String::from).unwrap_or_default();
    CompileError::new(at, format!("unexpected character [{shown}]."))
}

fn lex_string(source: &str, start: usize) -> Result<(String, usize), CompileError> {
    let bytes = source.as_bytes();
    let quote = bytes[start];
    let mut out = String::new();
    let mut i = start + 1;
    let mut run = i;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\\' {
            match bytes.get(i + 1) {
                Some(&n) if n == quote || n == b'\\' => {
                    out.push_str(&source[run..i]);
                    out.push(n as char);
                    i += 2;
                    run = i;
                }
                _ => return Err(unexpected_char(source, start)),
            }
        } else if b == quote {
            out.push_str(&source[run..i]);
            return Ok((out, i + 1));
        } else {
            i += 1;
        }
    }
    Err(unexpected_char(source, start))
}

fn lex_number(source: &str, start: usize) -> Result<(Tok, usize), CompileError> {
    let bytes = source.as_bytes();
    let mut i = start;
    let bad = |msg: String| CompileError::new(start, msg);
    if source[start..].starts_with("0x") || source[start..].starts_with("0X") {
        i += 2;
        while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
            i += 1;
        }
        let digits = &source[start + 2..i];
        let long = bytes.get(i).is_some_and(|b| *b == b'l' || *b == b'L');
        let end = if long { i + 1 } else { i };
        let v = u64::from_str_radix(digits, 16)
            .map_err(|_| bad(format!("Invalid int constant [{}].", &source[start..end])))?;
        return if long {
            Ok((Tok::Long(v as i64), end))
        } else if v <= u64::from(u32::MAX) {
            Ok((Tok::Int(v as u32 as i32), end))
        } else {
            Err(bad(format!("Invalid int constant [{}].", &source[start..end])))
        };
    }
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let mut decimal = false;
    if i < bytes.len() && bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        decimal = true;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            decimal = true;
            i = j;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let text = &source[start..i];
    let suffix = bytes.get(i).map(|b| b.to_ascii_lowercase());
    match suffix {
        Some(b'f') => {
            let v: f32 = text.parse().map_err(|_| bad(format!("Invalid float constant [{text}].")))?;
            Ok((Tok::Float(v), i + 1))
        }
        Some(b'd') => {
            let v: f64 = text.parse().map_err(|_| bad(format!("Invalid double constant [{text}].")))?;
            Ok((Tok::Double(v), i + 1))
        }
        Some(b'l') if !decimal => {
            let v = parse_integer(text).ok_or_else(|| bad(format!("Invalid long constant [{text}L].")))?;
            Ok((if v == i64::MIN { Tok::LongMin } else { Tok::Long(v) }, i + 1))
        }
        _ if decimal => {
            let v: f64 = text.parse().map_err(|_| bad(format!("Invalid double constant [{text}].")))?;
            Ok((Tok::Double(v), i))
        }
        _ => {
            let v = parse_integer(text).ok_or_else(|| bad(format!("Invalid int constant [{text}].")))?;
            // 2147483648 is only valid after a unary minus; the parser folds `-` into the literal.
            if v == i64::from(i32::MAX) + 1 {
                return Ok((Tok::IntMin, i));
            }
            let v = i32::try_from(v).map_err(|_| bad(format!("Invalid int constant [{text}].")))?;
            Ok((Tok::Int(v), i))
        }
    }
}

/// Decimal, or octal with a leading zero (as in Java).
fn parse_integer(text: &str) -> Option<i64> {
    if text.len() > 1 && text.starts_with('0') {
        i64::from_str_radix(&text[1..], 8).ok()
    } else {
        // Allow up to 2^63 so that `-9223372036854775808L` folds; the parser checks the sign.
        text.parse::<u64>().ok().filter(|v| *v <= 1u64 << 63).map(|v| v as i64)
    }
}
