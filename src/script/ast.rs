//! The syntax tree the parser builds and the interpreter walks. Local variables are resolved to
//! slots at parse time; `pos` fields are byte offsets used for runtime error positions.

use super::arith::BinOp;

/// A declared type. Everything at runtime is a `def` value; the declared type decides how an
/// assignment converts (`int x = 1L` is refused, `double d = 1` widens) and the default value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    Def,
    Bool,
    Byte,
    Short,
    Char,
    Int,
    Long,
    Float,
    Double,
    Str,
    List,
    Map,
    /// `Object`, `Number`, `Collection`, ...: any reference, no conversion.
    Object,
}

impl Type {
    pub(crate) fn from_name(name: &str) -> Option<Type> {
        Some(match name {
            "def" | "var" => Type::Def,
            "boolean" | "Boolean" => Type::Bool,
            "byte" | "Byte" => Type::Byte,
            "short" | "Short" => Type::Short,
            "char" | "Character" => Type::Char,
            "int" | "Integer" => Type::Int,
            "long" | "Long" => Type::Long,
            "float" | "Float" => Type::Float,
            "double" | "Double" => Type::Double,
            "String" | "CharSequence" => Type::Str,
            "List" | "ArrayList" | "Collection" | "Iterable" => Type::List,
            "Map" | "HashMap" | "LinkedHashMap" | "TreeMap" => Type::Map,
            "Object" | "Number" => Type::Object,
            _ => return None,
        })
    }

    pub(crate) fn java_name(self) -> &'static str {
        match self {
            Type::Def => "def",
            Type::Bool => "boolean",
            Type::Byte => "byte",
            Type::Short => "short",
            Type::Char => "char",
            Type::Int => "int",
            Type::Long => "long",
            Type::Float => "float",
            Type::Double => "double",
            Type::Str => "java.lang.String",
            Type::List => "java.util.List",
            Type::Map => "java.util.Map",
            Type::Object => "java.lang.Object",
        }
    }
}

/// Classes whose static members the subset knows (`Math.max`, `Integer.MAX_VALUE`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StaticClass {
    Math,
    Integer,
    Long,
    Double,
    String,
    Boolean,
}

impl StaticClass {
    pub(crate) fn from_name(name: &str) -> Option<StaticClass> {
        Some(match name {
            "Math" => StaticClass::Math,
            "Integer" => StaticClass::Integer,
            "Long" => StaticClass::Long,
            "Double" => StaticClass::Double,
            "String" => StaticClass::String,
            "Boolean" => StaticClass::Boolean,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Const {
    Null,
    Bool(bool),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Str(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Identical,
    NotIdentical,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprKind {
    Const(Const),
    Local(usize),
    Params,
    Ctx,
    /// A read-only variable of the script's context, by its index in the context's list.
    Var(u8),
    ListInit(Vec<Expr>),
    MapInit(Vec<(Expr, Expr)>),
    /// `new ArrayList(...)` / `new HashMap(...)`: `true` for a map.
    New {
        map: bool,
        args: Vec<Expr>,
    },
    Field {
        target: Box<Expr>,
        name: String,
        null_safe: bool,
    },
    Index {
        target: Box<Expr>,
        index: Box<Expr>,
    },
    Call {
        target: Box<Expr>,
        name: String,
        args: Vec<Expr>,
        null_safe: bool,
    },
    StaticCall {
        class: StaticClass,
        name: String,
        args: Vec<Expr>,
    },
    StaticField {
        class: StaticClass,
        name: String,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Complement(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Elvis(Box<Expr>, Box<Expr>),
    Instanceof(Box<Expr>, Type),
    Cast(Type, Box<Expr>),
    /// `target = value` or `target op= value`.
    Assign {
        target: Box<Expr>,
        op: Option<BinOp>,
        value: Box<Expr>,
    },
    /// `++x`, `x--`, ...: `delta` is +1 or -1.
    IncDec {
        target: Box<Expr>,
        delta: i32,
        prefix: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decl {
    pub slot: usize,
    pub ty: Type,
    pub init: Option<Expr>,
    pub pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stmt {
    Expr(Expr),
    Decl(Vec<Decl>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `cost` is what one iteration takes from the loop budget (the body's statement count).
    While {
        cond: Expr,
        body: Box<Stmt>,
        cost: u64,
        pos: usize,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
        cost: u64,
        pos: usize,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Vec<Expr>,
        body: Box<Stmt>,
        cost: u64,
        pos: usize,
    },
    ForEach {
        slot: usize,
        ty: Type,
        iterable: Expr,
        body: Box<Stmt>,
        cost: u64,
        pos: usize,
    },
    Block(Vec<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
    Empty,
}

impl Stmt {
    /// Statements counted by Painless's loop counter for one pass over this statement.
    pub(crate) fn statement_count(&self) -> u64 {
        match self {
            Stmt::Block(stmts) => stmts.iter().map(Stmt::statement_count).sum(),
            Stmt::Empty => 0,
            _ => 1,
        }
    }
}
