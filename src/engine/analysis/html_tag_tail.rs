//! The end of a start tag: the longest match of Lucene's
//! `( "=" \s* OpenTagContent | OpenTagContent )? \s* "/"? ">"`, which is `OpenTagContent ">"`
//! since `=`, `/` and whitespace are tag content too, where
//!
//! ```text
//! OpenTagContent    = ( [^<>] | OpenTagAttribute | ServerSideInclude )*
//! OpenTagAttribute  = \s+ Name \s* "=" \s* ( SingleQuoted | DoubleQuoted )   (on* events too)
//! SingleQuoted      = "'" ( "\\'" | [^']* )* "'"                                (and "…")
//! ServerSideInclude = "<!--#" ( [^'"] | SingleQuoted | DoubleQuoted )* "-->"
//! ```
//!
//! so `<` and `>` may appear only inside quoted attribute values and server-side includes. The
//! automaton is simulated as a set of states (a bit set), like the scanner's DFA, keeping the
//! last accepting `>` until no state is alive.

use super::{is_name_char, is_name_start, MAX_TAG_SCAN};

const FREE: u32 = 1;
const ATTR_SPACE: u32 = 1 << 1;
const ATTR_NAME: u32 = 1 << 2;
const ATTR_AFTER_NAME: u32 = 1 << 3;
const ATTR_EQUALS: u32 = 1 << 4;
const SQ: u32 = 1 << 5;
const SQ_BACKSLASH: u32 = 1 << 6;
const DQ: u32 = 1 << 7;
const DQ_BACKSLASH: u32 = 1 << 8;
const SSI_LT: u32 = 1 << 9;
const SSI_BANG: u32 = 1 << 10;
const SSI_DASH: u32 = 1 << 11;
const SSI_DASH_DASH: u32 = 1 << 12;
const SSI_BODY: u32 = 1 << 13;
const SSI_END_DASH: u32 = 1 << 14;
const SSI_END_DASH_DASH: u32 = 1 << 15;
const SSI_SQ: u32 = 1 << 16;
const SSI_SQ_BACKSLASH: u32 = 1 << 17;
const SSI_DQ: u32 = 1 << 18;
const SSI_DQ_BACKSLASH: u32 = 1 << 19;

/// A quoted string's states on `c`: (inside, after a backslash) → the next set, with `closed`
/// added when the quote closes.
fn quoted(states: u32, inside: u32, backslash: u32, quote: char, closed: u32, c: char) -> u32 {
    let mut next = 0;
    if states & inside != 0 {
        next |= match c {
            '\\' => backslash,
            _ if c == quote => closed,
            _ => inside,
        };
    }
    if states & backslash != 0 {
        next |= match c {
            '\\' => backslash,
            _ if c == quote => closed | inside,
            _ => inside,
        };
    }
    next
}

fn step(states: u32, c: char) -> u32 {
    let mut next = 0;
    let ws = c.is_whitespace();
    if states & FREE != 0 {
        match c {
            '<' => next |= SSI_LT,
            '>' => {}
            _ => next |= FREE | if ws { ATTR_SPACE } else { 0 },
        }
    }
    if states & ATTR_SPACE != 0 {
        if ws {
            next |= ATTR_SPACE;
        } else if is_name_start(c) {
            next |= ATTR_NAME;
        }
    }
    if states & ATTR_NAME != 0 {
        if is_name_char(c) {
            next |= ATTR_NAME;
        } else if ws {
            next |= ATTR_AFTER_NAME;
        } else if c == '=' {
            next |= ATTR_EQUALS;
        }
    }
    if states & ATTR_AFTER_NAME != 0 {
        if ws {
            next |= ATTR_AFTER_NAME;
        } else if c == '=' {
            next |= ATTR_EQUALS;
        }
    }
    if states & ATTR_EQUALS != 0 {
        match c {
            '\'' => next |= SQ,
            '"' => next |= DQ,
            _ if ws => next |= ATTR_EQUALS,
            _ => {}
        }
    }
    next |= quoted(states, SQ, SQ_BACKSLASH, '\'', FREE, c);
    next |= quoted(states, DQ, DQ_BACKSLASH, '"', FREE, c);
    let expect = [
        (SSI_LT, '!', SSI_BANG),
        (SSI_BANG, '-', SSI_DASH),
        (SSI_DASH, '-', SSI_DASH_DASH),
        (SSI_DASH_DASH, '#', SSI_BODY),
    ];
    for (state, wanted, then) in expect {
        if states & state != 0 && c == wanted {
            next |= then;
        }
    }
    if states & SSI_BODY != 0 {
        match c {
            '\'' => next |= SSI_SQ,
            '"' => next |= SSI_DQ,
            '-' => next |= SSI_BODY | SSI_END_DASH,
            _ => next |= SSI_BODY,
        }
    }
    if states & SSI_END_DASH != 0 && c == '-' {
        next |= SSI_END_DASH_DASH;
    }
    if states & SSI_END_DASH_DASH != 0 && c == '>' {
        next |= FREE;
    }
    next |= quoted(states, SSI_SQ, SSI_SQ_BACKSLASH, '\'', SSI_BODY, c);
    next |= quoted(states, SSI_DQ, SSI_DQ_BACKSLASH, '"', SSI_BODY, c);
    next
}

/// The end (just past the `>`) of the longest start-tag tail at `from`, None when there is none
/// within [`MAX_TAG_SCAN`] bytes.
pub(super) fn start_tag_end(text: &str, from: usize) -> Option<usize> {
    let mut states = FREE;
    let mut best = None;
    for (offset, c) in text[from..].char_indices() {
        if offset > MAX_TAG_SCAN {
            break;
        }
        if states & FREE != 0 && c == '>' {
            best = Some(from + offset + 1);
        }
        states = step(states, c);
        if states == 0 {
            break;
        }
    }
    best
}
