//! Jacques Savoy's light stemmers as Lucene implements them (`light_german`, `light_french`,
//! `light_spanish`, `light_italian`, `light_portuguese`), `german_normalization` and `persian_stem`.
//!
//! Each works on the term's characters (Lucene works on UTF-16 units: they differ only for
//! characters outside the BMP, which none of the rules match) and only shortens the term or
//! replaces characters in it. Every index is guarded by a length check just before it.

use super::token_op::TokenOp;
use super::token_stream::TokenState;

/// The `german_normalization` token filter ([`german_normalize`]; usable in normalizers).
pub fn german_normalization() -> TokenOp {
    TokenOp::new("german_normalization", true, |token: &mut TokenState| {
        token.term = german_normalize(&token.term);
        true
    })
}

/// Whether `s[..len]` ends with `suffix`.
fn ends_with(s: &[char], len: usize, suffix: &str) -> bool {
    let n = suffix.chars().count();
    len >= n && s[len - n..len].iter().copied().eq(suffix.chars())
}

fn run(term: &str, stem: impl FnOnce(&mut Vec<char>, usize) -> usize) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let len = s.len();
    let len = stem(&mut s, len).min(s.len());
    s[..len].iter().collect()
}

/// Lucene's `GermanLightStemmer` ("UniNE").
pub fn light_german(term: &str) -> String {
    run(term, |s, len| {
        for c in s.iter_mut() {
            *c = match *c {
                'ä' | 'à' | 'á' | 'â' => 'a',
                'ö' | 'ò' | 'ó' | 'ô' => 'o',
                'ï' | 'ì' | 'í' | 'î' => 'i',
                'ü' | 'ù' | 'ú' | 'û' => 'u',
                other => other,
            };
        }
        let st_ending = |c: char| matches!(c, 'b' | 'd' | 'f' | 'g' | 'h' | 'k' | 'l' | 'm' | 'n' | 't');
        // step 1
        let len = if len > 5 && ends_with(s, len, "ern") {
            len - 3
        } else if len > 4 && s[len - 2] == 'e' && matches!(s[len - 1], 'm' | 'n' | 'r' | 's') {
            len - 2
        } else if len > 3 && s[len - 1] == 'e' {
            len - 1
        } else if len > 3 && s[len - 1] == 's' && st_ending(s[len - 2]) {
            len - 1
        } else {
            len
        };
        // step 2
        if len > 5 && ends_with(s, len, "est") {
            len - 3
        } else if len > 4 && s[len - 2] == 'e' && matches!(s[len - 1], 'r' | 'n') {
            len - 2
        } else if len > 4 && s[len - 2] == 's' && s[len - 1] == 't' && st_ending(s[len - 3]) {
            len - 2
        } else {
            len
        }
    })
}

/// Lucene's `GermanNormalizationFilter`: ä, ö, ü to a, o, u; ß to ss; `ae`, `oe`, `ue` to a, o,
/// u (`ue` not after a vowel or q).
pub fn german_normalize(term: &str) -> String {
    #[derive(PartialEq)]
    enum State {
        Ordinary,
        NoUmlaut,
        Umlaut,
    }
    let mut out = String::with_capacity(term.len());
    let mut state = State::Ordinary;
    for c in term.chars() {
        match c {
            'a' | 'o' => {
                out.push(c);
                state = State::Umlaut;
            }
            'u' => {
                out.push(c);
                state = if state == State::Ordinary { State::Umlaut } else { State::NoUmlaut };
            }
            'e' => {
                if state != State::Umlaut {
                    out.push(c);
                }
                state = State::NoUmlaut;
            }
            'i' | 'q' | 'y' => {
                out.push(c);
                state = State::NoUmlaut;
            }
            'ä' | 'ö' | 'ü' => {
                out.push(match c {
                    'ä' => 'a',
                    'ö' => 'o',
                    _ => 'u',
                });
                state = State::NoUmlaut;
            }
            'ß' => {
                out.push_str("ss");
                state = State::Ordinary;
            }
            other => {
                out.push(other);
                state = State::Ordinary;
            }
        }
    }
    out
}

fn fold_vowels(s: &mut [char]) {
    for c in s.iter_mut() {
        *c = match *c {
            'à' | 'á' | 'â' | 'ä' => 'a',
            'ò' | 'ó' | 'ô' | 'ö' => 'o',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            other => other,
        };
    }
}

/// Lucene's `SpanishLightStemmer` (Savoy, CLEF 2001).
pub fn light_spanish(term: &str) -> String {
    run(term, |s, len| {
        if len < 5 {
            return len;
        }
        fold_vowels(s);
        match s[len - 1] {
            'o' | 'a' | 'e' => len - 1,
            's' if s[len - 2] == 'e' && s[len - 3] == 's' && s[len - 4] == 'e' => len - 2,
            's' if s[len - 2] == 'e' && s[len - 3] == 'c' => {
                s[len - 3] = 'z';
                len - 2
            }
            's' if matches!(s[len - 2], 'o' | 'a' | 'e') => len - 2,
            _ => len,
        }
    })
}

/// Lucene's `ItalianLightStemmer` (Savoy, CLEF 2001).
pub fn light_italian(term: &str) -> String {
    run(term, |s, len| {
        if len < 6 {
            return len;
        }
        fold_vowels(s);
        let before = s[len - 2];
        match s[len - 1] {
            'e' if before == 'i' || before == 'h' => len - 2,
            'i' if before == 'h' || before == 'i' => len - 2,
            'a' | 'o' if before == 'i' => len - 2,
            'e' | 'i' | 'a' | 'o' => len - 1,
            _ => len,
        }
    })
}

/// Lucene's `FrenchLightStemmer` ("UniNE").
pub fn light_french(term: &str) -> String {
    run(term, french_stem)
}

/// Replaces the last `with.len()` characters of `s[..len]` by `with`.
fn set_tail(s: &mut [char], len: usize, with: &str) {
    let n = with.chars().count();
    for (slot, c) in s[len - n..len].iter_mut().zip(with.chars()) {
        *slot = c;
    }
}

fn french_stem(s: &mut Vec<char>, mut len: usize) -> usize {
    if len > 5 && s[len - 1] == 'x' {
        if s[len - 3] == 'a' && s[len - 2] == 'u' && s[len - 4] != 'e' {
            s[len - 2] = 'l';
        }
        len -= 1;
    }
    if len > 3 && s[len - 1] == 'x' {
        len -= 1;
    }
    if len > 3 && s[len - 1] == 's' {
        len -= 1;
    }
    // (length above which it applies, suffix, characters dropped, new tail); `ement` comes third
    const RULES: [(usize, &str, usize, &str); 8] = [
        (9, "issement", 6, "r"),
        (8, "issant", 4, "r"),
        (11, "ficatrice", 5, "er"),
        (10, "ficateur", 4, "er"),
        (9, "catrice", 3, "quer"),
        (8, "cateur", 2, "quer"),
        (8, "atrice", 4, "er"),
        (7, "ateur", 3, "er"),
    ];
    for (i, (min, suffix, drop, tail)) in RULES.iter().enumerate() {
        if i == 2 && len > 6 && ends_with(s, len, "ement") {
            len -= 4;
            if len > 3 && ends_with(s, len, "ive") {
                len -= 1;
                s[len - 1] = 'f';
            }
            return french_norm(s, len);
        }
        if len > *min && ends_with(s, len, suffix) {
            len -= drop;
            set_tail(s, len, tail);
            return french_norm(s, len);
        }
    }
    if len > 6 && ends_with(s, len, "trice") {
        len -= 1;
        set_tail(s, len, "eur");
    }
    if len > 5 && ends_with(s, len, "ième") {
        return french_norm(s, len - 4);
    }
    if len > 7 && ends_with(s, len, "teuse") {
        len -= 2;
        s[len - 1] = 'r';
        return french_norm(s, len);
    }
    if len > 6 && ends_with(s, len, "teur") {
        len -= 1;
        s[len - 1] = 'r';
        return french_norm(s, len);
    }
    if len > 5 && ends_with(s, len, "euse") {
        return french_norm(s, len - 2);
    }
    if len > 8 && ends_with(s, len, "ère") {
        len -= 1;
        s[len - 2] = 'e';
        return french_norm(s, len);
    }
    if len > 7 && ends_with(s, len, "ive") {
        len -= 1;
        s[len - 1] = 'f';
        return french_norm(s, len);
    }
    if len > 4 && (ends_with(s, len, "folle") || ends_with(s, len, "molle")) {
        len -= 2;
        s[len - 1] = 'u';
        return french_norm(s, len);
    }
    if len > 9 && ends_with(s, len, "nnelle") {
        return french_norm(s, len - 5);
    }
    if len > 9 && ends_with(s, len, "nnel") {
        return french_norm(s, len - 3);
    }
    if len > 4 && ends_with(s, len, "ète") {
        len -= 1;
        s[len - 2] = 'e';
    }
    if len > 8 && ends_with(s, len, "ique") {
        len -= 4;
    }
    if len > 8 && ends_with(s, len, "esse") {
        return french_norm(s, len - 3);
    }
    if len > 7 && ends_with(s, len, "inage") {
        return french_norm(s, len - 3);
    }
    if len > 9 && ends_with(s, len, "isation") {
        len -= 7;
        if len > 5 && ends_with(s, len, "ual") {
            s[len - 2] = 'e';
        }
        return french_norm(s, len);
    }
    if len > 9 && ends_with(s, len, "isateur") {
        return french_norm(s, len - 7);
    }
    if len > 8 && (ends_with(s, len, "ation") || ends_with(s, len, "ition")) {
        return french_norm(s, len - 5);
    }
    french_norm(s, len)
}

fn french_norm(s: &mut Vec<char>, mut len: usize) -> usize {
    if len > 4 {
        for c in s[..len].iter_mut() {
            *c = match *c {
                'à' | 'á' | 'â' => 'a',
                'ô' => 'o',
                'è' | 'é' | 'ê' => 'e',
                'ù' | 'û' => 'u',
                'î' => 'i',
                'ç' => 'c',
                other => other,
            };
        }
        // drop a letter equal to the one before it (Lucene's `delete` shifts the rest left)
        s.truncate(len);
        let mut previous: Option<char> = None;
        s.retain(|&c| {
            let doubled = previous == Some(c) && c.is_alphabetic();
            previous = Some(c);
            !doubled
        });
        len = s.len();
    }
    if len > 4 && ends_with(s, len, "ie") {
        len -= 2;
    }
    if len > 4 {
        if s[len - 1] == 'r' {
            len -= 1;
        }
        if s[len - 1] == 'e' {
            len -= 1;
        }
        if s[len - 1] == 'e' {
            len -= 1;
        }
        if s[len - 1] == s[len - 2] && s[len - 1].is_alphabetic() {
            len -= 1;
        }
    }
    len
}

/// Lucene's `PortugueseLightStemmer` ("UniNE"): plural and feminine endings, a final vowel,
/// then accents.
pub fn light_portuguese(term: &str) -> String {
    run(term, |s, len| {
        if len < 4 {
            return len;
        }
        let mut len = portuguese_suffix(s, len);
        if len > 3 && s[len - 1] == 'a' {
            len = portuguese_feminine(s, len);
        }
        if len > 4 && matches!(s[len - 1], 'e' | 'a' | 'o') {
            len -= 1;
        }
        for c in s[..len].iter_mut() {
            *c = match *c {
                'à' | 'á' | 'â' | 'ä' | 'ã' => 'a',
                'ò' | 'ó' | 'ô' | 'ö' | 'õ' => 'o',
                'è' | 'é' | 'ê' | 'ë' => 'e',
                'ù' | 'ú' | 'û' | 'ü' => 'u',
                'ì' | 'í' | 'î' | 'ï' => 'i',
                'ç' => 'c',
                other => other,
            };
        }
        len
    })
}

fn portuguese_suffix(s: &mut [char], len: usize) -> usize {
    if len > 4 && ends_with(s, len, "es") && matches!(s[len - 3], 'r' | 's' | 'l' | 'z') {
        return len - 2;
    }
    if len > 3 && ends_with(s, len, "ns") {
        s[len - 2] = 'm';
        return len - 1;
    }
    if len > 4 && (ends_with(s, len, "eis") || ends_with(s, len, "éis")) {
        set_tail(s, len - 1, "el");
        return len - 1;
    }
    if len > 4 && ends_with(s, len, "ais") {
        s[len - 2] = 'l';
        return len - 1;
    }
    if len > 4 && ends_with(s, len, "óis") {
        set_tail(s, len - 1, "ol");
        return len - 1;
    }
    if len > 4 && ends_with(s, len, "is") {
        s[len - 1] = 'l';
        return len;
    }
    if len > 3 && (ends_with(s, len, "ões") || ends_with(s, len, "ães")) {
        set_tail(s, len - 1, "ão");
        return len - 1;
    }
    if len > 6 && ends_with(s, len, "mente") {
        return len - 5;
    }
    if len > 3 && s[len - 1] == 's' {
        return len - 1;
    }
    len
}

fn portuguese_feminine(s: &mut [char], len: usize) -> usize {
    if len > 7 && (ends_with(s, len, "inha") || ends_with(s, len, "iaca") || ends_with(s, len, "eira")) {
        s[len - 1] = 'o';
        return len;
    }
    if len > 6 {
        if ["osa", "ica", "ida", "ada", "iva", "ama"].iter().any(|suffix| ends_with(s, len, suffix)) {
            s[len - 1] = 'o';
            return len;
        }
        if ends_with(s, len, "ona") {
            set_tail(s, len - 1, "ão");
            return len - 1;
        }
        if ends_with(s, len, "ora") {
            return len - 1;
        }
        if ends_with(s, len, "esa") {
            s[len - 3] = 'ê';
            return len - 1;
        }
        if ends_with(s, len, "na") {
            s[len - 1] = 'o';
            return len;
        }
    }
    len
}

/// Lucene's `PersianStemmer`: strips the suffixes ات, ان, ترین, تر, يي, ي, ها and a zero-width
/// non-joiner, each in turn when at least two characters remain.
pub fn persian_stem(term: &str) -> String {
    const SUFFIXES: [&str; 8] = [
        "\u{0627}\u{062A}",
        "\u{0627}\u{0646}",
        "\u{062A}\u{0631}\u{064A}\u{0646}",
        "\u{062A}\u{0631}",
        "\u{064A}\u{064A}",
        "\u{064A}",
        "\u{0647}\u{0627}",
        "\u{200C}",
    ];
    run(term, |s, mut len| {
        for suffix in SUFFIXES {
            let n = suffix.chars().count();
            if len >= n + 2 && ends_with(s, len, suffix) {
                len -= n;
            }
        }
        len
    })
}

#[cfg(test)]
#[path = "light_stemmers_tests.rs"]
mod tests;
