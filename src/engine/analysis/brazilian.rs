//! Lucene's `BrazilianStemmer` (the `brazilian` stemmer; Apache-2.0), ported with its quirks:
//! the term is lowercased and its accents folded first (a term that is not 3 to 29 characters is
//! left alone; one with a non-letter comes back folded but unstemmed); R1, R2 and RV are computed
//! once, before any suffix is removed; `-logias` and `-ira` (verb) count as removed without
//! changing the term, as in Lucene.

use std::borrow::Cow;

use super::char_classes::is_letter;

#[derive(Clone, Copy)]
enum Region {
    R1,
    R2,
    Rv,
}

enum Action {
    Remove,
    Replace(&'static str),
    /// Lucene computes the replacement and drops it.
    Nothing,
}

/// Step 1: (minimum term length, suffix, region it must lie in, action); `e` marks the `-ira(s)`
/// rules, which also need an `e` before the suffix.
const STEP1: &[(usize, &str, Region, Action, bool)] = {
    use Action::*;
    use Region::*;
    &[
        (0, "uciones", R2, Replace("u"), false),
        (6, "imentos", R2, Remove, false),
        (6, "amentos", R2, Remove, false),
        (6, "adores", R2, Remove, false),
        (6, "adoras", R2, Remove, false),
        (6, "logias", R2, Nothing, false),
        (6, "encias", R2, Replace("ente"), false),
        (6, "amente", R1, Remove, false),
        (6, "idades", R2, Remove, false),
        (5, "acoes", R2, Remove, false),
        (5, "imento", R2, Remove, false),
        (5, "amento", R2, Remove, false),
        (5, "adora", R2, Remove, false),
        (5, "ismos", R2, Remove, false),
        (5, "istas", R2, Remove, false),
        (5, "logia", R2, Replace("log"), false),
        (5, "ucion", R2, Replace("u"), false),
        (5, "encia", R2, Replace("ente"), false),
        (5, "mente", R2, Remove, false),
        (5, "idade", R2, Remove, false),
        (4, "acao", R2, Remove, false),
        (4, "ezas", R2, Remove, false),
        (4, "icos", R2, Remove, false),
        (4, "icas", R2, Remove, false),
        (4, "ismo", R2, Remove, false),
        (4, "avel", R2, Remove, false),
        (4, "ivel", R2, Remove, false),
        (4, "ista", R2, Remove, false),
        (4, "osos", R2, Remove, false),
        (4, "osas", R2, Remove, false),
        (4, "ador", R2, Remove, false),
        (4, "ivas", R2, Remove, false),
        (4, "ivos", R2, Remove, false),
        (4, "iras", Rv, Replace("ir"), true),
        (3, "eza", R2, Remove, false),
        (3, "ico", R2, Remove, false),
        (3, "ica", R2, Remove, false),
        (3, "oso", R2, Remove, false),
        (3, "osa", R2, Remove, false),
        (3, "iva", R2, Remove, false),
        (3, "ivo", R2, Remove, false),
        (3, "ira", Rv, Replace("ir"), true),
    ]
};

/// Step 2 (verb endings in RV), by minimum RV length; all are removed, except that Lucene's
/// `-ira` rule removes `-ava` instead (so nothing).
const STEP2: &[(usize, &[&str])] = &[
    (7, &["issemos", "essemos", "assemos", "ariamos", "eriamos", "iriamos"]),
    (
        6,
        &[
            "iremos", "eremos", "aremos", "avamos", "iramos", "eramos", "aramos", "asseis", "esseis", "isseis",
            "arieis", "erieis", "irieis",
        ],
    ),
    (
        5,
        &[
            "irmos", "iamos", "armos", "ermos", "areis", "ereis", "ireis", "asses", "esses", "isses", "astes", "assem",
            "essem", "issem", "ardes", "erdes", "irdes", "ariam", "eriam", "iriam", "arias", "erias", "irias", "estes",
            "istes", "areis", "aveis",
        ],
    ),
    (
        4,
        &[
            "aria", "eria", "iria", "asse", "esse", "isse", "aste", "este", "iste", "arei", "erei", "irei", "aram",
            "eram", "iram", "avam", "arem", "erem", "irem", "ando", "endo", "indo", "arao", "erao", "irao", "adas",
            "idas", "aras", "eras", "iras", "avas", "ares", "eres", "ires", "ados", "idos", "amos", "emos", "imos",
            "iras", "ieis",
        ],
    ),
    (3, &["ada", "ida", "ara", "era", "ira", "iam", "ado", "ido", "ias", "ais", "eis", "ira", "ear"]),
    (2, &["ia", "ei", "am", "em", "ar", "er", "ir", "as", "es", "is", "eu", "iu", "iu", "ou"]),
];

fn vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// Lucene's `getR1` over characters (`None` is Java's null).
fn r1(value: Option<&[char]>) -> Option<&[char]> {
    let value = value?;
    let i = value.len().checked_sub(1)?;
    let mut j = 0;
    while j < i && !vowel(value[j]) {
        j += 1;
    }
    if j >= i {
        return None;
    }
    while j < i && vowel(value[j]) {
        j += 1;
    }
    if j >= i {
        return None;
    }
    value.get(j + 1..)
}

/// Lucene's `getRV`.
fn rv(value: &[char]) -> Option<&[char]> {
    let i = value.len().checked_sub(1)?;
    if i > 0 && !vowel(value[1]) {
        if let Some(j) = (2..i).find(|&j| vowel(value[j])) {
            return value.get(j + 1..);
        }
    }
    if i > 1 && vowel(value[0]) && vowel(value[1]) {
        if let Some(j) = (2..i).find(|&j| !vowel(value[j])) {
            return value.get(j + 1..);
        }
    }
    if i > 2 {
        return value.get(3..);
    }
    None
}

fn ends(value: Option<&[char]>, suffix: &str) -> bool {
    value.is_some_and(|v| {
        let n = suffix.chars().count();
        n <= v.len() && v[v.len() - n..].iter().copied().eq(suffix.chars())
    })
}

fn remove(ct: &mut Vec<char>, suffix: &str) {
    if ends(Some(ct), suffix) {
        let n = suffix.chars().count();
        ct.truncate(ct.len() - n);
    }
}

fn preceded(value: Option<&[char]>, suffix: &str, before: &str) -> bool {
    match value {
        Some(v) if ends(Some(v), suffix) => ends(Some(&v[..v.len() - suffix.chars().count()]), before),
        _ => false,
    }
}

/// Lucene's `changeTerm` and `createCT`: lowercase, fold accents, trim one punctuation mark at
/// each end.
fn changed_term(term: &str) -> Vec<char> {
    let mut ct: Vec<char> = term
        .to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'â' | 'ã' => 'a',
            'é' | 'ê' => 'e',
            'í' => 'i',
            'ó' | 'ô' | 'õ' => 'o',
            'ú' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            other => other,
        })
        .collect();
    if ct.len() >= 2 && matches!(ct[0], '"' | '\'' | '-' | ',' | ';' | '.' | '?' | '!') {
        ct.remove(0);
    }
    if ct.len() >= 2 && matches!(ct.last(), Some('-' | ',' | ';' | '.' | '?' | '!' | '\'' | '"')) {
        ct.pop();
    }
    ct
}

/// Lucene's `BrazilianStemmer.stem` as `BrazilianStemFilter` applies it: the term itself when
/// Lucene returns null.
pub fn brazilian(term: &str) -> Cow<'_, str> {
    let mut ct = changed_term(term);
    if !(3..30).contains(&ct.len()) {
        return Cow::Borrowed(term);
    }
    if !ct.iter().all(|&c| is_letter(c)) {
        return Cow::Owned(ct.into_iter().collect());
    }
    let original = ct.clone();
    let r1_region = r1(Some(&original)).map(<[char]>::to_vec);
    let r2_region = r1(r1_region.as_deref()).map(<[char]>::to_vec);
    let rv_region = rv(&original).map(<[char]>::to_vec);
    let region = |r: Region| match r {
        Region::R1 => r1_region.as_deref(),
        Region::R2 => r2_region.as_deref(),
        Region::Rv => rv_region.as_deref(),
    };
    // step 1
    let mut altered = false;
    for (min_len, suffix, r, action, needs_e) in STEP1 {
        if ct.len() >= *min_len
            && ends(Some(&ct), suffix)
            && ends(region(*r), suffix)
            && (!needs_e || preceded(Some(&ct), suffix, "e"))
        {
            match action {
                Action::Remove => remove(&mut ct, suffix),
                Action::Replace(to) => {
                    remove(&mut ct, suffix);
                    ct.extend(to.chars());
                }
                Action::Nothing => {}
            }
            altered = true;
            break;
        }
    }
    // step 2
    let rv_chars = region(Region::Rv);
    if !altered {
        if let Some(v) = rv_chars {
            'groups: for (min_len, suffixes) in STEP2 {
                if v.len() >= *min_len {
                    for suffix in *suffixes {
                        if ends(Some(v), suffix) {
                            if *suffix != "ira" {
                                remove(&mut ct, suffix);
                            }
                            altered = true;
                            break 'groups;
                        }
                    }
                }
            }
        }
    }
    if rv_chars.is_some() {
        if altered {
            // step 3
            if ends(rv_chars, "i") && preceded(rv_chars, "i", "c") {
                remove(&mut ct, "i");
            }
        } else {
            // step 4
            if let Some(s) = ["os", "a", "i", "o"].into_iter().find(|s| ends(rv_chars, s)) {
                remove(&mut ct, s);
            }
        }
        // step 5
        if ends(rv_chars, "e") {
            if preceded(rv_chars, "e", "gu") {
                remove(&mut ct, "e");
                remove(&mut ct, "u");
            } else if preceded(rv_chars, "e", "ci") {
                remove(&mut ct, "e");
                remove(&mut ct, "i");
            } else {
                remove(&mut ct, "e");
            }
        }
    }
    Cow::Owned(ct.into_iter().collect())
}

#[cfg(test)]
#[path = "brazilian_tests.rs"]
mod tests;
