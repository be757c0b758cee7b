//! Property tests: random arithmetic against a Rust model of Java's semantics, and random input
//! that must never panic.

use proptest::prelude::*;
use serde_json::{json, Value as Json};

use super::obj;
use crate::script::{Script, UpdateContext};

#[derive(Debug, Clone)]
enum Expr {
    Int(i32),
    Long(i64),
    Double(f64),
    Neg(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    I(i32),
    L(i64),
    D(f64),
}

impl Expr {
    fn render(&self) -> String {
        match self {
            Expr::Int(v) => format!("({v})"),
            Expr::Long(v) => format!("({v}L)"),
            Expr::Double(v) => format!("({v:?})"),
            Expr::Neg(e) => format!("(-{})", e.render()),
            Expr::Bin(op, a, b) => format!("({} {op} {})", a.render(), b.render()),
        }
    }

    /// Java's result, or `None` for an integer division by zero.
    fn model(&self) -> Option<Num> {
        Some(match self {
            Expr::Int(v) => Num::I(*v),
            Expr::Long(v) => Num::L(*v),
            Expr::Double(v) => Num::D(*v),
            Expr::Neg(e) => match e.model()? {
                Num::I(v) => Num::I(v.wrapping_neg()),
                Num::L(v) => Num::L(v.wrapping_neg()),
                Num::D(v) => Num::D(-v),
            },
            Expr::Bin(op, a, b) => {
                let (x, y) = (a.model()?, b.model()?);
                match (x, y) {
                    (Num::D(_), _) | (_, Num::D(_)) => {
                        let (x, y) = (to_f64(x), to_f64(y));
                        Num::D(match op {
                            '+' => x + y,
                            '-' => x - y,
                            '*' => x * y,
                            '/' => x / y,
                            _ => x % y,
                        })
                    }
                    (Num::L(_), _) | (_, Num::L(_)) => {
                        let (x, y) = (to_i64(x), to_i64(y));
                        Num::L(match op {
                            '+' => x.wrapping_add(y),
                            '-' => x.wrapping_sub(y),
                            '*' => x.wrapping_mul(y),
                            '/' => x.checked_div(y).or(if y == 0 { None } else { Some(x.wrapping_div(y)) })?,
                            _ => x.checked_rem(y).or(if y == 0 { None } else { Some(0) })?,
                        })
                    }
                    (Num::I(x), Num::I(y)) => Num::I(match op {
                        '+' => x.wrapping_add(y),
                        '-' => x.wrapping_sub(y),
                        '*' => x.wrapping_mul(y),
                        '/' => x.checked_div(y).or(if y == 0 { None } else { Some(x.wrapping_div(y)) })?,
                        _ => x.checked_rem(y).or(if y == 0 { None } else { Some(0) })?,
                    }),
                }
            }
        })
    }
}

fn to_f64(n: Num) -> f64 {
    match n {
        Num::I(v) => f64::from(v),
        Num::L(v) => v as f64,
        Num::D(v) => v,
    }
}

fn to_i64(n: Num) -> i64 {
    match n {
        Num::I(v) => i64::from(v),
        Num::L(v) => v,
        Num::D(v) => v as i64,
    }
}

fn to_json(n: Num) -> Json {
    match n {
        Num::I(v) => json!(v),
        Num::L(v) => json!(v),
        Num::D(v) => serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number),
    }
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (-5i32..5).prop_map(Expr::Int),
        any::<i32>().prop_map(Expr::Int),
        any::<i64>().prop_map(Expr::Long),
        (-20i32..20).prop_map(|k| Expr::Double(f64::from(k) / 4.0)),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(5, 32, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| Expr::Neg(Box::new(e))),
            (prop::sample::select(vec!['+', '-', '*', '/', '%']), inner.clone(), inner)
                .prop_map(|(op, a, b)| Expr::Bin(op, Box::new(a), Box::new(b))),
        ]
    })
}

/// Tokens from which random, mostly-wrong scripts are built.
const SOUP: &[&str] = &[
    "ctx",
    "_source",
    "params",
    ".",
    "?.",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ";",
    ",",
    ":",
    "?",
    "?:",
    "=",
    "+=",
    "-=",
    "++",
    "--",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    ">",
    "==",
    "!=",
    "===",
    "&&",
    "||",
    "!",
    "~",
    "<<",
    ">>>",
    "&",
    "|",
    "^",
    "if",
    "else",
    "for",
    "while",
    "do",
    "break",
    "continue",
    "return",
    "def",
    "int",
    "long",
    "double",
    "String",
    "List",
    "Map",
    "new",
    "ArrayList",
    "HashMap",
    "x",
    "y",
    "a",
    "tags",
    "add",
    "remove",
    "size",
    "get",
    "put",
    "1",
    "0",
    "-1",
    "2147483647",
    "1.5",
    "1L",
    "'s'",
    "\"t\"",
    "true",
    "false",
    "null",
    "[:]",
    "instanceof",
    "Math",
    "max",
    "in",
];

fn run_any(src: &str) {
    if let Ok(script) = Script::compile(src, None) {
        let mut ctx = UpdateContext::new("i", "1", 1, obj(json!({"a": 1, "tags": ["x"], "x": {"y": [1, 2]}})));
        let params = obj(json!({"x": 2, "a": [1]}));
        let _ = script.execute_update(&mut ctx, &params);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arithmetic_matches_the_java_model(e in expr()) {
        let src = format!("return {}", e.render());
        let script = Script::compile(&src, None).map_err(|err| TestCaseError::fail(format!("{src}: {err}")))?;
        let got = script.execute_ctx(&mut serde_json::Map::new(), &serde_json::Map::new());
        match e.model() {
            Some(n) => prop_assert_eq!(got.map_err(|err| err.to_string()), Ok(to_json(n)), "{}", src),
            None => {
                let err = got.expect_err("division by zero must fail");
                prop_assert_eq!(err.caused_by.map(|c| c.0), Some("arithmetic_exception".to_string()));
            }
        }
    }

    #[test]
    fn arithmetic_in_source_fields_matches_the_model(a in any::<i32>(), b in any::<i32>(), op in prop::sample::select(vec!['+', '-', '*'])) {
        let src = format!("ctx._source.r = ctx._source.a {op} ctx._source.b");
        let script = Script::compile(&src, None).unwrap();
        let mut ctx = UpdateContext::new("i", "1", 1, obj(json!({"a": a, "b": b})));
        script.execute_update(&mut ctx, &serde_json::Map::new()).unwrap();
        let model = Expr::Bin(op, Box::new(Expr::Int(a)), Box::new(Expr::Int(b))).model().unwrap();
        prop_assert_eq!(&ctx.source["r"], &to_json(model));
    }

    #[test]
    fn random_strings_never_panic(chars in prop::collection::vec(any::<char>(), 0..80)) {
        let src: String = chars.into_iter().collect();
        run_any(&src);
    }

    #[test]
    fn random_token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(SOUP.to_vec()), 0..40)) {
        run_any(&tokens.join(" "));
    }

    #[test]
    fn random_prefixes_of_a_valid_script_never_panic(cut in 0usize..200) {
        let src = "def t = ctx._source.tags; if (t != null && !t.contains(params.x)) { t.add(params.x); } \
                   for (int i = 0; i < t.size(); i++) { ctx._source.n = (ctx._source.n ?: 0) + i; } ctx.op = 'index';";
        let end = cut.min(src.len());
        run_any(&src[..end]);
    }
}
