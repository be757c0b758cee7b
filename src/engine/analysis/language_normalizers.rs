//! Small per-language normalizers: Lucene's `ScandinavianNormalizer` (`scandinavian_normalization`,
//! all foldings), `ScandinavianFoldingFilter` (`scandinavian_folding`),
//! `SerbianNormalizationFilter` (`serbian_normalization`), and the `lowercase` filters of
//! `language: irish`, `greek` and `turkish` (`IrishLowerCaseFilter`, `GreekLowerCaseFilter`,
//! `TurkishLowerCaseFilter`).
//!
//! Lucene works on UTF-16 units; the rules match BMP characters only, so working on `char`s is
//! the same, except that Lucene's char-wise lowercasing of the Irish filter leaves supplementary
//! characters alone, which [`irish_lowercase`] does too.

use super::filters::lowercase_char;
use super::token_op::TokenOp;
use super::token_stream::TokenState;

fn is_a(c: char) -> bool {
    matches!(c, 'a' | 'A')
}
fn is_e(c: char) -> bool {
    matches!(c, 'e' | 'E')
}
fn is_o(c: char) -> bool {
    matches!(c, 'o' | 'O')
}

/// Lucene's `ScandinavianNormalizer` with all foldings (AA, AO, AE, OE, OO): `æÆäÄöÖøØ` and
/// `aa`, `ao`, `ae`, `oe`, `oo` to `åÅæÆøØ`.
pub fn scandinavian_normalize(term: &str) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let mut i = 0;
    while i < s.len() {
        let next = s.get(i + 1).copied();
        match (s[i], next) {
            ('ä', _) => s[i] = 'æ',
            ('Ä', _) => s[i] = 'Æ',
            ('ö', _) => s[i] = 'ø',
            ('Ö', _) => s[i] = 'Ø',
            (c @ ('a' | 'A'), Some(n)) if is_a(n) || is_o(n) => {
                s.remove(i + 1);
                s[i] = if c == 'a' { 'å' } else { 'Å' };
            }
            (c @ ('a' | 'A'), Some(n)) if is_e(n) => {
                s.remove(i + 1);
                s[i] = if c == 'a' { 'æ' } else { 'Æ' };
            }
            (c @ ('o' | 'O'), Some(n)) if is_e(n) || is_o(n) => {
                s.remove(i + 1);
                s[i] = if c == 'o' { 'ø' } else { 'Ø' };
            }
            _ => {}
        }
        i += 1;
    }
    s.into_iter().collect()
}

/// Lucene's `ScandinavianFoldingFilter`: `åæäÅÆÄ` to `a`/`A`, `øöØÖ` to `o`/`O`, and the second
/// letter of `aa`, `ae`, `ao`, `oe`, `oo` dropped.
pub fn scandinavian_fold(term: &str) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let mut i = 0;
    while i < s.len() {
        let next = s.get(i + 1).copied();
        match (s[i], next) {
            ('å' | 'ä' | 'æ', _) => s[i] = 'a',
            ('Å' | 'Ä' | 'Æ', _) => s[i] = 'A',
            ('ø' | 'ö', _) => s[i] = 'o',
            ('Ø' | 'Ö', _) => s[i] = 'O',
            ('a' | 'A', Some(n)) if is_a(n) || is_e(n) || is_o(n) => {
                s.remove(i + 1);
            }
            ('o' | 'O', Some(n)) if is_e(n) || is_o(n) => {
                s.remove(i + 1);
            }
            _ => {}
        }
        i += 1;
    }
    s.into_iter().collect()
}

/// Lucene's `SerbianNormalizationFilter` (expects lowercased input): Cyrillic to Latin, then
/// diacritics removed, `đ`/`ђ` to `dj`.
pub fn serbian_normalize(term: &str) -> String {
    let mut out = String::with_capacity(term.len());
    for c in term.chars() {
        let mapped: &str = match c {
            'а' => "a",
            'б' => "b",
            'в' => "v",
            'г' => "g",
            'д' => "d",
            'ђ' | 'đ' => "dj",
            'е' => "e",
            'ж' | 'з' | 'ž' => "z",
            'и' => "i",
            'ј' => "j",
            'к' => "k",
            'л' => "l",
            'љ' => "lj",
            'м' => "m",
            'н' => "n",
            'њ' => "nj",
            'о' => "o",
            'п' => "p",
            'р' => "r",
            'с' => "s",
            'т' => "t",
            'ћ' | 'ц' | 'ч' | 'č' | 'ć' => "c",
            'у' => "u",
            'ф' => "f",
            'х' => "h",
            'џ' => "dz",
            'ш' | 'š' => "s",
            other => {
                out.push(other);
                continue;
            }
        };
        out.push_str(mapped);
    }
    out
}

fn is_upper_irish_vowel(c: char) -> bool {
    matches!(c, 'A' | 'E' | 'I' | 'O' | 'U' | 'Á' | 'É' | 'Í' | 'Ó' | 'Ú')
}

/// Lucene's `IrishLowerCaseFilter`: `nA…`/`tA…` (n-eclipsis, t-prothesis before an upper-case
/// vowel) become `n-a…`/`t-a…`, then lowercase.
pub fn irish_lowercase(term: &str) -> String {
    let mut chars = term.chars();
    let mut out = String::with_capacity(term.len() + 1);
    let (first, second) = (term.chars().next(), term.chars().nth(1));
    if let (Some(first @ ('n' | 't')), Some(second)) = (first, second) {
        if is_upper_irish_vowel(second) {
            out.push(first);
            out.push('-');
            chars.next();
        }
    }
    out.extend(chars.map(|c| if (c as u32) < 0x10000 { lowercase_char(c) } else { c }));
    out
}

/// Lucene's `GreekLowerCaseFilter`: lowercase, final sigma to `σ`, and the tonos and dialytika
/// of vowels removed.
pub fn greek_lowercase(term: &str) -> String {
    term.chars()
        .map(|c| match c {
            'ς' => 'σ',
            'Ά' | 'ά' => 'α',
            'Έ' | 'έ' => 'ε',
            'Ή' | 'ή' => 'η',
            'Ί' | 'Ϊ' | 'ί' | 'ϊ' | 'ΐ' => 'ι',
            'Ύ' | 'Ϋ' | 'ύ' | 'ϋ' | 'ΰ' => 'υ',
            'Ό' | 'ό' => 'ο',
            'Ώ' | 'ώ' => 'ω',
            '\u{03A2}' => 'ς',
            other => lowercase_char(other),
        })
        .collect()
}

/// Whether `c` is a non-spacing mark (Unicode `Mn`, Java's `NON_SPACING_MARK`).
fn is_nonspacing_mark(c: char) -> bool {
    static MN: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let mut buf = [0u8; 4];
    MN.get_or_init(|| regex::Regex::new(r"^\p{Mn}$").ok())
        .as_ref()
        .is_some_and(|mn| mn.is_match(c.encode_utf8(&mut buf)))
}

/// Lucene's `TurkishLowerCaseFilter`: `I` → `ı` unless a combining dot above (U+0307) follows
/// it across non-spacing marks, in which case `I` → `i` and the dot goes; then lowercase.
pub fn turkish_lowercase(term: &str) -> String {
    let s: Vec<char> = term.chars().collect();
    let mut out = String::with_capacity(term.len());
    let mut i_or_after = false;
    for (i, &c) in s.iter().enumerate() {
        i_or_after = c == 'I' || (i_or_after && is_nonspacing_mark(c));
        if i_or_after {
            if c == '\u{0307}' {
                continue;
            }
            if c == 'I' {
                let before_dot = s[i + 1..].iter().take_while(|m| is_nonspacing_mark(**m)).any(|m| *m == '\u{0307}');
                out.push(if before_dot { 'i' } else { 'ı' });
                i_or_after = before_dot;
                continue;
            }
        }
        out.push(lowercase_char(c));
    }
    out
}

fn normalizing(name: &'static str, normalize: fn(&str) -> String) -> TokenOp {
    TokenOp::new(name, true, move |token: &mut TokenState| {
        token.term = normalize(&token.term);
        true
    })
}

/// The `scandinavian_normalization` filter.
pub fn scandinavian_normalization() -> TokenOp {
    normalizing("scandinavian_normalization", scandinavian_normalize)
}

/// The `scandinavian_folding` filter.
pub fn scandinavian_folding() -> TokenOp {
    normalizing("scandinavian_folding", scandinavian_fold)
}

/// The `serbian_normalization` filter.
pub fn serbian_normalization() -> TokenOp {
    normalizing("serbian_normalization", serbian_normalize)
}

/// `lowercase` with `language: irish`.
pub fn irish_lowercase_filter() -> TokenOp {
    normalizing("lowercase", irish_lowercase)
}

/// `lowercase` with `language: turkish`.
pub fn turkish_lowercase_filter() -> TokenOp {
    normalizing("lowercase", turkish_lowercase)
}

/// `lowercase` with `language: greek`.
pub fn greek_lowercase_filter() -> TokenOp {
    normalizing("lowercase", greek_lowercase)
}

#[cfg(test)]
mod tests;
