//! ASCII folding (Lucene's `ASCIIFoldingFilter`) for the Latin letters, ligatures and
//! punctuation text actually contains: Latin-1, Latin Extended-A, common Extended-B letters,
//! quotes, dashes, fullwidth ASCII. Characters outside the table are kept.

/// The base letters of U+0100..=U+017F, `*` where the folding is more than one character.
const LATIN_EXTENDED_A: &str = "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIi**JjKkqLlLlLlLlLlNnNnNn*NnOoOoOo**RrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs";

/// The ASCII folding of `c`, or None when `c` folds to itself.
pub fn fold_char(c: char) -> Option<&'static str> {
    const LETTERS: [&str; 64] = [
        "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I", "D", "N", "O", "O", "O", "O", "O",
        "×", "O", "U", "U", "U", "U", "Y", "TH", "ss", "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i",
        "i", "i", "i", "d", "n", "o", "o", "o", "o", "o", "÷", "o", "u", "u", "u", "u", "y", "th", "y",
    ];
    let code = c as u32;
    match code {
        0..=0x7F => None,
        0xC0..=0xFF => {
            let folded = LETTERS.get((code - 0xC0) as usize).copied()?;
            (folded != "×" && folded != "÷").then_some(folded)
        }
        0x100..=0x17F => match code {
            0x132 => Some("IJ"),
            0x133 => Some("ij"),
            0x149 => Some("'n"),
            0x152 => Some("OE"),
            0x153 => Some("oe"),
            _ => LATIN_EXTENDED_A.get((code - 0x100) as usize..(code - 0x100) as usize + 1),
        },
        0x180 => Some("b"),
        0x191 => Some("F"),
        0x192 => Some("f"),
        0x1CD | 0x1DE | 0x1E0 | 0x1FA => Some("A"),
        0x1CE | 0x1DF | 0x1E1 | 0x1FB => Some("a"),
        0x1CF => Some("I"),
        0x1D0 => Some("i"),
        0x1D1 | 0x1EA | 0x1EC | 0x1FE => Some("O"),
        0x1D2 | 0x1EB | 0x1ED | 0x1FF => Some("o"),
        0x1D3 | 0x1D5 | 0x1D7 | 0x1D9 | 0x1DB => Some("U"),
        0x1D4 | 0x1D6 | 0x1D8 | 0x1DA | 0x1DC => Some("u"),
        0x1E6 => Some("G"),
        0x1E7 => Some("g"),
        0x1E8 => Some("K"),
        0x1E9 => Some("k"),
        0x1F0 => Some("j"),
        0x1F4 => Some("G"),
        0x1F5 => Some("g"),
        0x1F8 => Some("N"),
        0x1F9 => Some("n"),
        0x1FC | 0x1E2 => Some("AE"),
        0x1FD | 0x1E3 => Some("ae"),
        0x218 => Some("S"),
        0x219 => Some("s"),
        0x21A => Some("T"),
        0x21B => Some("t"),
        0x2018 | 0x2019 | 0x201A | 0x201B | 0x2032 | 0x2035 | 0x2039 | 0x203A => Some("'"),
        0x201C | 0x201D | 0x201E | 0x2033 | 0x2036 | 0xAB | 0xBB => Some("\""),
        0x2010..=0x2015 | 0x207B | 0x208B => Some("-"),
        0x2026 => Some("..."),
        0x2044 => Some("/"),
        0xFB00 => Some("ff"),
        0xFB01 => Some("fi"),
        0xFB02 => Some("fl"),
        0xFB03 => Some("ffi"),
        0xFB04 => Some("ffl"),
        0xFB06 => Some("st"),
        0xFF01..=0xFF5E => ASCII_PRINTABLE.get((code - 0xFF01 + 1) as usize..(code - 0xFF01 + 2) as usize),
        _ => None,
    }
}

const ASCII_PRINTABLE: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

/// Folds `term`, or None when nothing changes.
pub fn fold(term: &str) -> Option<String> {
    if term.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(term.len());
    let mut changed = false;
    for c in term.chars() {
        match fold_char(c) {
            Some(folded) => {
                out.push_str(folded);
                changed = true;
            }
            None => out.push(c),
        }
    }
    changed.then_some(out)
}
