//! Snowball's Irish stemmer, transcribed from the code the Snowball compiler generates for
//! `irish.sbl` (as Lucene's `org.tartarus.snowball.ext.IrishStemmer`) by
//! `tests/golden/analysis/snowball/py2rust.py`; runs on [`super::env::Env`].

#![allow(clippy::all, unused_parens, unused_variables, unused_labels)]

use super::among;
use super::env::{Among, Env};

const G_V: &[u16] = &[
    'a' as u16,
    'e' as u16,
    'i' as u16,
    'o' as u16,
    'u' as u16,
    'á' as u16,
    'é' as u16,
    'í' as u16,
    'ó' as u16,
    'ú' as u16,
];

static A_0: [Among; 24] = [
    among!(['b', '\''], -1, 1),
    among!(['b', 'h'], -1, 4),
    among!(['b', 'h', 'f'], 1, 2),
    among!(['b', 'p'], -1, 8),
    among!(['c', 'h'], -1, 5),
    among!(['d', '\''], -1, 1),
    among!(['d', '\'', 'f', 'h'], 5, 2),
    among!(['d', 'h'], -1, 6),
    among!(['d', 't'], -1, 9),
    among!(['f', 'h'], -1, 2),
    among!(['g', 'c'], -1, 5),
    among!(['g', 'h'], -1, 7),
    among!(['h', '-'], -1, 1),
    among!(['m', '\''], -1, 1),
    among!(['m', 'b'], -1, 4),
    among!(['m', 'h'], -1, 10),
    among!(['n', '-'], -1, 1),
    among!(['n', 'd'], -1, 6),
    among!(['n', 'g'], -1, 7),
    among!(['p', 'h'], -1, 8),
    among!(['s', 'h'], -1, 3),
    among!(['t', '-'], -1, 1),
    among!(['t', 'h'], -1, 9),
    among!(['t', 's'], -1, 3),
];

static A_1: [Among; 16] = [
    among!(['í', 'o', 'c', 'h', 't', 'a'], -1, 1),
    among!(['a', 'í', 'o', 'c', 'h', 't', 'a'], 0, 1),
    among!(['i', 'r', 'e'], -1, 2),
    among!(['a', 'i', 'r', 'e'], 2, 2),
    among!(['a', 'b', 'h'], -1, 1),
    among!(['e', 'a', 'b', 'h'], 4, 1),
    among!(['i', 'b', 'h'], -1, 1),
    among!(['a', 'i', 'b', 'h'], 6, 1),
    among!(['a', 'm', 'h'], -1, 1),
    among!(['e', 'a', 'm', 'h'], 8, 1),
    among!(['i', 'm', 'h'], -1, 1),
    among!(['a', 'i', 'm', 'h'], 10, 1),
    among!(['í', 'o', 'c', 'h', 't'], -1, 1),
    among!(['a', 'í', 'o', 'c', 'h', 't'], 12, 1),
    among!(['i', 'r', 'í'], -1, 2),
    among!(['a', 'i', 'r', 'í'], 14, 2),
];

static A_2: [Among; 25] = [
    among!(['ó', 'i', 'd', 'e', 'a', 'c', 'h', 'a'], -1, 6),
    among!(['p', 'a', 't', 'a', 'c', 'h', 'a'], -1, 5),
    among!(['a', 'c', 'h', 't', 'a'], -1, 1),
    among!(['a', 'r', 'c', 'a', 'c', 'h', 't', 'a'], 2, 2),
    among!(['e', 'a', 'c', 'h', 't', 'a'], 2, 1),
    among!(['g', 'r', 'a', 'f', 'a', 'í', 'o', 'c', 'h', 't', 'a'], -1, 4),
    among!(['p', 'a', 'i', 't', 'e'], -1, 5),
    among!(['a', 'c', 'h'], -1, 1),
    among!(['e', 'a', 'c', 'h'], 7, 1),
    among!(['ó', 'i', 'd', 'e', 'a', 'c', 'h'], 8, 6),
    among!(['g', 'i', 'n', 'e', 'a', 'c', 'h'], 8, 3),
    among!(['p', 'a', 't', 'a', 'c', 'h'], 7, 5),
    among!(['g', 'r', 'a', 'f', 'a', 'í', 'o', 'c', 'h'], -1, 4),
    among!(['p', 'a', 't', 'a', 'i', 'g', 'h'], -1, 5),
    among!(['ó', 'i', 'd', 'i', 'g', 'h'], -1, 6),
    among!(['a', 'c', 'h', 't', 'ú', 'i', 'l'], -1, 1),
    among!(['e', 'a', 'c', 'h', 't', 'ú', 'i', 'l'], 15, 1),
    among!(['g', 'i', 'n', 'e', 'a', 's'], -1, 3),
    among!(['g', 'i', 'n', 'i', 's'], -1, 3),
    among!(['a', 'c', 'h', 't'], -1, 1),
    among!(['a', 'r', 'c', 'a', 'c', 'h', 't'], 19, 2),
    among!(['e', 'a', 'c', 'h', 't'], 19, 1),
    among!(['g', 'r', 'a', 'f', 'a', 'í', 'o', 'c', 'h', 't'], -1, 4),
    among!(['a', 'r', 'c', 'a', 'c', 'h', 't', 'a', 'í'], -1, 2),
    among!(['g', 'r', 'a', 'f', 'a', 'í', 'o', 'c', 'h', 't', 'a', 'í'], -1, 4),
];

static A_3: [Among; 12] = [
    among!(['i', 'm', 'i', 'd'], -1, 1),
    among!(['a', 'i', 'm', 'i', 'd'], 0, 1),
    among!(['í', 'm', 'i', 'd'], -1, 1),
    among!(['a', 'í', 'm', 'i', 'd'], 2, 1),
    among!(['a', 'd', 'h'], -1, 2),
    among!(['e', 'a', 'd', 'h'], 4, 2),
    among!(['f', 'a', 'i', 'd', 'h'], -1, 1),
    among!(['f', 'i', 'd', 'h'], -1, 1),
    among!(['á', 'i', 'l'], -1, 2),
    among!(['a', 'i', 'n'], -1, 2),
    among!(['t', 'e', 'a', 'r'], -1, 2),
    among!(['t', 'a', 'r'], -1, 2),
];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct IrishStemmer {
    env: Env,
    i_p2: i32,
    i_p1: i32,
    i_pv: i32,
}

impl std::ops::Deref for IrishStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for IrishStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Irish stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = IrishStemmer { env: Env::new(word), i_p2: 0, i_p1: 0, i_pv: 0 };
    program.stem_program();
    program.env.into_string()
}

impl IrishStemmer {
    fn r_mark_regions(&mut self) -> bool {
        self.i_pv = self.limit;
        self.i_p1 = self.limit;
        self.i_p2 = self.limit;
        let v_1 = self.cursor;
        'lab0: {
            if !self.go_out_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            self.i_pv = self.cursor;
            if !self.go_in_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            self.i_p1 = self.cursor;
            if !self.go_out_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            if !self.go_in_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            self.i_p2 = self.cursor;
        }
        self.cursor = v_1;
        return true;
    }

    fn r_initial_morph(&mut self) -> bool {
        self.bra = self.cursor;
        let among_var = self.find_among(&A_0);
        if among_var == 0 {
            return false;
        }
        self.ket = self.cursor;
        if among_var == 1 {
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 2 {
            if !self.slice_from("f") {
                return false;
            }
        } else if among_var == 3 {
            if !self.slice_from("s") {
                return false;
            }
        } else if among_var == 4 {
            if !self.slice_from("b") {
                return false;
            }
        } else if among_var == 5 {
            if !self.slice_from("c") {
                return false;
            }
        } else if among_var == 6 {
            if !self.slice_from("d") {
                return false;
            }
        } else if among_var == 7 {
            if !self.slice_from("g") {
                return false;
            }
        } else if among_var == 8 {
            if !self.slice_from("p") {
                return false;
            }
        } else if among_var == 9 {
            if !self.slice_from("t") {
                return false;
            }
        } else {
            if !self.slice_from("m") {
                return false;
            }
        }
        return true;
    }

    fn r_rv(&mut self) -> bool {
        return self.i_pv <= self.cursor;
    }

    fn r_r1(&mut self) -> bool {
        return self.i_p1 <= self.cursor;
    }

    fn r_r2(&mut self) -> bool {
        return self.i_p2 <= self.cursor;
    }

    fn r_noun_sfx(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_1);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_r1() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.r_r2() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_deriv(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_2);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_r2() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 2 {
            if !self.slice_from("arc") {
                return false;
            }
        } else if among_var == 3 {
            if !self.slice_from("gin") {
                return false;
            }
        } else if among_var == 4 {
            if !self.slice_from("graf") {
                return false;
            }
        } else if among_var == 5 {
            if !self.slice_from("paite") {
                return false;
            }
        } else {
            if !self.slice_from("óid") {
                return false;
            }
        }
        return true;
    }

    fn r_verb_sfx(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_3);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_rv() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.r_r1() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn stem_program(&mut self) -> bool {
        let v_1 = self.cursor;
        self.r_initial_morph();
        self.cursor = v_1;
        self.r_mark_regions();
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        let v_3 = self.limit - self.cursor;
        self.r_noun_sfx();
        self.cursor = self.limit - v_3;
        let v_4 = self.limit - self.cursor;
        self.r_deriv();
        self.cursor = self.limit - v_4;
        let v_5 = self.limit - self.cursor;
        self.r_verb_sfx();
        self.cursor = self.limit - v_5;
        self.cursor = self.limit_backward;
        return true;
    }
}
