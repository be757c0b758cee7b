//! Lucene's `GreekStemmer` (Ntais, "Development of a Stemmer for the Greek Language"): the
//! `stemmer` language `greek` and the stemmer of the `greek` analyzer. It expects the output of
//! [`super::language_normalizers::greek_lowercase`] (lowercase, `σ` for final sigma, no tonos).
//!
//! The port keeps Lucene's buffer model: rules shorten a length over the word's characters and
//! some "add back" characters that are still in the buffer past that length, or write new ones
//! there; every write is within the original word. Conditions keep Lucene's operator
//! precedence, including its `len > n && a || b` quirks in rules 0 and 8.

/// The word being stemmed: its characters and the current length.
struct Word {
    s: Vec<char>,
    len: usize,
}

impl Word {
    fn ends(&self, suffix: &str) -> bool {
        let n = suffix.chars().count();
        n <= self.len && self.s[self.len - n..self.len].iter().copied().eq(suffix.chars())
    }
    fn ends_any(&self, suffixes: &[&str]) -> bool {
        suffixes.iter().any(|s| self.ends(s))
    }
    /// Whether the first `len` characters are one of `words` (Lucene's `CharArraySet.contains`).
    fn is(&self, words: &[&str]) -> bool {
        words.iter().any(|w| w.chars().count() == self.len && w.chars().eq(self.s[..self.len].iter().copied()))
    }
    fn ends_with_vowel(&self) -> bool {
        self.len > 0 && matches!(self.s[self.len - 1], 'α' | 'ε' | 'η' | 'ι' | 'ο' | 'υ' | 'ω')
    }
    fn ends_with_vowel_no_y(&self) -> bool {
        self.len > 0 && matches!(self.s[self.len - 1], 'α' | 'ε' | 'η' | 'ι' | 'ο' | 'ω')
    }
    /// Writes `text` as the last characters of the current length (within the buffer).
    fn write_end(&mut self, text: &str) {
        let n = text.chars().count();
        if let Some(start) = self.len.checked_sub(n) {
            for (slot, c) in self.s.iter_mut().skip(start).zip(text.chars()) {
                *slot = c;
            }
        }
    }
    /// Adds back `n` characters still in the buffer.
    fn grow(&mut self, n: usize) {
        self.len = (self.len + n).min(self.s.len());
    }
}

/// Lucene's `GreekStemmer.stem`.
pub fn greek_stem(term: &str) -> String {
    let s: Vec<char> = term.chars().collect();
    if s.len() < 4 {
        return term.to_owned();
    }
    let mut w = Word { len: s.len(), s };
    let original = w.len;
    w.len = rule0(&w);
    rule1(&mut w);
    rule2(&mut w);
    rule3(&mut w);
    rule4(&mut w);
    rule5(&mut w);
    rule6(&mut w);
    rule7(&mut w);
    rule8(&mut w);
    rule9(&mut w);
    rule10(&mut w);
    rule11(&mut w);
    rule12(&mut w);
    rule13(&mut w);
    rule14(&mut w);
    rule15(&mut w);
    rule16(&mut w);
    rule17(&mut w);
    rule18(&mut w);
    rule19(&mut w);
    rule20(&mut w);
    if w.len == original {
        w.len = rule21(&w);
    }
    w.len = rule22(&w);
    w.s[..w.len].iter().collect()
}

fn rule0(w: &Word) -> usize {
    let len = w.len;
    if len > 9 && w.ends_any(&["καθεστωτοσ", "καθεστωτων"]) {
        return len - 4;
    }
    if len > 8 && w.ends_any(&["γεγονοτοσ", "γεγονοτων"]) {
        return len - 4;
    }
    if len > 8 && w.ends("καθεστωτα") {
        return len - 3;
    }
    if len > 7 && w.ends_any(&["τατογιου", "τατογιων"]) {
        return len - 4;
    }
    if len > 7 && w.ends("γεγονοτα") {
        return len - 3;
    }
    if len > 7 && w.ends("καθεστωσ") {
        return len - 2;
    }
    // Lucene: `len > 6 && (a) || b || c ...`
    if (len > 6 && w.ends("σκαγιου"))
        || w.ends_any(&[
            "σκαγιων",
            "ολογιου",
            "ολογιων",
            "κρεατοσ",
            "κρεατων",
            "περατοσ",
            "περατων",
            "τερατοσ",
            "τερατων",
        ])
    {
        return len - 4;
    }
    if len > 6 && w.ends("τατογια") {
        return len - 3;
    }
    if len > 6 && w.ends("γεγονοσ") {
        return len - 2;
    }
    if len > 5 && w.ends_any(&["φαγιου", "φαγιων", "σογιου", "σογιων"]) {
        return len - 4;
    }
    if len > 5 && w.ends_any(&["σκαγια", "ολογια", "κρεατα", "περατα", "τερατα"]) {
        return len - 3;
    }
    if len > 4 && w.ends_any(&["φαγια", "σογια", "φωτοσ", "φωτων"]) {
        return len - 3;
    }
    if len > 4 && w.ends_any(&["κρεασ", "περασ", "τερασ"]) {
        return len - 2;
    }
    if len > 3 && w.ends("φωτα") {
        return len - 2;
    }
    if len > 2 && w.ends("φωσ") {
        return len - 1;
    }
    len
}

fn rule1(w: &mut Word) {
    if w.len > 4 && w.ends_any(&["αδεσ", "αδων"]) {
        w.len -= 4;
        if !w.ends_any(&["οκ", "μαμ", "μαν", "μπαμπ", "πατερ", "γιαγι", "νταντ", "κυρ", "θει", "πεθερ"])
        {
            w.grow(2);
        }
    }
}

fn rule2(w: &mut Word) {
    if w.len > 4 && w.ends_any(&["εδεσ", "εδων"]) {
        w.len -= 4;
        if w.ends_any(&["οπ", "ιπ", "εμπ", "υπ", "γηπ", "δαπ", "κρασπ", "μιλ"]) {
            w.grow(2);
        }
    }
}

fn rule3(w: &mut Word) {
    if w.len > 5 && w.ends_any(&["ουδεσ", "ουδων"]) {
        w.len -= 5;
        if w.ends_any(&[
            "αρκ",
            "καλιακ",
            "πεταλ",
            "λιχ",
            "πλεξ",
            "σκ",
            "σ",
            "φλ",
            "φρ",
            "βελ",
            "λουλ",
            "χν",
            "σπ",
            "τραγ",
            "φε",
        ]) {
            w.grow(3);
        }
    }
}

fn rule4(w: &mut Word) {
    if w.len > 3 && w.ends_any(&["εωσ", "εων"]) {
        w.len -= 3;
        if w.is(&["θ", "δ", "ελ", "γαλ", "ν", "π", "ιδ", "παρ"]) {
            w.grow(1);
        }
    }
}

fn rule5(w: &mut Word) {
    if w.len > 2 && w.ends("ια") {
        w.len -= 2;
        if w.ends_with_vowel() {
            w.grow(1);
        }
    } else if w.len > 3 && w.ends_any(&["ιου", "ιων"]) {
        w.len -= 3;
        if w.ends_with_vowel() {
            w.grow(1);
        }
    }
}

const EXC6: [&str; 36] = [
    "αλ",
    "αδ",
    "ενδ",
    "αμαν",
    "αμμοχαλ",
    "ηθ",
    "ανηθ",
    "αντιδ",
    "φυσ",
    "βρωμ",
    "γερ",
    "εξωδ",
    "καλπ",
    "καλλιν",
    "καταδ",
    "μουλ",
    "μπαν",
    "μπαγιατ",
    "μπολ",
    "μποσ",
    "νιτ",
    "ξικ",
    "συνομηλ",
    "πετσ",
    "πιτσ",
    "πικαντ",
    "πλιατσ",
    "ποστελν",
    "πρωτοδ",
    "σερτ",
    "συναδ",
    "τσαμ",
    "υποδ",
    "φιλον",
    "φυλοδ",
    "χασ",
];

fn rule6(w: &mut Word) {
    let removed = if w.len > 3 && w.ends_any(&["ικα", "ικο"]) {
        w.len -= 3;
        true
    } else if w.len > 4 && w.ends_any(&["ικου", "ικων"]) {
        w.len -= 4;
        true
    } else {
        false
    };
    if removed && (w.ends_with_vowel() || w.is(&EXC6)) {
        w.grow(2);
    }
}

fn rule7(w: &mut Word) {
    if w.len == 5 && w.ends("αγαμε") {
        w.len -= 1;
        return;
    }
    if w.len > 7 && w.ends("ηθηκαμε") {
        w.len -= 7;
    } else if w.len > 6 && w.ends("ουσαμε") {
        w.len -= 6;
    } else if w.len > 5 && w.ends_any(&["αγαμε", "ησαμε", "ηκαμε"]) {
        w.len -= 5;
    }
    if w.len > 3 && w.ends("αμε") {
        w.len -= 3;
        if w.is(&["αναπ", "αποθ", "αποκ", "αποστ", "βουβ", "ξεθ", "ουλ", "πεθ", "πικρ", "ποτ", "σιχ", "χ"])
        {
            w.grow(2);
        }
    }
}

const EXC8B: [&str; 96] = [
    "βετερ",
    "βουλκ",
    "βραχμ",
    "γ",
    "δραδουμ",
    "θ",
    "καλπουζ",
    "καστελ",
    "κορμορ",
    "λαοπλ",
    "μωαμεθ",
    "μ",
    "μουσουλμ",
    "ν",
    "ουλ",
    "π",
    "πελεκ",
    "πλ",
    "πολισ",
    "πορτολ",
    "σαρακατσ",
    "σουλτ",
    "τσαρλατ",
    "ορφ",
    "τσιγγ",
    "τσοπ",
    "φωτοστεφ",
    "χ",
    "ψυχοπλ",
    "αγ",
    "ορφ",
    "γαλ",
    "γερ",
    "δεκ",
    "διπλ",
    "αμερικαν",
    "ουρ",
    "πιθ",
    "πουριτ",
    "σ",
    "ζωντ",
    "ικ",
    "καστ",
    "κοπ",
    "λιχ",
    "λουθηρ",
    "μαιντ",
    "μελ",
    "σιγ",
    "σπ",
    "στεγ",
    "τραγ",
    "τσαγ",
    "φ",
    "ερ",
    "αδαπ",
    "αθιγγ",
    "αμηχ",
    "ανικ",
    "ανοργ",
    "απηγ",
    "απιθ",
    "ατσιγγ",
    "βασ",
    "βασκ",
    "βαθυγαλ",
    "βιομηχ",
    "βραχυκ",
    "διατ",
    "διαφ",
    "ενοργ",
    "θυσ",
    "καπνοβιομηχ",
    "καταγαλ",
    "κλιβ",
    "κοιλαρφ",
    "λιβ",
    "μεγλοβιομηχ",
    "μικροβιομηχ",
    "νταβ",
    "ξηροκλιβ",
    "ολιγοδαμ",
    "ολογαλ",
    "πενταρφ",
    "περηφ",
    "περιτρ",
    "πλατ",
    "πολυδαπ",
    "πολυμηχ",
    "στεφ",
    "ταβ",
    "τετ",
    "υπερηφ",
    "υποκοπ",
    "χαμηλοδαπ",
    "ψηλοταβ",
];

fn rule8(w: &mut Word) {
    // Lucene: `len > 7 && a || b || c` and likewise for 6 and 5
    let removed = if w.len > 8 && w.ends("ιουντανε") {
        w.len -= 8;
        true
    } else if (w.len > 7 && w.ends("ιοντανε")) || w.ends_any(&["ουντανε", "ηθηκανε"]) {
        w.len -= 7;
        true
    } else if (w.len > 6 && w.ends("ιοτανε")) || w.ends_any(&["οντανε", "ουσανε"]) {
        w.len -= 6;
        true
    } else if (w.len > 5 && w.ends("αγανε")) || w.ends_any(&["ησανε", "οτανε", "ηκανε"]) {
        w.len -= 5;
        true
    } else {
        false
    };
    if removed && w.is(&["τρ", "τσ"]) {
        w.grow(4);
        w.write_end("αγαν");
    }
    if w.len > 3 && w.ends("ανε") {
        w.len -= 3;
        if w.ends_with_vowel_no_y() || w.is(&EXC8B) {
            w.grow(2);
        }
    }
}

const EXC9: [&str; 25] = [
    "αβαρ",
    "βεν",
    "εναρ",
    "αβρ",
    "αδ",
    "αθ",
    "αν",
    "απλ",
    "βαρον",
    "ντρ",
    "σκ",
    "κοπ",
    "μπορ",
    "νιφ",
    "παγ",
    "παρακαλ",
    "σερπ",
    "σκελ",
    "συρφ",
    "τοκ",
    "υ",
    "δ",
    "εμ",
    "θαρρ",
    "θ",
];

fn rule9(w: &mut Word) {
    if w.len > 5 && w.ends("ησετε") {
        w.len -= 5;
    }
    if w.len > 3 && w.ends("ετε") {
        w.len -= 3;
        if w.is(&EXC9)
            || w.ends_with_vowel_no_y()
            || w.ends_any(&[
                "οδ",
                "αιρ",
                "φορ",
                "ταθ",
                "διαθ",
                "σχ",
                "ενδ",
                "ευρ",
                "τιθ",
                "υπερθ",
                "ραθ",
                "ενθ",
                "ροθ",
                "σθ",
                "πυρ",
                "αιν",
                "συνδ",
                "συν",
                "συνθ",
                "χωρ",
                "πον",
                "βρ",
                "καθ",
                "ευθ",
                "εκθ",
                "νετ",
                "ρον",
                "αρκ",
                "βαρ",
                "βολ",
                "ωφελ",
            ])
        {
            w.grow(2);
        }
    }
}

fn rule10(w: &mut Word) {
    if w.len > 5 && w.ends_any(&["οντασ", "ωντασ"]) {
        w.len -= 5;
        if w.len == 3 && w.ends("αρχ") {
            w.grow(3);
            set_at_end(w, 3, 'ο');
        }
        if w.ends("κρε") {
            w.grow(3);
            set_at_end(w, 3, 'ω');
        }
    }
}

/// Lucene's `s[len - back] = c`.
fn set_at_end(w: &mut Word, back: usize, c: char) {
    if let Some(slot) = w.len.checked_sub(back).and_then(|i| w.s.get_mut(i)) {
        *slot = c;
    }
}

fn rule11(w: &mut Word) {
    if w.len > 6 && w.ends("ομαστε") {
        w.len -= 6;
        if w.len == 2 && w.ends("ον") {
            w.grow(5);
        }
    } else if w.len > 7 && w.ends("ιομαστε") {
        w.len -= 7;
        if w.len == 2 && w.ends("ον") {
            w.grow(5);
            w.write_end("ομαστ");
        }
    }
}

fn rule12(w: &mut Word) {
    if w.len > 5 && w.ends("ιεστε") {
        w.len -= 5;
        if w.is(&["π", "απ", "συμπ", "ασυμπ", "ακαταπ", "αμεταμφ"]) {
            w.grow(4);
        }
    }
    if w.len > 4 && w.ends("εστε") {
        w.len -= 4;
        if w.is(&["αλ", "αρ", "εκτελ", "ζ", "μ", "ξ", "παρακαλ", "αρ", "προ", "νισ"]) {
            w.grow(3);
        }
    }
}

fn rule13(w: &mut Word) {
    if w.len > 6 && w.ends("ηθηκεσ") {
        w.len -= 6;
    } else if w.len > 5 && w.ends_any(&["ηθηκα", "ηθηκε"]) {
        w.len -= 5;
    }
    let removed = if w.len > 4 && w.ends("ηκεσ") {
        w.len -= 4;
        true
    } else if w.len > 3 && w.ends_any(&["ηκα", "ηκε"]) {
        w.len -= 3;
        true
    } else {
        false
    };
    if removed
        && (w.is(&["διαθ", "θ", "παρακαταθ", "προσθ", "συνθ"])
            || w.ends_any(&["σκωλ", "σκουλ", "ναρθ", "σφ", "οθ", "πιθ"]))
    {
        w.grow(2);
    }
}

const EXC14: [&str; 25] = [
    "φαρμακ",
    "χαδ",
    "αγκ",
    "αναρρ",
    "βρομ",
    "εκλιπ",
    "λαμπιδ",
    "λεχ",
    "μ",
    "πατ",
    "ρ",
    "λ",
    "μεδ",
    "μεσαζ",
    "υποτειν",
    "αμ",
    "αιθ",
    "ανηκ",
    "δεσποζ",
    "ενδιαφερ",
    "δε",
    "δευτερευ",
    "καθαρευ",
    "πλε",
    "τσα",
];

fn rule14(w: &mut Word) {
    let removed = if w.len > 5 && w.ends("ουσεσ") {
        w.len -= 5;
        true
    } else if w.len > 4 && w.ends_any(&["ουσα", "ουσε"]) {
        w.len -= 4;
        true
    } else {
        false
    };
    if removed
        && (w.is(&EXC14)
            || w.ends_with_vowel()
            || w.ends_any(&[
                "ποδαρ",
                "βλεπ",
                "πανταχ",
                "φρυδ",
                "μαντιλ",
                "μαλλ",
                "κυματ",
                "λαχ",
                "ληγ",
                "φαγ",
                "ομ",
                "πρωτ",
            ]))
    {
        w.grow(3);
    }
}

const EXC15A: [&str; 44] = [
    "αβαστ",
    "πολυφ",
    "αδηφ",
    "παμφ",
    "ρ",
    "ασπ",
    "αφ",
    "αμαλ",
    "αμαλλι",
    "ανυστ",
    "απερ",
    "ασπαρ",
    "αχαρ",
    "δερβεν",
    "δροσοπ",
    "ξεφ",
    "νεοπ",
    "νομοτ",
    "ολοπ",
    "ομοτ",
    "προστ",
    "προσωποπ",
    "συμπ",
    "συντ",
    "τ",
    "υποτ",
    "χαρ",
    "αειπ",
    "αιμοστ",
    "ανυπ",
    "αποτ",
    "αρτιπ",
    "διατ",
    "εν",
    "επιτ",
    "κροκαλοπ",
    "σιδηροπ",
    "λ",
    "ναυ",
    "ουλαμ",
    "ουρ",
    "π",
    "τρ",
    "μ",
];

fn rule15(w: &mut Word) {
    let removed = if w.len > 4 && w.ends("αγεσ") {
        w.len -= 4;
        true
    } else if w.len > 3 && w.ends_any(&["αγα", "αγε"]) {
        w.len -= 3;
        true
    } else {
        false
    };
    if removed {
        let cond1 = w.is(&EXC15A) || w.ends_any(&["οφ", "πελ", "χορτ", "λλ", "σφ", "ρπ", "φρ", "πρ", "λοχ", "σμην"]);
        let cond2 = w.is(&["ψοφ", "ναυλοχ"]) || w.ends("κολλ");
        if cond1 && !cond2 {
            w.grow(2);
        }
    }
}

fn rule16(w: &mut Word) {
    let removed = if w.len > 4 && w.ends("ησου") {
        w.len -= 4;
        true
    } else if w.len > 3 && w.ends_any(&["ησε", "ησα"]) {
        w.len -= 3;
        true
    } else {
        false
    };
    if removed && w.is(&["ν", "χερσον", "δωδεκαν", "ερημον", "μεγαλον", "επταν"]) {
        w.grow(2);
    }
}

fn rule17(w: &mut Word) {
    if w.len > 4 && w.ends("ηστε") {
        w.len -= 4;
        if w.is(&["ασβ", "σβ", "αχρ", "χρ", "απλ", "αειμν", "δυσχρ", "ευχρ", "κοινοχρ", "παλιμψ"])
        {
            w.grow(3);
        }
    }
}

fn rule18(w: &mut Word) {
    let removed = if w.len > 6 && w.ends_any(&["ησουνε", "ηθουνε"]) {
        w.len -= 6;
        true
    } else if w.len > 4 && w.ends("ουνε") {
        w.len -= 4;
        true
    } else {
        false
    };
    if removed && w.is(&["ν", "ρ", "σπι", "στραβομουτσ", "κακομουτσ", "εξων"]) {
        w.grow(3);
        w.write_end("ουν");
    }
}

fn rule19(w: &mut Word) {
    let removed = if w.len > 6 && w.ends_any(&["ησουμε", "ηθουμε"]) {
        w.len -= 6;
        true
    } else if w.len > 4 && w.ends("ουμε") {
        w.len -= 4;
        true
    } else {
        false
    };
    if removed && w.is(&["παρασουσ", "φ", "χ", "ωριοπλ", "αζ", "αλλοσουσ", "ασουσ"]) {
        w.grow(3);
        w.write_end("ουμ");
    }
}

fn rule20(w: &mut Word) {
    if w.len > 5 && w.ends_any(&["ματων", "ματοσ"]) {
        w.len -= 3;
    } else if w.len > 4 && w.ends("ματα") {
        w.len -= 2;
    }
}

/// Rule 21's groups: (the word must be longer than, suffixes); the matched suffix is removed.
const RULE21: [(usize, &[&str]); 8] = [
    (9, &["ιοντουσαν"]),
    (8, &["ιομασταν", "ιοσασταν", "ιουμαστε", "οντουσαν"]),
    (
        7,
        &[
            "ιεμαστε",
            "ιεσαστε",
            "ιομουνα",
            "ιοσαστε",
            "ιοσουνα",
            "ιουνται",
            "ιουνταν",
            "ηθηκατε",
            "ομασταν",
            "οσασταν",
            "ουμαστε",
        ],
    ),
    (
        6,
        &["ιομουν", "ιονταν", "ιοσουν", "ηθειτε", "ηθηκαν", "ομουνα", "οσαστε", "οσουνα", "ουνται", "ουνταν", "ουσατε"],
    ),
    (
        5,
        &[
            "αγατε",
            "ιεμαι",
            "ιεται",
            "ιεσαι",
            "ιοταν",
            "ιουμα",
            "ηθεισ",
            "ηθουν",
            "ηκατε",
            "ησατε",
            "ησουν",
            "ομουν",
            "ονται",
            "ονταν",
            "οσουν",
            "ουμαι",
            "ουσαν",
        ],
    ),
    (
        4,
        &[
            "αγαν", "αμαι", "ασαι", "αται", "ειτε", "εσαι", "εται", "ηδεσ", "ηδων", "ηθει", "ηκαν", "ησαν", "ησει",
            "ησεσ", "ομαι", "οταν",
        ],
    ),
    (3, &["αει", "εισ", "ηθω", "ησω", "ουν", "ουσ"]),
    (2, &["αν", "ασ", "αω", "ει", "εσ", "ησ", "οι", "οσ", "ου", "υσ", "ων"]),
];

fn rule21(w: &Word) -> usize {
    for (longer_than, suffixes) in RULE21 {
        if w.len > longer_than && w.ends_any(suffixes) {
            return w.len - longer_than;
        }
    }
    if w.len > 1 && w.ends_with_vowel() {
        return w.len - 1;
    }
    w.len
}

fn rule22(w: &Word) -> usize {
    if w.ends_any(&["εστερ", "εστατ"]) {
        return w.len - 5;
    }
    if w.ends_any(&["οτερ", "οτατ", "υτερ", "υτατ", "ωτερ", "ωτατ"]) {
        return w.len - 4;
    }
    w.len
}

#[cfg(test)]
mod tests;
